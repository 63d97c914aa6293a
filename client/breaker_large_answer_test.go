package client

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An answer beyond the client's size limits is an answer: the bank
// answered in time, and only the TPP's own bound refuses it (a corporate
// account's transactions with every pending entry, which the platform
// does not page). On the code before, it counted as "no answer": five
// such reads of one account opened the breaker of the whole bank and
// wrote a downtime record of an outage that never was.
func TestBreakerCountsATooLargeAnswerAsAnswered(t *testing.T) {
	t.Parallel()
	big := `{"a":"` + strings.Repeat("x", maxBody) + `"}`
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(big))
	})
	c := newTestClient(t, b.URL)
	get := Operation{Method: http.MethodGet, Path: "/v1/accounts/a/transactions"}
	for range 6 {
		_, err := c.Do(t.Context(), get, nil)
		require.ErrorIs(t, err, ErrAnswerTooLarge)
	}
	h := c.BankHealth()
	assert.Equal(t, BreakerClosed, h.State)
	assert.Nil(t, h.Down)
	assert.Equal(t, 6, h.Answered)
	assert.EqualValues(t, 6, b.count.Load(), "not retried: the same answer again")
}
