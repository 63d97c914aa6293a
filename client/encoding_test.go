package client

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/signing"
)

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// A bank that compresses its answer although the client asked for none:
// the Digest of the bytes sent (RFC 3230) or of the decoded body is
// accepted, the body is decoded, and a created payment is not reported
// as an outcome unknown.
func TestCompressedAnswer(t *testing.T) {
	t.Parallel()
	bankCert := newCert(t, 2, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	plain := []byte(`{"transactionStatus":"RCVD","paymentId":"p-1"}`)
	tests := []struct {
		name     string
		encoding string
		digestOf func(sent []byte) []byte // what the bank's Digest covers
		cause    error                    // nil: the call succeeds
	}{
		{name: "gzip, Digest of the bytes sent", encoding: "gzip", digestOf: func(sent []byte) []byte { return sent }},
		{name: "gzip, Digest of the decoded body", encoding: "gzip", digestOf: func([]byte) []byte { return plain }},
		{name: "x-gzip", encoding: "x-gzip", digestOf: func(sent []byte) []byte { return sent }},
		{name: "gzip, Digest of neither", encoding: "gzip", digestOf: func([]byte) []byte { return []byte("{}") }, cause: signing.ErrDigestMismatch},
		{name: "an encoding not asked for", encoding: "br", digestOf: func(sent []byte) []byte { return sent }, cause: ErrOutcomeUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				sent := gzipped(t, plain)
				w.Header().Set("Content-Encoding", tt.encoding)
				signedAnswer{key: 2, cert: bankCert, status: http.StatusCreated, tamper: func(h http.Header, _ []byte) []byte {
					// Digest and signature over what the bank chose.
					h.Set("Digest", signing.Digest(tt.digestOf(sent)))
					s, err := signing.NewSigner(testKey(2), signing.KeyID(bankCert))
					require.NoError(t, err)
					require.NoError(t, s.Sign(&http.Request{Header: h}))
					return sent
				}}.write(t, w, r, plain)
			})
			// The caller's own http.Client, whose transport would undo a
			// gzip it asked for itself.
			c := newTestClient(t, b.URL, WithBankCertificates(bankCert), WithHTTPClient(&http.Client{}))
			var out struct{ PaymentID string }
			_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"a": 1}, ResultID: "paymentId"}, &out)
			reqs := b.requests()
			require.Len(t, reqs, 1, "a payment POST is sent once")
			assert.Equal(t, "identity", reqs[0].Header.Get("Accept-Encoding"))
			if tt.cause != nil {
				require.ErrorIs(t, err, tt.cause)
				assert.ErrorIs(t, err, ErrOutcomeUnknown)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "p-1", out.PaymentID)
		})
	}
}

// The SDK's own transport asks for no compression either.
func TestNoCompressionAsked(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	c := newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/x"}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"identity"}, b.requests()[0].Header.Values("Accept-Encoding"))
}
