package refresh_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// pauseMargin is how far from its end the bank's pause is taken to be
// over, against the system clock being slewed while timers run on the
// monotonic one.
const pauseMargin = 100 * time.Millisecond

// sendLog is a RoundTripper between the workers and the bank. It counts
// the requests sent while the bank's pause is on (pause is the
// budget's PausedUntil) with more than pauseMargin of it left, and when
// the call that met the first 429 is sent again (the same X-Request-ID),
// it notes the end of the pause then. Nothing it records depends on how
// fast the machine runs: each request is put in or out of the pause by
// the pause's own state as it is sent, not by a window of wall time.
type sendLog struct {
	next  http.RoundTripper
	pause func() (time.Time, bool)

	mu      sync.Mutex
	during  int    // requests sent during the pause
	limited string // X-Request-ID of the call that met the 429
	retried bool   // that call was sent again
	// pauseEnd is the end of the pause as that call was sent again; the
	// zero time when no pause was recorded by then.
	pauseEnd time.Time
	resentAt time.Time
}

func (l *sendLog) RoundTrip(req *http.Request) (*http.Response, error) {
	id := req.Header.Get("X-Request-ID")
	until, _ := l.pause()
	now := time.Now()
	l.mu.Lock()
	if until.Sub(now) > pauseMargin {
		l.during++
	}
	if id != "" && id == l.limited && !l.retried {
		l.retried, l.pauseEnd, l.resentAt = true, until, now
	}
	l.mu.Unlock()
	resp, err := l.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		l.mu.Lock()
		if l.limited == "" {
			l.limited = id
		}
		l.mu.Unlock()
	}
	return resp, err
}

// A 429 with Retry-After (here ACCESS_EXCEEDED with 2 s, which the
// client's default policy retries itself) pauses every worker calling
// the bank at once: the pause is recorded as the answer arrives, before
// the client waits out the Retry-After, and almost nothing is sent
// while it lasts (58 requests with 4 workers before the pause was the
// bank's): at most one request of each other worker, which had checked
// the pause before it began. Every account is still refreshed.
func TestRateLimitPausesEveryWorker(t *testing.T) {
	t.Parallel()
	const retryAfter = 2 * time.Second
	log := &sendLog{}
	b := newBank(t, refreshbench.Seed(60, 2, 0, 2, time.Now().Add(-time.Hour)),
		client.WithRetryPolicy(client.DefaultRetryPolicy()))
	hc := b.srv.Client()
	log.next = hc.Transport
	c, err := client.New(b.srv.URL, b.creds, client.WithHTTPClient(&http.Client{Transport: log}),
		client.WithClock(b.clock.Now), client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	b.svc, err = accounts.New(c)
	require.NoError(t, err)
	log.pause = func() (time.Time, bool) {
		until, paused, _ := budget.Of(c).PausedUntil(context.Background())
		return until, paused
	}
	r, err := refresh.New(b.svc, refresh.WithWorkers(4), refresh.WithSpacing(0))
	require.NoError(t, err)
	jobs := jobsOf(t, b)
	// The first request meets the bank's 429.
	b.srv.Control().InjectFault(emulator.Fault{Kind: emulator.FaultRateLimit, RetryAfter: retryAfter})
	results := collect(t, r, jobs)
	log.mu.Lock()
	defer log.mu.Unlock()
	require.NotEmpty(t, log.limited, "the 429 arrived")
	require.True(t, log.retried, "the client sent the call again after the Retry-After")
	require.False(t, log.pauseEnd.IsZero(), "the pause was recorded before the call was sent again")
	assert.False(t, log.pauseEnd.After(log.resentAt.Add(pauseMargin)),
		"the pause, recorded as the 429 arrived, ended before the call was sent again (ends %v after)", log.pauseEnd.Sub(log.resentAt))
	t.Logf("requests sent during the %v pause with 4 workers: %d", retryAfter, log.during)
	assert.LessOrEqual(t, log.during, 3, "at most one request of each other worker, past its check as the 429 arrived")
	for _, res := range results {
		assert.Equal(t, refresh.Done, res.Outcome, "%v: %v", res, res.Err)
	}
}

// Without WithLogger a Refresher logs nothing, not even to
// slog.Default(): a run's summary, a result and a pause all stay quiet.
func TestNoLoggerLogsNothing(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })
	var once sync.Once
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		answered := false
		once.Do(func() {
			w.Header().Set("Retry-After", "1")
			bankError(w, http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED", "")
			answered = true
		})
		return answered
	}}
	r, err := refresh.New(stubService(t, bank), refresh.WithWorkers(2), refresh.WithSpacing(0))
	require.NoError(t, err)
	collect(t, r, []refresh.Job{newJob(t, newSession(time.Now()), "acct-1", false),
		newJob(t, newSession(time.Now()), "acct-2", false)})
	assert.Empty(t, buf.String())
}

// A pause that begins in the middle of a job holds the job's next call:
// the bank answers the balances call, and meanwhile a 429 with
// Retry-After to another call pauses the bank; the job's transactions
// call is not sent, and the job ends Transient with ErrPaused at the
// pause's end (a job engine's WithMaxWait(0)). Before, the job checked
// the pause before each call itself; now the budget admits each call of
// the job's reservation.
func TestPauseMidJobHoldsTheNextCall(t *testing.T) {
	t.Parallel()
	var svc *accounts.Service
	var transactions atomic.Int64
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case strings.Contains(r.URL.Path, "/other/"):
			w.Header().Set("Retry-After", "30")
			bankError(w, http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED", "")
			return true
		case strings.HasSuffix(r.URL.Path, "/balances"):
			// Another call of the TPP meets the bank's 429 meanwhile.
			_, err := svc.Balances(r.Context(), "other", newSession(time.Now()).RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}))
			assert.Error(t, err)
		case strings.HasSuffix(r.URL.Path, "/transactions"):
			transactions.Add(1)
		}
		return false
	}}
	svc = stubService(t, bank)
	r, err := refresh.New(svc, refresh.WithMaxWait(0), refresh.WithSpacing(0))
	require.NoError(t, err)
	res := r.Refresh(t.Context(), newJob(t, newSession(time.Now()), "acct-1", false))
	assert.Equal(t, refresh.Transient, res.Outcome, "%v", res.Err)
	assert.ErrorIs(t, res.Err, refresh.ErrPaused)
	assert.Equal(t, 1, res.Calls, "the balances call only")
	assert.NotEmpty(t, res.Balances)
	assert.Zero(t, transactions.Load(), "no transactions call during the pause")
	assert.WithinDuration(t, time.Now().Add(30*time.Second), res.RetryAt, 5*time.Second)
	a, err := budget.Of(svc.Client()).Remaining(t.Context(), "acct-1", budget.Transactions)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit, a.Remaining, "the reserved transactions call was given back")
}
