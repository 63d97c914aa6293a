package client

import (
	"crypto/x509"
	"encoding/base64"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// signedAnswer writes body signed by the bank's key i the way docs/interface.md
// 5.7 allows: Digest of the body, signature over date, digest and
// x-request-id. tamper changes what is sent after signing.
type signedAnswer struct {
	key     int
	keyID   string // "" = KeyID of cert
	cert    *x509.Certificate
	status  int
	headers []string // signed headers; nil = default
	tamper  func(h http.Header, body []byte) []byte
	reqID   string // "" = the request's
	unsign  bool
}

func (a signedAnswer) write(t *testing.T, w http.ResponseWriter, r *http.Request, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if !a.unsign {
		h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
		h.Set("Digest", signing.Digest(body))
		id := a.reqID
		if id == "" {
			id = r.Header.Get("X-Request-ID")
		}
		h.Set("X-Request-ID", id)
		keyID := a.keyID
		if keyID == "" {
			keyID = signing.KeyID(a.cert)
		}
		var opts []signing.Option
		if a.headers != nil {
			opts = append(opts, signing.WithHeaders(a.headers...))
		}
		s, err := signing.NewSigner(testKey(a.key), keyID, opts...)
		require.NoError(t, err)
		require.NoError(t, s.Sign(&http.Request{Header: h}))
	}
	if a.tamper != nil {
		body = a.tamper(h, body)
	}
	if a.status != 0 {
		w.WriteHeader(a.status)
	}
	w.Write(body)
}

func TestResponseVerification(t *testing.T) {
	t.Parallel()
	now := time.Now()
	bankCert := newCert(t, 2, now.Add(-time.Hour), now.Add(time.Hour))
	nextCert := newCert(t, 3, now.Add(-time.Hour), now.Add(time.Hour))
	otherCert := newCert(t, 1, now.Add(-time.Hour), now.Add(time.Hour))
	body := []byte(`{"transactionStatus":"ACTC"}`)
	flipSig := func(h http.Header, b []byte) []byte {
		p, err := signing.ParseSignature(h.Get("Signature"))
		require.NoError(t, err)
		p.Signature[0] ^= 1
		h.Set("Signature", `keyId="`+p.KeyID+`",algorithm="rsa-sha256",headers="date digest x-request-id",signature="`+base64.StdEncoding.EncodeToString(p.Signature)+`"`)
		return b
	}
	tests := []struct {
		name   string
		opts   []Option
		answer signedAnswer
		cause  error // nil: the call succeeds
		post   bool
	}{
		{name: "signed", answer: signedAnswer{key: 2, cert: bankCert}},
		{name: "unsigned, if present", answer: signedAnswer{unsign: true}},
		{name: "tampered body", answer: signedAnswer{key: 2, cert: bankCert, tamper: func(h http.Header, b []byte) []byte { return []byte(`{"transactionStatus":"RJCT"}`) }}, cause: signing.ErrDigestMismatch},
		{name: "tampered Digest", answer: signedAnswer{key: 2, cert: bankCert, tamper: func(h http.Header, b []byte) []byte {
			h.Set("Digest", signing.Digest([]byte("x")))
			return []byte("x")
		}}, cause: signing.ErrBadSignature},
		{name: "tampered signature", answer: signedAnswer{key: 2, cert: bankCert, tamper: flipSig}, cause: signing.ErrBadSignature},
		{name: "signed by another key", answer: signedAnswer{key: 1, cert: otherCert}, cause: signing.ErrBadSignature},
		{name: "other key claiming the bank's keyId", answer: signedAnswer{key: 1, cert: bankCert}, cause: signing.ErrBadSignature},
		{name: "required, unsigned", opts: []Option{WithResponseVerification(VerifyRequired)}, answer: signedAnswer{unsign: true}, cause: signing.ErrNoSignature},
		{name: "required, signed", opts: []Option{WithResponseVerification(VerifyRequired)}, answer: signedAnswer{key: 2, cert: bankCert}},
		{name: "off, tampered", opts: []Option{WithResponseVerification(VerifyOff)}, answer: signedAnswer{key: 2, cert: bankCert, tamper: flipSig}},
		{name: "bank rotated, keyId selects", answer: signedAnswer{key: 3, cert: nextCert}},
		{name: "bank rotated, unknown keyId, each tried", answer: signedAnswer{key: 3, cert: nextCert, keyID: "SN=1,CA=CN=unknown"}},
		{name: "Digest not signed", answer: signedAnswer{key: 2, cert: bankCert, headers: []string{"date", "x-request-id"}}, cause: errDigestNotSigned},
		{name: "answer to another request", answer: signedAnswer{key: 2, cert: bankCert, reqID: "00000000-0000-4000-8000-000000000000"}, cause: errRequestIDChanged},
		{name: "signed error answer tampered", answer: signedAnswer{key: 2, cert: bankCert, status: 401, tamper: func(h http.Header, b []byte) []byte {
			return []byte(`{"_links":{"scaRedirect":{"href":"https://evil.example/"}}}`)
		}}, cause: signing.ErrDigestMismatch},
		{name: "payment POST tampered", post: true, answer: signedAnswer{key: 2, cert: bankCert, status: 201, tamper: flipSig}, cause: signing.ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { tt.answer.write(t, w, r, body) })
			opts := append([]Option{WithBankCertificates(bankCert, nextCert)}, tt.opts...)
			c := newTestClient(t, b.URL, opts...)
			op := Operation{Method: "GET", Path: "/v1/payments/x/y/status"}
			if tt.post {
				op = Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"a": 1}}
			}
			var out struct{ TransactionStatus string }
			_, err := c.Do(t.Context(), op, &out)
			assert.EqualValues(t, 1, b.count.Load())
			if tt.cause == nil {
				require.NoError(t, err)
				assert.Equal(t, "ACTC", out.TransactionStatus)
				return
			}
			require.ErrorIs(t, err, ErrResponseSignature)
			require.ErrorIs(t, err, tt.cause)
			assert.Empty(t, out.TransactionStatus, "the body is not decoded")
			var e *Error
			assert.False(t, errors.As(err, &e), "no *Error from an unverified body")
			_, ok := SCARedirect(err)
			assert.False(t, ok)
			assert.Equal(t, tt.post, errors.Is(err, ErrOutcomeUnknown))
		})
	}
}

