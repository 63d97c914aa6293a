package sca

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// Bounds of [WithConsentValidity]: a day, and the 180 days the amended EU
// rule allows between two SCAs, with room for a bank's own rounding.
// MaxConsentValidity is the one bound of a consent's validity: package
// banks holds a bank entry's consentDays to it.
const (
	minConsentValidity = 24 * time.Hour
	MaxConsentValidity = 366 * 24 * time.Hour
)

// WithConsentValidity sets how long a consent granted at this bank lasts
// (default [ConsentValidity], 90 days): a consent SCA completed through the
// Flow gets Session.ConsentUntil = SCAAt + d. The figure is a fact of each
// bank (banks.Bank.ConsentValidity); between 1 and 366 days.
func WithConsentValidity(d time.Duration) FlowOption {
	return func(f *Flow) error {
		if d < minConsentValidity || d > MaxConsentValidity {
			return fmt.Errorf("sca: consent validity %v is not between 1 and 366 days", d)
		}
		f.consent = d
		return nil
	}
}

// LearnConsentEnd returns the session as the bank's answer err shows it:
// when err says the consent has ended, at time at, before the end the
// session expected ([Session.ConsentExpiresAt]), the consent ended at the
// latest at: the copy has ConsentUntil = at and learned is true (store it,
// so no further call is made on the dead consent). The answers that say
// so are 401 CONSENT_EXPIRED ([client.ErrConsentExpired]) and 403
// CONSENT_UNKNOWN ([client.ErrConsentUnknown]: the PSU revoked the
// consent at the bank, docs/interface.md section 1.8), and either code
// with the other of the two statuses, as some banks send them. Otherwise
// (another error, a 5xx whatever its codes, an at at or after that end,
// a zero at) it returns s unchanged and false: the SDK never extends a
// consent on a guess.
func (s *Session) LearnConsentEnd(err error, at time.Time) (_ *Session, learned bool) {
	if s == nil || !consentEnded(err) || s.NoConsent || at.IsZero() {
		// A zero at teaches nothing: as ConsentUntil it would mean SCAAt
		// plus ConsentValidity, a later end than the one known.
		return s, false
	}
	if end := s.ConsentExpiresAt(); !end.IsZero() && !at.Before(end) {
		return s, false
	}
	c := *s
	c.ConsentUntil = at
	return &c, true
}

// consentEnded reports whether err is the bank's answer that the
// session's consent has ended: 401 or 403 with CONSENT_EXPIRED or
// CONSENT_UNKNOWN. CONSENT_INVALID is not among them: the consent may
// only not cover what was asked.
func consentEnded(err error) bool {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return false
	}
	if ce.StatusCode != http.StatusUnauthorized && ce.StatusCode != http.StatusForbidden {
		return false
	}
	return ce.HasCode(client.CodeConsentExpired) || ce.HasCode(client.CodeConsentUnknown)
}

// errOtherSession leaves a stored session as it is in StoreConsentEnd.
var errOtherSession = errors.New("sca: the stored session is another one")

// StoreConsentEnd stores in st, under key, the consent end that
// s.LearnConsentEnd(err, at) learns, in one atomic read-modify-write, and
// only while the stored session is still s's: the same PSU-ID,
// PSU-Corporate-ID and TPP-Session-ID. A session a new SCA stored
// meanwhile (a re-consent, whose new TPP-Session-ID made the old one
// invalid: the very reason the old one's call may have been refused) is
// kept as it is, never replaced by the old session with the end learned.
// Use it, not [SaveSession], for what a background call learned. It
// reports whether the stored session was changed, and returns an error
// of the store, or one matching store.ErrNotStored when key holds no
// session.
func StoreConsentEnd(ctx context.Context, st store.Store, key string, s *Session, err error, at time.Time) (bool, error) {
	learned, ok := s.LearnConsentEnd(err, at)
	if !ok {
		return false, nil
	}
	end := learned.ConsentExpiresAt()
	changed := false
	_, uerr := updateSession(ctx, st, key, func(prev *Session, loadErr error) (*Session, error) {
		changed = false
		if loadErr != nil {
			return nil, loadErr
		}
		if prev.PSUID != s.PSUID || prev.PSUCorporateID != s.PSUCorporateID || prev.TPPSessionID != s.TPPSessionID ||
			prev.NoConsent {
			return nil, errOtherSession
		}
		if cur := prev.ConsentExpiresAt(); !cur.IsZero() && !end.Before(cur) {
			return nil, errOtherSession // it knows an end as early already
		}
		c := *prev
		c.ConsentUntil = end
		changed = true
		return &c, nil
	})
	if errors.Is(uerr, errOtherSession) {
		return false, nil
	}
	if uerr != nil {
		return false, uerr
	}
	return changed, nil
}
