package readmetest

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/reconcile"
)

// TestReadmeDefaults checks the defaults the README states against the
// constants they come from: a changed constant fails here, next to the
// README's words that must change with it.
func TestReadmeDefaults(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := strings.Join(strings.Fields(string(b)), " ")
	day := 24 * time.Hour
	p := client.DefaultRetryPolicy()
	for _, c := range []struct {
		says string
		true bool
	}{
		{"`client.DefaultRetryPolicy()`: 3 retries, 200 ms to 5 s", p.MaxRetries == 3 && p.MinBackoff == 200*time.Millisecond && p.MaxBackoff == 5*time.Second},
		{"`Retry-After` is honoured up to `MaxRetryAfter` (30 s)", p.MaxRetryAfter == 30*time.Second},
		{"`client.DefaultResponseTimeout` (10 s", client.DefaultResponseTimeout == 10*time.Second},
		{"`client.DefaultCallTimeout` (30 s", client.DefaultCallTimeout == 30*time.Second},
		{"// default 30 days", client.DefaultExpiryWarning == 30*day},
		{"(at most 24 hours, `client.RetryAfterCap`)", client.RetryAfterCap == day},
		{"allows 4 balances and 4 transactions calls per account per 24 hours", budget.DefaultLimit == 4 && budget.DefaultWindow == day},
		{"a 5-minute margin (`budget.ClockMargin`)", budget.ClockMargin == 5*time.Minute},
		{"(2 minutes by default, longer for a call that may run longer)", journal.DefaultInFlight == 2*time.Minute},
		{"signing baskets: up to 10 payments with one SCA", basket.MaxPayments == 10},
		{"renewal due 14, 7, 3 and 1 days before the end by default", slices.Equal(events.DefaultRenewalDays, []int{14, 7, 3, 1})},
		{"before the 120 days the store keeps a payment", reconcile.Retention == 120*day},
	} {
		assert.Contains(t, readme, c.says, "the README no longer says it")
		assert.True(t, c.true, "the README says %q; the code differs", c.says)
	}
}
