package txsync_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// TestLinkBoundsTheAccounts: a bank's listing may hold some 20,000
// accounts within the client's limits on an answer, and Link writes two
// records for each (40,000 store writes, half a second on a memory
// store, much longer on a database) and compared every key the owner had
// with every listed one (two seconds for a second Link of 20,000). Link
// takes at most txsync.MaxLinkAccounts accounts and as many card
// accounts, the bound a session keeps (sca.MaxAccounts), and refuses a
// longer list with ErrInvalidOption before anything is written.
func TestLinkBoundsTheAccounts(t *testing.T) {
	s, err := txsync.New(store.NewMemoryStore())
	require.NoError(t, err)
	ctx := t.Context()
	many := func(n int) []accounts.Account {
		out := make([]accounts.Account, n)
		for i := range out {
			out[i] = accounts.Account{ResourceID: "r" + strconv.Itoa(i), IBAN: "NO" + strconv.Itoa(10_000_000+i)}
		}
		return out
	}
	cards := func(n int) []accounts.CardAccount {
		out := make([]accounts.CardAccount, n)
		for i := range out {
			out[i] = accounts.CardAccount{ResourceID: "c" + strconv.Itoa(i), MaskedPAN: "552216******" + strconv.Itoa(1000+i)}
		}
		return out
	}
	_, err = s.Link(ctx, "user-1", many(txsync.MaxLinkAccounts+1), nil)
	require.ErrorIs(t, err, txsync.ErrInvalidOption)
	_, err = s.KeyOf(ctx, "r0")
	assert.ErrorIs(t, err, txsync.ErrNotLinked, "nothing written")
	_, err = s.Link(ctx, "user-1", nil, cards(txsync.MaxLinkAccounts+1))
	require.ErrorIs(t, err, txsync.ErrInvalidOption)

	// A listing that repeats its accounts is counted once per account.
	l, err := s.Link(ctx, "user-1", append(many(txsync.MaxLinkAccounts), many(10)...), cards(txsync.MaxLinkAccounts))
	require.NoError(t, err)
	assert.Len(t, l.Accounts, 2*txsync.MaxLinkAccounts)

	// The next consent lists one account less: it is the one gone.
	l, err = s.Link(ctx, "user-1", many(txsync.MaxLinkAccounts)[1:], nil)
	require.NoError(t, err)
	assert.Len(t, l.Gone, txsync.MaxLinkAccounts+1)
}
