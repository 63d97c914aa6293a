package budget_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// TestRecorded tells an account the store has a ledger of from one it
// has none of, and a bank with ledgers from one without: the absence
// Remaining reports as "every call left".
func TestRecorded(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank, other := newCountingBank(t), newCountingBank(t)
	st := store.NewMemoryStore()
	svc := newService(t, bank.client(t, client.WithStore(st)))
	b := budgetOf(svc)

	rec, err := b.Recorded(ctx, acc1)
	require.NoError(t, err)
	assert.Equal(t, budget.Records{}, rec, "nothing counted yet")

	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	require.NoError(t, err)
	rec, err = b.Recorded(ctx, acc1)
	require.NoError(t, err)
	assert.Equal(t, budget.Records{Account: true, Bank: true}, rec)
	rec, err = b.Recorded(ctx, acc2)
	require.NoError(t, err)
	assert.Equal(t, budget.Records{Bank: true}, rec, "another account of the bank")

	// The same store seen from another bank's client: no ledger of it.
	ob := budget.Of(other.client(t, client.WithStore(st)))
	rec, err = ob.Recorded(ctx, acc1)
	require.NoError(t, err)
	assert.Equal(t, budget.Records{}, rec)

	_, err = b.Recorded(ctx, "")
	assert.Error(t, err)
}
