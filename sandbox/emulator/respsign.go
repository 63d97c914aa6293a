package emulator

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/tppkit/psd2/internal/heldanswer"
	"github.com/tppkit/psd2/signing"
)

// respSigning is the key and certificate the server signs its API answers
// with when [WithResponseSigning] is given.
type respSigning struct {
	cert   *x509.Certificate
	signer *signing.Signer
}

// WithResponseSigning makes the server sign its API answers as the ASPSP
// may (docs/interface.md section 5.7): each answer gets Date, Digest (SHA-256 of the body)
// and X-Request-ID (the request's, when it sent one) and a Signature over
// date, digest and x-request-id, made with an RSA key certified by the
// emulator's CA. [Server.ResponseCertificate] returns that certificate, for
// the SDK's client.WithBankCertificates. The answers an injected fault
// makes up itself (status, rate limit) are not signed; a delayed request's
// real answer is. Off by default.
func WithResponseSigning() Option {
	return func(s *Server) { s.signAnswers = true }
}

// ResponseCertificate returns the certificate the server signs its answers
// with, or nil without [WithResponseSigning].
func (s *Server) ResponseCertificate() *x509.Certificate {
	if s.resp == nil {
		return nil
	}
	return s.resp.cert
}

func (s *Server) newRespSigning() (*respSigning, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	cert, err := s.ca.issue("Emulator Bank Response Signing", &key.PublicKey, s.wireNow())
	if err != nil {
		return nil, err
	}
	signer, err := signing.NewSigner(key, signing.KeyID(cert))
	if err != nil {
		return nil, err
	}
	return &respSigning{cert: cert, signer: signer}, nil
}

// signedAnswers buffers each answer of next and sends it signed.
func (s *Server) signedAnswers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := heldanswer.New()
		next.ServeHTTP(buf, r)
		h := w.Header()
		buf.CopyHeader(h)
		body := buf.Body()
		if h.Get("Date") == "" {
			h.Set("Date", s.wireNow().UTC().Format(http.TimeFormat))
		}
		h.Set("Digest", signing.Digest(body))
		if id := echoedRequestID(r); id != "" && h.Get("X-Request-ID") == "" {
			h.Set("X-Request-ID", id)
		}
		if err := s.resp.signer.Sign(&http.Request{Header: h}); err != nil {
			s.log.Error("emulator: cannot sign the answer", "error", err)
		}
		switch corruption(r) {
		case FaultCorruptSignature:
			h.Set("Signature", corruptSignature(h.Get("Signature")))
		case FaultCorruptDigest:
			body = corruptBody(body)
		}
		w.WriteHeader(buf.Status())
		_, _ = w.Write(body)
	})
}

// corruptSignature alters one base64 character of the signature part of a
// Signature value, keeping it well-formed (an RFC 2047 encoded word stays
// one), so that it no longer verifies.
func corruptSignature(v string) string {
	const word = "=?utf-8?b?"
	if len(v) > len(word)+2 && strings.EqualFold(v[:len(word)], word) && strings.HasSuffix(v, "?=") {
		if plain, err := base64.StdEncoding.DecodeString(v[len(word) : len(v)-2]); err == nil {
			return signing.EncodeWord(corruptSignature(string(plain)))
		}
	}
	const part = `signature="`
	i := strings.Index(v, part)
	if i < 0 || i+len(part) >= len(v) {
		return v + "x"
	}
	i += len(part)
	c := byte('A')
	if v[i] == 'A' {
		c = 'B'
	}
	return v[:i] + string(c) + v[i+1:]
}

// corruptBody returns a copy of body with one byte changed (an empty body
// gets one), so that it no longer matches its Digest.
func corruptBody(body []byte) []byte {
	if len(body) == 0 {
		return []byte(" ")
	}
	out := bytes.Clone(body)
	out[len(out)/2] ^= 0x20
	return out
}
