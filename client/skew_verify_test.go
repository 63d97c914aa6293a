package client

import (
	"crypto/x509"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// signAs signs h with the key of test key i under cert's keyId, over the
// given headers (nil: the signer's default).
func signAs(t *testing.T, h http.Header, i int, cert *x509.Certificate, headers ...string) {
	t.Helper()
	var opts []signing.Option
	if headers != nil {
		opts = append(opts, signing.WithHeaders(headers...))
	}
	s, err := signing.NewSigner(testKey(i), signing.KeyID(cert), opts...)
	require.NoError(t, err)
	require.NoError(t, s.Sign(&http.Request{Header: h}))
}

// skewAnswer writes the 400 a bank ahead of the client by ahead gives a
// Date it refuses, signed with key i under cert unless cert is nil.
func skewAnswer(t *testing.T, w http.ResponseWriter, r *http.Request, ahead time.Duration, i int, cert *x509.Certificate) {
	body := []byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"Date"}]}`)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Date", time.Now().Add(ahead).UTC().Format(http.TimeFormat))
	if cert != nil {
		h.Set("Digest", signing.Digest(body))
		h.Set("X-Request-ID", r.Header.Get("X-Request-ID"))
		signAs(t, h, i, cert, "date", "digest", "x-request-id")
	}
	w.WriteHeader(http.StatusBadRequest)
	w.Write(body)
}

// createdAnswer writes a signed 201 dated ahead of now.
func createdAnswer(t *testing.T, w http.ResponseWriter, r *http.Request, ahead time.Duration, cert *x509.Certificate) {
	body := []byte(`{"paymentId":"p1","transactionStatus":"RCVD"}`)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Date", time.Now().Add(ahead).UTC().Format(http.TimeFormat))
	h.Set("Digest", signing.Digest(body))
	h.Set("X-Request-ID", r.Header.Get("X-Request-ID"))
	signAs(t, h, 2, cert, "date", "digest", "x-request-id")
	w.WriteHeader(http.StatusCreated)
	w.Write(body)
}

// TestSkewRetryNeedsVerifiedAnswer: the clock-skew retry resends a payment
// POST only on a 400 that verifies when the client checks the bank's
// signatures. A forged 400 (a man in the middle after the bank executed
// the payment) ends the call as an outcome unknown, sent once, and
// teaches the client nothing about the bank's clock.
func TestSkewRetryNeedsVerifiedAnswer(t *testing.T) {
	t.Parallel()
	now := time.Now()
	bankCert := newCert(t, 2, now.Add(-time.Hour), now.Add(time.Hour))
	const ahead = 10 * time.Minute
	tests := []struct {
		name   string
		mode   VerifyMode
		key    int               // key the 400 is signed with
		cert   *x509.Certificate // nil: the 400 is unsigned
		posts  int
		cause  error // nil: the call succeeds
		learns bool  // the client adopts the bank's clock
	}{
		{name: "required, unsigned 400", mode: VerifyRequired, posts: 1, cause: signing.ErrNoSignature},
		{name: "required, 400 signed by another key", mode: VerifyRequired, key: 1, cert: bankCert, posts: 1, cause: signing.ErrBadSignature},
		{name: "if present, 400 signed by another key", mode: VerifyIfPresent, key: 1, cert: bankCert, posts: 1, cause: signing.ErrBadSignature},
		{name: "required, signed 400", mode: VerifyRequired, key: 2, cert: bankCert, posts: 2, learns: true},
		{name: "if present, signed 400", mode: VerifyIfPresent, key: 2, cert: bankCert, posts: 2, learns: true},
		{name: "if present, unsigned 400", mode: VerifyIfPresent, posts: 2, learns: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					skewAnswer(t, w, r, ahead, tt.key, tt.cert)
					return
				}
				createdAnswer(t, w, r, ahead, bankCert)
			})
			c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}), WithBankCertificates(bankCert), WithResponseVerification(tt.mode))
			var out struct{ PaymentID string }
			_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}, &out)
			assert.EqualValues(t, tt.posts, b.count.Load(), "POSTs the bank received")
			if tt.cause == nil {
				require.NoError(t, err)
				assert.Equal(t, "p1", out.PaymentID)
			} else {
				require.ErrorIs(t, err, ErrOutcomeUnknown)
				require.ErrorIs(t, err, ErrResponseSignature)
				require.ErrorIs(t, err, tt.cause)
				var e *Error
				assert.NotErrorAs(t, err, &e, "no refusal from an unverified 400")
				assert.Empty(t, out.PaymentID)
			}
			c.clockMu.Lock()
			candidate, has := c.candidate, c.hasCandidate
			c.clockMu.Unlock()
			if tt.learns {
				// The verified 400 and the verified 201 agree: adopted.
				assert.InDelta(t, float64(ahead), float64(c.offset.Load()), float64(5*time.Second))
			} else {
				assert.Zero(t, c.offset.Load(), "offset learned from an unverified answer")
				if tt.mode == VerifyRequired {
					assert.False(t, has, "candidate %v from an unverified answer", candidate)
				}
			}
		})
	}
}
