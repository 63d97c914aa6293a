package signing

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// SignatureParams are the parts of a parsed Signature header value.
type SignatureParams struct {
	KeyID     string
	Algorithm string
	Headers   []string
	Signature []byte
}

// maxSignatureLen bounds the Signature values [ParseSignature] reads.
const maxSignatureLen = 16 << 10

// ParseSignature parses a Signature header value, plain or wrapped as an
// RFC 2047 encoded word (=?utf-8?B?...?= or =?iso-8859-1?Q?...?=). An absent
// headers part means "date", as draft-cavage says.
func ParseSignature(value string) (*SignatureParams, error) {
	if value == "" {
		return nil, ErrNoSignature
	}
	if len(value) > maxSignatureLen {
		return nil, fmt.Errorf("%w: too long", ErrMalformed)
	}
	v, err := decodeWord(strings.TrimSpace(value))
	if err != nil {
		return nil, err
	}
	p := &SignatureParams{}
	seen := map[string]bool{}
	for len(v) > 0 {
		eq := strings.IndexByte(v, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("%w: expected key=\"value\"", ErrMalformed)
		}
		key := strings.TrimSpace(v[:eq])
		v = v[eq+1:]
		if len(v) == 0 || v[0] != '"' {
			return nil, fmt.Errorf("%w: %s is not quoted", ErrMalformed, key)
		}
		end := strings.IndexByte(v[1:], '"')
		if end < 0 {
			return nil, fmt.Errorf("%w: unterminated %s", ErrMalformed, key)
		}
		val := v[1 : end+1]
		v = strings.TrimLeft(v[end+2:], " ")
		if len(v) > 0 {
			if v[0] != ',' {
				return nil, fmt.Errorf("%w: expected a comma after %s", ErrMalformed, key)
			}
			v = strings.TrimLeft(v[1:], " ")
			if v == "" {
				return nil, fmt.Errorf("%w: trailing comma", ErrMalformed)
			}
		}
		if seen[key] {
			return nil, fmt.Errorf("%w: duplicate %s", ErrMalformed, key)
		}
		seen[key] = true
		switch key {
		case "keyId":
			p.KeyID = val
		case "algorithm":
			p.Algorithm = val
		case "headers":
			p.Headers = strings.Fields(strings.ToLower(val))
			if len(p.Headers) == 0 {
				return nil, fmt.Errorf("%w: empty headers", ErrMalformed)
			}
		case "signature":
			sig, err := base64.StdEncoding.DecodeString(val)
			if err != nil || len(sig) == 0 {
				return nil, fmt.Errorf("%w: signature is not base64", ErrMalformed)
			}
			p.Signature = sig
		}
	}
	switch {
	case p.KeyID == "":
		return nil, fmt.Errorf("%w: no keyId", ErrMalformed)
	case p.Signature == nil:
		return nil, fmt.Errorf("%w: no signature", ErrMalformed)
	}
	if p.Headers == nil {
		p.Headers = []string{"date"}
	}
	return p, nil
}

// decodeWord undoes the RFC 2047 wrapping of SERVICE.md 5.6 when present.
func decodeWord(v string) (string, error) {
	if !strings.HasPrefix(v, "=?") {
		return v, nil
	}
	if !strings.HasSuffix(v, "?=") || len(v) < 8 {
		return "", fmt.Errorf("%w: bad encoded word", ErrMalformed)
	}
	parts := strings.SplitN(v[2:len(v)-2], "?", 3)
	if len(parts) != 3 {
		return "", fmt.Errorf("%w: bad encoded word", ErrMalformed)
	}
	charset := strings.ToLower(parts[0])
	if charset != "utf-8" && charset != "iso-8859-1" {
		return "", fmt.Errorf("%w: unsupported charset %q", ErrMalformed, parts[0])
	}
	var raw []byte
	switch strings.ToUpper(parts[1]) {
	case "B":
		b, err := base64.StdEncoding.DecodeString(parts[2])
		if err != nil {
			return "", fmt.Errorf("%w: encoded word is not base64", ErrMalformed)
		}
		raw = b
	case "Q":
		b, err := decodeQ(parts[2])
		if err != nil {
			return "", err
		}
		raw = b
	default:
		return "", fmt.Errorf("%w: unsupported encoding %q", ErrMalformed, parts[1])
	}
	if charset == "iso-8859-1" {
		r := make([]rune, len(raw))
		for i, c := range raw {
			r[i] = rune(c)
		}
		return string(r), nil
	}
	return string(raw), nil
}

