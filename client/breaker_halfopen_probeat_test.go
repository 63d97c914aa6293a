package client

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// While the breaker's probe is on its way (half-open), a call it refuses
// is told a next probe that is ahead: the earliest the bank may be
// called again should the probe fail (this probe's turn), not the time
// the probe was due, which has passed. A job engine defers the call's
// job until then; on the code before, every job of the bank was put off
// by the least wait and came back about once a second for as long as a
// slow probe took, and an in-process round got no time at all.
func TestBreakerRefusalDuringProbeNamesAProbeAhead(t *testing.T) {
	t.Parallel()
	var mode atomicString
	mode.set("down")
	inProbe := make(chan struct{}, 1)
	releaseProbe := make(chan struct{})
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch mode.get() {
		case "down":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "hold":
			select {
			case inProbe <- struct{}{}:
			default:
			}
			select {
			case <-releaseProbe:
			case <-r.Context().Done():
			}
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	clk := newFrozenClock()
	c := newTestClient(t, b.URL, clk.opt(), WithRetryPolicy(RetryPolicy{}),
		WithBreaker(BreakerPolicy{ProbeAfter: 5 * time.Second, ProbeMax: time.Minute}))
	get := Operation{Method: http.MethodGet, Path: "/v1/x"}
	for range 5 {
		_, err := c.Do(t.Context(), get, nil)
		require.Error(t, err)
	}
	require.Equal(t, BreakerOpen, c.BankHealth().State)

	// Open, probe not yet due: the refusal names the due probe.
	_, err := c.Do(t.Context(), get, nil)
	var down *BankUnavailableError
	require.True(t, errors.As(err, &down), "%v", err)
	assert.Equal(t, clk.now().Add(5*time.Second), down.ProbeAt)

	// The probe is due and on its way (slow).
	clk.add(5 * time.Second)
	mode.set("hold")
	probe := make(chan error, 1)
	go func() { _, err := c.Do(context.Background(), get, nil); probe <- err }()
	<-inProbe
	require.Equal(t, BreakerHalfOpen, c.BankHealth().State)
	clk.add(2 * time.Second) // the probe takes its time
	_, err = c.Do(t.Context(), get, nil)
	require.True(t, errors.As(err, &down), "%v", err)
	assert.True(t, down.ProbeAt.After(clk.now()), "a probe ahead, not %v before now", clk.now().Sub(down.ProbeAt))
	assert.False(t, down.ProbeAt.After(clk.now().Add(10*time.Second)),
		"no later than this probe's turn (the doubled wait): %v ahead", down.ProbeAt.Sub(clk.now()))

	close(releaseProbe)
	require.Error(t, <-probe)
	// The probe failed: the next is a doubled wait later, and a refusal
	// names it.
	_, err = c.Do(t.Context(), get, nil)
	require.True(t, errors.As(err, &down), "%v", err)
	assert.Equal(t, clk.now().Add(10*time.Second), down.ProbeAt)
}
