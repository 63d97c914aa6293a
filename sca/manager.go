package sca

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
	"github.com/tppkit/psd2/internal/storebound"
	"github.com/tppkit/psd2/store"
)

// Manager keeps PSU sessions and pending SCAs in one [store.Store] and applies
// the session rules of docs/interface.md section 3:
//
//   - an SCA holds for one hour within its TPP-Session-ID;
//   - starting an SCA under a new TPP-Session-ID ([Manager.Begin]) leaves
//     the PSU's current session stored and in use;
//   - only a successful callback ([Manager.HandlerFor]) replaces it, which is
//     when the bank invalidates the old TPP-Session-ID;
//   - a failed or aborted SCA leaves the old session in place.
//
// Each of its calls of the store waits at most 10 s, however long the
// caller's context lasts: a slow or hung database ends the call with an
// error matching context.DeadlineExceeded, never holds it for ever.
//
// A Manager is safe for concurrent use.
type Manager struct {
	flow  *Flow
	store store.Store
	// st is store with each call bounded by storeWait: the store the
	// Manager's calls use.
	st storebound.Store
}

// storeWait bounds each of a Manager's calls of its store (see
// storebound.Store), whatever the caller's context: a slow or hung
// database ends a call (Session, Prepare, Begin, UseAgreement, Sessions'
// wait for each session, saving a pending SCA) with an error matching
// context.DeadlineExceeded after it, never holds it for ever, even on a
// context without a deadline. A caller's earlier deadline still ends it
// sooner.
const storeWait = 10 * time.Second

// NewManager returns a Manager starting SCAs with flow and keeping
// sessions and pending SCAs in st. Replicas of a TPP's service that
// share st (a PostgreSQL store, a FileStore on a shared disk) share the
// sessions, and a callback that lands on any of them completes the SCA
// another one started.
func NewManager(flow *Flow, st store.Store) (*Manager, error) {
	if flow == nil || st == nil {
		return nil, errors.New("sca: NewManager needs a flow and a store")
	}
	return &Manager{flow: flow, store: st, st: storebound.Store{Store: st, Wait: storeWait}}, nil
}

// errNoManager refuses the calls of a nil Manager or one not made with
// NewManager (no flow or no store): a *client.ValidationError, never a
// panic.
func errNoManager() error {
	return &client.ValidationError{Field: "manager", Reason: "nil or not made with NewManager"}
}

// ready reports errNoManager for a Manager that cannot work.
func (m *Manager) ready() error {
	if m == nil || m.flow == nil || m.store == nil {
		return errNoManager()
	}
	return m.flow.ready()
}

// Flow returns the Manager's Flow (nil for a nil Manager).
func (m *Manager) Flow() *Flow {
	if m == nil {
		return nil
	}
	return m.flow
}

// Store returns the Manager's store (nil for a nil Manager).
func (m *Manager) Store() store.Store {
	if m == nil {
		return nil
	}
	return m.store
}

// Session returns the PSU's current session stored under key, or an error
// matching [store.ErrNotStored].
func (m *Manager) Session(ctx context.Context, key string) (*Session, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	return LoadSession(ctx, m.st, key)
}

// Prepared is one bank call prepared by [Manager.Prepare] or
// [Manager.Begin]: the request options to send and the SCA to start if the
// bank answers with a scaRedirect. (It is not a client.Call, the client's
// resolved description of an operation.)
type Prepared struct {
	// Options identify the PSU session and carry TPP-Redirect-URI with a
	// fresh state. Send them on the call (add client.WithPSU with the PSU's
	// IP address when the PSU is present, if not passed to Prepare).
	Options client.RequestOption
	// Session is the session the call runs in, nil when the PSU has none
	// yet.
	Session *Session
	// Pending is the SCA the call starts if the bank asks for one.
	Pending *Pending

	m *Manager
	// saved is set once Redirect saved Pending: its state was sent to
	// the bank and may have been used since.
	saved bool
}

