package budget_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// gatedStore holds each Update of a key under prefix until gate is
// closed (or its context ends): a database slow to land the budget's
// settling write.
type gatedStore struct {
	store.Store
	prefix string
	gate   chan struct{}
}

func (g *gatedStore) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	if strings.HasPrefix(key, g.prefix) {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g.Store.Update(ctx, key, fn)
}

// Flush waits for the writes that settle a call after the call returned
// (here the bank's pause after its 429, which the caller's deadline left
// behind), so that a process that exits right after a call does not lose
// them; it ends with its context's error while one is still under way.
// On the code before, nothing waited for them: a process that exited
// after the call lost the pause, and its next start called the bank
// again within it.
func TestFlushWaitsForSettlingWrites(t *testing.T) {
	t.Parallel()
	st := &gatedStore{Store: store.NewMemoryStore(), prefix: "budget/pause/", gate: make(chan struct{})}
	bank := newSlowBank(t, 30)
	svc := newService(t, bank.client(t, st))
	b := budgetOf(svc)
	require.NoError(t, b.Flush(t.Context()), "nothing under way")
	rsv, err := b.Reserve(t.Context(), budget.ReserveRequest{AccountID: acc1, Balances: 1})
	require.NoError(t, err)

	// The call's deadline leaves the request time to be answered, even
	// on a loaded machine, and then ends the wait for the gated write.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = svc.Balances(ctx, acc1, psuAbsent(rsv.Option())...)
	var ce *client.Error
	require.ErrorAs(t, err, &ce, "the bank's 429")
	require.Equal(t, http.StatusTooManyRequests, ce.StatusCode)

	short, cancelShort := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelShort()
	require.ErrorIs(t, b.Flush(short), context.DeadlineExceeded, "the pause's write is still under way")

	close(st.gate) // the database answers
	require.NoError(t, b.Flush(t.Context()))
	n := 0
	for _, err := range st.Keys(t.Context(), "budget/pause/") {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 1, n, "the pause is in the store once Flush returned")

	var nilBudget *budget.Budget
	assert.NoError(t, nilBudget.Flush(t.Context()))
}
