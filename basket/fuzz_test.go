package basket_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
)

// FuzzDecodeBasket feeds bank answers to the basket types: decoding never
// panics, and a decoded basket survives a round trip through its own JSON
// (the ids of either field name land in paymentIds).
func FuzzDecodeBasket(f *testing.F) {
	for _, name := range []string{"signing-basket-create-201.json", "signing-basket-get.json", "payment-start-authorisation-201.json", "error-400-reference-mix-invalid.json"} {
		f.Add(doc(f, name))
	}
	f.Add([]byte(`{"paymentIds":["a"],"payments":["b"],"transactionStatus":"PATC"}`))
	f.Add([]byte(`{"payments":null,"_links":{"scaRedirect":{"href":"https://x/tap"}}}`))
	f.Add([]byte(`{"payments":[""],"basketId":7}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var st basket.StatusResponse
		_ = json.Unmarshal(data, &st)
		var a basket.Authorisation
		if json.Unmarshal(data, &a) == nil {
			_ = a.SCARedirect()
		}
		var b basket.Basket
		if err := json.Unmarshal(data, &b); err != nil {
			return
		}
		_ = b.SCARedirect()
		out, err := json.Marshal(&b)
		require.NoError(t, err)
		var again basket.Basket
		require.NoError(t, json.Unmarshal(out, &again))
		assert.Equal(t, b.BasketID, again.BasketID)
		assert.Equal(t, b.TransactionStatus, again.TransactionStatus)
		assert.True(t, slices.Equal(b.PaymentIDs, again.PaymentIDs), "%q != %q", b.PaymentIDs, again.PaymentIDs)
		assert.Equal(t, b.SCARedirect(), again.SCARedirect())
	})
}
