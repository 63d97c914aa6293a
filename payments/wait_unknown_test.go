package payments_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/payments"
)

// scriptedBank answers the status reads of one payment from a script:
// read n gets answers[n] (the last one again once the script ends). An
// answer is a JSON body for a 200, or "404" for the bank's not found.
type scriptedBank struct {
	answers []string
	mu      sync.Mutex
	paths   []string
}

func (b *scriptedBank) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	n := len(b.paths)
	b.paths = append(b.paths, r.Method+" "+r.URL.Path)
	b.mu.Unlock()
	answer := b.answers[min(n, len(b.answers)-1)]
	w.Header().Set("Content-Type", "application/json")
	if answer == "404" {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN"}]}`))
		return
	}
	_, _ = w.Write([]byte(answer))
}

// reads returns the requests the bank received.
func (b *scriptedBank) reads() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.paths...)
}

// newScriptedService starts a scriptedBank and returns it with a Service
// on it that polls quickly (1 to 4 ms) and does not retry, so every read
// of Wait is one request.
func newScriptedService(t *testing.T, answers ...string) (*scriptedBank, *payments.Service) {
	t.Helper()
	b := &scriptedBank{answers: answers}
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, testtpp.Credentials(t, "Waiting PISP"), client.WithRetryPolicy(client.RetryPolicy{}),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	svc, err := payments.New(c, payments.WithPolling(time.Millisecond, 4*time.Millisecond))
	require.NoError(t, err)
	return b, svc
}

// TestWaitStopsOnUnknownStatus: a status the package does not know
// (the on-hold status without a code, a new one, a lower-case one) or an
// answer without transactionStatus ends Wait at the read that brought it,
// with that status response and an error matching ErrUnknownStatus (not
// the ctx's end), for single, periodic and bulk payments alike; known
// statuses that are not final and the NDCT's 404 before approval are
// still read again first.
func TestWaitStopsOnUnknownStatus(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("X", 40)
	tests := []struct {
		name    string
		service payments.PaymentService
		product payments.Product
		answers []string
		status  payments.TransactionStatus // the status Wait returns
		reads   int                        // the reads Wait makes
		line    string                     // in the error line
	}{
		{"HOLD", payments.ServiceSingle, payments.ProductSEPA,
			[]string{`{"paymentId":"p1","transactionStatus":"HOLD"}`}, "HOLD", 1, `"HOLD"`},
		{"no transactionStatus", payments.ServiceSingle, payments.ProductSEPA,
			[]string{`{"paymentId":"p1"}`}, "", 1, "none"},
		{"empty transactionStatus", payments.ServiceSingle, payments.ProductSEPA,
			[]string{`{"paymentId":"p1","transactionStatus":""}`}, "", 1, "none"},
		{"lower case", payments.ServiceSingle, payments.ProductSEPA,
			[]string{`{"paymentId":"p1","transactionStatus":"acsc"}`}, "acsc", 1, `"acsc"`},
		{"long unknown status", payments.ServiceSingle, payments.ProductSEPA,
			[]string{`{"paymentId":"p1","transactionStatus":"` + long + `"}`}, payments.TransactionStatus(long), 1, `"` + long[:16] + `"…`},
		{"known non-final first", payments.ServiceSingle, payments.ProductSEPA,
			[]string{`{"transactionStatus":"RCVD"}`, `{"transactionStatus":"ACTC"}`, `{"transactionStatus":"ACCP","fundsAvailable":false}`, `{"transactionStatus":"HOLD"}`}, "HOLD", 4, `"HOLD"`},
		{"NDCT not yet readable first", payments.ServiceSingle, payments.ProductNorwegianDomestic,
			[]string{"404", "404", `{"transactionStatus":"HOLD"}`}, "HOLD", 3, `"HOLD"`},
		{"periodic HOLD", payments.ServicePeriodic, payments.ProductSEPA,
			[]string{`{"transactionStatus":"ACTC"}`, `{"transactionStatus":"HOLD"}`}, "HOLD", 2, `"HOLD"`},
		{"bulk no status", payments.ServiceBulk, payments.ProductNorwegianDomestic,
			[]string{"404", `{"paymentId":"p1"}`}, "", 2, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			bank, svc := newScriptedService(t, tt.answers...)
			// The deadline only ends the old behaviour (reading until ctx
			// ends); the test asserts on the reads and the error, not on
			// time.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			var st *payments.StatusResponse
			var err error
			if tt.service == payments.ServiceSingle {
				st, err = svc.Wait(ctx, payments.Ref{Service: payments.ServiceSingle, Product: tt.product, ID: "p1"})
			} else {
				st, err = svc.Wait(ctx, payments.Ref{Service: tt.service, Product: tt.product, ID: "p1"})
			}
			require.ErrorIs(t, err, payments.ErrUnknownStatus)
			assert.NotErrorIs(t, err, context.DeadlineExceeded)
			assert.NotErrorIs(t, err, client.ErrNotFound)
			assert.Contains(t, err.Error(), "payments.Wait: ")
			assert.Contains(t, err.Error(), tt.line)
			assert.NotContains(t, err.Error(), long[:17])
			require.NotNil(t, st)
			assert.Equal(t, tt.status, st.TransactionStatus)
			assert.False(t, st.TransactionStatus.IsKnown())

			reads := bank.reads()
			require.Len(t, reads, tt.reads)
			want := "GET /v1/" + string(tt.service) + "/" + string(tt.product) + "/p1/status"
			for _, r := range reads {
				assert.Equal(t, want, r)
			}
		})
	}
}

// TestWaitKnownStatusesStillPoll: known statuses that are not final keep
// Wait reading until a final one, which it returns without error; a
// known status that never becomes final still ends only with ctx.
func TestWaitKnownStatusesStillPoll(t *testing.T) {
	t.Parallel()
	t.Run("until final", func(t *testing.T) {
		t.Parallel()
		bank, svc := newScriptedService(t, `{"transactionStatus":"RCVD"}`, `{"transactionStatus":"PDNG"}`,
			`{"transactionStatus":"ACSP"}`, `{"transactionStatus":"ACSC"}`)
		st, err := svc.Wait(t.Context(), payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: "p1"})
		require.NoError(t, err)
		assert.Equal(t, payments.StatusACSC, st.TransactionStatus)
		assert.Len(t, bank.reads(), 4)
	})
	t.Run("never final", func(t *testing.T) {
		t.Parallel()
		bank, svc := newScriptedService(t, `{"transactionStatus":"ACTC"}`)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() {
			// Cancel once Wait has read the status a few times.
			for len(bank.reads()) < 3 && ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
		st, err := svc.Wait(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: "p1"})
		require.ErrorIs(t, err, context.Canceled)
		assert.False(t, errors.Is(err, payments.ErrUnknownStatus))
		require.NotNil(t, st)
		assert.Equal(t, payments.StatusACTC, st.TransactionStatus)
		assert.GreaterOrEqual(t, len(bank.reads()), 3)
	})
}
