package emulator_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// outageBank is an emulator with a frozen bank clock and the SDK's client
// on it, without retries, so that each call is one request.
type outageBank struct {
	s  *emulator.Server
	sb *sandbox.Service
}

func newOutageBank(t *testing.T) *outageBank {
	t.Helper()
	s := emulator.NewServer()
	t.Cleanup(s.Close)
	creds, err := s.NewTPP("Outage TPP")
	require.NoError(t, err)
	// The client's circuit breaker is off: these tests read the bank's
	// answers, which an open breaker would replace with its own refusal
	// (calls racing an outage may open it).
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithRetryPolicy(client.RetryPolicy{}),
		client.WithBreaker(client.BreakerPolicy{Off: true}))
	require.NoError(t, err)
	sb, err := sandbox.New(c)
	require.NoError(t, err)
	s.Control().Freeze()
	return &outageBank{s: s, sb: sb}
}

// call makes one signed call (the sandbox's customer list) and returns
// its error.
func (b *outageBank) call(ctx context.Context) error {
	_, err := b.sb.Customers(ctx, nil)
	return err
}

// status returns the HTTP status of the bank's answer to a call, 200 for
// none.
func (b *outageBank) status(t *testing.T) int {
	t.Helper()
	err := b.call(t.Context())
	if err == nil {
		return http.StatusOK
	}
	var ce *client.Error
	require.ErrorAs(t, err, &ce)
	return ce.StatusCode
}

// TestOutageRefused: during the outage the bank's port refuses
// connections; when the bank's clock passes its end the bank answers on
// the same address again.
func TestOutageRefused(t *testing.T) {
	t.Parallel()
	b := newOutageBank(t)
	require.NoError(t, b.call(t.Context()), "a keep-alive connection is open before the outage")
	u, err := url.Parse(b.s.URL)
	require.NoError(t, err)

	b.s.Control().Outage(emulator.OutageRefused, time.Minute)
	_, err = net.Dial("tcp", u.Host)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	err = b.call(t.Context())
	require.Error(t, err, "the open connection was closed and a new one is refused")
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)

	b.s.Control().Advance(59 * time.Second)
	_, err = net.Dial("tcp", u.Host)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "still down within the span")

	b.s.Control().Advance(time.Second)
	assert.NoError(t, b.call(t.Context()), "back on the same address")
}

// TestOutageUnavailable: 503 for a minute of the bank's clock.
func TestOutageUnavailable(t *testing.T) {
	t.Parallel()
	b := newOutageBank(t)
	b.s.Control().Outage(emulator.OutageUnavailable, time.Minute)
	assert.Equal(t, http.StatusServiceUnavailable, b.status(t))
	b.s.Control().Advance(59 * time.Second)
	assert.Equal(t, http.StatusServiceUnavailable, b.status(t))
	b.s.Control().Advance(time.Second)
	assert.Equal(t, http.StatusOK, b.status(t))

	b.s.Control().Outage(emulator.OutageUnavailable, time.Hour)
	b.s.Control().EndOutages()
	assert.Equal(t, http.StatusOK, b.status(t), "EndOutages ends it at once")
}

// TestOutageHang: a request is held without an answer; a client that
// gives up gets nothing, and a request still held when the outage ends
// is answered then.
func TestOutageHang(t *testing.T) {
	t.Parallel()
	b := newOutageBank(t)
	b.s.Control().Outage(emulator.OutageHang, time.Minute)

	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, b.call(ctx), context.DeadlineExceeded)

	done := make(chan error, 1)
	go func() { done <- b.call(t.Context()) }()
	require.Eventually(t, func() bool { return b.s.HeldRequests() == 1 }, 10*time.Second, time.Millisecond, "the request is held")
	select {
	case err := <-done:
		t.Fatalf("answered during the outage: %v", err)
	default:
	}
	b.s.Control().Advance(time.Minute)
	assert.NoError(t, <-done, "answered when the outage ends")
}

