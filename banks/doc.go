// Package banks is the directory of the banks that run the shared
// Norwegian PSD2 interface (docs/interface.md): a host per bank, but for
// the Eika banks, which share one (one entry, id eika), the API under /api
// and the sandbox under /api-sandbox.
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
// added). The file is read strictly ([Parse]): an unknown field, a member
// given twice in one object (in any case), anything after the first JSON
// value, a sandbox URL equal to the production URL and a production URL
// under /api-sandbox (a sandbox's, such as the two URLs swapped) are
// refused with an error naming the bank or the member. So are two ids at one base URL
// (each id is a scope of its own), unless one of them is a bank of the
// directory moved there with "hostMoved": true.
//
// # One client per bank
//
// One set of credentials makes a client per bank ([Bank.NewClient],
// [Directory.Clients]). Each client's [client.Client.Scope] names the TPP,
// and the bank by its directory id and environment ([Bank.ScopeName],
// given as client.WithBank), not by its URL: the accounts budget and the
// create journal of each bank stay apart even in one shared store, and stay
// the bank's when its host moves. The Eika banks share one host (the PSU
// chooses the bank during SCA) and one entry, and so one scope.
//
// # Moving a host
//
// When a bank moves to a new host it keeps its id. Give its entry, in the
// TPP's own file, the new production and sandbox URLs and "hostMoved":
// true ([Bank.HostMoved]):
//
//	{"banks": [{"id": "sor", "name": "Sparebanken Norge", "group": "other",
//	  "production": "https://psd2.new-host.example/api",
//	  "sandbox": "https://psd2.new-host.example/api-sandbox",
//	  "hostMoved": true, "source": "the bank's notice", "verified": "2026-11"}]}
//
// Then restart with the file ([Load]). The clients of the id keep their
// scope: the without-PSU calls counted at the old host still count, and
// the journal's entries in doubt are resolved at the new host
// (journal.Journal.Resolve sends to the same path under the new base URL).
// Load refuses an entry that changes the host of a bank the directory
// holds without the flag: the id would hand that bank's budget and journal
// to whatever the new host is. A bank that is really another bank gets an
// id of its own.
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
