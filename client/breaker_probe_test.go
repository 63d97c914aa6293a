package client

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// A call whose caller gave up before its attempt was handed to the
// transport (the context ended while the call's hook ran, a budget
// reservation say) reached no bank: the breaker learns nothing from it.
// On the code before, the attempt's time was measured from the zero
// time (no attempt had started), so the caller's cancel counted as a
// bank that did not answer: five of them opened the breaker, with a
// downtime record dated in year 1.
func TestBreakerIgnoresACancelBeforeTheAttempt(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	st := store.NewMemoryStore()
	c := newTestClient(t, b.URL, WithStore(st), WithRetryPolicy(RetryPolicy{}))
	for range 10 {
		ctx, cancel := context.WithCancel(t.Context())
		op := Operation{Name: "accounts.Balances", Method: http.MethodGet, Path: "/v1/x",
			Hook: func(context.Context, *Call) (func(Result), error) { cancel(); return nil, nil }}
		_, err := c.Do(ctx, op, nil)
		require.ErrorIs(t, err, ErrNotSent)
		require.NotErrorIs(t, err, ErrBankUnavailable)
		cancel()
	}
	assert.Zero(t, b.count.Load(), "nothing reached the bank")
	h := c.BankHealth()
	assert.Equal(t, BreakerClosed, h.State, "the caller's cancels are not the bank's failures")
	assert.Zero(t, h.Requests, "no request was made")
	downs, err := c.Downtimes(t.Context(), time.Time{}, time.Now().Add(time.Hour))
	require.NoError(t, err)
	assert.Empty(t, downs)
	_, err = c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
	require.NoError(t, err)
}

// A probe's admission that ends after its probe closed the breaker (its
// hook's settlement wrote to a slow store meanwhile), while the breaker
// opened again and a new probe is on its way, leaves that probe alone:
// one probe at a time. On the code before, the old admission's end put
// the half-open breaker back to open, and the next call went through as
// a second probe while the first was still on its way.
func TestBreakerStaleProbeEndLetsNoSecondProbe(t *testing.T) {
	t.Parallel()
	var mode atomicString
	mode.set("down")
	inProbe := make(chan struct{}, 1)
	releaseProbe := make(chan struct{})
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch mode.get() {
		case "down":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "up":
			_, _ = w.Write([]byte(`{}`))
		case "hold":
			select {
			case inProbe <- struct{}{}:
			default:
			}
			select {
			case <-releaseProbe:
			case <-r.Context().Done():
			}
			_, _ = w.Write([]byte(`{}`))
		}
	})
	clk := newFrozenClock()
	c := newTestClient(t, b.URL, clk.opt(), WithRetryPolicy(RetryPolicy{}))
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	openIt := func() {
		mode.set("down")
		for range 5 {
			_, err := c.Do(t.Context(), get, nil)
			require.Error(t, err)
		}
		require.Equal(t, BreakerOpen, c.BankHealth().State)
		clk.add(DefaultBreakerPolicy().ProbeAfter)
	}
	openIt()

	// Probe 1: answered, it closes the breaker; its hook's settlement
	// then holds the call (and its admission) open.
	mode.set("up")
	settling, settled := make(chan struct{}), make(chan struct{})
	slowSettle := get
	slowSettle.Hook = func(context.Context, *Call) (func(Result), error) {
		return func(Result) { close(settling); <-settled }, nil
	}
	first := make(chan error, 1)
	go func() { _, err := c.Do(context.Background(), slowSettle, nil); first <- err }()
	<-settling
	require.Equal(t, BreakerClosed, c.BankHealth().State, "probe 1 closed the breaker")

	// The bank fails again: open, and probe 2 is on its way.
	openIt()
	mode.set("hold")
	second := make(chan error, 1)
	go func() { _, err := c.Do(context.Background(), get, nil); second <- err }()
	<-inProbe
	require.Equal(t, BreakerHalfOpen, c.BankHealth().State)
	sent := b.count.Load()

	close(settled) // probe 1's call ends
	require.NoError(t, <-first)
	assert.Equal(t, BreakerHalfOpen, c.BankHealth().State, "probe 2 is still the probe")
	for range 5 {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		_, err := c.Do(ctx, get, nil)
		cancel()
		assert.ErrorIs(t, err, ErrBankUnavailable, "one probe at a time")
	}
	assert.Equal(t, sent, b.count.Load(), "no second probe reached the bank")
	close(releaseProbe)
	require.NoError(t, <-second)
	assert.Equal(t, BreakerClosed, c.BankHealth().State)
}

