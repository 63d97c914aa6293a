package refresh_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// sendLog is a RoundTripper that notes when each request is sent and when
// the first 429 arrives.
type sendLog struct {
	next  http.RoundTripper
	mu    sync.Mutex
	sent  []time.Time
	first time.Time // the first 429's arrival
}

func (l *sendLog) RoundTrip(req *http.Request) (*http.Response, error) {
	at := time.Now()
	l.mu.Lock()
	l.sent = append(l.sent, at)
	l.mu.Unlock()
	resp, err := l.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		l.mu.Lock()
		if l.first.IsZero() {
			l.first = time.Now()
		}
		l.mu.Unlock()
	}
	return resp, err
}

// during returns the number of requests sent within d after the first 429
// arrived.
func (l *sendLog) during(d time.Duration) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, t := range l.sent {
		if t.After(l.first) && t.Before(l.first.Add(d)) {
			n++
		}
	}
	return n
}

// A 429 with Retry-After (here ACCESS_EXCEEDED with 2 s, which the
// client's default policy retries itself) pauses every worker calling
// the bank at once: almost nothing is sent during the Retry-After (58
// requests with 4 workers before the pause was the bank's), and every
// account is still refreshed.
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
	r, err := refresh.New(b.svc, refresh.WithWorkers(4), refresh.WithSpacing(0))
	require.NoError(t, err)
	jobs := jobsOf(t, b)
	// The first request meets the bank's 429.
	b.srv.InjectFault(emulator.Fault{Kind: emulator.FaultRateLimit, RetryAfter: retryAfter})
	results := collect(t, r, jobs)
	require.False(t, log.first.IsZero(), "the 429 arrived")
	n := log.during(retryAfter - 100*time.Millisecond)
	t.Logf("requests sent during the %v Retry-After with 4 workers: %d", retryAfter, n)
	assert.LessOrEqual(t, n, 3, "at most one request of each other worker, sent as the 429 arrived")
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
	collect(t, r, []refresh.Job{{Session: newSession(time.Now()), AccountID: "acct-1"},
		{Session: newSession(time.Now()), AccountID: "acct-2"}})
	assert.Empty(t, buf.String())
}
