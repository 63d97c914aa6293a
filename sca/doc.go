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
// # Sections
//
// Finding the link: any answer may ask for SCA — a 401 on an account call,
// a 201 payment or basket, a bank-offered consent. Every answer type has a
// SCARedirect method, and client.SCARedirect reads the link from an error;
// [Call.Redirect] takes any of them (an error, an answer, raw JSON), saves
// the pending SCA and returns the typed [Redirect].
//
// Starting and completing: a [Flow] (one per TPP-Redirect-URI) starts an
// SCA with [Flow.Start], which returns a [Pending] (the TPP-Session-ID and
// an unguessable state, appended to TPP-Redirect-URI) and the request
// options for the call. [Flow.ParseCallback] turns the browser's return
// into a Session, or into a [*CallbackError] when the PSU cancelled or SCA
// failed; forged, replayed, expired or malformed callbacks give typed
// errors ([ErrStateMismatch], [ErrReplayed], [ErrPendingExpired],
// [ErrMalformedCallback], ...).
//
// Session rules: an SCA holds for one hour within its TPP-Session-ID
// ([Session.SCAValid]); a new TPP-Session-ID replaces the old session only
// when its SCA completes; an aborted SCA keeps the old one. [Manager]
// applies these rules over a [store.Store]: [Manager.Prepare] and
// [Manager.Begin] prepare calls, [Call.Redirect] saves the pending SCA when
// the bank asks for one, [Manager.Complete] and [Manager.Handler] (an
// http.Handler to mount at the redirect URI) finish it. A web application
// binds the callback to the browser that started the SCA with
// [Manager.HandlerFor] or [Manager.CompleteFor]: a callback brought by
// another user's browser gets [ErrWrongBrowser] and completes nothing.
//
// Storage: sessions and pending SCAs live in a [store.Store], the SDK's
// one state interface, which also holds the client's without-PSU budget
// and the payment journal: store.MemoryStore in one process,
// store.FileStore (atomic replace, files 0600 in a 0700 directory, crash
// safe) on one machine, or the PostgreSQL store of module
// github.com/tppkit/psd2/pgstore shared by every replica. [SaveSession],
// [LoadSession], [DeleteSession], [SavePending] and [TakePending] are the
// typed helpers. A pending SCA is saved with a time to live (its validity
// and an hour), so the store forgets the SCAs of PSUs who never return,
// and it is taken once ([store.Store] Take): a callback that reaches any
// replica completes the SCA, a replayed one gets [ErrNoPending]. Keys
// that look like paths escaping the store ("..", a leading "/",
// backslashes, control characters) are refused with an error matching
// store.ErrInvalidKey.
//
// Background refresh: a Session remembers the ids of the accounts the PSU
// consented to ([Session.WithAccounts], filled by package refresh's
// Remember while listing is allowed) and when the consent ends
// ([Session.ConsentExpiresAt], [Session.ConsentRenewalDue]);
// [ListSessions] and [Manager.Sessions] go through the stored sessions.
//
// Consent: only the consent flow's SCA grants the AIS consent, for
// [ConsentValidity] (90 days) or the bank's own figure given with
// [WithConsentValidity]; a 401 CONSENT_EXPIRED before that end is learned
// with [Session.LearnConsentEnd]. The SCA of a payment, a basket or GET /v1/user grants none
// (docs/interface.md section 5.10). A [Pending] records what its SCA is
// for ([Purpose]): [Call.Redirect] works it out from the answer that
// carried the link, [WithPurpose] says it explicitly. [Manager.Complete]
// gives a consent SCA a fresh validity (the accounts are listed again) and
// makes any other SCA keep the consent end and the remembered accounts of
// the same PSU's previous session ([Session.After]); a PSU without one has
// no consent ([Session.NoConsent]).
//
// Corporate users: accounts.Service.Agreements lists the agreements (GET /v1/agreements)
// and [Session.WithCorporate] / [Manager.UseAgreement] set PSU-Corporate-ID.
// A PISP starts SCA and learns the corporate id with [User] (GET /v1/user).
//
// Streamlining: [WithPSUIdentity] (X-PSU-IDENTITY), [WithAuthMethod]
// (X-PSU-AuthMethod-Preferred, see [AuthMethod]) and
// [WithRedirectPreferred] (TPP-Redirect-Preferred) adjust [Flow.Start].
//
// Privacy: PSU-ID, PSU-Corporate-ID, national identity numbers and the
// state never appear in error strings, and the package logs nothing.
//
// Assumptions, where docs/interface.md (section 10 included) is silent, each kept in
// one named place: the values of the two provider SCA methods
// ([AuthMethodBankIDMobile], [AuthMethodBankID]); the answer of GET
// /v1/agreements (accounts.Agreement) and of GET /v1/user ([User]); how long a
// started SCA waits for its callback ([DefaultPendingTTL]); that an SCA
// of unknown purpose never extends a consent the SDK knows of, and is the
// consent flow for a PSU without one ([Purpose.GrantsConsent]).
package sca
