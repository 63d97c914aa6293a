// Package emulator is an in-process bank sandbox for tests, in the spirit
// of net/http/httptest: an HTTPS server on the loopback interface that
// speaks the interface of docs/interface.md with the paths and JSON
// shapes of the shared Norwegian PSD2 platform, checks every request the
// way the bank does (signature, Digest, Date, required headers, bodies),
// and runs the whole SCA, consent, account, payment and signing-basket
// life cycle in memory. It imports only the signing, money and date packages
// and its own internals: it checks the wire, not the SDK.
//
// docs/emulator.md is the how-to: every rule the emulator checks, the
// sandbox data, payments and baskets, settlement, each scenario control, the control
// API with a curl example per control, outages, bank profiles and several
// banks at once.
//
// # The bank
//
// [NewServer] starts a bank; [Server.URL] is its API base, [Server.Client]
// trusts its certificate authority, and [Server.NewTPP] issues a TPP
// certificate it trusts:
//
//	s := emulator.NewServer()
//	defer s.Close()
//	creds, _ := s.NewTPP("My TPP")
//	c, _ := client.New(s.URL, creds, client.WithHTTPClient(s.Client()))
//
// Options ([WithClock], [WithKnownIssues], [WithLimits], [WithTimeouts],
// [WithResponseSigning], [WithProfile]...) set it up. A new bank holds the
// default customers [CustomerKari], [CustomerOla], [CustomerFjordlys] and
// [CustomerTestfirma]; [Server.Handler] mounts it in a server of your own.
//
// # Scenario controls
//
// [Server.Control] returns the bank's [Controls]: completing or
// cancelling an SCA as a PSU ([Controls.Authorize], [Controls.Reject]),
// seeding many PSUs at once ([Controls.Seed]), what a bank does between
// two reads (id churn, pending to booked, re-consent, revoked consent,
// roles, removed payment permission, the 180-day rule), the payment batch
// ([Controls.RunBatch]), faults and outages over a time span
// ([Controls.InjectFault], [Controls.Outage]), and the bank's clock
// ([Controls.Advance], [Controls.Freeze]).
//
// An executed payment is booked on both accounts when both are in the
// sandbox, the credit echoing the payment's KID, text and end-to-end id;
// [Controls.SetSettlement] (a late credit, a fee deducted, a return),
// [Controls.UnrelatedCredit] and [Controls.Twin] play what code that
// reconciles payments with credits must cope with (package date gives the
// banking days).
//
// # Control API
//
// [Server.ControlHandler] serves the same controls as JSON over HTTP,
// behind a bearer token, for tests in any language; `psd2 emulator
// -control ADDR` runs it on a loopback listener of its own (the bank's
// listener never serves a control), and `psd2 emulator ctl` calls it from
// a shell.
//
// # Several banks
//
// [NewMultiBank] serves several banks at once, each with data of its own
// (no two banks share an account), a [Profile] and a loopback port of its
// own, all trusting one TPP certificate ([MultiBank.NewTPP]);
// [MultiBank.DirectoryJSON] describes them as a bank directory (package
// banks) pointing at the emulator.
package emulator
