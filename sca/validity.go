package sca

import (
	"errors"
	"fmt"
	"time"

	"github.com/tppkit/psd2/client"
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
// when err is the bank's 401 CONSENT_EXPIRED ([client.ErrConsentExpired])
// at time at, before the end the session expected
// ([Session.ConsentExpiresAt]), the consent ended at the latest at: the
// copy has ConsentUntil = at and learned is true (store it, so no further
// call is made on the dead consent). Otherwise (another error, an at at
// or after that end, a zero at) it returns s unchanged and false: the SDK
// never extends a consent on a guess.
func (s *Session) LearnConsentEnd(err error, at time.Time) (_ *Session, learned bool) {
	if s == nil || !errors.Is(err, client.ErrConsentExpired) || s.NoConsent || at.IsZero() {
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
