package main

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tppkit/psd2/signing"
)

// rendering is one way of writing a certificate's keyId.
type rendering struct {
	Name  string `json:"name"`
	KeyID string `json:"keyId"`
	About string `json:"about"`
}

// renderings lists the keyIds a bank might expect for cert, the SDK's
// first, without repeats. The keyId is public: it names the certificate,
// it holds nothing secret.
func renderings(cert *x509.Certificate) []rendering {
	sn := strings.ToUpper(cert.SerialNumber.Text(16))
	padded := sn
	if len(padded)%2 == 1 {
		padded = "0" + padded
	}
	openssl := signing.IssuerDNOpenSSL(cert)
	all := []rendering{
		{"sdk", signing.KeyID(cert), "the SDK's form: RFC 2253 issuer as Java writes it (docs/interface.md section 5.4)"},
		{"openssl", signing.KeyIDOpenSSL(cert), "issuer in OpenSSL's form (organizationIdentifier=...)"},
		{"oid", "SN=" + sn + ",CA=" + strings.ReplaceAll(openssl, "organizationIdentifier=", "OID.2.5.4.97="), "organizationIdentifier as OID.2.5.4.97= with its text"},
		{"go", "SN=" + sn + ",CA=" + cert.Issuer.String(), "issuer as Go's pkix.Name.String writes it"},
		{"padded-serial", "SN=" + padded + ",CA=" + signing.IssuerDN(cert), "serial padded to whole bytes, as openssl x509 -serial prints it"},
	}
	var out []rendering
	seen := map[string]bool{}
	for _, r := range all {
		if !seen[r.KeyID] {
			seen[r.KeyID] = true
			out = append(out, r)
		}
	}
	return out
}

type keyIDReport struct {
	Subject    string      `json:"subject"`
	Issuer     string      `json:"issuer"`
	Serial     string      `json:"serial"`
	NotBefore  time.Time   `json:"notBefore"`
	NotAfter   time.Time   `json:"notAfter"`
	ValidNow   bool        `json:"validNow"`
	DaysLeft   int         `json:"daysLeft"`
	KeyID      string      `json:"keyId"`
	Renderings []rendering `json:"renderings"`
}

func runKeyID(_ context.Context, e *env, args []string) error {
	fs := e.flags("keyid", "(-cert cert.pem | -p12 tpp.p12) [--json]")
	var cf credFlags
	cf.register(fs, false)
	if err := parse(fs, args, false); err != nil {
		return err
	}
	cert, err := cf.certificate()
	if err != nil {
		return err
	}
	now := time.Now()
	r := keyIDReport{
		Subject: cert.Subject.String(), Issuer: signing.IssuerDN(cert),
		Serial:    strings.ToUpper(cert.SerialNumber.Text(16)),
		NotBefore: cert.NotBefore.UTC(), NotAfter: cert.NotAfter.UTC(),
		ValidNow:   !now.Before(cert.NotBefore) && !now.After(cert.NotAfter),
		DaysLeft:   daysLeft(cert.NotAfter, now),
		KeyID:      signing.KeyID(cert),
		Renderings: renderings(cert),
	}
	err = e.emit(r, func(w io.Writer) {
		fmt.Fprintf(w, "keyId:     %s\n", printable(r.KeyID))
		fmt.Fprintf(w, "subject:   %s\nissuer:    %s\nserial:    %s\n", printable(r.Subject), printable(r.Issuer), r.Serial)
		state := "valid now"
		if !r.ValidNow {
			state = "NOT valid now"
		}
		fmt.Fprintf(w, "validity:  %s to %s (%s, %d days left)\n\nrenderings:\n",
			r.NotBefore.Format(time.RFC3339), r.NotAfter.Format(time.RFC3339), state, r.DaysLeft)
		for _, x := range r.Renderings {
			fmt.Fprintf(w, "  %-14s %s\n  %-14s (%s)\n", x.Name, printable(x.KeyID), "", x.About)
		}
	})
	if err != nil {
		return err
	}
	switch {
	case now.Before(cert.NotBefore):
		return failedError{"the certificate is not valid yet: valid from " + r.NotBefore.Format(time.RFC3339)}
	case now.After(cert.NotAfter):
		return failedError{"the certificate is not valid now: it expired " + r.NotAfter.Format(time.RFC3339)}
	}
	return nil
}

// daysLeft is the whole days from now to end, counted in seconds: a
// time.Duration (Sub) stops at 292 years, and a certificate may be valid
// until 9999-12-31 (RFC 5280: no well-defined expiration date).
func daysLeft(end, now time.Time) int {
	return int((end.Unix() - now.Unix()) / 86400)
}

// printable is s for a line of text output: a control character (an
// escape sequence would drive the terminal, a line break print a line of
// its own), a bidirectional control (it reorders what follows) or
// invalid UTF-8 is written as Go escapes it (\x1b, \u202e). A
// certificate's names may hold any of them; --json has the exact value.
func printable(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unprintable) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unprintable(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unprintable reports whether r is a control character or a
// bidirectional control.
func unprintable(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
}
