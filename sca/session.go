package sca

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/tppkit/psd2/client"
)

// SCAValidity is how long an SCA holds within one TPP-Session-ID
// (SERVICE.md 3 and 8). After it, the bank asks for SCA again.
const SCAValidity = time.Hour

// ConsentValidity is how long a consent granted at SCA lasts (PLATFORM.md
// "Session model"); after it an AIS call answers 401 with a scaRedirect.
const ConsentValidity = 90 * 24 * time.Hour

// PSUContext is the context the PSU acts in, chosen during SCA (SERVICE.md
// 1.9 and 6).
type PSUContext string

// The two contexts of the callback's context parameter.
const (
	// Private: the PSU's own accounts.
	Private PSUContext = "PRIVATE"
	// Corporate: accounts of an agreement the PSU was granted access to;
	// calls need PSU-Corporate-ID (SERVICE.md 5.10).
	Corporate PSUContext = "CORPORATE"
)

// Valid reports whether c is PRIVATE or CORPORATE.
func (c PSUContext) Valid() bool { return c == Private || c == Corporate }

// Session is a PSU's session after a completed SCA: the ids the bank's
// redirect returned (SERVICE.md 5.9, 6) and the time of the SCA. It is
// plain data; keep it in a [Store] with [SaveSession] and send it on later
// calls with [Session.RequestOptions].
//
// PSU-ID and PSU-Corporate-ID are personal data: never log a Session.
type Session struct {
	// Key is the TPP-chosen key the session is stored under (for example
	// the TPP's own user id); empty when the session was never stored.
	Key string `json:"key,omitempty"`
	// PSUID is the psu-id of the redirect, a UUID unique per TPP and bank.
	PSUID string `json:"psuId"`
	// PSUCorporateID is the psu-corporate-id (the chosen agreement) in
	// CORPORATE context, else empty.
	PSUCorporateID string `json:"psuCorporateId,omitempty"`
	// TPPSessionID is the TPP-Session-ID the SCA completed in.
	TPPSessionID string `json:"tppSessionId"`
	// Context is PRIVATE or CORPORATE.
	Context PSUContext `json:"context"`
	// SCAAt is when the SCA completed (when the callback was accepted).
	SCAAt time.Time `json:"scaAt"`
}

// ErrInvalidSession is returned when a Session lacks a valid PSU-ID or
// TPP-Session-ID, or a corporate id is not a UUID.
var ErrInvalidSession = errors.New("sca: invalid session")

// Validate checks the fields a call needs: PSU-ID a UUID, a TPP-Session-ID,
// a known context, and PSU-Corporate-ID a UUID when set.
func (s *Session) Validate() error {
	switch {
	case s == nil:
		return fmt.Errorf("%w: nil", ErrInvalidSession)
	case !isUUID(s.PSUID):
		return fmt.Errorf("%w: PSU-ID is not a UUID", ErrInvalidSession)
	case s.TPPSessionID == "" || !headerSafe(s.TPPSessionID) || len(s.TPPSessionID) > maxParamLen:
		return fmt.Errorf("%w: TPP-Session-ID missing or invalid", ErrInvalidSession)
	case !s.Context.Valid():
		return fmt.Errorf("%w: context is not PRIVATE or CORPORATE", ErrInvalidSession)
	case s.PSUCorporateID != "" && !isUUID(s.PSUCorporateID):
		return fmt.Errorf("%w: PSU-Corporate-ID is not a UUID", ErrInvalidSession)
	case s.Context == Private && s.PSUCorporateID != "":
		return fmt.Errorf("%w: PSU-Corporate-ID in PRIVATE context", ErrInvalidSession)
	}
	return nil
}

// SCAValid reports whether the session's SCA is less than [SCAValidity]
// old at now, so calls needing SCA (listing accounts, full transaction
// history) go through without sending the PSU to the bank again
// (SERVICE.md 3). A session without an SCA time is not valid.
func (s *Session) SCAValid(now time.Time) bool {
	if s == nil || s.SCAAt.IsZero() {
		return false
	}
	return now.Before(s.SCAExpiresAt())
}

// SCAExpiresAt is when the session's SCA stops holding.
func (s *Session) SCAExpiresAt() time.Time { return s.SCAAt.Add(SCAValidity) }

// NeedsCorporateID reports whether the session is CORPORATE but has no
// PSU-Corporate-ID yet: list the agreements ([Agreements]) and choose one
// with [Session.WithCorporate] before calling (a corporate user without
// PSU-Corporate-ID gets 400, SERVICE.md 5.10).
func (s *Session) NeedsCorporateID() bool {
	return s != nil && s.Context == Corporate && s.PSUCorporateID == ""
}

// WithCorporate returns a copy of s in CORPORATE context with
// PSU-Corporate-ID set to agreementID (an id listed by [Agreements]). The
// bank may then answer with a scaRedirect: a new consent for that agreement
// (SERVICE.md 5.10).
func (s *Session) WithCorporate(agreementID string) (*Session, error) {
	if s == nil {
		return nil, fmt.Errorf("%w: nil", ErrInvalidSession)
	}
	if !isUUID(agreementID) {
		return nil, fmt.Errorf("%w: PSU-Corporate-ID is not a UUID", ErrInvalidSession)
	}
	c := *s
	c.Context = Corporate
	c.PSUCorporateID = agreementID
	return &c, nil
}

// RequestOptions returns the request option that ties a call to this
// session: PSU-ID, PSU-Corporate-ID (when set) and TPP-Session-ID
// (SERVICE.md 5.9, 5.10).
//
// When the PSU is actively present, pass the PSU's request data (at least
// IPAddress; SERVICE.md 5.14) in present: its fields are sent too, with ID
// and CorporateID always taken from the session. Pass nil when the TPP acts
// without the PSU; balances and transactions then count against the
// 4-calls-per-24-hours budget (SERVICE.md 8).
//
// The option fails the call (nothing is sent) when the session is invalid.
func (s *Session) RequestOptions(present *client.PSU) client.RequestOption {
	if err := s.Validate(); err != nil {
		return failOption(err)
	}
	var p client.PSU
	if present != nil {
		p = *present
	}
	p.ID = s.PSUID
	p.CorporateID = s.PSUCorporateID
	return client.Combine(client.WithPSU(p), client.WithTPPSessionID(s.TPPSessionID))
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

func headerSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// redacted stands in for personal data in String and LogValue.
const redacted = "[redacted]"

// String describes the session without its PSU-ID, PSU-Corporate-ID or
// TPP-Session-ID, so that printing or logging a Session by mistake leaks
// no personal data.
//
// It has a value receiver so that a Session value prints redacted too.
func (s Session) String() string {
	corp := ""
	if s.PSUCorporateID != "" {
		corp = " psuCorporateId=" + redacted
	}
	return "sca.Session{psuId=" + redacted + corp + " context=" + string(s.Context) +
		" scaAt=" + s.SCAAt.UTC().Format(time.RFC3339) + "}"
}

// GoString is String, for %#v.
func (s Session) GoString() string { return s.String() }

// LogValue makes log/slog print the session as String does.
func (s Session) LogValue() slog.Value { return slog.StringValue(s.String()) }
