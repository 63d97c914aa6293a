package signing

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// DefaultHeaders are the headers signed by default, in this order, each only
// when the request carries it (SERVICE.md 5.5).
var DefaultHeaders = []string{"date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"}

// Algorithm is the only signature algorithm the interface accepts.
const Algorithm = "rsa-sha256"

// Errors returned by [Signer.Sign] and [Verify].
var (
	ErrMissingHeader     = errors.New("signing: a header to be signed is missing")
	ErrNoSignature       = errors.New("signing: no Signature header")
	ErrMalformed         = errors.New("signing: malformed Signature header")
	ErrBadAlgorithm      = errors.New("signing: unsupported signature algorithm")
	ErrBadSignature      = errors.New("signing: signature does not verify")
	ErrDigestMismatch    = errors.New("signing: Digest does not match the body")
	ErrUnsupportedDigest = errors.New("signing: unsupported Digest algorithm")
)

// Signer signs HTTP requests as draft-cavage-http-signatures-12 describes,
// with rsa-sha256 and the keyId of SERVICE.md 5.4. It is stateless after
// [NewSigner] and safe for concurrent use.
type Signer struct {
	key          crypto.Signer
	keyID        string
	headers      []string // nil: DefaultHeaders, those present
	alwaysEncode bool
}

// Option configures a [Signer].
type Option func(*Signer) error

// WithHeaders makes the Signer sign exactly these headers, in this order
// (lower-cased). Any header can be named, including the pseudo-header
// "(request-target)" and "host". A listed header missing from a request is
// an error.
func WithHeaders(names ...string) Option {
	return func(s *Signer) error {
		if len(names) == 0 {
			return fmt.Errorf("signing: WithHeaders needs at least one header")
		}
		s.headers = make([]string, len(names))
		for i, n := range names {
			n = strings.ToLower(strings.TrimSpace(n))
			if n == "" || strings.ContainsAny(n, " \"") {
				return fmt.Errorf("signing: invalid header name %q", names[i])
			}
			s.headers[i] = n
		}
		return nil
	}
}

// WithEncodedWord makes the Signer always send the Signature value as one
// RFC 2047 encoded word (=?utf-8?B?...?=), not only when it has non-ASCII
// characters (SERVICE.md 5.6).
func WithEncodedWord() Option {
	return func(s *Signer) error { s.alwaysEncode = true; return nil }
}

// NewSigner returns a Signer using key and keyID (usually [KeyID] of the
// certificate). The key must be RSA.
func NewSigner(key crypto.Signer, keyID string, opts ...Option) (*Signer, error) {
	if key == nil {
		return nil, ErrNoKey
	}
	if _, ok := key.Public().(*rsa.PublicKey); !ok {
		return nil, ErrKeyNotRSA
	}
	if keyID == "" || strings.ContainsAny(keyID, "\"\r\n") {
		return nil, fmt.Errorf("signing: invalid keyId")
	}
	s := &Signer{key: key, keyID: keyID}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// KeyID returns the keyId the Signer writes.
func (s *Signer) KeyID() string { return s.keyID }

// Sign computes the signature over the request's headers and sets the
// Signature header. Headers to be signed must already be on the request;
// Sign changes nothing else.
func (s *Signer) Sign(req *http.Request) error {
	names, err := s.headerList(req)
	if err != nil {
		return err
	}
	ss, err := SigningString(req, names)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(ss))
	sig, err := s.key.Sign(rand.Reader, sum[:], crypto.SHA256)
	if err != nil {
		return fmt.Errorf("signing: %w", err)
	}
	req.Header.Set("Signature", s.value(names, sig))
	return nil
}

func (s *Signer) headerList(req *http.Request) ([]string, error) {
	if s.headers != nil {
		return s.headers, nil
	}
	names := make([]string, 0, len(DefaultHeaders))
	for _, n := range DefaultHeaders {
		if len(req.Header.Values(n)) > 0 {
			names = append(names, n)
		}
	}
	return names, nil
}

func (s *Signer) value(names []string, sig []byte) string {
	var b strings.Builder
	b.Grow(len(s.keyID) + 64 + 16*len(names) + base64.StdEncoding.EncodedLen(len(sig)))
	b.WriteString(`keyId="`)
	b.WriteString(s.keyID)
	b.WriteString(`",algorithm="` + Algorithm + `",headers="`)
	for i, n := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(n)
	}
	b.WriteString(`",signature="`)
	b.WriteString(base64.StdEncoding.EncodeToString(sig))
	b.WriteByte('"')
	v := b.String()
	if s.alwaysEncode || !isASCII(v) {
		return EncodeWord(v)
	}
	return v
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// EncodeWord wraps v as one RFC 2047 encoded word in UTF-8 and base64:
// "=?utf-8?B?<base64 of v>?=".
func EncodeWord(v string) string {
	return "=?utf-8?B?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// SigningString builds the string to sign for the named headers: one
// "name: value" line per header, joined by "\n" (SERVICE.md 5.5). Several
// values of one header are joined by ", ". "(request-target)" is the
// lower-case method, a space and the request URI; "host" falls back to the
// request's Host.
func SigningString(req *http.Request, names []string) (string, error) {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte('\n')
		}
		v, err := headerValue(req, n)
		if err != nil {
			return "", err
		}
		b.WriteString(n)
		b.WriteString(": ")
		b.WriteString(v)
	}
	return b.String(), nil
}

func headerValue(req *http.Request, name string) (string, error) {
	switch name {
	case "(request-target)":
		if req.URL == nil {
			return "", fmt.Errorf("%w: (request-target)", ErrMissingHeader)
		}
		return strings.ToLower(req.Method) + " " + req.URL.RequestURI(), nil
	case "host":
		if h := req.Header.Get("Host"); h != "" {
			return h, nil
		}
		if req.Host != "" {
			return req.Host, nil
		}
		if req.URL != nil && req.URL.Host != "" {
			return req.URL.Host, nil
		}
		return "", fmt.Errorf("%w: host", ErrMissingHeader)
	}
	vs := req.Header.Values(name)
	if len(vs) == 0 {
		return "", fmt.Errorf("%w: %s", ErrMissingHeader, name)
	}
	if len(vs) == 1 {
		return strings.TrimSpace(vs[0]), nil
	}
	for i := range vs {
		vs[i] = strings.TrimSpace(vs[i])
	}
	return strings.Join(vs, ", "), nil
}
