package emulator

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBudgetTableWindow(t *testing.T) {
	t.Parallel()
	var b budgetTable
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range budgetCalls {
		require.True(t, b.take("tpp", "acct", "balances", t0.Add(time.Duration(i)*time.Hour)), "call %d", i+1)
	}
	assert.False(t, b.take("tpp", "acct", "balances", t0.Add(5*time.Hour)), "5th call in 24 hours")
	assert.True(t, b.take("tpp", "acct", "transactions", t0.Add(5*time.Hour)), "another operation")
	assert.True(t, b.take("other", "acct", "balances", t0.Add(5*time.Hour)), "another TPP")
	assert.True(t, b.take("tpp", "acct2", "balances", t0.Add(5*time.Hour)), "another account")
	assert.False(t, b.take("tpp", "acct", "balances", t0.Add(24*time.Hour-time.Nanosecond)), "the first call is still in the window")
	assert.True(t, b.take("tpp", "acct", "balances", t0.Add(24*time.Hour)), "the first call left the window")
	assert.False(t, b.take("tpp", "acct", "balances", t0.Add(24*time.Hour)), "and the new one took its place")
	assert.Equal(t, 4, b.len())

	b.forget("tpp", "acct")
	assert.Equal(t, 2, b.len(), "the TPP's windows of its deleted account go")
	b.forget("other", "acct")
	assert.Equal(t, 1, b.len(), "and another TPP's of its own")
	b.retain(func(string, string) bool { return false })
	assert.Zero(t, b.len())
}

// TestBudgetTableForgetsExpiredWindows checks that windows whose calls
// all left the 24 hours are dropped, so the table does not grow with
// every account ever called.
func TestBudgetTableForgetsExpiredWindows(t *testing.T) {
	t.Parallel()
	var b budgetTable
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 1000 {
		require.True(t, b.take("tpp", "old"+strconv.Itoa(i), "balances", t0))
	}
	require.Equal(t, 1000, b.len())
	// Within the day nothing expires, whatever the sweeps.
	for i := range 1000 {
		require.True(t, b.take("tpp", "mid"+strconv.Itoa(i), "balances", t0.Add(23*time.Hour)))
	}
	require.Equal(t, 2000, b.len())
	// A day later, calls on other accounts sweep every shard they touch.
	later := t0.Add(24*time.Hour + budgetSweep)
	for i := range 1000 {
		require.True(t, b.take("tpp", "new"+strconv.Itoa(i), "balances", later))
	}
	assert.Equal(t, 2000, b.len(), "the old windows are gone, the 23-hour ones stay")
	later = later.Add(24 * time.Hour)
	for i := range 1000 {
		require.True(t, b.take("tpp", "new"+strconv.Itoa(i), "transactions", later))
	}
	assert.Equal(t, 1000, b.len(), "only the last calls' windows are left")

	// The clock going back sweeps too, keeping what is still in a window.
	assert.True(t, b.take("tpp", "x", "balances", t0))
	assert.LessOrEqual(t, b.len(), 1001)
}

// TestReadCallsShareTheLock checks that balances and transactions calls
// run under the read lock: they complete while another reader holds it,
// and a call that must start an SCA is run again under the write lock.
func TestReadCallsShareTheLock(t *testing.T) {
	t.Parallel()
	s := startServer(t, WithClock(newFakeClock().Now)) // a still clock: no batch falls due
	c := newTPPClient(t, s, "Reader")
	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{
		{Accounts: []SeedAccount{{Transactions: []SeedTransaction{{Amount: "1"}}}}, Consent: &SeedConsent{}},
	}})
	require.NoError(t, err)
	cu := res.Customers[0]
	h := append(noPSU(cu.Session, ""), hdr("PSU-IP-Address", "192.0.2.1"))
	acct := "/v1/accounts/" + cu.Accounts[0].ID
	require.Equal(t, http.StatusOK, c.get(acct+"/balances", h...).status, "starts the batch schedule (write lock)")

	s.mu.RLock()
	done := make(chan int, 3)
	for _, p := range []string{acct + "/balances", acct + "/transactions?bookingStatus=both", "/v1/accounts"} {
		go func() {
			resp, err := c.hc.Do(c.build(http.MethodGet, p, nil, h...))
			if err != nil {
				done <- 0
				return
			}
			_ = resp.Body.Close()
			done <- resp.StatusCode
		}()
	}
	for range 3 {
		select {
		case code := <-done:
			assert.Equal(t, http.StatusOK, code)
		case <-time.After(30 * time.Second):
			t.Error("a read call waited for a reader")
		}
	}
	s.mu.RUnlock()

	// No PSU-ID: the call starts an SCA, which needs the write lock.
	r := c.get(acct+"/balances", hdr("TPP-Session-ID", "s2"), hdr("TPP-Redirect-URI", "https://tpp.example/cb"))
	require.Equal(t, http.StatusUnauthorized, r.status, string(r.body))
	st, err := stateOf(r.scaRedirect(t))
	require.NoError(t, err)
	s.mu.RLock()
	assert.Contains(t, s.flows, st, "the authorisation was stored")
	s.mu.RUnlock()
}