// The breaker the store holds, as StoredBreaker reports it, is bounded
// like the one a replica adopts from the store: a next probe at most
// ProbeMax ahead and an opening not in the future, whatever a replica
// with a clock far ahead, or a garbled value, wrote. On the code before,
// a stored probe time in year 2262 was reported as it was: the operator's
// tool showed the bank unavailable until then, and a job engine paused
// the bank's queue until then.
func TestStoredBreakerIsBounded(t *testing.T) {
	t.Parallel()
	clk := newFrozenClock()
	st := store.NewMemoryStore()
	c := newTestClient(t, "http://127.0.0.1:1", clk.opt(), WithStore(st))
	now := clk.now()
	far := time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for _, v := range []string{
		strconv.FormatInt(far, 10) + " " + strconv.FormatInt(far, 10),
		strconv.FormatInt(now.UnixNano(), 10) + " 9223372036854775807",
	} {
		require.NoError(t, st.Put(t.Context(), breakerKey(c.Scope()), []byte(v), time.Hour))
		state, since, probeAt, err := c.StoredBreaker(t.Context())
		require.NoError(t, err)
		assert.Equal(t, BreakerOpen, state, "%s: a replica holds it open", v)
		assert.False(t, probeAt.After(now.Add(DefaultBreakerPolicy().ProbeMax)), "%s: next probe %s", v, probeAt)
		assert.False(t, since.After(now), "%s: opened %s", v, since)
	}
}

// atomicString is a string read and written from several goroutines.
type atomicString struct{ v atomic.Value }

func (s *atomicString) set(v string) { s.v.Store(v) }
func (s *atomicString) get() string  { return s.v.Load().(string) }

// A call admitted before the breaker opened that fails while the probe
// is on its way adds its evidence, but the probe's own end decides: no
// second probe goes out while the first is on its way. On the code
// before, that failure took the breaker from half-open back to open with
// a new probe time, and once it came the next call probed too, beside
// the first probe.
func TestBreakerLateFailureLetsNoSecondProbe(t *testing.T) {
	t.Parallel()
	var mode atomicString
	mode.set("down")
	inSlow, inProbe := make(chan struct{}, 1), make(chan struct{}, 1)
	releaseSlow, releaseProbe := make(chan struct{}), make(chan struct{})
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/v1/slow" {
			inSlow <- struct{}{}
			<-releaseSlow
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if mode.get() == "down" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		select {
		case inProbe <- struct{}{}:
		default:
		}
		select {
		case <-releaseProbe:
		case <-r.Context().Done():
		}
		_, _ = w.Write([]byte(`{}`))
	})
	clk := newFrozenClock()
	c := newTestClient(t, b.URL, clk.opt(), WithRetryPolicy(RetryPolicy{}))
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}

	slow := make(chan error, 1)
	go func() {
		_, err := c.Do(context.Background(), Operation{Method: http.MethodGet, Path: "/v1/slow"}, nil)
		slow <- err
	}()
	<-inSlow // admitted while the breaker was closed
	for range 5 {
		_, err := c.Do(t.Context(), get, nil)
		require.Error(t, err)
	}
	require.Equal(t, BreakerOpen, c.BankHealth().State)
	clk.add(DefaultBreakerPolicy().ProbeAfter)
	mode.set("hold")
	probe := make(chan error, 1)
	go func() { _, err := c.Do(context.Background(), get, nil); probe <- err }()
	<-inProbe
	require.Equal(t, BreakerHalfOpen, c.BankHealth().State)

	close(releaseSlow) // the call admitted before fails now
	require.Error(t, <-slow)
	sent := b.count.Load()
	clk.add(DefaultBreakerPolicy().ProbeMax)
	for range 3 {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		_, err := c.Do(ctx, get, nil)
		cancel()
		assert.ErrorIs(t, err, ErrBankUnavailable, "one probe at a time")
	}
	assert.Equal(t, sent, b.count.Load(), "no second probe reached the bank")
	close(releaseProbe)
	require.NoError(t, <-probe)
	h := c.BankHealth()
	assert.Equal(t, BreakerClosed, h.State, "the probe's answer closed the breaker")
	require.Len(t, h.Recent, 1)
	assert.Equal(t, 6, h.Recent[0].Failures, "the late failure is evidence")
}
