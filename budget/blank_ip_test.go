package budget_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// TestBlankPSUIPAddressIsNoPSU checks docs/interface.md section 5.14
// (PSU-IP-Address is present when the PSU is actively present) and
// section 8: a PSU-IP-Address of blanks reaches the bank as an empty
// header, which says no PSU is present, so the call counts against the
// account's 4 calls. On the code before, the budget took the blank value
// for a present PSU (call.Header.Get != ""): the call was not counted
// and a fifth call without the PSU went to the bank.
func TestBlankPSUIPAddressIsNoPSU(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bal := testdata(t, "balances.json")
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("PSU-IP-Address"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bal)
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Accounts test TPP"),
		client.WithHTTPClient(srv.Client()), client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	svc := newService(t, c)

	_, err = svc.Balances(ctx, acc1, psuAbsent(client.WithPSU(client.PSU{ID: psuID, IPAddress: "  "}))...)
	if err != nil {
		require.ErrorIs(t, err, client.ErrNotSent, "refusing the blank address before sending is fine too")
		return
	}
	require.Len(t, seen, 1)
	require.Empty(t, seen[0], "the bank sees no PSU-IP-Address")
	a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit-1, a.Remaining, "a call the bank sees without the PSU counts")
}
