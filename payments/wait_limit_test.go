package payments_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
)

// TestWaitWithoutDeadlineEnds: a Wait whose ctx has no deadline on a
// payment that never becomes final (a bank answering ACTC on every read,
// or an NDCT's 404 for an id it does not know) does not poll the bank
// without end: it ends after payments.DefaultWaitLimit (shortened here)
// with the last status it read and an error matching
// context.DeadlineExceeded.
func TestWaitWithoutDeadlineEnds(t *testing.T) {
	defer payments.SetWaitLimit(300 * time.Millisecond)()
	bank, svc := newScriptedService(t, `{"transactionStatus":"ACTC"}`)
	type result struct {
		st  *payments.StatusResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := svc.Wait(context.Background(), payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: "p1"})
		done <- result{st, err}
	}()
	select {
	case r := <-done:
		require.ErrorIs(t, r.err, context.DeadlineExceeded)
		require.NotNil(t, r.st)
		assert.Equal(t, payments.StatusACTC, r.st.TransactionStatus)
		assert.GreaterOrEqual(t, len(bank.reads()), 2)
	case <-time.After(10 * time.Second):
		t.Fatalf("Wait without a deadline still polling after 10 s (%d reads)", len(bank.reads()))
	}
	assert.Equal(t, 24*time.Hour, payments.DefaultWaitLimit)
}
