package client

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/testkit/hungstore"
	"github.com/tppkit/psd2/store"
)

// frozenClock is a clock the test moves.
type frozenClock struct{ ns atomic.Int64 }

func newFrozenClock() *frozenClock {
	c := &frozenClock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}
func (c *frozenClock) now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *frozenClock) add(d time.Duration) { c.ns.Add(int64(d)) }
func (c *frozenClock) opt() Option         { return WithClock(c.now) }
func hooked(n *atomic.Int64) Hook {
	return func(context.Context, *Call) (func(Result), error) { n.Add(1); return nil, nil }
}

// The EBA's rule: 5 requests in a row answered 5xx open the breaker;
// the retries of the call that meets the fifth stop there, and every
// later call fails fast with ErrBankUnavailable, which matches
// ErrNotSent: nothing is sent and the call's hook (the budget's) never
// runs.
func TestBreakerOpensAfterFiveFailures(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusServiceUnavailable) })
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	var hooks atomic.Int64
	get := Operation{Name: "accounts.Balances", Method: http.MethodGet, Path: "/v1/accounts/a/balances", Hook: hooked(&hooks)}

	_, err := c.Do(t.Context(), get, nil) // 4 attempts
	var e *Error
	require.ErrorAs(t, err, &e)
	_, err = c.Do(t.Context(), get, nil) // the fifth opens it: no more retries
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusServiceUnavailable, e.StatusCode)
	assert.EqualValues(t, 5, b.count.Load(), "detection within 5 requests")
	assert.Equal(t, BreakerOpen, c.BankHealth().State)

	for range 100 {
		_, err = c.Do(t.Context(), get, nil)
		require.ErrorIs(t, err, ErrBankUnavailable)
		require.ErrorIs(t, err, ErrNotSent)
	}
	var bu *BankUnavailableError
	require.ErrorAs(t, err, &bu)
	assert.Equal(t, c.Bank(), bu.Bank)
	assert.EqualValues(t, 5, b.count.Load(), "nothing sent while open")
	assert.EqualValues(t, 2, hooks.Load(), "the hook of a refused call never runs")
}

// With the breaker off, the same bank costs every attempt of every call.
func TestBreakerOff(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusServiceUnavailable) })
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}), WithBreaker(BreakerPolicy{Off: true}))
	for range 20 {
		_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
		require.NotErrorIs(t, err, ErrBankUnavailable)
	}
	assert.EqualValues(t, 20, b.count.Load())
	assert.Equal(t, BreakerClosed, c.BankHealth().State)
	assert.Equal(t, 20, c.BankHealth().Status5xx)
}

// A connection refused is a request not answered too.
func TestBreakerOpensOnRefusedConnections(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	c := newTestClient(t, closed, WithRetryPolicy(RetryPolicy{}))
	for range 5 {
		_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
		require.ErrorIs(t, err, ErrNotSent)
		require.NotErrorIs(t, err, ErrBankUnavailable)
	}
	_, err = c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
	require.ErrorIs(t, err, ErrBankUnavailable)
}

// A payment POST whose outcome is unknown (a 500) counts as not answered,
// and is never sent again: one request per call, ErrOutcomeUnknown, until
// the breaker opens and refuses the next one as not sent.
func TestBreakerNeverResendsAPayment(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusInternalServerError) })
	c := newTestClient(t, b.URL)
	create := Operation{Name: "payments.Create", Method: http.MethodPost, Path: "/v1/payments/x", Body: map[string]string{"a": "b"}, ResultID: "paymentId"}
	for i := range 5 {
		_, err := c.Do(t.Context(), create, nil)
		require.ErrorIs(t, err, ErrOutcomeUnknown, "call %d", i)
		assert.EqualValues(t, i+1, b.count.Load(), "never resent")
	}
	_, err := c.Do(t.Context(), create, nil)
	require.ErrorIs(t, err, ErrBankUnavailable)
	require.ErrorIs(t, err, ErrNotSent)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	assert.EqualValues(t, 5, b.count.Load())
}

