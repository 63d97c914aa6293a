package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/events"
)

// A breaker that opens and closes is one "bank unavailable" and one "bank
// available" event, each once, with the downtime record as evidence.
func TestBreakerEvents(t *testing.T) {
	t.Parallel()
	var got []events.Envelope
	em, err := events.NewEmitter(events.Handler(func(_ context.Context, e events.Envelope) error {
		got = append(got, e)
		return nil
	}))
	require.NoError(t, err)
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	d := client.Downtime{Bank: "bank:alpha", Start: start, Failures: 5,
		Evidence: []client.Evidence{{RequestID: "9f0c3f7e-1b7a-4a53-9d5e-0d6f0a4b1c2d", At: start, Status: 503, Result: "503 Service Unavailable", Operation: "accounts.Balances"}}}
	ctx := t.Context()
	open := client.BreakerChange{Bank: "bank:alpha", Scope: "s1", From: client.BreakerClosed, To: client.BreakerOpen, At: start, Downtime: d}
	require.NoError(t, em.Breaker(ctx, open))
	require.NoError(t, em.Breaker(ctx, open), "once per unavailability")
	require.NoError(t, em.Breaker(ctx, client.BreakerChange{Scope: "s1", From: client.BreakerOpen, To: client.BreakerHalfOpen}))
	d.End = start.Add(7 * time.Second)
	require.NoError(t, em.Breaker(ctx, client.BreakerChange{Bank: "bank:alpha", Scope: "s1", From: client.BreakerHalfOpen, To: client.BreakerClosed, At: d.End, Downtime: d}))

	require.Len(t, got, 2)
	assert.Equal(t, events.KindBankUnavailable, got[0].Kind)
	assert.Equal(t, events.KindBankAvailable, got[1].Kind)
	assert.Equal(t, got[0].Key, got[1].Key, "one subject: the bank")
	ev, err := got[1].Event()
	require.NoError(t, err)
	av, ok := ev.(events.BankAvailable)
	require.True(t, ok)
	assert.True(t, av.Downtime.End.Equal(d.End))
	assert.Equal(t, "9f0c3f7e-1b7a-4a53-9d5e-0d6f0a4b1c2d", av.Downtime.Evidence[0].RequestID)
}
