package basket_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/internal/redact/redacttest"
)

// No printed form (%v %+v %#v %s %q %x %d, of the value, its pointer, a
// slice and a struct holding it) and no slog form of a basket answer
// shows the bank's SCA state in its scaRedirect or the psuMessage; the
// forms still show the id, status and link names, and the JSON is still
// the bank's document.
func TestFormsHideBasketSecrets(t *testing.T) {
	t.Parallel()
	const withSCA = `{"basketId":"enc!!YmFza2V0LWZvcm1z","transactionStatus":"RCVD","payments":["p-1","p-2"],
		"_links":{"scaRedirect":{"href":"https://psd2.bank.example/tap/9999/?flow=psd2&state=0c1f7a52-basket-state&context=PRIVATE"}},
		"tppMessages":[{"category":"WARNING","code":"PAYMENT_FAILED","text":"x"}],
		"psuMessage":"Kari Nordmann, signer betalingene"}`
	created, err := os.ReadFile(filepath.Join("testdata", "signing-basket-get.json"))
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		doc   []byte
		v     any
		shows []string
	}{
		{name: "Basket", doc: []byte(withSCA), v: &basket.Basket{}, shows: []string{"RCVD", "payments", "scaRedirect", "PAYMENT_FAILED", "[redacted]"}},
		{name: "signing-basket-get.json", doc: created, v: &basket.Basket{}, shows: []string{"self"}},
		{name: "StatusResponse", doc: []byte(withSCA), v: &basket.StatusResponse{}, shows: []string{"RCVD", "scaRedirect", "PAYMENT_FAILED"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, json.Unmarshal(tc.doc, tc.v))
			secrets := redacttest.Secrets(t, tc.doc, []string{"psuMessage"}, nil)
			if tc.name != "signing-basket-get.json" {
				require.Len(t, secrets, 2, "the state and the psuMessage")
			}
			secrets = append(secrets, "https://psd2.bank.example") // no href is printed
			var val any
			switch v := tc.v.(type) {
			case *basket.Basket:
				val = *v
				redacttest.AssertHidden(t, []basket.Basket{*v, *v}, secrets)
				redacttest.AssertHidden(t, struct{ B basket.Basket }{*v}, secrets)
			case *basket.StatusResponse:
				val = *v
				redacttest.AssertHidden(t, []basket.StatusResponse{*v}, secrets)
			}
			forms := redacttest.AssertHidden(t, val, secrets)
			redacttest.AssertHidden(t, tc.v, secrets)
			for _, s := range tc.shows {
				for _, form := range []string{"%v", "%d", "slog JSON", "slog text"} {
					assert.Contains(t, forms[form], s, form)
				}
			}
			js, err := json.Marshal(val)
			require.NoError(t, err)
			for _, s := range secrets[:len(secrets)-1] {
				assert.Contains(t, string(js), s, "the JSON is the bank's document")
			}
		})
	}
}