// TestSlowBank: a bank whose every answer takes a minute times a client
// with a short deadline out; after the span it answers at once.
func TestSlowBank(t *testing.T) {
	t.Parallel()
	b := newOutageBank(t)
	b.s.Control().SlowBank(emulator.Latency{P50: time.Minute}, time.Hour)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, b.call(ctx), context.DeadlineExceeded)
	b.s.Control().Advance(time.Hour)
	assert.NoError(t, b.call(t.Context()))
}

// TestFlapping: down 10 s, up 20 s, for 75 s of the bank's clock, with
// 503s and with refused connections.
func TestFlapping(t *testing.T) {
	t.Parallel()
	b := newOutageBank(t)
	b.s.Control().Flapping(emulator.OutageUnavailable, 10*time.Second, 20*time.Second, 75*time.Second)
	var got []int
	for range 8 { // at 0, 10, 20, ..., 70 s
		got = append(got, b.status(t))
		b.s.Control().Advance(10 * time.Second)
	}
	got = append(got, b.status(t)) // at 80 s: over
	assert.Equal(t, []int{503, 200, 200, 503, 200, 200, 503, 200, 200}, got)

	b.s.Control().Flapping(emulator.OutageRefused, 10*time.Second, 20*time.Second, time.Minute)
	assert.ErrorIs(t, b.call(t.Context()), syscall.ECONNREFUSED)
	b.s.Control().Advance(10 * time.Second)
	assert.NoError(t, b.call(t.Context()))
	b.s.Control().Advance(20 * time.Second)
	assert.ErrorIs(t, b.call(t.Context()), syscall.ECONNREFUSED)
	b.s.Control().Advance(30 * time.Second)
	assert.NoError(t, b.call(t.Context()))
}

// TestRateLimitStorm: every call gets 429 ACCESS_EXCEEDED with the
// Retry-After asked for, until the storm's end.
func TestRateLimitStorm(t *testing.T) {
	t.Parallel()
	b := newOutageBank(t)
	b.s.Control().RateLimitStorm(5*time.Second, time.Minute)
	for range 3 {
		err := b.call(t.Context())
		var ce *client.Error
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, []any{http.StatusTooManyRequests, "5"}, []any{ce.StatusCode, ce.Header.Get("Retry-After")})
		assert.ErrorIs(t, err, client.ErrAccessExceeded)
	}
	b.s.Control().Advance(time.Minute)
	assert.NoError(t, b.call(t.Context()))
}

// TestOutageOfOneBankOfAMultiBank: a refusing outage of one bank on the
// shared listener closes that bank's connections only.
func TestOutageOfOneBankOfAMultiBank(t *testing.T) {
	t.Parallel()
	m, err := emulator.NewMultiBank([]string{"alpha.localhost", "beta.localhost"})
	require.NoError(t, err)
	t.Cleanup(m.Close)
	creds, err := m.NewTPP("Multi outage TPP")
	require.NoError(t, err)
	call := func(host string) error {
		c, err := client.New(m.URL(host), creds, client.WithHTTPClient(m.Client()), client.WithRetryPolicy(client.RetryPolicy{}))
		require.NoError(t, err)
		sb, err := sandbox.New(c)
		require.NoError(t, err)
		_, err = sb.Customers(t.Context(), nil)
		return err
	}
	m.Bank("alpha.localhost").Control().Outage(emulator.OutageRefused, time.Minute)
	err = call("alpha.localhost")
	require.Error(t, err)
	assert.True(t, errors.Is(err, client.ErrNotSent) || errors.Is(err, client.ErrOutcomeUnknown) || strings.Contains(err.Error(), "EOF"), err.Error())
	assert.NoError(t, call("beta.localhost"))
}

// TestOutagesRaceWithCalls runs calls while outages start and end, for
// the race detector.
func TestOutagesRaceWithCalls(t *testing.T) {
	t.Parallel()
	b := newOutageBank(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				_ = b.call(t.Context())
			}
		}()
	}
	for _, k := range []emulator.OutageKind{emulator.OutageUnavailable, emulator.OutageRefused, emulator.OutageUnavailable} {
		b.s.Control().Outage(k, time.Second)
		b.s.Control().Advance(time.Second)
	}
	b.s.Control().RateLimitStorm(time.Second, time.Second)
	b.s.Control().EndOutages()
	wg.Wait()
	assert.NoError(t, b.call(t.Context()))
}
