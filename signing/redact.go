package signing

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// redactedValue stands in for key material and signatures in the printed
// forms (String, GoString, LogValue, MarshalJSON) of the package's types.
// Loading and checking never put key material into an error either.
const redactedValue = "[redacted]"

// credentialsView is what the printed forms of Credentials show: the
// certificate's serial number and validity (public: the certificate is sent
// on every request) and whether a key is present, never the key. The
// subject is left out, as in the client's expiry warnings.
type credentialsView struct {
	Serial    string     `json:"serial,omitempty"`
	NotBefore *time.Time `json:"notBefore,omitempty"`
	NotAfter  *time.Time `json:"notAfter,omitempty"`
	Chain     int        `json:"chain"`
	Key       string     `json:"key,omitempty"`
}

func (c Credentials) view() credentialsView {
	v := credentialsView{Chain: len(c.Chain)}
	if c.Certificate != nil {
		if c.Certificate.SerialNumber != nil {
			v.Serial = strings.ToUpper(c.Certificate.SerialNumber.Text(16))
		}
		nb, na := c.Certificate.NotBefore.UTC(), c.Certificate.NotAfter.UTC()
		v.NotBefore, v.NotAfter = &nb, &na
	}
	if c.Key != nil {
		v.Key = redactedValue
	}
	return v
}

// String describes the credentials by the certificate's serial number and
// validity; the private key shows as [redacted]. It has a value receiver,
// so a Credentials value prints redacted too.
func (c Credentials) String() string {
	v := c.view()
	var b strings.Builder
	b.WriteString("signing.Credentials{")
	if v.Serial != "" {
		fmt.Fprintf(&b, "serial=%s ", v.Serial)
	}
	if v.NotBefore != nil {
		fmt.Fprintf(&b, "notBefore=%s notAfter=%s ", v.NotBefore.Format(time.RFC3339), v.NotAfter.Format(time.RFC3339))
	}
	fmt.Fprintf(&b, "chain=%d", v.Chain)
	if v.Key != "" {
		b.WriteString(" key=" + v.Key)
	}
	b.WriteByte('}')
	return b.String()
}

// GoString is String, for %#v.
func (c Credentials) GoString() string { return c.String() }

// LogValue makes log/slog print the credentials as a group of serial,
// validity, chain length and a [redacted] key.
func (c Credentials) LogValue() slog.Value {
	v := c.view()
	var attrs []slog.Attr
	if v.Serial != "" {
		attrs = append(attrs, slog.String("serial", v.Serial))
	}
	if v.NotBefore != nil {
		attrs = append(attrs, slog.Time("notBefore", *v.NotBefore), slog.Time("notAfter", *v.NotAfter))
	}
	attrs = append(attrs, slog.Int("chain", v.Chain))
	if v.Key != "" {
		attrs = append(attrs, slog.String("key", v.Key))
	}
	return slog.GroupValue(attrs...)
}

// MarshalJSON writes the fields of LogValue; the key is [redacted]. There
// is no JSON form that carries the key: keep credentials as PEM or
// PKCS#12 (see [LoadPEM], [LoadPKCS12]).
func (c Credentials) MarshalJSON() ([]byte, error) { return json.Marshal(c.view()) }

// String describes the Signer by its keyId; the key never shows.
func (s *Signer) String() string {
	if s == nil {
		return "signing.Signer(nil)"
	}
	return fmt.Sprintf("signing.Signer{keyId=%q key=%s}", s.keyID, redactedValue)
}

// GoString is String, for %#v.
func (s *Signer) GoString() string { return s.String() }

// LogValue makes log/slog print the Signer as String does.
func (s *Signer) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON writes the keyId and a [redacted] key.
func (s *Signer) MarshalJSON() ([]byte, error) {
	if s == nil {
		return []byte("null"), nil
	}
	return json.Marshal(struct {
		KeyID string `json:"keyId"`
		Key   string `json:"key"`
	}{s.keyID, redactedValue})
}

// signatureView is what the printed forms of SignatureParams show: every
// part but the signature bytes, which show as [redacted].
type signatureView struct {
	KeyID     string   `json:"keyId"`
	Algorithm string   `json:"algorithm,omitempty"`
	Headers   []string `json:"headers"`
	Signature string   `json:"signature,omitempty"`
}

func (p SignatureParams) view() signatureView {
	v := signatureView{KeyID: p.KeyID, Algorithm: p.Algorithm, Headers: p.Headers}
	if len(p.Signature) > 0 {
		v.Signature = redactedValue
	}
	return v
}

// String describes the parsed Signature value with the signature itself
// [redacted]. It has a value receiver, so a SignatureParams value prints
// redacted too.
func (p SignatureParams) String() string {
	v := p.view()
	s := fmt.Sprintf("signing.SignatureParams{keyId=%q algorithm=%q headers=%q", v.KeyID, v.Algorithm, strings.Join(v.Headers, " "))
	if v.Signature != "" {
		s += " signature=" + v.Signature
	}
	return s + "}"
}

// GoString is String, for %#v.
func (p SignatureParams) GoString() string { return p.String() }

// LogValue makes log/slog print the parts as a group, the signature
// [redacted].
func (p SignatureParams) LogValue() slog.Value {
	v := p.view()
	attrs := []slog.Attr{slog.String("keyId", v.KeyID), slog.String("algorithm", v.Algorithm),
		slog.String("headers", strings.Join(v.Headers, " "))}
	if v.Signature != "" {
		attrs = append(attrs, slog.String("signature", v.Signature))
	}
	return slog.GroupValue(attrs...)
}

// MarshalJSON writes the parts, the signature [redacted].
func (p SignatureParams) MarshalJSON() ([]byte, error) { return json.Marshal(p.view()) }
