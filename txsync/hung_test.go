package txsync_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/testkit/hungstore"
	"github.com/tppkit/psd2/txsync"
)

// A hung database never holds a Syncer's call for ever, even on a
// context without a deadline: each of its store calls gives up after the
// Syncer's bound (storeWait; shorter here) with an error matching
// context.DeadlineExceeded, and the call ends with it. On the code
// before, each call waited on the store for as long as the caller's
// context, which had no end.
func TestHungStoreHoldsNoSyncerCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background() // no deadline: only the store's bound ends a hung call
	acctList := []accounts.Account{{ResourceID: "r1", IBAN: "NO93 8601 1117 947"}}
	calls := map[string]func(s *txsync.Syncer, acct txsync.AccountKey) error{
		"Link": func(s *txsync.Syncer, _ txsync.AccountKey) error {
			_, err := s.Link(ctx, "user-1", acctList, nil)
			return err
		},
		"KeyOf": func(s *txsync.Syncer, _ txsync.AccountKey) error {
			_, err := s.KeyOf(ctx, "r1")
			return err
		},
		"From": func(s *txsync.Syncer, acct txsync.AccountKey) error {
			_, err := s.From(ctx, acct)
			return err
		},
		"Apply": func(s *txsync.Syncer, acct txsync.AccountKey) error {
			_, err := s.Apply(ctx, acct, txsync.Read{Booked: []accounts.Transaction{booked(t, "t1", "2025-03-03", "-10.00", "Shop", "coffee")}})
			return err
		},
		"StateSize": func(s *txsync.Syncer, acct txsync.AccountKey) error {
			_, err := s.StateSize(ctx, acct)
			return err
		},
		"Forget": func(s *txsync.Syncer, acct txsync.AccountKey) error {
			return s.Forget(ctx, acct)
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := hungstore.New(t, nil, "txsync/")
			st.Hung.Store(false) // hung from below on
			s, err := txsync.New(st)
			require.NoError(t, err)
			txsync.SetStoreWait(s, 100*time.Millisecond)
			l, err := s.Link(ctx, "user-1", acctList, nil)
			require.NoError(t, err)
			acct := l.Accounts[0].Key
			st.Hung.Store(true)
			err = hungstore.Within(t, name, func() error { return call(s, acct) })
			require.ErrorIs(t, err, context.DeadlineExceeded, "the store was given up on")

			st.Hung.Store(false)
			require.NoError(t, call(s, acct), "the database answers again")
		})
	}
}
