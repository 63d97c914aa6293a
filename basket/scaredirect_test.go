package basket_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
)

// A basket's SCARedirect is the page the PSU approves its payments on:
// an absolute https URL (plain http only on a loopback host), never a
// relative, plain http or javascript: href (docs/interface.md sections
// 5.1, 5.8 and 10). Before the fix it was the bank's href as it came.
func TestBasketSCARedirectIsAnHTTPSPage(t *testing.T) {
	t.Parallel()
	for href, want := range map[string]string{
		"https://psd2.bank.example/tap/b1":  "https://psd2.bank.example/tap/b1",
		"http://127.0.0.1:9/tap-sandbox/b1": "http://127.0.0.1:9/tap-sandbox/b1",
		"http://psd2.bank.example/tap/b1":   "",
		"/tap/b1":                           "",
		"javascript:alert(1)":               "",
		"https://a@psd2.bank.example/tap":   "",
	} {
		raw, err := json.Marshal(href)
		require.NoError(t, err)
		var b basket.Basket
		require.NoError(t, json.Unmarshal([]byte(`{"basketId":"b1","transactionStatus":"RCVD","_links":{"scaRedirect":{"href":`+string(raw)+`}}}`), &b))
		assert.Equal(t, want, b.SCARedirect(), href)
		assert.Equal(t, href, b.Links.Href("scaRedirect"), "the document as it came")
	}
}
