package signing

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tppkit/psd2/internal/redact"
)

// errSyntax is the error of a value that is not key="value" parameters.
var errSyntax = fmt.Errorf("%w: expected comma-separated key=\"value\" parameters", ErrMalformed)

// SignatureParams are the parts of a parsed Signature header value.
type SignatureParams struct {
	KeyID     string
	Algorithm string // "" when the value has no algorithm part
	Headers   []string
	Signature []byte
}

// maxSignatureLen bounds the Signature values [ParseSignature] reads.
const maxSignatureLen = 16 << 10

// ParseSignature parses a Signature header value, plain or wrapped as an
// RFC 2047 encoded word (=?utf-8?B?...?=, also Q encoding and ISO-8859-1).
// The value is comma-separated key="value" parameters, each value the
// characters between its quotes as they are, a backslash pairing with the
// character after it so that an escaped double quote does not close the
// value (an RFC 2253 issuer keeps its escapes, [QuoteParam]); keyId and
// signature are required, algorithm is optional, an absent headers part
// means "date" (draft-cavage-http-signatures-12 section 2.1.6), and unknown
// parameters are ignored. Parameter names are case-sensitive, as in the
// draft. docs/interface.md section 5.4 has the TPP send all four parts; a
// peer's value without algorithm or headers is still read as the draft
// allows (so the draft's Appendix C values verify), but an algorithm part
// that is present must not be empty.
//
// Every error wraps [ErrMalformed] (or is [ErrNoSignature] for an empty
// value), and its text says which part is wrong: no keyId or signature, a
// signature that is not base64, a bad encoded word, an unterminated or
// unquoted value, a parameter given twice, a bad headers list. The
// algorithm is checked by [SignatureParams.Verify]. The value is the
// peer's text: a name or charset an error quotes from it is cut to 256
// bytes, so that an error never carries the value whole.
func ParseSignature(value string) (*SignatureParams, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, ErrNoSignature
	}
	if len(value) > maxSignatureLen {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrMalformed, maxSignatureLen)
	}
	v, err := decodeWord(value)
	if err != nil {
		return nil, err
	}
	p := &SignatureParams{}
	var seenKeyID, seenAlg, seenHeaders, seenSig bool
	seenOther := map[string]bool(nil)
	for {
		v = strings.TrimLeft(v, " \t")
		eq := strings.IndexByte(v, '=')
		if eq < 0 {
			return nil, errSyntax
		}
		key := strings.TrimRight(v[:eq], " \t")
		if !isToken(key) {
			return nil, errSyntax
		}
		v = strings.TrimLeft(v[eq+1:], " \t")
		if len(v) == 0 || v[0] != '"' {
			return nil, fmt.Errorf("%w: %s is not quoted", ErrMalformed, redact.Cut(key))
		}
		val, n, ok := unquoteParam(v)
		if !ok {
			return nil, fmt.Errorf("%w: unterminated quoted value of %s", ErrMalformed, redact.Cut(key))
		}
		v = strings.TrimLeft(v[n:], " \t")

		dup := false
		switch key {
		case "keyId":
			dup, seenKeyID = seenKeyID, true
			p.KeyID = val
		case "algorithm":
			dup, seenAlg = seenAlg, true
			if val == "" {
				return nil, fmt.Errorf("%w: empty algorithm", ErrMalformed)
			}
			p.Algorithm = val
		case "headers":
			dup, seenHeaders = seenHeaders, true
			if p.Headers, err = parseHeaderList(val); err != nil {
				return nil, err
			}
		case "signature":
			dup, seenSig = seenSig, true
			sig, err := base64.StdEncoding.DecodeString(val)
			if err != nil || len(sig) == 0 {
				return nil, fmt.Errorf("%w: signature is not base64", ErrMalformed)
			}
			p.Signature = sig
		default:
			if seenOther == nil {
				seenOther = map[string]bool{}
			}
			dup = seenOther[key]
			seenOther[key] = true
		}
		if dup {
			return nil, fmt.Errorf("%w: parameter %s given twice", ErrMalformed, redact.Cut(key))
		}

		if v == "" {
			break
		}
		if v[0] != ',' {
			return nil, fmt.Errorf("%w: expected a comma after %s", ErrMalformed, redact.Cut(key))
		}
		v = v[1:]
		if strings.TrimLeft(v, " \t") == "" {
			return nil, fmt.Errorf("%w: trailing comma", ErrMalformed)
		}
	}
	switch {
	case p.KeyID == "":
		return nil, fmt.Errorf("%w: no keyId", ErrMalformed)
	case !seenSig:
		return nil, fmt.Errorf("%w: no signature", ErrMalformed)
	}
	if !seenHeaders {
		p.Headers = []string{"date"}
	}
	return p, nil
}