func decodeQ(s string) ([]byte, error) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '_':
			out = append(out, ' ')
		case '=':
			if i+2 >= len(s) {
				return nil, fmt.Errorf("%w: bad Q encoding", ErrMalformed)
			}
			var b byte
			for _, h := range s[i+1 : i+3] {
				b <<= 4
				switch {
				case h >= '0' && h <= '9':
					b |= byte(h - '0')
				case h >= 'A' && h <= 'F':
					b |= byte(h-'A') + 10
				case h >= 'a' && h <= 'f':
					b |= byte(h-'a') + 10
				default:
					return nil, fmt.Errorf("%w: bad Q encoding", ErrMalformed)
				}
			}
			out = append(out, b)
			i += 2
		default:
			out = append(out, c)
		}
	}
	return out, nil
}

// Verify checks the Signature header of req with the public key pub: it
// parses the value, rebuilds the signing string from the listed headers and
// verifies the rsa-sha256 signature. It does not check the Digest against
// the body; use [VerifyDigest] for that.
func Verify(req *http.Request, pub crypto.PublicKey) error {
	p, err := ParseSignature(req.Header.Get("Signature"))
	if err != nil {
		return err
	}
	return p.Verify(req, pub)
}

// VerifyHeader checks a Signature carried in h (for example an HTTP
// response's headers), with no request target.
func VerifyHeader(h http.Header, pub crypto.PublicKey) error {
	return Verify(&http.Request{Header: h}, pub)
}

// Verify checks the parsed signature against req's headers with pub.
func (p *SignatureParams) Verify(req *http.Request, pub crypto.PublicKey) error {
	if p.Algorithm != "" && p.Algorithm != Algorithm {
		return fmt.Errorf("%w: %q", ErrBadAlgorithm, p.Algorithm)
	}
	rsaPub, ok := pub.(*rsa.PublicKey)
	if !ok {
		return ErrKeyNotRSA
	}
	ss, err := SigningString(req, p.Headers)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(ss))
	if err := rsa.VerifyPKCS1v15(rsaPub, crypto.SHA256, sum[:], p.Signature); err != nil {
		return ErrBadSignature
	}
	return nil
}

// VerifyDigest checks a Digest header value (SHA-256 or SHA-512, RFC 3230)
// against body. Several comma-separated digests must all match.
func VerifyDigest(header string, body []byte) error {
	if strings.TrimSpace(header) == "" {
		return fmt.Errorf("%w: no Digest", ErrDigestMismatch)
	}
	for _, d := range strings.Split(header, ",") {
		alg, val, ok := strings.Cut(strings.TrimSpace(d), "=")
		if !ok {
			return fmt.Errorf("%w: %q", ErrUnsupportedDigest, d)
		}
		var want string
		switch strings.ToUpper(alg) {
		case "SHA-256":
			sum := sha256.Sum256(body)
			want = base64.StdEncoding.EncodeToString(sum[:])
		case "SHA-512":
			sum := sha512.Sum512(body)
			want = base64.StdEncoding.EncodeToString(sum[:])
		default:
			return fmt.Errorf("%w: %q", ErrUnsupportedDigest, alg)
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(val)) != 1 {
			return ErrDigestMismatch
		}
	}
	return nil
}
