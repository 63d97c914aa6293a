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
	"net/textproto"
	"strings"
	"unicode/utf8"

	"github.com/tppkit/psd2/internal/redact"
)

// DefaultHeaders returns the headers signed by default, in this order, each
// only when the request carries it (docs/interface.md section 5.5). It
// returns a new slice on every call: changing it changes nothing else.
func DefaultHeaders() []string { return append([]string(nil), defaultNames[:]...) }

// defaultNames are the [DefaultHeaders]; defaultCanon their canonical MIME
// keys, so that Sign looks them up without canonicalising (and allocating)
// on every request.
var (
	defaultNames = [...]string{"date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"}
	defaultCanon = [...]string{"Date", "Digest", "X-Request-Id", "Psu-Id", "Psu-Corporate-Id", "Tpp-Redirect-Uri"}
)

// Algorithm is the only signature algorithm the interface accepts.
const Algorithm = "rsa-sha256"

// Pseudo-headers and special names in a headers list.
const (
	requestTarget = "(request-target)"
	hostHeader    = "host"
)

// Errors returned by [Signer.Sign], [NewSigner] and [Verify]. Match them
// with errors.Is.
var (
	ErrMissingHeader = errors.New("signing: a header to be signed is missing")
	ErrNoSignature   = errors.New("signing: no Signature header")
	// ErrMalformed means a Signature value that cannot be parsed; the
	// error's text says which part is wrong (no keyId, a bad encoded
	// word, an unterminated quote, ...).
	ErrMalformed         = errors.New("signing: malformed Signature header")
	ErrBadAlgorithm      = errors.New("signing: unsupported signature algorithm")
	ErrBadSignature      = errors.New("signing: signature does not verify")
	ErrDigestMismatch    = errors.New("signing: Digest does not match the body")
	ErrUnsupportedDigest = errors.New("signing: unsupported Digest algorithm")
	// ErrInvalidHeader means a header to be signed has a value with a line
	// break, which would forge extra lines of the signing string, or is
	// set under two spellings of its name ("Psu-Id" and "PSU-ID"), which
	// net/http sends as separate fields in no fixed order.
	ErrInvalidHeader = errors.New("signing: a header to be signed has an invalid value")
	// ErrInvalidOption means an option given to NewSigner is invalid (an
	// empty or malformed header list, an empty keyId or one that is not
	// valid UTF-8).
	ErrInvalidOption = errors.New("signing: invalid signer option")
)

// Signer signs HTTP requests as draft-cavage-http-signatures-12 describes,
// with rsa-sha256 and the keyId of docs/interface.md section 5.4. It holds
// no state that changes after [NewSigner] and is safe for concurrent use.
type Signer struct {
	key          crypto.Signer
	keyID        string
	quotedKeyID  string   // keyID escaped for the quoted value (QuoteParam)
	headers      []string // lower-case names; nil: the default headers present
	canon        []string // canonical MIME keys of headers
	alwaysEncode bool
	// encode: the value is sent as an encoded word. Names in the header
	// list are tokens and the signature is base64, so only the keyId can
	// bring non-ASCII or control characters; it is checked once here, not
	// per request.
	encode bool
}

// Option configures a [Signer].
type Option func(*Signer) error

// WithHeaders makes the Signer sign exactly these headers, in this order.
// Names are lower-cased; any header can be named, including the
// pseudo-header "(request-target)" (the lower-case method, a space and the
// request URI) and "host" (the request's Host). A listed header missing from
// a request makes Sign fail with [ErrMissingHeader]. An empty list, a name
// that is not an HTTP token, "signature" itself or a name given twice makes
// NewSigner fail with [ErrInvalidOption].
func WithHeaders(names ...string) Option {
	return func(s *Signer) error {
		if len(names) == 0 {
			return fmt.Errorf("%w: WithHeaders needs at least one header", ErrInvalidOption)
		}
		headers := make([]string, len(names))
		canon := make([]string, len(names))
		for i, n := range names {
			n = strings.ToLower(strings.TrimSpace(n))
			if n != requestTarget && (!isToken(n) || n == "signature") {
				return fmt.Errorf("%w: cannot sign header %q", ErrInvalidOption, names[i])
			}
			for _, prev := range headers[:i] {
				if prev == n {
					return fmt.Errorf("%w: header %q listed twice", ErrInvalidOption, n)
				}
			}
			headers[i] = n
			canon[i] = textproto.CanonicalMIMEHeaderKey(n)
		}
		s.headers, s.canon = headers, canon
		return nil
	}
}

