package basket_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// A DELETE is retried by the client after an attempt that may have
// reached the bank (a dropped connection, a 502), but its answer is not
// idempotent: the first attempt may have deleted the basket, and the
// retry then finds none and is refused (404). That refusal is no answer
// to the deletion the caller asked for: Delete and DeleteAt return an
// error matching basket.ErrDeleteUnconfirmed (the bank's *client.Error
// inside), which says to read the basket's status, not a bare refusal
// saying the basket was not deleted. Before the fix they returned the
// 404 alone while the emulator held no basket. A refusal of a first
// attempt stays a refusal.
func TestDeleteRetriedAfterAnAttemptThatMayHaveDeleted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fault emulator.Fault
		del   func(t *testing.T, b *bank, bk *basket.Basket) error
	}{
		{"Delete, connection dropped after the request was read", emulator.Fault{Kind: emulator.FaultDropAfterBody},
			func(t *testing.T, b *bank, bk *basket.Basket) error {
				return b.bsk.Delete(t.Context(), bk.BasketID, b.basketOpts()...)
			}},
		{"DeleteAt, connection dropped after the request was read", emulator.Fault{Kind: emulator.FaultDropAfterBody},
			func(t *testing.T, b *bank, bk *basket.Basket) error {
				return b.bsk.DeleteAt(t.Context(), bk.Links.Href(client.LinkSelf), b.basketOpts()...)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := startBank(t)
			ids := b.ndcts(t, 2, 701)
			bk, err := b.bsk.Create(t.Context(), ids, b.basketOpts()...)
			require.NoError(t, err)
			require.NotEmpty(t, bk.Links.Href(client.LinkSelf))
			f := tc.fault
			f.Method, f.PathPrefix = http.MethodDelete, "/v1/signing-baskets/"
			b.s.Control().InjectFault(f)

			err = tc.del(t, b, bk)
			for _, p := range b.s.Control().Payments() {
				require.Empty(t, p.BasketID, "the first attempt deleted the basket")
			}
			_, gerr := b.bsk.Get(t.Context(), bk.BasketID)
			require.ErrorIs(t, gerr, client.ErrNotFound, "the first attempt deleted the basket")
			require.ErrorIs(t, err, basket.ErrDeleteUnconfirmed)
			var ce *client.Error
			require.ErrorAs(t, err, &ce, "the bank's refusal of the retry is kept inside")
			assert.GreaterOrEqual(t, ce.StatusCode, 400)
			assert.Contains(t, err.Error(), ce.RequestID)
			assert.Contains(t, err.Error(), "read the basket's status")

			// A deletion refused at its first attempt is a refusal.
			err = tc.del(t, b, bk)
			require.ErrorAs(t, err, &ce)
			assert.ErrorIs(t, err, client.ErrNotFound)
			assert.NotErrorIs(t, err, basket.ErrDeleteUnconfirmed)
		})
	}
}
