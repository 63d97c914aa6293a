package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
)

// A Handler that panics is an error of the publication, not a panic of
// the Emitter's caller (an OnChange subscriber on the client's own
// goroutine, a refresh worker): nothing is remembered, so the next check
// publishes the event again. Before, the panic went through Emit and
// ended the TPP's process from a goroutine the SDK started.
func TestHandlerPanicIsAnError(t *testing.T) {
	t.Parallel()
	fail := true
	var got []events.Envelope
	em, err := events.NewEmitter(events.Handler(func(_ context.Context, e events.Envelope) error {
		if fail {
			panic("handler bug")
		}
		got = append(got, e)
		return nil
	}))
	require.NoError(t, err)
	ev := events.ConsentExpired{Consent: "customer-42", Ends: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	var published bool
	require.NotPanics(t, func() { published, err = em.Emit(t.Context(), ev) })
	require.ErrorIs(t, err, events.ErrSinkPanicked)
	assert.Contains(t, err.Error(), "panic value of type string")
	assert.False(t, published)

	fail = false
	published, err = em.Emit(t.Context(), ev)
	require.NoError(t, err)
	assert.True(t, published, "not remembered: published again")
	assert.Len(t, got, 1)
}
