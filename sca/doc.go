// Package sca drives Strong Customer Authentication by redirect and keeps
// the PSU sessions it produces (docs/interface.md sections 3, 5.8 to 5.14 and 6;
// docs/interface.md section 10 "Session model").
//
// There is no consent id on this platform. After SCA the bank sends the
// PSU's browser back to TPP-Redirect-URI with psu-id, tpp-session-id,
// context and, for a corporate user, psu-corporate-id; later calls send
// them as PSU-ID, TPP-Session-ID and PSU-Corporate-ID. A [Session] holds
// them with the time of the SCA.
//
// # Finding the link
//
// Any answer may ask for SCA: a 401 on an account call, a 201 payment or
// basket, a bank-offered consent. Every answer type has a SCARedirect
// method, and client.SCARedirect reads the link from an error;
// [Prepared.Redirect] takes any of them (an error, an answer, raw JSON),
// saves the pending SCA and returns the typed [Redirect].
//
// # Completing an SCA in a web application
//
// A [Manager] keeps the PSUs' sessions and pending SCAs in a [store.Store]
// and applies the session rules: an SCA holds for one hour within its
// TPP-Session-ID ([Session.SCAValid]); a new TPP-Session-ID replaces the
// old session only when its SCA completes; an aborted SCA keeps the old
// one. There is one way to use it:
//
//  1. Prepare every bank call in the PSU's session with
//     [Manager.Prepare] ([Manager.Begin] for an SCA under a new
//     TPP-Session-ID, such as a bank-offered consent) and send the
//     call's Options.
//  2. Pass the call's answer or error to [Prepared.Redirect]: when the bank
//     asks for SCA, it saves the pending SCA (the TPP-Session-ID and an
//     unguessable state, appended to TPP-Redirect-URI) and returns the
//     link to send the PSU's browser to.
//  3. Mount [Manager.HandlerFor] at the redirect URI. When the bank sends
//     the browser back, it completes the SCA only for the browser (the
//     login session) that started it, stores the new [Session] and calls
//     your continuation; a callback brought by another browser gets
//     [ErrWrongBrowser] and completes nothing. Its key must come from an
//     authenticated, server-issued session, renewed when the SCA
//     completes (the site of examples/webapp shows how).
//
// Forged, replayed, expired or malformed callbacks give typed errors
// ([ErrStateMismatch], [ErrNoPending], [ErrPendingExpired],
// [ErrMalformedCallback], ...); a cancelled or failed SCA a
// [*CallbackError].
//
// # Completing an SCA in a command-line program or a test
//
// Without a browser session, a [Flow] (one per TPP-Redirect-URI) is
// enough: [Flow.Start] returns a [Pending] and the request options for
// the call that starts the SCA; after the PSU approved at the bank,
// [Flow.ParseCallback] turns the callback URL into a Session, or into a
// [*CallbackError]. Keep the Pending yourself (in memory, or with its
// MarshalBinary); keep the sessions with [SaveSession] and [LoadSession]
// if you need them later.
//
// # Storage
//
// Sessions and pending SCAs live in a [store.Store], the SDK's one state
// interface, which also holds the client's without-PSU budget and the
// payment journal: store.MemoryStore in one process, store.FileStore
// (atomic replace, files 0600 in a 0700 directory, crash safe) on one
// machine, or the PostgreSQL store of module github.com/tppkit/psd2/pgstore
// shared by every replica, so that a callback reaching any replica
// completes the SCA another one started. [SaveSession] and [LoadSession]
// are the typed helpers. A pending SCA is saved with a time to live (its
// validity and an hour), so the store forgets the SCAs of PSUs who never
// return, and it is taken once ([store.Store] Take): a replayed callback
// gets [ErrNoPending]. Keys that look like paths escaping the store
// ("..", a leading "/", backslashes, control characters) are refused with
// an error matching store.ErrInvalidKey.
//
// # Background refresh
//
// A Session remembers the ids of the accounts the PSU
// consented to ([Session.WithAccounts], filled by package refresh's
// Remember while listing is allowed) and when the consent ends
// ([Session.ConsentExpiresAt], [Session.ConsentRenewalDue]);
// [ListSessions] and [Manager.Sessions] go through the stored sessions.
//
// # Consent
//
// Only the consent flow's SCA grants the AIS consent, for
// [ConsentValidity] (90 days) or the bank's own figure given with
// [WithConsentValidity]; a 401 CONSENT_EXPIRED before that end, or a 403
// CONSENT_UNKNOWN (the PSU revoked the consent), is learned with
// [Session.LearnConsentEnd] and stored with [StoreConsentEnd], which keeps
// a session a re-consent stored meanwhile. The SCA of a payment, a basket or GET
// /v1/user grants none (docs/interface.md section 5.10). A [Pending]
// records what its SCA is for ([Purpose]): [Prepared.Redirect] works it out
// from the answer that carried the link, [WithPurpose] says it explicitly.
// [Manager.HandlerFor] gives a consent SCA a fresh validity (the accounts
// are listed again) and
// makes any other SCA keep the consent end and the remembered accounts of
// the same PSU's previous session ([Session.After]); a PSU without one has
// no consent ([Session.NoConsent]).
//
// # Corporate users
//
// The agreements of a corporate user are listed by
// accounts.Service.Agreements (GET /v1/agreements), and [Session.WithCorporate] / [Manager.UseAgreement] set PSU-Corporate-ID.
// A PISP starts SCA and learns the corporate id with [User] (GET /v1/user).
// Until a session in CORPORATE context has a PSU-Corporate-ID, the
// account reads other than Agreements, the payment calls and the
// payment authorisations made with its [Session.RequestOptions] are
// refused before they are sent, as the bank would refuse them
// (docs/interface.md sections 5.10 and 7).
//
// # Streamlining
//
// [WithPSUIdentity] (X-PSU-IDENTITY), [WithAuthMethod]
// (X-PSU-AuthMethod-Preferred, see [AuthMethod]) and
// [WithRedirectPreferred] (TPP-Redirect-Preferred) adjust [Flow.Start].
//
// # Privacy
//
// PSU-ID, PSU-Corporate-ID, national identity numbers and the
// state never appear in error strings, and the package logs nothing.
//
// # Assumptions
//
// Where docs/interface.md (section 10 included) is silent, the package
// assumes, each in one named place: the values of the two provider SCA methods
// ([AuthMethodBankIDMobile], [AuthMethodBankID]); the answer of GET
// /v1/agreements (accounts.Agreement) and of GET /v1/user ([User]); how long a
// started SCA waits for its callback ([DefaultPendingTTL]); that an SCA
// of unknown purpose never extends a consent the SDK knows of, and is the
// consent flow for a PSU without one ([Purpose.GrantsConsent]).
package sca
