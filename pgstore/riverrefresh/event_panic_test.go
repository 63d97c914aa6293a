package riverrefresh

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEventPanicIsRecovered: a Config.Event that panics, told of a pause
// by the engine's resume loop (a goroutine the engine starts), is
// recovered and logged at Error through Config.Logger. Before, the panic
// ended the TPP's process.
func TestEventPanicIsRecovered(t *testing.T) {
	var buf bytes.Buffer
	e := &Engine{cfg: Config{Logger: slog.New(slog.NewJSONHandler(&buf, nil)),
		Event: func(Event) { panic("event consumer bug") }}}
	require.NotPanics(t, func() { e.event(Event{Bank: "bank:alpha", Kind: "paused"}) })
	assert.Contains(t, buf.String(), "Config.Event panicked")
	assert.NotContains(t, buf.String(), "event consumer bug", "the value is the TPP's code's: not logged")
	assert.Contains(t, buf.String(), `"level":"ERROR"`)
	assert.Contains(t, buf.String(), "bank:alpha")
}