// maxSignedHeaders bounds the names of a headers list: the interface
// signs six at most.
const maxSignedHeaders = 32

// parseHeaderList splits a headers part into lower-case names, at most
// maxSignedHeaders. A name listed twice is kept, so that a tool can say
// so; [SignatureParams.Verify] refuses it.
func parseHeaderList(val string) ([]string, error) {
	hs := strings.Fields(strings.ToLower(val))
	if len(hs) == 0 {
		return nil, fmt.Errorf("%w: empty headers list", ErrMalformed)
	}
	if len(hs) > maxSignedHeaders {
		return nil, fmt.Errorf("%w: more than %d names in the headers list", ErrMalformed, maxSignedHeaders)
	}
	for _, h := range hs {
		if h != requestTarget && !isToken(h) {
			return nil, fmt.Errorf("%w: %q in the headers list is not a header name", ErrMalformed, redact.Cut(h))
		}
	}
	return hs, nil
}

// wordDecoder decodes the RFC 2047 encoded words of docs/interface.md
// section 5.6 with the standard library, which reads a word of any length
// (a Signature value is one word, far longer than the 75 characters RFC
// 2047 sets for mail headers). Besides utf-8, iso-8859-1 and us-ascii it
// takes the aliases utf8 and latin1, and an RFC 2231 language tag after
// the charset ("utf-8*no").
var wordDecoder = mime.WordDecoder{CharsetReader: charsetReader}

// charsetReader reads the charsets mime.WordDecoder does not know itself.
func charsetReader(charset string, r io.Reader) (io.Reader, error) {
	if i := strings.IndexByte(charset, '*'); i >= 0 { // RFC 2231 language tag
		charset = charset[:i]
	}
	switch charset {
	case "utf-8", "utf8", "us-ascii":
		return r, nil
	case "iso-8859-1", "latin1":
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		return strings.NewReader(latin1(b)), nil
	}
	return nil, fmt.Errorf("unsupported charset %q (want utf-8 or iso-8859-1)", redact.Cut(charset))
}

// DecodeWord returns a Signature header value as [ParseSignature] reads
// it: one RFC 2047 encoded word (docs/interface.md section 5.6; B or Q
// encoding, utf-8 or iso-8859-1 and the charset spellings ParseSignature
// takes) decoded, any other value as it is, without leading and trailing
// spaces. It undoes [EncodeWord]. A bad encoded word gives an error
// wrapping [ErrMalformed].
func DecodeWord(value string) (string, error) { return decodeWord(strings.TrimSpace(value)) }

// decodeWord undoes the RFC 2047 wrapping of docs/interface.md section 5.6
// when present: a value starting with "=?" must be one encoded word, in B
// or Q encoding, whose text is valid UTF-8 once decoded.
func decodeWord(v string) (string, error) {
	if !strings.HasPrefix(v, "=?") {
		return v, nil
	}
	out, err := wordDecoder.Decode(v)
	if err != nil {
		return "", fmt.Errorf("%w: bad RFC 2047 encoded word: %s", ErrMalformed, redact.Cut(strings.TrimPrefix(err.Error(), "mime: ")))
	}
	if !utf8.ValidString(out) {
		return "", fmt.Errorf("%w: bad RFC 2047 encoded word: text is not valid UTF-8", ErrMalformed)
	}
	return out, nil
}

// Verify checks the Signature header of req with the public key pub: it
// parses the value ([ParseSignature]), rebuilds the signing string from the
// listed headers and verifies the rsa-sha256 signature. It does not check
// the Digest against the body; use [VerifyDigest] for that, and check that
// the keyId names the certificate pub came from.
func Verify(req *http.Request, pub crypto.PublicKey) error {
	if req == nil {
		return ErrNoSignature
	}
	vs := req.Header.Values("Signature")
	switch len(vs) {
	case 0:
		return ErrNoSignature
	case 1:
	default:
		return fmt.Errorf("%w: more than one Signature header", ErrMalformed)
	}
	p, err := ParseSignature(vs[0])
	if err != nil {
		return err
	}
	return p.Verify(req, pub)
}