func TestSignedResponseWithoutBankCertificate(t *testing.T) {
	t.Parallel()
	bankCert := newCert(t, 2, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		signedAnswer{key: 2, cert: bankCert, tamper: func(h http.Header, b []byte) []byte { return []byte(`{}`) }}.write(t, w, r, []byte(`{"a":1}`))
	})
	good := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		signedAnswer{key: 2, cert: bankCert}.write(t, w, r, []byte(`{"a":1}`))
	})
	var logs logBuffer
	c := newTestClient(t, good.URL, WithLogger(debugLogger(&logs)))
	for range 2 {
		_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/x"}, nil)
		require.NoError(t, err, "VerifyIfPresent cannot verify the signature without a certificate")
	}
	assert.Equal(t, 1, logs.count("no bank certificate is configured"))
	// The Digest needs no certificate: a body that does not match it is refused.
	c = newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/x"}, nil)
	assert.ErrorIs(t, err, signing.ErrDigestMismatch)
}

// TestResponseDigestInTwoFields: Digest is a list header (RFC 3230, named
// by docs/interface.md section 4.2), so an answer's two Digest fields are
// one Digest of two instance digests, which the bank's signature covers
// joined ("digest: a, b"); the client checks each SHA-256 or SHA-512
// digest against the body (section 5.7), as it does for one field. On the
// code before, only the first field was checked: a wrong digest in the
// second was accepted, the same two in one field refused.
func TestResponseDigestInTwoFields(t *testing.T) {
	t.Parallel()
	now := time.Now()
	bankCert := newCert(t, 2, now.Add(-time.Hour), now.Add(time.Hour))
	body := []byte(`{"transactionStatus":"ACTC"}`)
	wrong := signing.Digest([]byte(`{"transactionStatus":"RJCT"}`))
	for _, tt := range []struct {
		name    string
		digests []string
		cause   error
	}{
		{name: "one field, second wrong", digests: []string{signing.Digest(body) + ", " + wrong}, cause: signing.ErrDigestMismatch},
		{name: "two fields, second wrong", digests: []string{signing.Digest(body), wrong}, cause: signing.ErrDigestMismatch},
		{name: "two fields, both right", digests: []string{signing.Digest(body), signing.DigestSHA512(body)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				signedAnswer{key: 2, cert: bankCert, tamper: func(h http.Header, b []byte) []byte {
					h["Digest"] = tt.digests
					s, err := signing.NewSigner(testKey(2), signing.KeyID(bankCert))
					require.NoError(t, err)
					require.NoError(t, s.Sign(&http.Request{Header: h}), "the bank signs both fields")
					return b
				}}.write(t, w, r, body)
			})
			for _, mode := range []VerifyMode{VerifyIfPresent, VerifyRequired} {
				c := newTestClient(t, b.URL, WithBankCertificates(bankCert), WithResponseVerification(mode))
				var out struct{ TransactionStatus string }
				_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/payments/x/y/status"}, &out)
				if tt.cause == nil {
					require.NoError(t, err, mode)
					assert.Equal(t, "ACTC", out.TransactionStatus)
					continue
				}
				require.ErrorIs(t, err, ErrResponseSignature, mode)
				require.ErrorIs(t, err, tt.cause, mode)
			}
		})
	}
}