// WithEncodedWord makes the Signer always send the Signature value as one
// RFC 2047 encoded word (=?utf-8?B?...?=), not only when it has non-ASCII
// characters (docs/interface.md section 5.6).
func WithEncodedWord() Option {
	return func(s *Signer) error { s.alwaysEncode = true; return nil }
}

// NewSigner returns a Signer using key and keyID (usually [KeyID] of the
// certificate). The key must be RSA ([ErrKeyNotRSA]); it may live in an HSM
// or a KMS. The keyId must be non-empty valid UTF-8 with no double quote
// but RFC 2253's escaped one (\") and no unpaired backslash at its end
// ([ErrInvalidOption]); every [KeyID] and [KeyIDOpenSSL] is. It is written
// between the quotes as it is (see [QuoteParam]). Non-ASCII and control
// characters (an issuer DN with "ø", or a tab or line break) make Sign send
// the whole value as one RFC 2047 encoded word, so the header stays one
// line of ASCII.
func NewSigner(key crypto.Signer, keyID string, opts ...Option) (*Signer, error) {
	if key == nil {
		return nil, ErrNoKey
	}
	if _, ok := key.Public().(*rsa.PublicKey); !ok {
		return nil, ErrKeyNotRSA
	}
	if keyID == "" || !utf8.ValidString(keyID) {
		return nil, fmt.Errorf("%w: keyId is empty or not valid UTF-8", ErrInvalidOption)
	}
	if !checkParam(keyID) {
		return nil, fmt.Errorf("%w: keyId has a double quote not escaped as in RFC 2253, or ends in an unpaired backslash", ErrInvalidOption)
	}
	s := &Signer{key: key, keyID: keyID, quotedKeyID: QuoteParam(keyID)}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(s); err != nil {
			return nil, err
		}
	}
	s.encode = s.alwaysEncode || !plainASCII(keyID)
	return s, nil
}

// KeyID returns the keyId the Signer writes.
func (s *Signer) KeyID() string { return s.keyID }

// Headers returns the header list given with [WithHeaders], or nil when the
// Signer signs the [DefaultHeaders] present on each request.
func (s *Signer) Headers() []string {
	if s.headers == nil {
		return nil
	}
	return append([]string(nil), s.headers...)
}

// Sign computes the signature over the request's headers and sets the
// Signature header. Headers to be signed (Date, Digest, X-Request-ID, ...)
// must already be on the request; Sign changes nothing else, so it is called
// again, after a fresh Date, for every attempt of a retried request.
func (s *Signer) Sign(req *http.Request) error {
	if req == nil {
		return fmt.Errorf("%w: nil request", ErrMissingHeader)
	}
	var nameBuf, canonBuf [len(defaultCanon)]string
	names, canon := s.headers, s.canon
	if names == nil {
		names, canon = nameBuf[:0], canonBuf[:0]
		scan := !canonicalKeys(req.Header)
		for i, c := range defaultCanon {
			if vs, _ := headerValues(req.Header, c, scan); len(vs) > 0 {
				names = append(names, defaultNames[i])
				canon = append(canon, c)
			}
		}
	}
	var stack [1024]byte
	ss, err := appendSigningString(stack[:0], req, names, canon)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(ss)
	sig, err := s.key.Sign(rand.Reader, sum[:], crypto.SHA256)
	if err != nil {
		return fmt.Errorf("signing: the key could not sign: %w", err)
	}
	if len(sig) == 0 {
		return errors.New("signing: the key returned an empty signature")
	}
	req.Header["Signature"] = []string{s.value(names, sig)}
	return nil
}

