package emulator

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/psd2/signing"
)

// Profile is how one bank of the platform behaves where banks differ or
// the interface leaves room: set it with [WithProfile] at start, or
// [Controls.SetProfile] at any time; every bank of a [MultiBank] has its
// own. The zero Profile is the emulator's default, the bank's sandbox as
// docs/interface.md describes it.
type Profile struct {
	// ConsentDays is how long an AIS consent lasts, in days: 0 is 90, the
	// platform's; at most 180, which the regulation allows and other
	// shared platforms moved to. After it, AIS calls get 401
	// CONSENT_EXPIRED with a scaRedirect.
	ConsentDays int
	// PaymentSCA is how a payment creation answer starts the PSU's SCA.
	PaymentSCA PaymentSCA
	// KeyIDs are the keyId renderings of the Signature header the bank
	// verifies.
	KeyIDs KeyIDForms
	// SharedCaps puts every TPP in one pool of the server's caps of
	// waiting SCAs, payments and baskets ([Limits]). By default each TPP
	// has its own share (Limits.AuthorisationsPerTPP, PaymentsPerTPP,
	// BasketsPerTPP), so that one TPP's test run cannot fill the bank for
	// the others.
	SharedCaps bool
}

// PaymentSCA is how a payment creation answer starts SCA.
type PaymentSCA int

const (
	// SCARedirectAtCreate: the 201 of a payment creation carries
	// _links.scaRedirect (the authorisation already started) besides
	// startAuthorisation, as docs/interface.md section 2.6 says when SCA is
	// required. The default.
	SCARedirectAtCreate PaymentSCA = iota
	// StartAuthorisationOnly: the 201 carries the startAuthorisation link
	// and no scaRedirect, as the platform was recorded answering; the TPP
	// starts the SCA with POST on that link, whose 201 carries the
	// scaRedirect.
	StartAuthorisationOnly
)

// KeyIDForms are the keyId renderings a bank verifies (docs/interface.md
// section 5.4: "SN=<serial>,CA=<issuer DN>", whose issuer rendering the
// interface does not fix).
type KeyIDForms int

const (
	// KeyIDAnyForm: any rendering naming the certificate's issuer, parsed
	// and compared (signing.MatchKeyID): the strict RFC 2253 form and
	// OpenSSL's both pass. The default.
	KeyIDAnyForm KeyIDForms = iota
	// KeyIDRFC2253: only the strict RFC 2253 rendering of signing.KeyID
	// (Java's: organizationIdentifier as 2.5.4.97=#hex), as written (an
	// escaped double quote also as the signer's \22).
	KeyIDRFC2253
	// KeyIDOpenSSL: only OpenSSL's rendering of signing.KeyIDOpenSSL
	// (organizationIdentifier=NTRNO-...), as written (an escaped double
	// quote also as the signer's \22).
	KeyIDOpenSSL

	lastKeyIDForm = KeyIDOpenSSL
)

// maxConsentDays is the longest consent a profile may give.
const maxConsentDays = 180

// consentValidity is how long a consent lasts under p.
func (p Profile) consentValidity() time.Duration {
	if p.ConsentDays <= 0 {
		return consentValidity
	}
	return time.Duration(p.ConsentDays) * 24 * time.Hour
}

// check reports a profile the emulator cannot play.
func (p Profile) check() error {
	switch {
	case p.ConsentDays < 0 || p.ConsentDays > maxConsentDays:
		return fmt.Errorf("emulator: Profile.ConsentDays %d is not between 1 and %d (0: 90)", p.ConsentDays, maxConsentDays)
	case p.PaymentSCA < SCARedirectAtCreate || p.PaymentSCA > StartAuthorisationOnly:
		return errors.New("emulator: unknown Profile.PaymentSCA")
	case p.KeyIDs < KeyIDAnyForm || p.KeyIDs > lastKeyIDForm:
		return errors.New("emulator: unknown Profile.KeyIDs")
	}
	return nil
}

