package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		`psd2_certificate_days_left{psd2_certificate_role="signing"}`,
		`psd2_journal_in_doubt 1`,
		`psd2_refresh_rounds_total{psd2_refresh_result="done"} 1`,
		`psd2_refresh_start_lateness_seconds_sum{psd2_refresh_result="done"} 1.5`,
	} {
		assert.Contains(t, s, want)
	}
}
