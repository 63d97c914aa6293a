package refresh_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/refresh"
)

// TestPendingListedAgainOnALaterPageIsOneEntry: the platform lists
// every pending entry on every page; when the list changes between two
// page reads (one entry booked meanwhile), the iterator yields both
// pages' lists. A refresh reported the entries on both twice (3 pending
// entries where the bank has 2), and its sync added a pending entry that
// does not exist; it gathers them as txsync.Syncer.Sync does now.
func TestPendingListedAgainOnALaterPageIsOneEntry(t *testing.T) {
	t.Parallel()
	day := time.Now().UTC().Format(time.DateOnly)
	pending := func(amount, text string) string {
		return fmt.Sprintf(`{"bookingDate":%q,"remittanceInformationUnstructured":%q,"transactionAmount":{"amount":%q,"currency":"NOK"}}`, day, text, amount)
	}
	a, b := pending("-129.00", "Vipps*Kaffebaren"), pending("-54.90", "DAGLIGVARE 1000")
	var served atomic.Int64
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/transactions") {
			return false
		}
		n := served.Add(1)
		list, links := []string{a, b}, `,"_links":{"next":{"href":"/v1/accounts/acct-1/transactions?bookingStatus=both&offset=1"}}`
		if n > 1 {
			list, links = []string{b}, "" // a was booked between the reads
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"transactions":{"booked":[{"transactionId":"t%d","bookingDate":%q,"transactionAmount":{"amount":"-1.00","currency":"NOK"}}],"pending":[%s]%s}}`,
			n, day, strings.Join(list, ","), links)
		return true
	}}
	r, err := refresh.New(stubService(t, bank))
	require.NoError(t, err)
	job := newJob(t, newSession(time.Now()), "acct-1", false)
	job.Want = refresh.Transactions
	res := collect(t, r, []refresh.Job{job})[0]
	require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
	assert.Len(t, res.Booked, 2)
	assert.Len(t, res.Pending, 2, "each pending entry once")
}
