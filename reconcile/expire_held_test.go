package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// TestHeldCreditOutlivesRetentionWithoutRead: a credit held for a
// payment (booked in the future), and the account not read for longer
// than Retention; a call that returns no Round (Status, Track,
// TrackJournal) finds the payment past Retention. It keeps it while it
// holds the credit, and the next read settles the payment with it, as
// any held credit no longer ahead. Before, the call dropped the payment
// and the held credit with it: the credit was reported nowhere.
func TestHeldCreditOutlivesRetentionWithoutRead(t *testing.T) {
	t.Parallel()
	for _, call := range []string{"status", "track"} {
		t.Run(call, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "2026-03-16")
			f.pay("p1", nok("1250.00"), futureKID, "")
			c1 := credit("c1", "2026-03-19", nok("1250.00"), "KID "+futureKID)
			r, err := f.r.Apply(t.Context(), future(c1))
			require.NoError(t, err)
			require.Len(t, r.Held, 1)

			f.at("2026-07-20") // 126 days on: past Retention, no read since
			switch call {
			case "status":
				require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusACSC))
			case "track":
				_, err := f.r.Track(t.Context(), payment("p2", f.clk.Now()))
				require.NoError(t, err)
			}
			r = f.apply()
			require.Len(t, r.Settled, 1, "the held credit settles its payment at the next read")
			assert.Equal(t, "p1", r.Settled[0].Payment)
			assert.Equal(t, c1.Key, r.Settled[0].Booking)
			assert.Equal(t, 1, settledEvents(f.col))
		})
	}
}

// TestHeldReversalOutlivesRetentionWithoutRead: the same for a reversal
// held for a settled payment: the next read returns the payment.
func TestHeldReversalOutlivesRetentionWithoutRead(t *testing.T) {
	t.Parallel()
	f := settledByC1(t)
	f.at("2026-03-17")
	d1 := credit("d1", "2026-03-26", nok("-1250.00"), "KID "+futureKID)
	r, err := f.r.Apply(t.Context(), future(d1))
	require.NoError(t, err)
	require.Len(t, r.Held, 1)

	f.at("2026-07-20")
	require.NoError(t, f.r.Status(t.Context(), "p1", payments.StatusACSC))
	r = f.apply()
	require.Len(t, r.Returned, 1, "the held reversal returns its payment at the next read")
	assert.Equal(t, txsync.Key(string(acct)+"-d1"), r.Returned[0].Reversal)
	assert.Equal(t, reconcile.Returned, r.Returned[0].Settlement)
	assert.Equal(t, 1, returnedEvents(f.col))
}
