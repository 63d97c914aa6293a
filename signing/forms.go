package signing

import (
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/psd2/internal/redact"
)

//go:generate go run ../internal/redact/gen

// The printed, log/slog and JSON forms of the package's types, generated
// from the declarations below into print_gen.go: String, GoString,
// Format (every fmt verb) and LogValue from the form methods, MarshalJSON
// from the views. None shows key material or a signature: they show as
// [redacted]. Loading and checking never put key material into an error
// either.

// redactedValue stands in for key material and signatures
// ([redact.Redacted], the SDK's one marker).
const redactedValue = redact.Redacted

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

// MarshalJSON writes the fields of LogValue; the key is [redacted]. There
// is no JSON form that carries the key: keep credentials as PEM or
// PKCS#12 (see [LoadPEM], [LoadPKCS12]).
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
func (c Credentials) form() *redact.Form {
	v := c.view()
	f := redact.New("signing.Credentials").Str("serial", v.Serial)
	if v.NotBefore != nil {
		f.Field("notBefore", v.NotBefore.Format(time.RFC3339), slog.TimeValue(*v.NotBefore)).
			Field("notAfter", v.NotAfter.Format(time.RFC3339), slog.TimeValue(*v.NotAfter))
	}
	return f.Field("chain", strconv.Itoa(v.Chain), slog.IntValue(v.Chain)).SecretIf("key", v.Key != "")
}

// String describes the Signer by its keyId; the key never shows.
func (s *Signer) form() *redact.Form {
	if s == nil {
		return redact.Nil("signing.Signer")
	}
	return redact.New("signing.Signer").Field("keyId", strconv.Quote(s.keyID), slog.StringValue(s.keyID)).SecretIf("key", true)
}

// signerView is the JSON form of a Signer.
type signerView struct {
	KeyID string `json:"keyId"`
	Key   string `json:"key"`
}

// MarshalJSON writes the keyId and a [redacted] key.
func (s *Signer) view() signerView { return signerView{s.keyID, redactedValue} }

// signatureView is what the JSON form of SignatureParams shows: every
// part but the signature bytes, which show as [redacted].
type signatureView struct {
	KeyID     string   `json:"keyId"`
	Algorithm string   `json:"algorithm,omitempty"`
	Headers   []string `json:"headers"`
	Signature string   `json:"signature,omitempty"`
}

// MarshalJSON writes the parts, the signature [redacted].
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
func (p SignatureParams) form() *redact.Form {
	headers := strings.Join(p.Headers, " ")
	return redact.New("signing.SignatureParams").Field("keyId", strconv.Quote(p.KeyID), slog.StringValue(p.KeyID)).
		Field("algorithm", strconv.Quote(p.Algorithm), slog.StringValue(p.Algorithm)).
		Field("headers", strconv.Quote(headers), slog.StringValue(headers)).
		SecretIf("signature", len(p.Signature) > 0)
}
