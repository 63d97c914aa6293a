package client

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorAnswerWithUndecodableEncodingIsError: a non-2xx answer is a
// *Error (Client.Do) whatever its body, one whose Content-Encoding cannot
// be undone included: a proxy's 404 or 503 that says gzip over a plain
// page, an encoding the client did not ask for, a gzip error body cut at
// maxErrorBody. Its status and headers (Retry-After) stay the caller's to
// read; the body says nothing (no tppMessages), as a body that is not
// JSON. On the code before, the call failed with "reading answer: gzip
// answer: ..." and no status: a 404 was not ErrNotFound, a 429 had no
// RetryAfter.
func TestErrorAnswerWithUndecodableEncodingIsError(t *testing.T) {
	t.Parallel()
	// A gzip stream longer than maxErrorBody: random bytes do not
	// compress, so the raw body is cut and its gzip cannot be finished.
	noise := make([]byte, 2*maxErrorBody)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	cutGzip := gzipped(t, noise)
	require.Greater(t, len(cutGzip), maxErrorBody)
	for _, tt := range []struct {
		name, encoding string
		body           []byte
	}{
		{"gzip over a plain page", "gzip", []byte("<html>Not Found</html>")},
		{"an encoding not asked for", "br", []byte("\x8b\x01\x80ok\x03")},
		{"gzip cut at the limit", "gzip", cutGzip},
	} {
		for _, status := range []int{http.StatusNotFound, http.StatusTooManyRequests, http.StatusServiceUnavailable} {
			t.Run(tt.name+"/"+http.StatusText(status), func(t *testing.T) {
				t.Parallel()
				b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
					w.Header().Set("Content-Encoding", tt.encoding)
					w.Header().Set("Retry-After", "120") // beyond fastRetry's MaxRetryAfter: no retry
					w.WriteHeader(status)
					_, _ = w.Write(tt.body)
				})
				c := newTestClient(t, b.URL)
				_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts/x/balances"}, nil)
				var e *Error
				require.ErrorAs(t, err, &e, "a non-2xx answer is a *Error: %v", err)
				assert.Equal(t, status, e.StatusCode)
				assert.Empty(t, e.Messages)
				ra, ok := e.RetryAfter(c.Now())
				assert.True(t, ok)
				assert.Equal(t, 120*time.Second, ra)
				if status == http.StatusNotFound {
					assert.ErrorIs(t, err, ErrNotFound)
				}
			})
		}
	}
}

// TestEmptyBodyWithContentEncoding: an answer without a body has nothing
// to decode, whatever Content-Encoding it names (a server that sets
// "deflate" or "br" on every answer, a 204 included). On the code before,
// only an empty gzip answer passed: a DELETE answered 204 with
// Content-Encoding br failed with "reading answer: answer in content
// encoding ...", the deletion done.
func TestEmptyBodyWithContentEncoding(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{"br", "deflate", "gzip"} {
		for _, status := range []int{http.StatusNoContent, http.StatusOK} {
			t.Run(enc+"/"+http.StatusText(status), func(t *testing.T) {
				t.Parallel()
				b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
					w.Header().Set("Content-Encoding", enc)
					w.WriteHeader(status)
				})
				c := newTestClient(t, b.URL)
				resp, err := c.Do(t.Context(), Operation{Method: http.MethodDelete, Path: "/v1/payments/sepa-credit-transfers/p1"}, nil)
				require.NoError(t, err)
				assert.Equal(t, status, resp.StatusCode)
				assert.EqualValues(t, 1, b.count.Load())
			})
		}
	}
}

// TestObserverReadsCompressedErrorAnswer: an attempt's event reads the
// answer as the call's error reads it, its Content-Encoding undone: a
// 401 whose gzip body carries a scaRedirect and CONSENT_INVALID is
// sca_required with that code for the attempt as for the operation. On
// the code before, the attempt read the compressed bytes: refused, no
// codes, while the operation it ended said sca_required.
func TestObserverReadsCompressedErrorAnswer(t *testing.T) {
	t.Parallel()
	plain := []byte(`{"tppMessages":[{"category":"ERROR","code":"CONSENT_INVALID"}],"_links":{"scaRedirect":{"href":"https://bank.example/sca"}}}`)
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write(gzipped(t, plain))
	})
	rec := &obsRecorder{}
	c := newTestClient(t, b.URL, WithObserver(rec))
	_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil)
	require.ErrorIs(t, err, ErrSCARequired)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.ends, 1)
	require.Len(t, rec.attempts, 1)
	assert.Equal(t, OutcomeSCARequired, rec.ends[0].Outcome)
	assert.Equal(t, []string{CodeConsentInvalid}, rec.ends[0].Codes)
	assert.Equal(t, OutcomeSCARequired, rec.attempts[0].Outcome, "the attempt's outcome")
	assert.Equal(t, []string{CodeConsentInvalid}, rec.attempts[0].Codes, "the attempt's codes")
}

