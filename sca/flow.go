package sca

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/loopback"
	"github.com/tppkit/psd2/internal/redact"
)

// DefaultPendingTTL is how long a started SCA waits for its callback.
const DefaultPendingTTL = 15 * time.Minute

// stateBytes is the entropy of a state value: 256 bits from crypto/rand.
const stateBytes = 32

// Flow starts SCAs for one TPP-Redirect-URI and completes them from the
// callbacks. A Flow holds no per-PSU state and is safe for concurrent use.
type Flow struct {
	redirect *url.URL
	ttl      time.Duration
	now      func() time.Time
	consent  time.Duration  // WithConsentValidity; 0: ConsentValidity
	client   *client.Client // WithClient: the clock, and Prepared.Redirect's startAuthorisation
}

// FlowOption configures a [Flow] in [NewFlow].
type FlowOption func(*Flow) error

// WithPendingTTL sets how long a started SCA waits for its callback
// (default 15 minutes; between 1 minute and 1 hour).
func WithPendingTTL(d time.Duration) FlowOption {
	return func(f *Flow) error {
		if d < time.Minute || d > time.Hour {
			return fmt.Errorf("sca: pending TTL %v is not between 1m and 1h", d)
		}
		f.ttl = d
		return nil
	}
}

// WithClient makes the Flow read the time from c's clock
// ([client.Client.Now], set with client.WithClock), the SDK's one clock,
// instead of time.Now. The time stamps Pending.CreatedAt and
// Session.SCAAt and decides expiry. With it, [Prepared.Redirect] also
// starts the authorisation itself through c when an answer carries only a
// startAuthorisation link (a bank whose payment creation answer has no
// scaRedirect).
func WithClient(c *client.Client) FlowOption {
	return func(f *Flow) error {
		if c == nil {
			return errors.New("sca: WithClient(nil)")
		}
		f.now, f.client = c.Now, c
		return nil
	}
}

