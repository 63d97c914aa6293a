package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/otel/examples/metrics/promexp"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// TestScrapeAfterConnecting connects the bank through the site once and
// scrapes /metrics on the site's own server: the SDK's metrics of the
// calls the site made are there, and none of the PSU's data the bank
// and the browser sent (the customer number, name, account numbers,
// transaction texts, the browser's User-Agent the SDK forwards).
func TestScrapeAfterConnecting(t *testing.T) {
	const userAgent = "MARK-Browser/7.3 (PSU-device-4471)"
	var out strings.Builder
	scrape, err := run(t.Context(), &out, "127.0.0.1:0", false, userAgent)
	require.NoError(t, err)
	for _, want := range []string{
		`psd2_client_operations_total{psd2_bank=`,
		`psd2_operation="accounts.StartConsent",psd2_outcome="created"} 1`,
		`psd2_operation="accounts.List",psd2_outcome="ok"} 1`,
		`psd2_operation="accounts.Transactions",psd2_outcome="ok"}`,
		`psd2_client_request_duration_seconds_count{http_response_status_class="2xx"`,
	} {
		assert.Contains(t, out.String(), want)
	}
	// The README shows this scrape, line for line (its second text block).
	md, err := os.ReadFile("../../../README.md")
	require.NoError(t, err)
	blocks := promexp.TextBlocks(string(md))
	require.Len(t, blocks, 2)
	assert.Equal(t, promexp.Lines(out.String()), promexp.Lines(blocks[1]))
	for _, secret := range []string{emulator.CustomerKari, "Kari", "Testperson", "9531277606", "9531762150",
		"552216", "MATBUTIKKEN", "Kaffebaren", "MARK-Browser", "PSU-device", "callback", "state="} {
		assert.NotContains(t, scrape, secret)
	}
}