// Half-open: once ProbeAfter has passed one call at a time goes through;
// the others fail fast meanwhile. An answer closes the breaker and ends
// the downtime record, which the store keeps with its evidence.
func TestBreakerHalfOpenProbe(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	down.Store(true)
	probing := make(chan struct{})
	release := make(chan struct{})
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if down.Load() {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		close(probing)
		<-release
		_, _ = w.Write([]byte(`{}`))
	})
	clk := newFrozenClock()
	st := store.NewMemoryStore()
	c := newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	var changes []BreakerChange
	var mu sync.Mutex
	c.Health().OnChange(func(ch BreakerChange) { mu.Lock(); changes = append(changes, ch); mu.Unlock() })
	get := Operation{Name: "accounts.Transactions", Method: http.MethodGet, Path: "/v1/x"}
	start := clk.now()
	var ids []string
	for range 5 {
		_, err := c.Do(t.Context(), get, nil)
		var e *Error
		require.ErrorAs(t, err, &e)
		ids = append(ids, e.RequestID)
		clk.add(time.Second)
	}
	require.Equal(t, BreakerOpen, c.BankHealth().State)
	_, err := c.Do(t.Context(), get, nil)
	require.ErrorIs(t, err, ErrBankUnavailable, "before ProbeAfter")

	clk.add(DefaultBreakerPolicy().ProbeAfter)
	down.Store(false)
	probe := make(chan error, 1)
	go func() { _, err := c.Do(context.Background(), get, nil); probe <- err }()
	<-probing
	assert.Equal(t, BreakerHalfOpen, c.BankHealth().State)
	for range 10 {
		_, err = c.Do(t.Context(), get, nil)
		require.ErrorIs(t, err, ErrBankUnavailable, "one probe at a time")
	}
	end := clk.now()
	close(release)
	require.NoError(t, <-probe)
	h := c.BankHealth()
	assert.Equal(t, BreakerClosed, h.State)
	assert.Equal(t, end, h.Changed)
	require.Len(t, h.Recent, 1, "the process keeps the record too")
	assert.True(t, h.Recent[0].End.Equal(end))
	assert.EqualValues(t, 6, b.count.Load(), "5 failures and the probe")

	mu.Lock()
	require.Len(t, changes, 2)
	assert.Equal(t, BreakerOpen, changes[0].To)
	assert.Equal(t, BreakerClosed, changes[1].To)
	mu.Unlock()

	downs, err := c.Downtimes(t.Context(), start.Add(-time.Hour), end.Add(time.Hour))
	require.NoError(t, err)
	require.Len(t, downs, 1)
	d := downs[0]
	assert.True(t, d.Start.Equal(start), "starts at the first failed request")
	assert.True(t, d.End.Equal(end), "ends at the answer")
	assert.Equal(t, 5, d.Failures)
	require.Len(t, d.Evidence, 5)
	for i, ev := range d.Evidence {
		assert.Equal(t, ids[i], ev.RequestID)
		assert.Equal(t, http.StatusBadGateway, ev.Status)
		assert.Equal(t, "accounts.Transactions", ev.Operation)
	}
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "PSU")

	a := Report(c.Bank(), downs, start, start.Add(time.Hour), end)
	assert.Equal(t, 1, a.Count)
	assert.Equal(t, end.Sub(start), a.Unavailable)
	assert.Equal(t, end.Sub(start), a.Longest)
	assert.InDelta(t, 100*(1-end.Sub(start).Seconds()/3600), a.Uptime, 1e-9)
}

// A probe that fails opens the breaker again until the next probe.
func TestBreakerProbeFails(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusServiceUnavailable) })
	clk := newFrozenClock()
	c := newTestClient(t, b.URL, clk.opt(), WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	for range 2 {
		_, _ = c.Do(t.Context(), get, nil)
	}
	require.EqualValues(t, 5, b.count.Load())
	clk.add(5 * time.Second)
	_, err := c.Do(t.Context(), get, nil)
	require.NotErrorIs(t, err, ErrBankUnavailable, "the probe is sent")
	assert.EqualValues(t, 6, b.count.Load(), "the probe is not retried")
	assert.Equal(t, BreakerOpen, c.BankHealth().State)
	_, err = c.Do(t.Context(), get, nil)
	require.ErrorIs(t, err, ErrBankUnavailable)
	assert.EqualValues(t, 6, b.count.Load())
}

