package payments_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/payments"
)

// TestWaitHonoursRetryAfter: a bank answering the status read 429
// with Retry-After: 3600 asks the TPP to stay away for an hour. The
// client does not retry (beyond MaxRetryAfter) and returns the *Error;
// Wait must not read again sooner either, and a pause past the caller's
// deadline ends the wait with the bank's answer. On the code before, Wait
// read again after its own backoff (1 s, 1.5 s, 2.25 s, ... up to 30 s):
// about 120 more reads in that hour instead of 0.
func TestWaitHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED","text":"slow down"}]}`)
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, testtpp.Credentials(t, "Test TPP"), client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	svc, err := payments.New(c, payments.WithPolling(50*time.Millisecond, 100*time.Millisecond))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err = svc.Wait(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: "p1"}, psuPresent()...)
	require.Error(t, err)
	t.Logf("Wait: %v; status reads: %d", err, n.Load())
	assert.EqualValues(t, 1, n.Load(), "Wait read again although the bank asked for an hour's pause")
}
