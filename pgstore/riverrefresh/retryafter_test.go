package riverrefresh_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// dateRetryAfter makes every 429 of the bank a rate limit with the
// Retry-After value, an HTTP date. Its body names another code than
// ACCESS_EXCEEDED: a 429 ACCESS_EXCEEDED with a Retry-After beyond a
// minute is the account's budget, not a pause of the bank, and so is a
// 429 without codes (client.ErrAccessExceeded).
type dateRetryAfter struct {
	next  http.RoundTripper
	value string
}

// rateLimitBody is the body of dateRetryAfter's 429s.
const rateLimitBody = `{"tppMessages":[{"category":"ERROR","code":"SYSTEM_ERROR","text":"slow down"}]}`

func (d *dateRetryAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := d.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		_ = resp.Body.Close()
		resp.Body, resp.ContentLength = io.NopCloser(strings.NewReader(rateLimitBody)), int64(len(rateLimitBody))
		resp.Header.Set("Content-Type", "application/json")
		resp.Header.Del("Content-Length")
		resp.Header.Set("Retry-After", d.value)
	}
	return resp, err
}

// A bank's 429 whose Retry-After is an HTTP date a year ahead, or in year
// 9999, pauses the bank's queue, stores the pause (the budget's, read by
// another replica) and snoozes the jobs
// for at most client.RetryAfterCap (the snooze for at most
// riverrefresh.MaxSnooze). Before the cap applied to dates, a year ahead
// paused the queue for a year, stored; year 9999 overflowed: nothing was
// paused and every job was snoozed until 2319.
func TestRetryAfterDateIsBounded(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"a year ahead", time.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat)},
		{"year 9999", "Fri, 31 Dec 9999 23:59:59 GMT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 2)
			ctx := t.Context()
			w.bank.next = &dateRetryAfter{next: w.bank.next, value: tc.value}
			var mu sync.Mutex
			var paused []riverrefresh.Event
			cfg := riverrefresh.Config{Work: true, Event: func(ev riverrefresh.Event) {
				mu.Lock()
				defer mu.Unlock()
				if ev.Kind == "paused" {
					paused = append(paused, ev)
				}
			}}
			// Without the client's retries: the 429 ends its call.
			e := w.engine(t, cfg, client.WithRetryPolicy(client.RetryPolicy{}))
			require.NoError(t, e.Migrate(ctx))
			w.srv.Control().InjectFault(emulator.Fault{Kind: emulator.FaultRateLimit, RetryAfter: time.Second, Count: 1000})
			_, err := e.Enqueue(ctx, "testbank")
			require.NoError(t, err)
			start(t, e)
			require.Eventually(t, func() bool {
				q, err := e.Client().QueueGet(ctx, "psd2_refresh_testbank")
				return err == nil && q.PausedAt != nil
			}, time.Minute, 20*time.Millisecond, "the bank's queue is paused")
			var snoozed int
			require.Eventually(t, func() bool {
				err := e.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job WHERE state = 'scheduled'").Scan(&snoozed)
				return err == nil && snoozed > 0
			}, time.Minute, 20*time.Millisecond, "a job is snoozed")

			// Every time below was computed before now: each is at most
			// the cap from now.
			now := time.Now()
			// The budget of another replica's client reads the pause
			// from the shared store.
			until, pausing, err := budget.Of(w.svc(t).Client()).PausedUntil(ctx)
			read := time.Now()
			require.NoError(t, err)
			require.True(t, pausing, "the pause is stored")
			// A replica holds a stored pause for its wait from when it
			// first reads it (budget's pauseEndSeen): at most the cap
			// from the read.
			assert.False(t, until.After(read.Add(client.RetryAfterCap)), "stored pause ends %v", until)
			mu.Lock()
			require.NotEmpty(t, paused, "a paused event")
			for _, ev := range paused {
				assert.False(t, ev.Until.After(now.Add(client.RetryAfterCap)), "paused until %v", ev.Until)
			}
			mu.Unlock()
			var latest time.Time
			require.NoError(t, e.Pool().QueryRow(ctx, "SELECT max(scheduled_at) FROM "+w.schema+".river_job WHERE state = 'scheduled'").Scan(&latest))
			assert.False(t, latest.After(now.Add(riverrefresh.MaxSnooze)), "a job is snoozed until %v", latest)
			stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, e.Stop(stop))
		})
	}
}
