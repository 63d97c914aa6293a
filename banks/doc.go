// Package banks is the directory of the banks that run the shared
// Norwegian PSD2 interface (docs/interface.md): one host per bank, the API
// under /api and the sandbox under /api-sandbox.
//
// # The directory
//
// [Default] is the directory the SDK ships, as data (banks.json) gathered
// from public sources: each [Bank] has a stable id, its name, its [Group]
// (SpareBank 1, Eika, the others), its production and sandbox base URLs,
// notes such as an announced exit from the platform, the source of the
// entry and the date it was last verified. None of it was verified against
// a live bank by the SDK. Look a bank up with [Directory.Lookup] and list
// them with [Directory.All].
//
// A TPP overrides or extends the directory from its own JSON file, in the
// same form, without a new SDK release: [Load] reads it over the default
// ([Directory.Merge]: an entry replaces the one with its id, a new id is
// added).
//
// # One client per bank
//
// One set of credentials makes a client per bank ([Bank.NewClient],
// [Directory.Clients]). Each client's [client.Client.Scope] names the TPP
// and the bank's base URL, so the accounts budget and the payments journal
// of each bank stay apart even in one shared store. The Eika banks share
// one host (the PSU chooses the bank during SCA) and so one scope.
//
// # Consent validity
//
// How long a consent lasts is a fact of each bank: [Bank.ConsentValidity]
// is the entry's consentDays, else [DefaultConsentValidity] (90 days).
// Give it to the bank's [sca.Flow] with [sca.WithConsentValidity]; a
// bank that ends a consent early is learned from its answer with
// [sca.Session.LearnConsentEnd].
// It is distinct from the hour after SCA in which accounts may be listed
// ([sca.SCAValidity]) and from the 180-day rule for reading transactions
// without the PSU ([github.com/tppkit/psd2/accounts.OnlineSCARecency]).
//
// # Testing against several banks
//
// The emulator serves several banks at once ([github.com/tppkit/psd2/sandbox/emulator.NewMultiBank]), one
// host name each, all on loopback.
package banks
