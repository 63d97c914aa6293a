package reconcile_test

import (
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/txsync"
)

// TestOddBankAmountIsAnnounced: a credit whose amount the bank sends in
// a form money.Amount.Validate refuses (more fraction digits than the
// currency has, a code outside ISO 4217) still settles its payment by
// KID with another amount, and its events go out with the amount as the
// bank sent it. Before, the events' amounts were built in code, so they
// failed to encode: the settlement was never announced, every later
// Apply of the account failed on the same event, and the payment, its
// announcement pending, was never let go.
func TestOddBankAmountIsAnnounced(t *testing.T) {
	t.Parallel()
	for _, a := range []money.Amount{
		{Value: decimal.RequireFromString("99.995"), Currency: "NOK"},
		{Value: decimal.RequireFromString("100.00"), Currency: "CNH"},
	} {
		t.Run(a.Currency, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, "2026-03-16")
			f.pay("p1", nok("100.00"), "5550001112", "")
			c := credit("c", "2026-03-16", a, "KID 5550001112")
			r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Added: []txsync.Entry{c}})
			require.NoError(t, err)
			require.Len(t, r.Settled, 1)
			evs := f.col.events()
			require.Len(t, evs, 1)
			s, ok := evs[0].(events.PaymentSettled)
			require.True(t, ok)
			assert.True(t, s.Amount.Value.Equal(a.Value), "%v", s.Amount)
			assert.Equal(t, a.Currency, s.Amount.Currency)
			assert.True(t, s.DifferentAmount)
			_, err = json.Marshal(f.state("p1"))
			require.NoError(t, err, "the state encodes (psd2 reconcile --json)")

			// Its return: the reversal's amount, as the bank sent it.
			f.at("2026-03-18")
			ret := credit("r", "2026-03-18", money.Amount{Value: a.Value.Neg(), Currency: a.Currency}, "KID 5550001112")
			r, err = f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Added: []txsync.Entry{ret}})
			require.NoError(t, err)
			require.Len(t, r.Returned, 1)
			evs = f.col.events()
			require.Len(t, evs, 2)
			rt, ok := evs[1].(events.PaymentReturned)
			require.True(t, ok)
			assert.True(t, rt.Amount.Value.Equal(a.Value.Neg()), "%v", rt.Amount)
			f.at("2026-03-19")
			_, err = f.r.Apply(t.Context(), &txsync.Delta{Account: acct})
			require.NoError(t, err)
		})
	}
}
