package emulator

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKnownIssuePendingOnEveryPage: with the section 8 known issue on
// (docs/interface.md section 8: with bookingStatus both or pending, every
// pending transaction comes back regardless of dateFrom, dateTo and
// limit), the whole pending list comes with every page of a paged list,
// not with the first page only: the section says nothing of offset.
func TestKnownIssuePendingOnEveryPage(t *testing.T) {
	t.Parallel()
	_, c, ids, psu := aisSetup(t, WithKnownIssues(true))
	next := "/v1/accounts/" + ids[0] + "/transactions?bookingStatus=both&limit=10"
	var first []transactionJSON
	pages, booked := 0, map[string]bool{}
	for next != "" {
		r := c.get(next, psu...)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		p := decodeTxPage(t, r)
		pages++
		if pages == 1 {
			first = p.Transactions.Pending
			require.Len(t, first, 3, "all of Kari's pending entries")
		}
		assert.Equal(t, first, p.Transactions.Pending, "page %d carries the whole pending list", pages)
		for _, b := range p.Transactions.Booked {
			assert.False(t, booked[b.TransactionID], "booked %s twice", b.TransactionID)
			booked[b.TransactionID] = true
		}
		next = ""
		if l, ok := p.Transactions.Links["next"]; ok {
			next = l.Href
		}
	}
	assert.Equal(t, 3, pages)
	assert.Len(t, booked, 30)

	// bookingStatus=booked pages booked entries only, issue or not.
	r := c.get("/v1/accounts/"+ids[0]+"/transactions?bookingStatus=booked&limit=10&offset=10", psu...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Empty(t, decodeTxPage(t, r).Transactions.Pending)
}