// VerifyHeader checks a Signature carried in h (for example an HTTP
// response's headers). A headers list naming (request-target) or host fails
// with [ErrMissingHeader].
func VerifyHeader(h http.Header, pub crypto.PublicKey) error {
	return Verify(&http.Request{Header: h}, pub)
}

// Verify checks the parsed signature against req's headers with pub, an
// *rsa.PublicKey. An algorithm other than rsa-sha256 gives
// [ErrBadAlgorithm]; a listed header absent from req gives
// [ErrMissingHeader]; a headers list naming a header twice, or more
// than 32 names, gives [ErrMalformed]; a signature that does not match
// gives [ErrBadSignature].
func (p *SignatureParams) Verify(req *http.Request, pub crypto.PublicKey) error {
	if p == nil {
		return ErrNoSignature
	}
	if p.Algorithm != "" && p.Algorithm != Algorithm {
		return ErrBadAlgorithm
	}
	rsaPub, ok := pub.(*rsa.PublicKey)
	if !ok || rsaPub == nil || rsaPub.N == nil {
		return ErrKeyNotRSA
	}
	if req == nil {
		return fmt.Errorf("%w: nil request", ErrMissingHeader)
	}
	if len(p.Headers) > maxSignedHeaders {
		return fmt.Errorf("%w: more than %d names in the headers list", ErrMalformed, maxSignedHeaders)
	}
	canon := make([]string, len(p.Headers))
	for i, n := range p.Headers {
		// A name listed twice would copy its header's value into the
		// signing string once per listing, before the RSA check: a
		// 16 KiB list of one name over a large header costs gigabytes.
		// The interface's signing string has one line per header.
		if slices.Contains(p.Headers[:i], n) {
			return fmt.Errorf("%w: %q listed twice in the headers list", ErrMalformed, redact.Cut(n))
		}
		canon[i] = http.CanonicalHeaderKey(n)
	}
	ss, err := appendSigningString(nil, req, p.Headers, canon)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(ss)
	if err := rsa.VerifyPKCS1v15(rsaPub, crypto.SHA256, sum[:], p.Signature); err != nil {
		return ErrBadSignature
	}
	return nil
}

// bodyDigest returns the base64 digest of body by h (SHA-256 or
// SHA-512), for VerifyDigest; a variable so that a test counts the
// bodies hashed.
var bodyDigest = func(h crypto.Hash, body []byte) string {
	if h == crypto.SHA512 {
		sum := sha512.Sum512(body)
		return base64.StdEncoding.EncodeToString(sum[:])
	}
	sum := sha256.Sum256(body)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// VerifyDigest checks a Digest header value (RFC 3230) against body.
// SHA-256 and SHA-512 are checked, several comma-separated digests must all
// match, and digests in other algorithms are ignored as long as one of the
// two is present. Algorithm names are case-insensitive.
//
// Errors: [ErrDigestMismatch] for an empty value or a digest that does not
// match, [ErrUnsupportedDigest] when no SHA-256 or SHA-512 digest is given.
func VerifyDigest(header string, body []byte) error {
	if strings.TrimSpace(header) == "" {
		return fmt.Errorf("%w: no Digest", ErrDigestMismatch)
	}
	checked := 0
	// Each algorithm's digest of body is computed once, however many
	// entries name it: a header repeating one digest a thousand times
	// (it fits a 64 KiB header) would otherwise hash a 4 MiB body a
	// thousand times.
	var sha256Want, sha512Want string
	for d := range strings.SplitSeq(header, ",") {
		alg, val, ok := strings.Cut(strings.TrimSpace(d), "=")
		if !ok {
			return fmt.Errorf("%w: expected <algorithm>=<base64>", ErrUnsupportedDigest)
		}
		var want string
		switch {
		case strings.EqualFold(alg, "SHA-256"):
			if sha256Want == "" {
				sha256Want = bodyDigest(crypto.SHA256, body)
			}
			want = sha256Want
		case strings.EqualFold(alg, "SHA-512"):
			if sha512Want == "" {
				sha512Want = bodyDigest(crypto.SHA512, body)
			}
			want = sha512Want
		default:
			continue
		}
		checked++
		if subtle.ConstantTimeCompare([]byte(want), []byte(strings.TrimSpace(val))) != 1 {
			return ErrDigestMismatch
		}
	}
	if checked == 0 {
		return fmt.Errorf("%w: want SHA-256 or SHA-512", ErrUnsupportedDigest)
	}
	return nil
}