// String writes the profile as [ParseProfile] reads it.
func (p Profile) String() string {
	days := p.ConsentDays
	if days <= 0 {
		days = int(consentValidity / (24 * time.Hour))
	}
	create := "sca-redirect"
	if p.PaymentSCA == StartAuthorisationOnly {
		create = "start-authorisation"
	}
	keyID := "any"
	switch p.KeyIDs {
	case KeyIDRFC2253:
		keyID = "rfc2253"
	case KeyIDOpenSSL:
		keyID = "openssl"
	}
	caps := "per-tpp"
	if p.SharedCaps {
		caps = "shared"
	}
	return "consent=" + strconv.Itoa(days) + ",create=" + create + ",keyid=" + keyID + ",caps=" + caps
}

// ParseProfile reads a profile written as comma-separated settings, the
// form of `psd2 emulator -profile` and of the control API:
//
//	consent=90|180                         (days; any 1 to 180)
//	create=sca-redirect|start-authorisation
//	keyid=any|rfc2253|openssl
//	caps=per-tpp|shared
//
// Settings left out keep the default; "" is the default profile.
func ParseProfile(s string) (Profile, error) {
	var p Profile
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return Profile{}, fmt.Errorf("emulator: profile setting %q is not name=value", clip(part))
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "consent", "consent-days":
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), "d"))
			if err != nil {
				return Profile{}, fmt.Errorf("emulator: profile consent=%q is not a number of days", clip(v))
			}
			p.ConsentDays = n
		case "create", "payment-sca":
			switch v {
			case "sca-redirect":
				p.PaymentSCA = SCARedirectAtCreate
			case "start-authorisation", "start-authorization":
				p.PaymentSCA = StartAuthorisationOnly
			default:
				return Profile{}, fmt.Errorf("emulator: profile create=%q: want sca-redirect or start-authorisation", clip(v))
			}
		case "keyid":
			switch v {
			case "any":
				p.KeyIDs = KeyIDAnyForm
			case "rfc2253":
				p.KeyIDs = KeyIDRFC2253
			case "openssl":
				p.KeyIDs = KeyIDOpenSSL
			default:
				return Profile{}, fmt.Errorf("emulator: profile keyid=%q: want any, rfc2253 or openssl", clip(v))
			}
		case "caps":
			switch v {
			case "per-tpp":
				p.SharedCaps = false
			case "shared":
				p.SharedCaps = true
			default:
				return Profile{}, fmt.Errorf("emulator: profile caps=%q: want per-tpp or shared", clip(v))
			}
		default:
			return Profile{}, fmt.Errorf("emulator: unknown profile setting %q (consent, create, keyid, caps)", clip(k))
		}
	}
	return p, p.check()
}

// WithProfile makes the bank behave as p says (see [Profile]). A profile
// the emulator cannot play (ConsentDays beyond 180, an unknown form)
// makes NewServer and NewMultiBank panic, as a bad listener does: it is a
// mistake in the test.
func WithProfile(p Profile) Option {
	return func(s *Server) {
		if err := p.check(); err != nil {
			panic(err.Error())
		}
		s.profile = p
	}
}

// SetProfile makes the bank behave as p says from now on. Consents given
// before keep their start: a shorter ConsentDays may end them at once.
func (c *Controls) SetProfile(p Profile) error {
	if err := p.check(); err != nil {
		return err
	}
	c.s.mu.Lock()
	c.s.profile = p
	c.s.mu.Unlock()
	return nil
}

// Profile returns the bank's profile.
func (c *Controls) Profile() Profile {
	c.s.mu.RLock()
	defer c.s.mu.RUnlock()
	return c.s.profile
}

// sameRendering reports whether keyID, as read between the quotes of a
// Signature value, is the rendering want: written as it is, or as the
// SDK's signer writes it (signing.QuoteParam: RFC 2253's escaped double
// quote \" as its hex pair \22, so that it does not end the quoted value).
func sameRendering(keyID, want string) bool {
	return keyID == want || keyID == signing.QuoteParam(want)
}

// keyIDAccepted reports whether keyID is a rendering the bank's profile
// verifies for t's certificate. Needs no lock: the profile is read under
// the read lock.
func (s *Server) keyIDAccepted(t *tpp, keyID string) bool {
	s.mu.RLock()
	forms := s.profile.KeyIDs
	s.mu.RUnlock()
	switch forms {
	case KeyIDRFC2253:
		return sameRendering(keyID, signing.KeyID(t.cert))
	case KeyIDOpenSSL:
		return sameRendering(keyID, signing.KeyIDOpenSSL(t.cert))
	}
	return t.matchKeyID(keyID)
}
