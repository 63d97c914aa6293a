package client

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cloningTransport sends a copy of each request under a context of its
// own, as queueing and proxying transports do: net/http's trace never
// reaches the SDK.
type cloningTransport struct{ next http.RoundTripper }

func (t cloningTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return t.next.RoundTrip(r.Clone(context.Background()))
}

// resendingTransport resends a request whose answer failed, under the
// request's own context, as many retrying transports do.
type resendingTransport struct{ next http.RoundTripper }

func (t resendingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	for range 3 {
		c := r.Clone(r.Context())
		c.Body = io.NopCloser(bytes.NewReader(body))
		resp, err := t.next.RoundTrip(c)
		if err == nil {
			return resp, nil
		}
		if r.Context().Err() != nil {
			return nil, err
		}
	}
	return nil, errors.New("gave up")
}

// A payment POST that the bank read and then hung up on is sent once,
// and ends in ErrOutcomeUnknown, whatever the caller's transport: one that
// loses the SDK's trace, one that resends on its own, or net/http's.
func TestPaymentNotResentBelowThePipeline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rt   http.RoundTripper
		// hidden: the transport resends under contexts of its own; the
		// SDK can neither see nor stop it (WithHTTPClient says so), but
		// it adds no resend of its own.
		hidden bool
	}{
		{"net/http", http.DefaultTransport, false},
		{"copy under its own context", cloningTransport{http.DefaultTransport}, false},
		{"resends on its own", resendingTransport{http.DefaultTransport}, false},
		{"copy, then resends", cloningTransport{resendingTransport{http.DefaultTransport}}, true},
		{"resends, each as a copy", resendingTransport{cloningTransport{http.DefaultTransport}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					hangUp(w)
					return
				}
				w.WriteHeader(http.StatusCreated)
				io.WriteString(w, `{"paymentId":"p-2","transactionStatus":"RCVD"}`)
			})
			c := newTestClient(t, b.URL, WithHTTPClient(&http.Client{Transport: tt.rt}))
			_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"a": 1}, ResultID: "paymentId"}, nil)
			if tt.hidden {
				require.NoError(t, err)
				assert.EqualValues(t, 2, b.count.Load())
				return
			}
			assert.EqualValues(t, 1, b.count.Load(), "sent once")
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			assert.NotErrorIs(t, err, ErrNotSent)
		})
	}
}

// A failed GET through a transport that loses the trace is still retried
// (it is repeatable), and the retry is allowed by BeforeRetry first, as
// after any attempt that may have reached the bank.
func TestRepeatableRetriedThroughCloningTransport(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			hangUp(w)
			return
		}
		io.WriteString(w, `{"ok":true}`)
	})
	c := newTestClient(t, b.URL, WithHTTPClient(&http.Client{Transport: cloningTransport{http.DefaultTransport}}))
	allowed := 0
	op := Operation{Method: "GET", Path: "/v1/x", BeforeRetry: func(context.Context, *Call) error { allowed++; return nil }}
	_, err := c.Do(t.Context(), op, nil)
	require.NoError(t, err)
	assert.EqualValues(t, 2, b.count.Load())
	assert.Equal(t, 1, allowed)
}

// A redirect answer to a payment POST says nothing of what the bank did
// (a 303 may point at the payment it created): the outcome is unknown,
// and the POST is not sent again.
func TestRedirectToPaymentIsOutcomeUnknown(t *testing.T) {
	t.Parallel()
	for _, code := range []int{301, 302, 303, 307, 308} {
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Location", "/v1/payments/x/p-1")
			w.WriteHeader(code)
		})
		c := newTestClient(t, b.URL)
		_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"a": 1}, ResultID: "paymentId"}, nil)
		require.ErrorIs(t, err, ErrOutcomeUnknown, code)
		var e *Error
		require.ErrorAs(t, err, &e, "the answer is kept inside")
		assert.Equal(t, code, e.StatusCode)
		assert.EqualValues(t, 1, b.count.Load())
		// A GET's redirect stays the bank's answer.
		_, err = c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/x"}, nil)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown)
		require.ErrorAs(t, err, &e)
	}
}
