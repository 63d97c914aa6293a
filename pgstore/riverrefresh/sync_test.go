package riverrefresh_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/txsync"
)

// TestResultsCarryTheSync: an engine whose bank's options hold
// refresh.WithSync hands results carrying the sync's lists (state in the
// shared PostgreSQL store): a first read of each account reports every
// entry read as added, under a key of the account the sync linked.
func TestResultsCarryTheSync(t *testing.T) {
	w := newWorld(t, 2)
	sy, err := txsync.New(w.store)
	require.NoError(t, err)
	keys := map[string]txsync.AccountKey{}
	for i, cu := range w.seeded.Customers {
		var accts []accounts.Account
		var cards []accounts.CardAccount
		for _, a := range cu.Accounts {
			accts = append(accts, accounts.Account{ResourceID: a.ID, BBAN: a.BBAN, IBAN: a.IBAN})
		}
		for _, k := range cu.CardAccounts {
			cards = append(cards, accounts.CardAccount{ResourceID: k.ID, MaskedPAN: k.MaskedPan, Currency: "NOK"})
		}
		l, err := sy.Link(t.Context(), "user-"+strconv.Itoa(i), accts, cards)
		require.NoError(t, err)
		for _, a := range l.Accounts {
			keys[a.ResourceID] = a.Key
		}
	}
	w.options = []refresh.Option{refresh.WithSync(sy)}

	var mu sync.Mutex
	got := map[string]refresh.Result{}
	e := w.engine(t, riverrefresh.Config{Schedule: true, Work: true, Handle: func(_ context.Context, _ string, res refresh.Result) {
		mu.Lock()
		defer mu.Unlock()
		got[res.Job.AccountID()] = res
	}})
	ctx := t.Context()
	require.NoError(t, e.Migrate(ctx))
	start(t, e)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == len(w.ids)
	}, 60*time.Second, 50*time.Millisecond)

	mu.Lock()
	defer mu.Unlock()
	added := 0
	for id, res := range got {
		require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
		require.NotNil(t, res.Sync)
		assert.True(t, res.Sync.First)
		assert.Equal(t, keys[id], res.Sync.Account)
		read := len(res.Booked) + len(res.Pending) + len(res.CardBooked) + len(res.CardPending)
		assert.Len(t, res.Sync.Added, read, "a first read adds every entry read")
		added += len(res.Sync.Added)
	}
	assert.Positive(t, added)
}