// Prepare returns the options for a call in the PSU's current session
// stored under key: PSU-ID, PSU-Corporate-ID, TPP-Session-ID and
// TPP-Redirect-URI (the bank needs it on every call, docs/interface.md section 5.8). When
// the PSU has no session yet, or the stored one cannot be read (an error
// matching [ErrUndecodableSession] or [ErrInvalidSession] from
// [Manager.Session]), it prepares a first SCA under a new
// TPP-Session-ID. present carries the PSU's request data (IP address...)
// when the PSU is actively present, nil otherwise (docs/interface.md section 5.14).
//
// After the call, pass its answer or error to [Prepared.Redirect]: when the
// bank asks for SCA (the hour passed, the consent expired), the pending SCA
// is saved and the PSU is to be sent to the returned link.
func (m *Manager) Prepare(ctx context.Context, key string, present *client.PSU, opts ...StartOption) (*Prepared, error) {
	sess, err := m.current(ctx, key)
	if err != nil {
		return nil, err
	}
	if sess != nil {
		opts = append([]StartOption{Renew(sess)}, opts...)
	}
	return m.start(key, sess, present, opts)
}

// Begin prepares a call that starts an SCA under a new TPP-Session-ID for
// the PSU stored under key (for example a bank-offered consent, or GET
// /v1/user for a PISP). The PSU's current session, if any, stays stored and
// valid until the new SCA completes (docs/interface.md section 3); its PSU-ID and
// PSU-Corporate-ID are sent on the call.
func (m *Manager) Begin(ctx context.Context, key string, present *client.PSU, opts ...StartOption) (*Prepared, error) {
	sess, err := m.current(ctx, key)
	if err != nil {
		return nil, err
	}
	if sess != nil {
		opts = append([]StartOption{switchTo(sess)}, opts...)
	}
	return m.start(key, sess, present, opts)
}