// NewFlow returns a Flow whose SCAs send the PSU back to redirectURI, the
// TPP's callback address (where a web application mounts
// [Manager.HandlerFor]). It must be an absolute https URL (http only on loopback
// hosts), without a fragment and without its own state parameter: the Flow
// appends state to it.
func NewFlow(redirectURI string, opts ...FlowOption) (*Flow, error) {
	u, err := url.Parse(redirectURI)
	if err != nil || !u.IsAbs() || u.Hostname() == "" || u.User != nil || u.Opaque != "" {
		return nil, errors.New("sca: redirect URI must be an absolute URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && loopback.Host(u.Hostname()):
	default:
		return nil, errors.New("sca: redirect URI must use https (http only on loopback)")
	}
	if u.Fragment != "" || strings.HasSuffix(redirectURI, "#") {
		return nil, errors.New("sca: redirect URI must not have a fragment")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, errors.New("sca: redirect URI has an invalid query")
	}
	for _, name := range []string{paramState, paramPSUID, paramPSUCorporateID, paramTPPSessionID, paramContext,
		paramSystem, paramStatus, paramCode, paramMessage} {
		if q.Has(name) {
			return nil, fmt.Errorf("sca: redirect URI must not carry the callback parameter %q", name)
		}
	}
	if len(redirectURI) > MaxCallbackLength/2 {
		return nil, errors.New("sca: redirect URI too long")
	}
	f := &Flow{redirect: u, ttl: DefaultPendingTTL, now: time.Now}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// RedirectURI returns the TPP-Redirect-URI the Flow was made with (without
// state); "" for a nil Flow or one not made with NewFlow.
func (f *Flow) RedirectURI() string {
	if f.ready() != nil {
		return ""
	}
	return f.redirect.String()
}

// ready refuses a nil Flow or one not made with NewFlow (no redirect URI,
// no clock): a *client.ValidationError, never a panic.
func (f *Flow) ready() error {
	if f == nil || f.redirect == nil || f.now == nil {
		return &client.ValidationError{Field: "flow", Reason: "nil or not made with NewFlow"}
	}
	return nil
}

// Pending is an SCA the TPP started and whose callback it waits for. Keep
// it (in a [store.Store], see [savePending], or in the PSU's server-side web
// session) until the callback arrives, in its storage form
// ([Pending.MarshalBinary]). State is a secret shared only with the PSU's
// browser: with it and the TPP-Session-ID anyone can forge the callback.
// Every printed form of a Pending (String, GoString, LogValue,
// MarshalJSON) shows state, TPP-Session-ID and the redirect URI's query as
// [redacted].
type Pending struct {
	// Key is the TPP-chosen key the resulting Session is stored under.
	Key string `json:"key"`
	// State is the unguessable value (256 bits from crypto/rand, base64url)
	// appended to TPP-Redirect-URI; the callback must bring it back.
	State string `json:"state"`
	// TPPSessionID is the TPP-Session-ID the SCA runs in; the callback's
	// tpp-session-id must equal it.
	TPPSessionID string `json:"tppSessionId"`
	// RedirectURI is the TPP-Redirect-URI sent to the bank, with state.
	RedirectURI string `json:"redirectUri"`
	// CreatedAt is when the SCA was started.
	CreatedAt time.Time `json:"createdAt"`
	// ExpiresAt is when the Pending stops accepting a callback.
	ExpiresAt time.Time `json:"expiresAt"`
	// Consumed is set by ParseCallback once a callback with the right state
	// was handled: a Pending is single-use.
	Consumed bool `json:"consumed,omitempty"`
	// Purpose is what the SCA is for: [WithPurpose] sets it at Start, else
	// [Prepared.Redirect] from the answer that carried the scaRedirect. Only
	// [PurposeConsent] grants the AIS consent; an empty Purpose (a pending
	// SCA stored before the field existed, or one nobody told) grants
	// none ([Purpose.GrantsConsent]).
	Purpose Purpose `json:"purpose,omitempty"`
}

// StartOption adjusts one [Flow.Start].
type StartOption func(*startConfig) error

type startConfig struct {
	session      *Session
	keepSession  bool
	identity     string
	authMethod   AuthMethod
	preferredSet bool
	preferred    bool
	context      client.PSUContext
	purpose      Purpose
}

// Renew starts the SCA inside s's TPP-Session-ID, sending its PSU-ID and
// PSU-Corporate-ID: for an SCA older than an hour, or a new consent after
// choosing another agreement with [Session.WithCorporate].
func Renew(s *Session) StartOption {
	return func(c *startConfig) error {
		if err := s.Validate(); err != nil {
			return err
		}
		c.session, c.keepSession = s, true
		return nil
	}
}

// switchTo starts the SCA under a new TPP-Session-ID for the PSU of s,
// sending its PSU-ID and PSU-Corporate-ID. The old session stays valid
// until the new SCA completes, and stays valid if it is aborted
// (docs/interface.md section 3).
func switchTo(s *Session) StartOption {
	return func(c *startConfig) error {
		if err := s.Validate(); err != nil {
			return err
		}
		c.session, c.keepSession = s, false
		return nil
	}
}

// WithPSUIdentity sends X-PSU-IDENTITY, the PSU's national identity
// number, to preselect the PSU at SCA (docs/interface.md section 5.11). The number is
// personal data: it is sent once and never stored in the Pending. One
// that is empty, longer than 64 bytes or holds a control character is
// refused by [Flow.Start] with a [*client.ValidationError] that does
// not quote it.
func WithPSUIdentity(nationalID string) StartOption {
	return func(c *startConfig) error {
		if nationalID == "" || len(nationalID) > 64 || !headerSafe(nationalID) {
			// The number is not quoted: it is personal data.
			return &client.ValidationError{Field: "X-PSU-IDENTITY", Reason: "empty, longer than 64 bytes or with a control character"}
		}
		c.identity = nationalID
		return nil
	}
}

// WithAuthMethod sends X-PSU-AuthMethod-Preferred: the bank jumps to that
// SCA method when the PSU has it (docs/interface.md section 5.11).
func WithAuthMethod(m AuthMethod) StartOption {
	return func(c *startConfig) error {
		if err := m.validate(); err != nil {
			return err
		}
		c.authMethod = m
		return nil
	}
}

// WithRedirectPreferred sends TPP-Redirect-Preferred; false asks for the
// bank's mobile app biometric flow where available (docs/interface.md section 5.12).
func WithRedirectPreferred(preferred bool) StartOption {
	return func(c *startConfig) error {
		c.preferredSet, c.preferred = true, preferred
		return nil
	}
}

// WithContext sends PSU-Context (required for single-SCA payment
// initiation, docs/interface.md section 4.2). Another context than
// PRIVATE or CORPORATE is refused by [Flow.Start] with a
// [*client.ValidationError].
func WithContext(ctx client.PSUContext) StartOption {
	return func(c *startConfig) error {
		if !ctx.Valid() {
			return &client.ValidationError{Field: "PSU-Context", Reason: "must be PRIVATE or CORPORATE"}
		}
		c.context = ctx
		return nil
	}
}

// Start begins an SCA for the PSU whose session will be stored under key,
// a key [SaveSession] takes (else an error matching [store.ErrInvalidKey],
// and no SCA is started).
// It returns the Pending to keep and the request option to send on the call
// that will answer with a scaRedirect (a bank-offered consent, an account
// call, a payment, GET /v1/user): TPP-Session-ID (a new UUID unless
// [Renew]), TPP-Redirect-URI with the state appended, and the options'
// headers. Then take the link from the answer (its SCARedirect method, or
// client.SCARedirect of the error) and send the PSU there.
//
// Say what the SCA is for with [WithPurpose]: without it (and without
// [Prepared.Redirect], which works it out from the answer) the SCA is taken
// to grant no AIS consent ([Purpose.GrantsConsent]).
func (f *Flow) Start(key string, opts ...StartOption) (*Pending, client.RequestOption, error) {
	if err := f.ready(); err != nil {
		return nil, nil, err
	}
	// The key the session will be stored under is checked now, as
	// SaveSession will check it: an SCA whose session no store takes
	// would send the PSU through the bank's pages for nothing.
	if err := checkSessionKey(key); err != nil {
		return nil, nil, fmt.Errorf("sca: session key: %w", err)
	}
	var cfg startConfig
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, nil, err
		}
	}
	state, err := newState()
	if err != nil {
		return nil, nil, err
	}
	sid := uuid.NewString()
	if cfg.keepSession {
		sid = cfg.session.TPPSessionID
	}
	ru := *f.redirect
	if ru.RawQuery != "" {
		ru.RawQuery += "&"
	}
	ru.RawQuery += paramState + "=" + state
	now := f.now()
	p := &Pending{
		Key:          key,
		State:        state,
		TPPSessionID: sid,
		RedirectURI:  ru.String(),
		CreatedAt:    now,
		ExpiresAt:    now.Add(f.ttl),
		Purpose:      cfg.purpose,
	}
	ro := []client.RequestOption{client.WithTPPSessionID(sid), client.WithRedirectURI(p.RedirectURI)}
	if s := cfg.session; s != nil {
		ro = append(ro, client.WithPSU(client.PSU{ID: s.PSUID, CorporateID: s.PSUCorporateID}))
		if s.Context.Valid() {
			ro = append(ro, client.WithPSUContext(s.Context))
		}
	}
	if cfg.identity != "" {
		ro = append(ro, client.WithPSUIdentity(cfg.identity))
	}
	if cfg.authMethod != "" {
		ro = append(ro, client.WithAuthMethodPreferred(string(cfg.authMethod)))
	}
	if cfg.preferredSet {
		ro = append(ro, client.WithRedirectPreferred(cfg.preferred))
	}
	if cfg.context != "" {
		ro = append(ro, client.WithPSUContext(cfg.context))
	}
	return p, client.Combine(ro...), nil
}