// value builds the Signature header value in one allocation (two when it is
// wrapped as an encoded word).
func (s *Signer) value(names []string, sig []byte) string {
	const (
		p1 = `keyId="`
		p2 = `",algorithm="` + Algorithm + `",headers="`
		p3 = `",signature="`
	)
	n := len(p1) + len(s.quotedKeyID) + len(p2) + len(p3) + base64.StdEncoding.EncodedLen(len(sig)) + 1
	for _, h := range names {
		n += len(h) + 1
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(p1)
	b.WriteString(s.quotedKeyID)
	b.WriteString(p2)
	for i, h := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(h)
	}
	b.WriteString(p3)
	var enc [1024]byte
	if l := base64.StdEncoding.EncodedLen(len(sig)); l <= len(enc) {
		base64.StdEncoding.Encode(enc[:l], sig)
		b.Write(enc[:l])
	} else {
		b.WriteString(base64.StdEncoding.EncodeToString(sig))
	}
	b.WriteByte('"')
	v := b.String()
	if s.encode {
		return EncodeWord(v)
	}
	return v
}

// plainASCII reports whether s has only printable ASCII characters (and
// can be sent in a header value as it is).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// QuoteParam returns v as the Signer writes it between the double quotes
// of key="value" (docs/interface.md section 5.4: the keyId is the text
// SN=...,CA=<issuer per RFC 2253> itself). RFC 2253's escapes stay as they
// are, "O=Smith\, Jones" is written "O=Smith\, Jones", so that a bank
// reading the characters between the quotes gets the issuer name
// unchanged; only RFC 2253's escaped double quote \" is written in its
// equivalent hex form \22, which no reader takes for the closing quote.
// A value [NewSigner] accepts has no other double quote and no unpaired
// backslash at its end ([checkParam]).
func QuoteParam(v string) string {
	if !strings.Contains(v, `\"`) {
		return v
	}
	var b strings.Builder
	b.Grow(len(v) + 8)
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && i+1 < len(v) && v[i+1] == '"':
			b.WriteString(`\22`)
			i++
		case v[i] == '\\' && i+1 < len(v):
			b.WriteString(v[i : i+2])
			i++
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// checkParam reports whether v can be written between quotes and read
// back: no double quote but in RFC 2253's escape \", and no unpaired
// backslash at the end (it would escape the closing quote).
func checkParam(v string) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			return false
		case '\\':
			if i+1 == len(v) {
				return false
			}
			i++ // the escaped character, a double quote included
		}
	}
	return true
}

// unquoteParam reads the quoted value at the start of v (v[0] is the
// opening double quote) up to its closing quote and returns the
// characters between them as they are: a backslash and the character
// after it are read as a pair, so \" does not close the value and stays
// \" in it (RFC 2253's escaped quote), and \\ stays \\. n is the length
// read, closing quote included; ok is false when there is no closing
// quote.
func unquoteParam(v string) (val string, n int, ok bool) {
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '"':
			return v[1:i], i + 1, true
		case '\\':
			i++
		}
	}
	return "", 0, false
}

// isToken reports whether s is an RFC 7230 token (a valid header name).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// EncodeWord wraps v as one RFC 2047 encoded word in UTF-8 and base64:
// "=?utf-8?B?<base64 of v>?=" (docs/interface.md section 5.6).
func EncodeWord(v string) string {
	const pre, post = "=?utf-8?B?", "?="
	var b strings.Builder
	b.Grow(len(pre) + base64.StdEncoding.EncodedLen(len(v)) + len(post))
	b.WriteString(pre)
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	enc.Write([]byte(v))
	enc.Close()
	b.WriteString(post)
	return b.String()
}