// current returns the session Prepare and Begin start from: the PSU's
// stored session, or nil when there is none or the stored one cannot be
// read (ErrUndecodableSession, ErrInvalidSession: garbled, or written by a
// newer version). The PSU then goes through a first SCA again, whose
// callback replaces the unreadable session, as [Manager.HandlerFor] does
// for any session with nothing valid to carry over. A store's error is
// returned.
func (m *Manager) current(ctx context.Context, key string) (*Session, error) {
	sess, err := m.Session(ctx, key)
	switch {
	case errors.Is(err, store.ErrNotStored), errors.Is(err, ErrUndecodableSession), errors.Is(err, ErrInvalidSession):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return sess, nil
}

func (m *Manager) start(key string, sess *Session, present *client.PSU, opts []StartOption) (*Prepared, error) {
	p, ro, err := m.flow.Start(key, opts...)
	if err != nil {
		return nil, err
	}
	if present != nil {
		psu := *present
		psu.ID, psu.CorporateID = "", ""
		if sess != nil {
			psu.ID, psu.CorporateID = sess.PSUID, sess.PSUCorporateID
		}
		ro = client.Combine(ro, client.WithPSU(psu))
	}
	return &Prepared{Options: ro, Session: sess, Pending: p, m: m}, nil
}

// Redirect looks for a scaRedirect in the call's answer or error (see
// the package documentation). When there is one, it saves the call's pending SCA so that the
// callback can complete it, and returns the link to send the PSU to. It
// reports false, with nothing saved, when the answer needs no SCA.
//
// An answer with a startAuthorisation link and no scaRedirect (a payment
// creation at a bank that leaves the start to the TPP, as the platform
// was recorded doing) needs SCA all the same: Redirect starts the
// authorisation with POST on that link, through the client given to the
// Flow with [WithClient] and with the call's Options (the same state,
// PSU-ID and TPP-Session-ID), and returns the scaRedirect of its answer.
// Without a client it returns [ErrStartAuthorisation]. The POST is sent
// once: after an answer that may have reached the bank the error matches
// client.ErrOutcomeUnknown, and the caller may start it again.
//
// Unless [WithPurpose] set it, Redirect records in the pending SCA what the
// SCA is for, worked out from the answer ([Pending.Purpose]): the error of
// an account call or an accounts.Consent is the consent flow
// ([PurposeConsent]), a payment's or basket's answer or error
// [PurposePayment], the link of [User] or of GET /v1/agreements
// [PurposeIdentify]; raw JSON and links are [PurposeUnknown]. The returned
// Redirect carries the purpose recorded.
//
// A Prepared starts one SCA: its state is usable once. Redirect may save
// the same pending SCA again while it waits for its callback, but once a
// callback took it (or the store forgot it after it expired), a later
// answer of a call made with the same Options gets an error matching
// [ErrReplayed] and nothing is saved: prepare the call again.
func (c *Prepared) Redirect(ctx context.Context, answer any) (Redirect, bool, error) {
	if c == nil || c.Pending == nil {
		return Redirect{}, false, &client.ValidationError{Field: "prepared", Reason: "nil or not made by Manager.Prepare or Manager.Begin"}
	}
	if err := c.m.ready(); err != nil {
		return Redirect{}, false, err
	}
	r, ok := find(answer)
	if !ok {
		href := startAuthorisationLink(answer)
		if href == "" {
			return Redirect{}, false, nil
		}
		if c.saved {
			// The POST would carry a state that may be used up.
			if err := pendingStored(ctx, c.m.st, c.Pending); err != nil {
				return Redirect{}, false, err
			}
		}
		var err error
		if r, err = c.startAuthorisation(ctx, href, purposeOf(answer)); err != nil {
			return Redirect{}, false, err
		}
	}
	if c.Pending.Purpose == PurposeUnknown {
		c.Pending.Purpose = r.Purpose
	}
	r.Purpose = c.Pending.Purpose
	save := savePending
	if c.saved {
		// Saved before: its state went to the bank, and a callback may
		// have taken it since. Saving it again would make that state,
		// and the callback URL that used it, complete a second SCA.
		save = resavePending
	}
	if err := save(ctx, c.m.st, c.Pending); err != nil {
		return Redirect{}, false, err
	}
	c.saved = true
	return r, true, nil
}

// ErrWrongBrowser is the error [Manager.HandlerFor] gives when the
// callback is brought by another PSU (or a browser with no session) than
// the one whose key started the SCA: for example a victim who approved, in
// her own browser, a bank link an attacker started and sent her. The
// pending SCA is used up (neither browser can complete it any more),
// nothing is stored under either key, and the PSU's current session, if
// any, stays as it was.
var ErrWrongBrowser = errors.New("sca: SCA callback brought by another browser than the one that started it")

// completeStoreWait bounds each of a callback's store calls (taking the
// pending SCA, storing the session), whatever the request's context: a
// slow or hung database ends the callback with an error after it, never
// holds it for ever.
const completeStoreWait = 10 * time.Second

// complete handles the browser's return to TPP-Redirect-URI: it takes the
// pending SCA named by the callback's state from the store (once: a second
// callback gives ErrNoPending), checks that it was started under key (the
// session key of the browser that brought the callback, see
// [Manager.HandlerFor]; ErrWrongBrowser otherwise, with the pending SCA
// used up and nothing stored), parses the callback and, on success, stores
// the new Session under key, replacing the PSU's old session
// (docs/interface.md section 3). On failure ([*CallbackError] for a failed
// or cancelled SCA) the old session is kept.
//
// The new session's consent depends on what the SCA was for
// ([Pending.Purpose]): the consent flow's SCA grants a fresh
// [ConsentValidity] and the accounts are to be listed again; a payment's
// or GET /v1/user's grants no consent, so the new session keeps the old
// one's consent end and remembered accounts when it is the same PSU
// ([Session.After]), and has none ([Session.NoConsent]) otherwise
// (docs/interface.md section 5.10). An SCA of unknown purpose never
// extends a consent the same PSU's previous session had (it keeps that
// end and the accounts); without such a session it counts as the consent
// flow ([Purpose.GrantsConsent]).
//
// Binding the SCA to the browser that started it is what OAuth does with
// its state: without it, a PSU who approves a bank link someone else
// started would connect her accounts to that other person's session.
func (m *Manager) complete(ctx context.Context, key, callbackURL string) (*Session, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	state, err := callbackState(callbackURL)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, completeStoreWait)
	p, err := takePending(tctx, m.st, state)
	cancel()
	if err != nil {
		return nil, err
	}
	if key == "" || subtle.ConstantTimeCompare([]byte(key), []byte(p.Key)) != 1 {
		// Taken above: the SCA is used up for both browsers.
		return nil, ErrWrongBrowser
	}
	parsed, err := m.flow.ParseCallback(p, callbackURL)
	if err != nil {
		return nil, err
	}
	// The previous session is read and the new one stored in one atomic
	// step: a session another callback stores meanwhile (a consent SCA
	// completing on another replica) is carried over, never overwritten
	// by one made from the session it replaced. The pending SCA is used
	// up: the session is written even when the callback's request has
	// ended meanwhile (the browser gave up), within completeStoreWait,
	// so that an SCA the PSU approved is not lost with it.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), completeStoreWait)
	defer cancel()
	sess, err := updateSession(sctx, m.st, p.Key, func(prev *Session, loadErr error) (*Session, error) {
		if !parsed.NoConsent && p.Purpose.valid() {
			return parsed, nil
		}
		switch {
		case loadErr == nil:
		case errors.Is(loadErr, store.ErrNotStored), errors.Is(loadErr, ErrInvalidSession), errors.Is(loadErr, ErrUndecodableSession):
			// Nothing valid to carry over: it is about to be replaced.
			prev = nil
		default:
			return nil, fmt.Errorf("sca: reading the previous session: %w", loadErr)
		}
		return parsed.afterUnknown(prev), nil
	})
	if err != nil {
		return nil, fmt.Errorf("sca: storing session: %w", err)
	}
	return sess, nil
}