// ParseCallback turns the browser's return to TPP-Redirect-URI into a
// Session, using the Flow's clock: with [Flow.Start], the way a
// command-line program or a test completes an SCA, keeping the Pending
// itself (a web application mounts [Manager.HandlerFor] instead). callbackURL is the full URL or the
// request URI (r.URL.RequestURI()).
//
// A success callback (psu-id, tpp-session-id, context, psu-corporate-id)
// gives a Session with SCAAt = now. When the Pending's Purpose grants no
// consent ([Purpose.GrantsConsent]) the Session has NoConsent set: give it
// the PSU's previous session with [Session.After] (as [Manager.HandlerFor]
// does) to keep that session's consent end and remembered accounts. A
// failure callback (any of system, status, code, message) gives a
// [*CallbackError]. A callback whose state is not
// the Pending's gives ErrStateMismatch and leaves the Pending untouched;
// any other callback with the right state marks the Pending consumed, so a
// second one gives ErrReplayed. Other refusals: ErrCallbackTooLong,
// ErrMalformedCallback, ErrSessionMismatch, ErrPendingExpired,
// ErrNoPending. It never panics.
//
// ParseCallback updates p; do not call it concurrently for one Pending
// ([Manager.HandlerFor] takes the Pending from the store atomically).
func (f *Flow) ParseCallback(p *Pending, callbackURL string) (*Session, error) {
	if err := f.ready(); err != nil {
		return nil, err
	}
	s, err := parseCallback(p, callbackURL, f.now())
	if err == nil && f.consent > 0 && !s.NoConsent {
		s.ConsentUntil = s.SCAAt.Add(f.consent)
	}
	return s, err
}

func newState() (string, error) {
	var b [stateBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("sca: reading random state: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// pendingData is the storage form of a Pending: the type without its
// methods, so encoding/json writes every field in clear.
type pendingData Pending

// UnmarshalJSON reads the storage form (what [Pending.MarshalBinary]
// writes, and what stores held before MarshalJSON redacted) and refuses
// the redacted form with [ErrRedactedForm].
func (p *Pending) UnmarshalJSON(b []byte) error {
	var d pendingData
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	if d.State == redact.Redacted || d.TPPSessionID == redact.Redacted {
		return ErrRedactedForm
	}
	*p = Pending(d)
	return nil
}

// MarshalBinary returns the storage form of the pending SCA: a JSON
// document with every field in clear, state included. [savePending] stores
// it; keep it only where the PSU's session data is kept.
func (p Pending) MarshalBinary() ([]byte, error) { return json.Marshal(pendingData(p)) }

// UnmarshalBinary reads what [Pending.MarshalBinary] wrote, including
// pending SCAs stored by earlier versions of this package.
func (p *Pending) UnmarshalBinary(b []byte) error {
	var d Pending
	if err := d.UnmarshalJSON(b); err != nil {
		return err
	}
	*p = d
	return nil
}