// SigningString builds the string to sign for the named headers
// (lower-case): one "name: value" line per header, joined by "\n"
// (docs/interface.md section 5.5). Several values of one header are joined
// by ", "; leading and trailing spaces of each value are dropped. "(request-target)" is the
// lower-case method, a space and the request URI (path and query); "host" is
// the request's Host. A missing header gives [ErrMissingHeader]; a value with
// a line break, or a header set in the map under two spellings of its name,
// gives [ErrInvalidHeader].
func SigningString(req *http.Request, names []string) (string, error) {
	if req == nil {
		return "", fmt.Errorf("%w: nil request", ErrMissingHeader)
	}
	canon := make([]string, len(names))
	for i, n := range names {
		canon[i] = textproto.CanonicalMIMEHeaderKey(n)
	}
	b, err := appendSigningString(nil, req, names, canon)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// appendSigningString appends the signing string to dst. canon[i] is the
// canonical MIME key of names[i].
func appendSigningString(dst []byte, req *http.Request, names, canon []string) ([]byte, error) {
	scan := !canonicalKeys(req.Header)
	for i, n := range names {
		if i > 0 {
			dst = append(dst, '\n')
		}
		dst = append(dst, n...)
		dst = append(dst, ": "...)
		switch n {
		case requestTarget:
			if req.URL == nil {
				return nil, fmt.Errorf("%w: (request-target) needs the request URL", ErrMissingHeader)
			}
			method := req.Method
			if method == "" {
				method = http.MethodGet
			}
			for j := 0; j < len(method); j++ {
				c := method[j]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				dst = append(dst, c)
			}
			dst = append(dst, ' ')
			dst = append(dst, req.URL.RequestURI()...)
			continue
		case hostHeader:
			h := req.Host
			if h == "" && req.URL != nil {
				h = req.URL.Host
			}
			if h == "" {
				h = req.Header.Get("Host")
			}
			if h == "" {
				return nil, fmt.Errorf("%w: host", ErrMissingHeader)
			}
			if !validValue(h) {
				return nil, fmt.Errorf("%w: host", ErrInvalidHeader)
			}
			dst = append(dst, h...)
			continue
		}
		vs, twice := headerValues(req.Header, canon[i], scan)
		if twice {
			return nil, fmt.Errorf("%w: %s is set under two spellings of its name, which go out as separate fields in no fixed order", ErrInvalidHeader, redact.Cut(n))
		}
		if len(vs) == 0 {
			return nil, fmt.Errorf("%w: %s", ErrMissingHeader, redact.Cut(n))
		}
		for j, v := range vs {
			if !validValue(v) {
				return nil, fmt.Errorf("%w: %s", ErrInvalidHeader, redact.Cut(n))
			}
			if j > 0 {
				dst = append(dst, ", "...)
			}
			dst = append(dst, strings.Trim(v, " \t")...)
		}
	}
	return dst, nil
}

// validValue reports whether v can be one line of the signing string.
func validValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] == '\n' || v[i] == '\r' {
			return false
		}
	}
	return true
}

// headerValues returns the values of the header whose canonical key is
// canon: under that key, or, for a header set directly in the map under
// another spelling ("PSU-ID", "psu-id"), which net/http sends as it is,
// under that key. HTTP header names are case-insensitive, so both Sign's
// choice of the default headers and the signing string see such a
// header.
//
// twice reports that the map holds the header under more than one
// spelling, each with values: net/http sends each spelling as header
// fields of its own, so the receiver reads all their values as one
// header, in an order net/http does not fix (HTTP/1.1 sorts the keys,
// HTTP/2 writes them in map order). No signing string can promise that
// value, and appendSigningString refuses it (ErrInvalidHeader).
//
// Only a map with a key not in canonical form (canonicalKeys) can hold
// another spelling: without scan, the values are those under canon.
func headerValues(h http.Header, canon string, scan bool) (vs []string, twice bool) {
	vs = h[canon]
	if !scan {
		return vs, false
	}
	keys := 0
	if len(vs) > 0 {
		keys = 1
	}
	for k, v := range h {
		if len(v) == 0 || len(k) != len(canon) || k == canon || !strings.EqualFold(k, canon) {
			continue
		}
		if keys++; keys > 1 {
			return vs, true
		}
		vs = v
	}
	return vs, false
}

// canonicalKeys reports whether every key of h is in the canonical form
// net/http's Header.Set gives it (textproto.CanonicalMIMEHeaderKey): then
// no header is in h under a second spelling, and headerValues need not
// scan the map for one. Every spelling of a header name in ASCII letters,
// digits and hyphens has one canonical form; a key with any other byte is
// not canonicalised and so is taken as it is, and is no spelling of a
// header name of the signing string, which are all of those bytes.
func canonicalKeys(h http.Header) bool {
	for k := range h {
		if textproto.CanonicalMIMEHeaderKey(k) != k {
			return false
		}
	}
	return true
}
