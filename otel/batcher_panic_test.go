package otel_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	psd2otel "github.com/tppkit/psd2/otel"
)

// panickingExporter panics on every export and at shutdown.
type panickingExporter struct{}

func (panickingExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error {
	panic("exporter bug")
}
func (panickingExporter) Shutdown(context.Context) error { panic("exporter shutdown bug") }

// TestSpanBatcherRecoversExporterPanics: an exporter that panics, called
// on the batcher's own goroutine, ends neither the process nor the
// batcher: each panic is reported to OpenTelemetry's error handler as a
// failed export (or shutdown), and the next flush and Shutdown still
// return. Before, the first export's panic ended the TPP's process.
func TestSpanBatcherRecoversExporterPanics(t *testing.T) {
	seen := errorsSeen(t)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(psd2otel.NewSpanBatcher(panickingExporter{})))
	endSpans(tp, "s", 3)
	require.NoError(t, tp.ForceFlush(context.Background()))
	endSpans(tp, "t", 3)
	require.NoError(t, tp.ForceFlush(context.Background()), "the batcher goes on")
	err := tp.Shutdown(context.Background())
	require.ErrorContains(t, err, "the exporter panicked in shutdown")
	var panics int
	for _, err := range seen() {
		if strings.Contains(err.Error(), "the exporter panicked in export") {
			panics++
		}
	}
	require.Equal(t, 2, panics, "each export's panic is reported: %v", seen())
}
