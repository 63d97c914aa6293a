package refresh_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/refresh"
)

// A read whose pages hold more entries than one job reads (64 pages of
// 500) is cut short: the job must not end Done, with its cursor moved on
// and a list that lacks entries nobody is told of. It ends Refused with
// ErrReadTooLarge, the cursor kept. On the code before it ended Done, its
// Booked cut at 32,000 entries, and the account's next round was put off
// by the spacing as if it had been read whole.
func TestCutReadIsNoDone(t *testing.T) {
	t.Parallel()
	const perPage = 8_500 // the client reads at most 20,000 JSON objects an answer
	page := func(p int) []string {
		out := make([]string, perPage)
		for i := range out {
			out[i] = fmt.Sprintf("2025-06-28/p%d-%d", p, i)
		}
		return out
	}
	pb := &pagedBank{calls: map[string]int{}, pages: [][]string{page(0), page(1), page(2), page(3)}}
	pb.next = func(n int) string { return fmt.Sprintf("/v1/accounts/acct-1/transactions?page=%d", n) }
	svc := stubService(t, &stubBank{answer: pb.answer})
	r, err := refresh.New(svc)
	require.NoError(t, err)
	job := newJob(t, newSession(time.Now()), "acct-1", false)
	job.Want = refresh.Transactions
	res := collect(t, r, []refresh.Job{job})[0]
	t.Logf("outcome %v, err %v, booked %d", res.Outcome, res.Err, len(res.Booked))
	assert.NotEqual(t, refresh.Done, res.Outcome, "a read cut short is no Done")
	assert.Equal(t, refresh.Refused, res.Outcome)
	assert.True(t, errors.Is(res.Err, refresh.ErrReadTooLarge), "%v", res.Err)
	assert.Equal(t, job.Cursor, res.Cursor, "the cursor is not moved on")
	assert.Nil(t, res.Sync)
}
