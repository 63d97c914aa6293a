package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/events"
)

// A breaker whose opening could not be published (the sink was down)
// and which closes later publishes the outage's BankUnavailable before
// its BankAvailable: published after it (by the next Downtimes, as
// before), it was the last event of the bank's Key, and a consumer
// following the Key showed the bank unavailable while it answered.
func TestBreakerClosePublishesMissedOpenFirst(t *testing.T) {
	start := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	sink := &flakySink{}
	em, err := events.NewEmitter(sink, events.WithClock(func() time.Time { return start.Add(time.Hour) }))
	require.NoError(t, err)
	dt := client.Downtime{Bank: "bank", Start: start, Failures: 3}
	sink.down.Store(true)
	require.Error(t, em.Breaker(t.Context(), client.BreakerChange{Scope: "s", From: client.BreakerClosed, To: client.BreakerOpen, Downtime: dt}))
	sink.down.Store(false)
	closed := dt
	closed.End = start.Add(30 * time.Minute)
	require.NoError(t, em.Breaker(t.Context(), client.BreakerChange{Scope: "s", From: client.BreakerHalfOpen, To: client.BreakerClosed, Downtime: closed}))
	var kinds []events.Kind
	for _, e := range sink.taken() {
		kinds = append(kinds, e.Kind)
	}
	require.Equal(t, []events.Kind{events.KindBankUnavailable, events.KindBankAvailable}, kinds)
	// Handed again, and by a Downtimes, the opening is not published twice.
	require.NoError(t, em.Breaker(context.Background(), client.BreakerChange{Scope: "s", From: client.BreakerClosed, To: client.BreakerOpen, Downtime: dt}))
	require.Len(t, sink.taken(), 2)
}
