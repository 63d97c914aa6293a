package events_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// flakySink is a sink that fails while down is set (an outbox whose
// database is down, a handler that errors), and keeps what it took.
type flakySink struct {
	down atomic.Bool
	mu   sync.Mutex
	got  []events.Envelope
}

func (s *flakySink) Publish(_ context.Context, e events.Envelope) error {
	if s.down.Load() {
		return errors.New("sink down")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, e)
	return nil
}

func (s *flakySink) taken() []events.Envelope {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]events.Envelope(nil), s.got...)
}

// A bank's outage whose events could not be published when the breaker
// opened and closed (the sink was down: Breaker publishes once, at the
// change) is published by Downtimes from the client's downtime record,
// each event once: a second Downtimes, and the breaker's own changes
// handed to Breaker again, publish nothing more. Before Downtimes, no
// later check published them: the outage was lost to the TPP.
func TestDowntimesPublishesWhatTheBreakerCouldNot(t *testing.T) {
	t.Parallel()
	clk := testtpp.NewClock(time.Now())
	bank := emulator.NewServer(emulator.WithClock(clk.Now))
	t.Cleanup(bank.Close)
	creds, err := bank.NewTPP("Events TPP")
	require.NoError(t, err)
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()), client.WithClock(clk.Now),
		client.WithStore(store.NewMemoryStore()), client.WithRetryPolicy(client.RetryPolicy{}),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)

	sink := &flakySink{}
	sink.down.Store(true)
	em, err := events.NewEmitter(sink, events.WithClock(clk.Now))
	require.NoError(t, err)
	var mu sync.Mutex
	var changes []client.BreakerChange
	var failed []error
	c.Health().OnChange(func(ch client.BreakerChange) {
		err := em.Breaker(context.Background(), ch)
		mu.Lock()
		defer mu.Unlock()
		changes = append(changes, ch)
		if err != nil {
			failed = append(failed, err)
		}
	})

	start := clk.Now()
	bank.Control().Outage(emulator.OutageUnavailable, time.Hour)
	get := client.Operation{Method: http.MethodGet, Path: "/v1/accounts"}
	for range 5 {
		_, _ = c.Do(t.Context(), get, nil)
	}
	_, err = c.Do(t.Context(), get, nil)
	require.ErrorIs(t, err, client.ErrBankUnavailable, "the breaker opened")
	bank.Control().EndOutages()
	clk.Add(client.DefaultBreakerPolicy().ProbeMax)
	_, err = c.Do(t.Context(), get, nil) // answered (400: no consent): the bank is back
	require.NotErrorIs(t, err, client.ErrBankUnavailable)
	mu.Lock()
	require.NotEmpty(t, changes)
	require.Equal(t, client.BreakerClosed, changes[len(changes)-1].To, "the probe found the bank back: the breaker closed")
	require.Len(t, failed, 2, "both changes' publications failed: %v", changes)
	mu.Unlock()
	assert.Empty(t, sink.taken())

	sink.down.Store(false)
	n, err := em.Downtimes(t.Context(), c, start.Add(-time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 1, n, "one record read")
	got := sink.taken()
	require.Len(t, got, 2)
	assert.Equal(t, events.KindBankUnavailable, got[0].Kind)
	assert.Equal(t, events.KindBankAvailable, got[1].Kind, "after the unavailability, on one key")
	assert.Equal(t, got[0].Key, got[1].Key)
	ev, err := got[1].Event()
	require.NoError(t, err)
	av, ok := ev.(events.BankAvailable)
	require.True(t, ok)
	assert.False(t, av.Downtime.End.IsZero(), "the whole record")
	ev, err = got[0].Event()
	require.NoError(t, err)
	un, ok := ev.(events.BankUnavailable)
	require.True(t, ok)
	assert.True(t, un.Downtime.End.IsZero(), "the record as it was when the breaker opened")

	// Once each: Downtimes again, and the breaker's own changes.
	n, err = em.Downtimes(t.Context(), c, start.Add(-time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	mu.Lock()
	for _, ch := range changes {
		require.NoError(t, em.Breaker(t.Context(), ch))
	}
	mu.Unlock()
	assert.Len(t, sink.taken(), 2, "published once each")
}

// Without a client, Downtimes is an error, not "nothing to publish".
func TestDowntimesNeedsAClient(t *testing.T) {
	t.Parallel()
	em, err := events.NewEmitter(&flakySink{})
	require.NoError(t, err)
	_, err = em.Downtimes(t.Context(), nil, time.Now())
	require.Error(t, err)
}