// SCAValid reports whether the PSU under key has a session whose SCA still
// holds at now (see [Session.SCAValid]).
func (m *Manager) SCAValid(ctx context.Context, key string, now time.Time) (bool, error) {
	s, err := m.Session(ctx, key)
	if errors.Is(err, store.ErrNotStored) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return s.SCAValid(now), nil
}

// UseAgreement sets PSU-Corporate-ID of the session under key to
// agreementID (one listed by accounts.Service.Agreements) and stores it (docs/interface.md section 5.10). The
// next call may answer with a scaRedirect: a consent for that agreement,
// handled like any other through [Prepared.Redirect].
func (m *Manager) UseAgreement(ctx context.Context, key, agreementID string) (*Session, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	// One atomic read-modify-write: a session a callback stores meanwhile
	// gets the agreement, instead of being replaced by the older one.
	return updateSession(ctx, m.st, key, func(s *Session, loadErr error) (*Session, error) {
		if loadErr != nil {
			return nil, loadErr
		}
		return s.WithCorporate(agreementID)
	})
}

// ErrStartAuthorisation is the error of [Prepared.Redirect] for an answer
// that carries only a startAuthorisation link when the Flow has no client
// to start it with ([WithClient]).
var ErrStartAuthorisation = errors.New("sca: the answer has only a startAuthorisation link; give the Flow a client (WithClient) to start the SCA")

// startAuthorisation starts the SCA of a startAuthorisation link through
// the Flow's client, with the call's options, and returns the
// scaRedirect of the answer, with purpose. The interface names 201 for
// it (docs/interface.md section 10 "Paths"): another 2xx status is a
// *client.UnexpectedStatusError inside a *client.OutcomeUnknownError.
func (c *Prepared) startAuthorisation(ctx context.Context, href string, purpose Purpose) (Redirect, error) {
	cl := c.m.flow.client
	if cl == nil {
		return Redirect{}, ErrStartAuthorisation
	}
	var body json.RawMessage
	// A corporate user's request without PSU-Corporate-ID gets 400
	// (docs/interface.md sections 5.10 and 7): refused before sending.
	_, err := cl.Do(ctx, client.Operation{Name: "sca.StartAuthorisation", Method: http.MethodPost, Path: href, ResultID: "scaStatus",
		Statuses: []int{http.StatusCreated}, Require: []string{"TPP-Session-ID"}, // the SCA's session (payments' StartAuthorisation)
		Validate: func(call *client.Call) error { return servicecall.CheckCorporateContext(call.Header) }}, &body, c.Options)
	if err != nil {
		return Redirect{}, err
	}
	r, ok := find(body)
	if !ok {
		return Redirect{}, fmt.Errorf("sca: the answer of startAuthorisation has no scaRedirect: %w", client.ErrUnusableAnswer)
	}
	r.Purpose = purpose
	return r, nil
}

// startAuthorisationLink returns the startAuthorisation href of an answer
// of the bank: client.Links, or a struct (or pointer to one) with a
// Links field of type client.Links, as the SDK's answer types have; ""
// for anything else.
func startAuthorisationLink(v any) string {
	switch x := v.(type) {
	case client.Links:
		return x.Href(client.LinkStartAuthorisation)
	case *client.Links:
		if x != nil {
			return x.Href(client.LinkStartAuthorisation)
		}
		return ""
	case error:
		return "" // an error answer starts nothing
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return ""
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return ""
	}
	f := rv.FieldByName("Links")
	if !f.IsValid() || !f.CanInterface() {
		return ""
	}
	l, ok := f.Interface().(client.Links)
	if !ok {
		return ""
	}
	return l.Href(client.LinkStartAuthorisation)
}