// The error-rate rule opens the breaker on a bank that fails two
// requests of three, which never makes 5 in a row; one that fails one of
// two stays below it.
func TestBreakerErrorRate(t *testing.T) {
	t.Parallel()
	half := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n%2 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	})
	c := newTestClient(t, half.URL, WithRetryPolicy(RetryPolicy{}), WithBreaker(BreakerPolicy{RateMin: 10, ErrorRate: 0.5}))
	for range 30 {
		_, _ = c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
	}
	assert.Equal(t, BreakerClosed, c.BankHealth().State, "half failed: not more than half")

	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n%3 != 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	})
	c = newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}), WithBreaker(BreakerPolicy{RateMin: 10, ErrorRate: 0.5}))
	var err error
	for range 10 {
		_, err = c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
	}
	require.Error(t, err)
	assert.Equal(t, BreakerOpen, c.BankHealth().State, "7 of 10 failed")
	_, err = c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
	require.ErrorIs(t, err, ErrBankUnavailable)
}

// Clients given one Health share their bank's breaker; a client on the
// same store with a Health of its own (another replica) sees the open
// breaker through the store.
func TestBreakerShared(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusServiceUnavailable) })
	h := NewHealth()
	st := store.NewMemoryStore()
	one := newTestClient(t, b.URL, WithHealth(h), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	two := newTestClient(t, b.URL, WithHealth(h), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	replica := newTestClient(t, b.URL, WithStore(st), WithRetryPolicy(RetryPolicy{}))
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	for range 5 {
		_, _ = one.Do(t.Context(), get, nil)
	}
	_, err := two.Do(t.Context(), get, nil)
	require.ErrorIs(t, err, ErrBankUnavailable, "the same process")
	_, err = replica.Do(t.Context(), get, nil)
	require.ErrorIs(t, err, ErrBankUnavailable, "another replica on the store")
	assert.EqualValues(t, 5, b.count.Load())
	require.Len(t, h.Banks(), 1)
}

// The health view counts the requests of the last minute by what became
// of them, with latency percentiles.
func TestBankHealthView(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch {
		case n == 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case n == 2:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			_, _ = w.Write([]byte(`{}`))
		}
	})
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}))
	for range 10 {
		_, _ = c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
	}
	h := c.BankHealth()
	assert.Equal(t, 10, h.Requests)
	assert.Equal(t, 9, h.Answered)
	assert.Equal(t, 1, h.Status5xx)
	assert.Equal(t, 1, h.Status429)
	assert.Zero(t, h.Timeouts)
	assert.Positive(t, h.P50)
	assert.LessOrEqual(t, h.P50, h.P95)
	assert.LessOrEqual(t, h.P95, h.P99)
	assert.Equal(t, BreakerClosed, h.State)
	raw, err := json.Marshal(h)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"state":"closed"`)
}

// A caller that gives up is not the bank's failure.
func TestBreakerIgnoresTheCallersCancel(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { <-r.Context().Done() })
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}))
	for range 6 {
		ctx, cancel := context.WithCancel(t.Context())
		go func() { time.Sleep(5 * time.Millisecond); cancel() }()
		_, err := c.Do(ctx, Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
		require.Error(t, err)
		require.False(t, errors.Is(err, ErrBankUnavailable))
	}
	assert.Equal(t, BreakerClosed, c.BankHealth().State)
}

func TestBreakerPolicyValidation(t *testing.T) {
	t.Parallel()
	for _, p := range []BreakerPolicy{{Consecutive: -1}, {ErrorRate: 2}, {ProbeAfter: -time.Second}, {RateWindow: time.Millisecond}} {
		_, err := New("http://127.0.0.1:1", testCreds(t, 0), WithBreaker(p))
		assert.Error(t, err, "%+v", p)
	}
	_, err := New("http://127.0.0.1:1", testCreds(t, 0), WithHealth(nil))
	assert.Error(t, err)
}

// What a down bank costs: 100 calls with the default retry policy send
// 400 requests with the breaker off, 5 with it on.
func TestBreakerSavesRequestsOnADownBank(t *testing.T) {
	t.Parallel()
	retry := WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinBackoff: time.Microsecond, MaxBackoff: time.Microsecond})
	for _, tt := range []struct {
		policy BreakerPolicy
		want   int64
	}{{BreakerPolicy{Off: true}, 400}, {BreakerPolicy{}, 5}} {
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusServiceUnavailable) })
		c := newTestClient(t, b.URL, retry, WithBreaker(tt.policy))
		for range 100 {
			_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
			require.Error(t, err)
		}
		assert.Equal(t, tt.want, b.count.Load(), "breaker off: %v", tt.policy.Off)
	}
}

// BenchmarkBreakerOverhead measures what the breaker costs a call, two
// ways in one run, against a bank on a loopback socket: interleaved pairs
// of the same call with the breaker on and off (each pair's two calls
// back to back, the order alternating), reported as the median of the
// pairs' ratios (on/off: a load spike that slows one pair moves the
// median little), and the breaker's own work on a call (admission, the
// attempt recorded, the admission's end, as BenchmarkBreakerHotPath)
// timed in the same run over as many calls, reported as a share of the
// mean call without it (hot/call: 1 + that share). The goal is 1.01.
func BenchmarkBreakerOverhead(b *testing.B) {
	bank := newBank(b, nil)
	on := newTestClient(b, bank.URL)
	off := newTestClient(b, bank.URL, WithBreaker(BreakerPolicy{Off: true}))
	op := Operation{Method: http.MethodGet, Path: "/v1/x"}
	ctx := context.Background()
	call := func(c *Client) time.Duration {
		start := time.Now()
		if _, err := c.Do(ctx, op, nil); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	var ratios []float64
	var tOff time.Duration
	for i := 0; b.Loop(); i++ {
		var dOn, dOff time.Duration
		if i%2 == 0 {
			dOn, dOff = call(on), call(off)
		} else {
			dOff, dOn = call(off), call(on)
		}
		tOff += dOff
		ratios = append(ratios, float64(dOn)/float64(dOff))
	}
	b.StopTimer()
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "on/off")

	hot := newTestClient(b, "http://127.0.0.1:1")
	res := attemptResult{r: &reply{status: http.StatusOK}, wrote: true}
	start := time.Now()
	for range len(ratios) {
		adm, err := hot.admit(ctx)
		if err != nil {
			b.Fatal(err)
		}
		k := kindOf(ctx, res, time.Millisecond, adm.b.policy.AnswerWithin)
		adm.b.record(context.Background(), k, Evidence{Status: 200}, time.Millisecond, adm.seq)
		adm.done()
	}
	b.ReportMetric(1+float64(time.Since(start))/float64(tOff), "hot/call")
}

// BenchmarkBreakerHotPath measures what the breaker adds to one call on a
// healthy bank, without the network: an admission, one attempt recorded,
// the admission's end.
func BenchmarkBreakerHotPath(b *testing.B) {
	c := newTestClient(b, "http://127.0.0.1:1")
	res := attemptResult{r: &reply{status: http.StatusOK}, wrote: true}
	ctx := context.Background()
	for b.Loop() {
		adm, err := c.admit(ctx)
		if err != nil {
			b.Fatal(err)
		}
		k := kindOf(ctx, res, time.Millisecond, adm.b.policy.AnswerWithin)
		adm.b.record(context.Background(), k, Evidence{Status: 200}, time.Millisecond, adm.seq)
		adm.done()
	}
}

// A call whose retry was decided before the breaker opened, and waits
// its backoff meanwhile, sends nothing more once it has waited: the
// breaker is asked again after the wait.
func TestBreakerStopsARetryThatWaited(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusServiceUnavailable) })
	h := NewHealth()
	slow := newTestClient(t, b.URL, WithHealth(h),
		WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinBackoff: 2 * time.Second, MaxBackoff: 2 * time.Second}))
	once := newTestClient(t, b.URL, WithHealth(h), WithRetryPolicy(RetryPolicy{}))
	get := Operation{Name: "accounts.List", Method: http.MethodGet, Path: "/v1/accounts"}

	done := make(chan error, 1)
	go func() {
		_, err := slow.Do(context.Background(), get, nil)
		done <- err
	}()
	// The first attempt answered and recorded (the bank counts a request
	// before the client has read its answer).
	require.Eventually(t, func() bool {
		banks := h.Banks()
		return len(banks) == 1 && banks[0].Status5xx == 1
	}, 10*time.Second, time.Millisecond, "the first attempt")
	// 4 more failures while the first call waits its backoff: the fifth
	// opens the breaker.
	for range 4 {
		_, err := once.Do(t.Context(), get, nil)
		require.Error(t, err)
	}
	require.Equal(t, BreakerOpen, h.Banks()[0].State)
	err := <-done
	var e *Error
	require.ErrorAs(t, err, &e, "the waiting call ends with its last answer")
	assert.Equal(t, http.StatusServiceUnavailable, e.StatusCode)
	assert.EqualValues(t, 5, b.count.Load(), "no retry sent after the breaker opened")
}

// Replicas on one store whose breakers are open probe the down bank once
// per ProbeAfter between them, not once each: the first to reach the
// probe time takes the probe turn on the store, the others fail fast
// until the turn ends, then one of them probes.
func TestBreakerReplicasShareTheProbe(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusServiceUnavailable) })
	clk := newFrozenClock()
	st := store.NewMemoryStore()
	var replicas []*Client
	for range 3 {
		replicas = append(replicas, newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{})))
	}
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	// Each replica opens its own breaker on 5 failures.
	for _, c := range replicas {
		for range 5 {
			_, _ = c.Do(t.Context(), get, nil)
		}
		require.Equal(t, BreakerOpen, c.BankHealth().State)
	}
	sent := b.count.Load()
	for round := range 3 {
		clk.add(DefaultBreakerPolicy().ProbeMax) // every replica's probe is due
		probes := 0
		for _, c := range replicas {
			_, err := c.Do(t.Context(), get, nil)
			if !errors.Is(err, ErrBankUnavailable) {
				probes++
			}
		}
		assert.Equal(t, 1, probes, "round %d: one replica probes", round)
		assert.EqualValues(t, sent+int64(round)+1, b.count.Load(), "round %d: requests to the down bank", round)
	}
}

// With ProbeMax, a probe that fails doubles the wait before the next,
// from ProbeAfter up to ProbeMax: a long outage costs a probe a minute,
// not one every 5 s. An answer closes the breaker, and the next outage
// starts again from ProbeAfter.
func TestBreakerProbesBackOff(t *testing.T) {
	t.Parallel()
	b, up := downBank(t)
	clk := newFrozenClock()
	p := DefaultBreakerPolicy()
	p.ProbeMax = time.Minute
	c := newTestClient(t, b.URL, clk.opt(), WithRetryPolicy(RetryPolicy{}), WithBreaker(p))
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	outage := func(probes int) []time.Duration {
		for range 5 {
			_, _ = c.Do(t.Context(), get, nil)
		}
		var waits []time.Duration
		for range probes {
			_, err := c.Do(t.Context(), get, nil)
			var down *BankUnavailableError
			require.ErrorAs(t, err, &down)
			waits = append(waits, down.ProbeAt.Sub(clk.now()))
			clk.add(down.ProbeAt.Sub(clk.now()))
			sent := b.count.Load()
			_, err = c.Do(t.Context(), get, nil)
			require.NotErrorIs(t, err, ErrBankUnavailable, "the probe is sent when due")
			require.Equal(t, sent+1, b.count.Load())
		}
		return waits
	}
	assert.Equal(t, []time.Duration{p.ProbeAfter, 2 * p.ProbeAfter, 4 * p.ProbeAfter, 8 * p.ProbeAfter, p.ProbeMax, p.ProbeMax, p.ProbeMax},
		outage(7))
	up.Store(true)
	clk.add(p.ProbeMax)
	_, err := c.Do(t.Context(), get, nil)
	require.NoError(t, err, "the probe finds the bank back")
	require.Equal(t, BreakerClosed, c.BankHealth().State)
	up.Store(false)
	assert.Equal(t, []time.Duration{p.ProbeAfter, 2 * p.ProbeAfter}, outage(2), "a new outage starts from ProbeAfter")
}

// A probe turn or an open breaker another replica left in the store with
// an end far beyond ProbeMax (a replica whose clock ran ahead, then
// crashed; a value no replica of this policy writes) never holds this
// replica's probing back for longer than ProbeMax: it probes, finds the
// bank back and closes, instead of refusing every call until that end.
func TestBreakerStaleFarProbeClaim(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"probe turn", "open breaker"} {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			b, up := downBank(t)
			clk := newFrozenClock()
			st := store.NewMemoryStore()
			c := newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{}))
			get := Operation{Method: http.MethodGet, Path: "/v1/x"}
			far := clk.now().Add(10 * 365 * 24 * time.Hour).UnixNano()
			if key == "probe turn" {
				for range 5 {
					_, _ = c.Do(t.Context(), get, nil)
				}
				require.Equal(t, BreakerOpen, c.BankHealth().State)
				require.NoError(t, st.Put(t.Context(), probeKey(c.Scope()), []byte(strconv.FormatInt(far, 10)), time.Minute))
			} else {
				v := strconv.FormatInt(clk.now().UnixNano(), 10) + " " + strconv.FormatInt(far, 10)
				require.NoError(t, st.Put(t.Context(), breakerKey(c.Scope()), []byte(v), time.Minute))
			}
			up.Store(true)
			p := DefaultBreakerPolicy()
			clk.add(p.ProbeMax)
			_, _ = c.Do(t.Context(), get, nil)
			clk.add(p.ProbeMax)
			_, err := c.Do(t.Context(), get, nil)
			require.NoError(t, err, "a probe goes within ProbeMax, whatever the store says")
			assert.Equal(t, BreakerClosed, c.BankHealth().State)
		})
	}
}

// slowProbeClaim is a store whose first Update of the probe turn returns
// only after another Update of it has ended, or after a while (the store
// round trip of one call, overtaken by a second call of the same
// process).
type slowProbeClaim struct {
	store.Store
	first    atomic.Bool
	other    chan struct{}
	overtook atomic.Bool
}

func (s *slowProbeClaim) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	if !strings.HasPrefix(key, "client/breaker-probe/") {
		return s.Store.Update(ctx, key, fn)
	}
	if s.first.CompareAndSwap(false, true) {
		err := s.Store.Update(ctx, key, fn)
		select {
		case <-s.other:
			s.overtook.Store(true)
		case <-time.After(300 * time.Millisecond):
		}
		return err
	}
	defer close(s.other)
	return s.Store.Update(ctx, key, fn)
}

// backAtProbeTime returns a client on st whose breaker 5 failed calls
// (get) opened, its bank back and its probe due (on a frozen clock), with
// the requests the bank received so far.
func backAtProbeTime(t *testing.T, st store.Store) (*Client, *bank, Operation, int64) {
	t.Helper()
	b, up := downBank(t)
	clk := newFrozenClock()
	c := newTestClient(t, b.URL, clk.opt(), WithStore(st), WithRetryPolicy(RetryPolicy{}))
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	for range 5 {
		_, _ = c.Do(t.Context(), get, nil)
	}
	require.Equal(t, BreakerOpen, c.BankHealth().State)
	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeAfter)
	return c, b, get, b.count.Load()
}

// Two calls of one process meet a due probe at once: one of them probes.
// On the code before, both took part in the store's probe turn, the
// loser moved the process's probe time to the turn's end, which made the
// winner give up its probe too: the process held the turn and did not
// probe, and every call failed fast until the turn ended (forever on a
// frozen clock; a whole probe wait on a real one).
func TestBreakerCallsOfOneProcessShareTheProbe(t *testing.T) {
	t.Parallel()
	st := &slowProbeClaim{Store: store.NewMemoryStore(), other: make(chan struct{})}
	c, b, get, sent := backAtProbeTime(t, st)

	errs := make(chan error, 2)
	go func() { _, err := c.Do(t.Context(), get, nil); errs <- err }()
	time.Sleep(50 * time.Millisecond) // the first call waits in the probe turn's Update
	go func() { _, err := c.Do(t.Context(), get, nil); errs <- err }()
	probes := 0
	for range 2 {
		if err := <-errs; err == nil {
			probes++
		} else {
			require.ErrorIs(t, err, ErrBankUnavailable)
		}
	}
	assert.False(t, st.overtook.Load(), "the second call took no part in the probe turn")
	assert.Equal(t, 1, probes, "one of the two calls probes")
	assert.EqualValues(t, sent+int64(probes), b.count.Load(), "requests to the bank")
	assert.Equal(t, BreakerClosed, c.BankHealth().State, "the probe closed the breaker")
	_, err := c.Do(t.Context(), get, nil)
	assert.NoError(t, err, "the next call goes")
}

// A probe that sent nothing (a hook refused the call) lets the process's
// next call probe at once: the probe turn is its own. On the code before,
// the process waited for the end of its own turn, which it had not used.
func TestBreakerUnusedProbeTurnIsTakenAgain(t *testing.T) {
	t.Parallel()
	c, b, get, sent := backAtProbeTime(t, store.NewMemoryStore())
	refused := get
	refused.Hook = func(context.Context, *Call) (func(Result), error) { return nil, errors.New("no budget") }
	_, err := c.Do(t.Context(), refused, nil)
	require.ErrorIs(t, err, ErrNotSent)
	require.NotErrorIs(t, err, ErrBankUnavailable, "the refused call was the probe")
	_, err = c.Do(t.Context(), get, nil)
	require.NoError(t, err, "the next call probes")
	assert.EqualValues(t, sent+1, b.count.Load(), "requests to the bank")
	assert.Equal(t, BreakerClosed, c.BankHealth().State)
}

// A hung database never holds the breaker's calls: each of its reads
// and writes gives up after breakerStoreWait, and none is made under the
// lock every call takes. On the code before, the breaker's store calls
// had no deadline (the first call hung in the shared read for ever) and
// the shared write was made under that lock.
func TestBreakerHungStoreHoldsNoCall(t *testing.T) {
	t.Parallel()
	b, up := downBank(t)
	clk := newFrozenClock()
	hung := hungstore.New(t, []string{"Get", "Put", "Delete", "Update"})
	c := newTestClient(t, b.URL, clk.opt(), WithStore(hung), WithRetryPolicy(RetryPolicy{}))
	c.bankHealth().storeWait = 200 * time.Millisecond // breakerStoreWait, shorter
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	done := make(chan error, 1)
	go func() {
		for range 5 {
			_, _ = c.Do(t.Context(), get, nil) // the fifth opens the breaker
		}
		_, err := c.Do(t.Context(), get, nil)
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, ErrBankUnavailable, "the breaker opened without its store")
	case <-time.After(time.Minute):
		t.Fatal("the calls wait on the hung store")
	}
	up.Store(true)
	clk.add(DefaultBreakerPolicy().ProbeAfter)
	go func() {
		_, err := c.Do(t.Context(), get, nil) // the probe: the store cannot be reached, it probes alone
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("the probe waits on the hung store")
	}
	assert.Equal(t, BreakerClosed, c.BankHealth().State)
}