// TestSkewRetryNotOnUndecodableAnswer: the clock-skew retry sends a
// payment POST again only on the bank's own 400, read from its body; a
// body in an encoding the client cannot undo says nothing (the call's
// error reads no tppMessages in it), so it proves nothing and the POST is
// not sent again. On the code before, the retry loop read such a body as
// plain bytes and, finding tppMessages there, sent the payment twice.
func TestSkewRetryNotOnUndecodableAnswer(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"tppMessages":         `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`,
		"tppMessages cut off": `{"tppMessages":[{"category":"ERROR","code":"FORM`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Date", time.Now().Add(10*time.Minute).UTC().Format(http.TimeFormat))
				w.Header().Set("Content-Encoding", "br")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(body))
			})
			c := newTestClient(t, b.URL)
			_, err := c.Do(t.Context(), Operation{Method: http.MethodPost, Path: "/v1/payments/sepa-credit-transfers",
				Body: map[string]int{"n": 1}, ResultID: "paymentId"}, nil)
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			assert.EqualValues(t, 1, b.count.Load(), "a payment POST was sent again on an answer the client cannot read")
		})
	}
}

// TestContentEncodingOverSeveralLines: Content-Encoding is a list, and
// every field line of it counts (RFC 9110 section 8.4). A payment's 400
// with the bank's tppMessages and a Date minutes off, sent as
// "identity" then "br", is a body the client cannot undo, which proves
// no refusal: the payment is not sent again (the clock-skew retry) and
// its outcome is unknown. A created payment's 201 sent as "identity"
// then "gzip" is gzip, and is read. On the code before, only the first
// line was read: the 400's bytes counted as a refusal and the payment
// went to the bank twice, and the 201's gzip failed as "not JSON",
// outcome unknown.
func TestContentEncodingOverSeveralLines(t *testing.T) {
	t.Parallel()
	pay := Operation{Method: http.MethodPost, Path: "/v1/payments/norwegian-domestic-credit-transfers", Body: map[string]any{"a": 1}, ResultID: "paymentId"}
	t.Run("identity then br on a refusal", func(t *testing.T) {
		t.Parallel()
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header()["Content-Encoding"] = []string{"identity", "br"}
			w.Header().Set("Date", time.Now().Add(5*time.Minute).UTC().Format(http.TimeFormat))
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"TIMESTAMP_INVALID"}]}`))
		})
		c := newTestClient(t, b.URL)
		_, err := c.Do(t.Context(), pay, nil)
		assert.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.EqualValues(t, 1, b.count.Load(), "the payment was sent again")
	})
	t.Run("identity then gzip on a creation", func(t *testing.T) {
		t.Parallel()
		body := gzipped(t, []byte(`{"paymentId":"p1","transactionStatus":"RCVD"}`))
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header()["Content-Encoding"] = []string{"identity", "gzip"}
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(body)
		})
		c := newTestClient(t, b.URL)
		var out struct {
			PaymentID string `json:"paymentId"`
		}
		_, err := c.Do(t.Context(), pay, &out)
		require.NoError(t, err)
		assert.Equal(t, "p1", out.PaymentID)
	})
	t.Run("gzip twice is refused", func(t *testing.T) {
		t.Parallel()
		body := gzipped(t, gzipped(t, []byte(`{"paymentId":"p1"}`)))
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header()["Content-Encoding"] = []string{"gzip", "gzip"}
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(body)
		})
		c := newTestClient(t, b.URL)
		_, err := c.Do(t.Context(), pay, nil)
		assert.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.ErrorContains(t, err, `content encoding "gzip, gzip"`)
	})
}

// TestUndecodableAnswerNamesOperation: a repeatable call whose 2xx answer
// cannot be read fails naming its operation, whether the answer is past
// the limits as it came or only once its gzip is undone, or its
// encoding cannot be undone. On the code before, the gzip and encoding
// failures read "reading answer: gzip answer: ..." without the
// operation, unlike the same answer uncompressed.
func TestUndecodableAnswerNamesOperation(t *testing.T) {
	t.Parallel()
	huge := []byte(`{"x":"` + strings.Repeat("a", maxBody) + `"}`)
	for name, tt := range map[string]struct {
		encoding string
		body     []byte
		too      bool // ErrAnswerTooLarge
	}{
		"plain, too large": {"", huge, true},
		"gzip, too large":  {"gzip", gzipped(t, huge), true},
		"br":               {"br", []byte("\x8b\x01\x80{}\x03"), false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if tt.encoding != "" {
					w.Header().Set("Content-Encoding", tt.encoding)
				}
				_, _ = w.Write(tt.body)
			})
			c := newTestClient(t, b.URL)
			_, err := c.Do(t.Context(), Operation{Name: "accounts.Balances", Method: http.MethodGet, Path: "/v1/accounts/x/balances"}, nil)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "accounts.Balances: "), "%v", err)
			assert.Equal(t, tt.too, errors.Is(err, ErrAnswerTooLarge), "%v", err)
			assert.EqualValues(t, 1, b.count.Load(), "not retried")
		})
	}
}
