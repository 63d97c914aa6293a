package reconcile_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/internal/testkit/hungstore"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// A hung database never holds a Reconciler's call for ever, even on a
// context without a deadline: each of its store calls gives up after
// the Reconciler's bound (storeWait; shorter here), and a listing after
// that long without its next key, with an error matching
// reconcile.ErrStore and context.DeadlineExceeded. On the code before,
// each call waited on the store for as long as the caller's context,
// which had no end.
func TestHungStoreHoldsNoReconcilerCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background() // no deadline: only the store's bound ends a hung call
	merchant := accounts.Account{IBAN: merchantIBAN, BBAN: merchantBBAN}
	calls := map[string]func(r *reconcile.Reconciler, now time.Time) error{
		"Watch": func(r *reconcile.Reconciler, _ time.Time) error { return r.Watch(ctx, acct, merchant) },
		"Track": func(r *reconcile.Reconciler, now time.Time) error {
			_, err := r.Track(ctx, payment("p2", now))
			return err
		},
		"Payment": func(r *reconcile.Reconciler, _ time.Time) error {
			_, err := r.Payment(ctx, "p1")
			return err
		},
		"Status": func(r *reconcile.Reconciler, _ time.Time) error {
			return r.Status(ctx, "p1", payments.StatusACSC)
		},
		"Apply": func(r *reconcile.Reconciler, _ time.Time) error {
			_, err := r.Apply(ctx, &txsync.Delta{Account: acct})
			return err
		},
		"Watching": func(r *reconcile.Reconciler, _ time.Time) error {
			_, err := r.Watching(ctx)
			return err
		},
		"Payments": func(r *reconcile.Reconciler, _ time.Time) error {
			for _, err := range r.Payments(ctx, day("2025-03-01"), day("2025-03-31")) {
				if err != nil {
					return err
				}
			}
			return nil
		},
		"Forget": func(r *reconcile.Reconciler, _ time.Time) error { return r.Forget(ctx, acct) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clk := newClockAt("2025-03-03")
			st := hungstore.New(t, nil, "reconcile/")
			st.Hung.Store(false) // hung from below on
			r, err := reconcile.New(st, reconcile.WithClock(clk.Now))
			require.NoError(t, err)
			reconcile.SetStoreWait(r, 100*time.Millisecond)
			require.NoError(t, r.Watch(ctx, acct, merchant))
			_, err = r.Track(ctx, payment("p1", clk.Now()))
			require.NoError(t, err)
			st.Hung.Store(true)
			err = hungstore.Within(t, name, func() error { return call(r, clk.Now()) })
			require.ErrorIs(t, err, reconcile.ErrStore)
			require.ErrorIs(t, err, context.DeadlineExceeded, "the store was given up on")

			st.Hung.Store(false)
			require.NoError(t, call(r, clk.Now()), "the database answers again")
		})
	}
}
