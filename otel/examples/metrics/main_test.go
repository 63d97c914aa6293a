package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/otel/examples/metrics/promexp"
)

// TestScrape runs the example and checks its scrape holds every metric
// the module exports, with the values of the scripted run.
func TestScrape(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(t.Context(), &out, "127.0.0.1:0", false))
	s := out.String()
	for _, want := range []string{
		`psd2_client_operations_total{psd2_bank=`,
		`psd2_operation="accounts.Balances",psd2_outcome="ok"} 3`,
		`psd2_operation="accounts.Balances",psd2_outcome="budget_refused"} 1`,
		`psd2_operation="payments.CreateNorwegianDomestic",psd2_outcome="created"} 1`,
		`psd2_operation="payments.CreateNorwegianDomestic",psd2_outcome="unknown"} 1`,
		`psd2_budget_calls_spent_total{`,
		`psd2_client_request_duration_seconds_count{http_response_status_class="5xx"`,
		`psd2_consents{psd2_consent_days_left="30-89"} 1`,
		`psd2_journal_in_doubt 1`,
		`psd2_refresh_rounds_total{psd2_refresh_result="done"} 1`,
		`psd2_refresh_start_lateness_seconds_sum{psd2_refresh_result="done"} 1.5`,
		`psd2_bank="example-bank",psd2_error_code="RESOURCE_UNKNOWN",psd2_operation="accounts.Balances",psd2_outcome="refused"} 1`,
		`psd2_certificate_days_left{psd2_certificate_role="signing",psd2_certificate_serial="`,
		`psd2_error_code="SYSTEM_ERROR",psd2_operation="accounts.Balances",psd2_outcome="failed"} 1`,
		`psd2_bank_breaker{psd2_bank="example-bank"} 0`,
		`psd2_bank_requests{psd2_bank="example-bank",psd2_bank_result="5xx"} 1`,
		`psd2_refresh_queue_jobs{psd2_bank="example-bank",psd2_refresh_job_state="available"} 40`,
		`psd2_refresh_queue_jobs{psd2_bank="example-bank",psd2_refresh_job_state="discarded"} 0`,
		`psd2_refresh_queue_paused{psd2_bank="example-bank"} 0`,
		`psd2_gauge_readable{psd2_gauge="journal_in_doubt"} 1`,
	} {
		assert.Contains(t, s, want)
	}

	// The README shows this scrape and every metric's HELP line.
	md, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(md)
	blocks := promexp.TextBlocks(readme)
	require.NotEmpty(t, blocks)
	assert.Equal(t, promexp.Lines(s), promexp.Lines(blocks[0]), "the README's scrape, line for line")
	help := promexp.Help(s)
	assert.Len(t, help, 16, "every metric of the module")
	table := readmeHelp(readme)
	assert.Equal(t, help, table, "the README's table of metrics and their HELP lines")
}

// readmeHelp reads the README's table of metrics: the HELP text (last
// cell) by the Prometheus name (in parentheses in the first cell).
func readmeHelp(md string) map[string]string {
	out := map[string]string{}
	for line := range strings.SplitSeq(md, "\n") {
		if !strings.HasPrefix(line, "| `psd2.") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		_, name, _ := strings.Cut(cells[0], "(`")
		out[strings.TrimSuffix(name, "`)")] = cells[len(cells)-1]
	}
	return out
}
