package otel_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	psd2otel "github.com/tppkit/psd2/otel"
)

// recordingExporter keeps what it was given, can hold its exports until
// released, and notes exports that overlap.
type recordingExporter struct {
	mu       sync.Mutex
	names    []string
	batches  []int
	shutdown int

	hold     chan struct{} // when not nil, each export waits for it to close
	inExport atomic.Int32
	overlaps atomic.Int32
}

func (e *recordingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.inExport.Add(1) > 1 {
		e.overlaps.Add(1)
	}
	defer e.inExport.Add(-1)
	if e.hold != nil {
		select {
		case <-e.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range spans {
		e.names = append(e.names, s.Name())
	}
	e.batches = append(e.batches, len(spans))
	return nil
}

func (e *recordingExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.shutdown++
	return nil
}

func (e *recordingExporter) got() (names []string, batches []int, shutdown int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.names...), append([]int(nil), e.batches...), e.shutdown
}

// endSpans starts and ends n spans named prefix-i.
func endSpans(tp trace.TracerProvider, prefix string, n int) {
	tr := tp.Tracer("test")
	for i := range n {
		_, s := tr.Start(context.Background(), fmt.Sprintf("%s-%d", prefix, i))
		s.End()
	}
}

// errorsSeen replaces OpenTelemetry's global error handler for the test.
func errorsSeen(t *testing.T) func() []error {
	var mu sync.Mutex
	var errs []error
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}))
	t.Cleanup(func() { otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {})) })
	return func() []error {
		mu.Lock()
		defer mu.Unlock()
		return append([]error(nil), errs...)
	}
}

func TestSpanBatcherExportsEverySpanInBatches(t *testing.T) {
	exp := &recordingExporter{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(psd2otel.NewSpanBatcher(exp)))
	endSpans(tp, "s", 1500)
	require.NoError(t, tp.ForceFlush(context.Background()))
	names, batches, _ := exp.got()
	require.Len(t, names, 1500)
	for i, n := range names {
		require.Equal(t, fmt.Sprintf("s-%d", i), n, "spans exported in the order they ended")
	}
	for _, n := range batches {
		assert.LessOrEqual(t, n, 512, "a batch holds at most 512 spans")
	}
	require.NoError(t, tp.Shutdown(context.Background()))
}

// A full batch is exported without waiting for the 5 s delay.
func TestSpanBatcherExportsAFullBatchAtOnce(t *testing.T) {
	exp := &recordingExporter{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(psd2otel.NewSpanBatcher(exp)))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	endSpans(tp, "s", 511)
	time.Sleep(50 * time.Millisecond)
	names, _, _ := exp.got()
	require.Empty(t, names, "less than a batch waits for the delay")
	endSpans(tp, "t", 1)
	require.Eventually(t, func() bool {
		names, _, _ := exp.got()
		return len(names) == 512
	}, 3*time.Second, 5*time.Millisecond, "the 512th span wakes the export")
}

func TestSpanBatcherSkipsUnsampledSpans(t *testing.T) {
	exp := &recordingExporter{}
	b := psd2otel.NewSpanBatcher(exp)
	sampled := tracetest.SpanStub{Name: "sampled", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled})}
	unsampled := tracetest.SpanStub{Name: "unsampled", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{2}, SpanID: trace.SpanID{2}})}
	b.OnEnd(sampled.Snapshot())
	b.OnEnd(unsampled.Snapshot())
	require.NoError(t, b.ForceFlush(context.Background()))
	names, _, _ := exp.got()
	require.Equal(t, []string{"sampled"}, names)
	require.NoError(t, b.Shutdown(context.Background()))
}

// While an export is held, at most 2,048 spans wait; the rest are
// dropped and the drops reported.
func TestSpanBatcherBoundsItsQueue(t *testing.T) {
	seen := errorsSeen(t)
	exp := &recordingExporter{hold: make(chan struct{})}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(psd2otel.NewSpanBatcher(exp)))
	endSpans(tp, "first", 512) // a full batch: its export starts and is held
	require.Eventually(t, func() bool { return exp.inExport.Load() == 1 }, 3*time.Second, time.Millisecond)
	endSpans(tp, "more", 5000)
	close(exp.hold)
	require.NoError(t, tp.ForceFlush(context.Background()))
	names, _, _ := exp.got()
	require.Len(t, names, 512+2048, "the held batch and a full queue")
	require.Equal(t, "more-2047", names[len(names)-1], "the queue keeps the first spans that found room")
	var dropped []error
	for _, err := range seen() {
		if err != nil && strings.Contains(err.Error(), "2952 span(s) dropped") {
			dropped = append(dropped, err)
		}
	}
	require.Len(t, dropped, 1, "the drops are reported once, with their count: %v", seen())
	require.NoError(t, tp.Shutdown(context.Background()))
}

func TestSpanBatcherShutdown(t *testing.T) {
	exp := &recordingExporter{}
	b := psd2otel.NewSpanBatcher(exp)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b))
	endSpans(tp, "s", 10)
	require.NoError(t, b.Shutdown(context.Background()))
	names, _, shutdown := exp.got()
	require.Len(t, names, 10, "Shutdown exports what is queued")
	require.Equal(t, 1, shutdown, "and shuts the exporter down")

	b.OnEnd(tracetest.SpanStub{Name: "late", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled})}.Snapshot())
	require.NoError(t, b.ForceFlush(context.Background()))
	require.NoError(t, b.Shutdown(context.Background()))
	names, _, shutdown = exp.got()
	require.Len(t, names, 10, "a span ended after Shutdown is dropped")
	require.Equal(t, 1, shutdown, "the exporter is shut down once")
}

// A held export does not hold ForceFlush or Shutdown past their context.
func TestSpanBatcherHonoursContexts(t *testing.T) {
	exp := &recordingExporter{hold: make(chan struct{})}
	b := psd2otel.NewSpanBatcher(exp)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(b))
	endSpans(tp, "s", 1)
	for name, call := range map[string]func(context.Context) error{"ForceFlush": b.ForceFlush, "Shutdown": b.Shutdown} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		err := call(ctx)
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, name)
		require.Less(t, time.Since(start), 2*time.Second, name)
	}
	close(exp.hold)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, b.Shutdown(ctx), "a later Shutdown waits for the first one's work")
	names, _, shutdown := exp.got()
	require.Equal(t, []string{"s-0"}, names)
	require.Equal(t, 1, shutdown)
}

// Spans ended from many goroutines, with flushes among them, are each
// exported once, and the exporter is never called concurrently. They
// are fewer than the queue holds (2,048), so that none is dropped
// however slowly the exports run (as under the race detector).
func TestSpanBatcherConcurrentEnds(t *testing.T) {
	exp := &recordingExporter{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(psd2otel.NewSpanBatcher(exp)))
	const goroutines, each = 8, 250 // 2,000 spans
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			endSpans(tp, fmt.Sprintf("g%d", g), each)
			_ = tp.ForceFlush(context.Background())
		})
	}
	wg.Wait()
	require.NoError(t, tp.Shutdown(context.Background()))
	names, _, _ := exp.got()
	require.Len(t, names, goroutines*each)
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		require.False(t, seen[n], "%s exported twice", n)
		seen[n] = true
	}
	require.Zero(t, exp.overlaps.Load(), "exports overlapped")
}

// An export that fails is reported to the global error handler.
func TestSpanBatcherReportsFailedExports(t *testing.T) {
	seen := errorsSeen(t)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(psd2otel.NewSpanBatcher(failingExporter{})))
	endSpans(tp, "s", 3)
	require.NoError(t, tp.ForceFlush(context.Background()))
	var failed int
	for _, err := range seen() { // another test's errors may be there too
		if errors.Is(err, errExportFailed) {
			failed++
		}
	}
	require.Equal(t, 1, failed, "the failed export is reported once: %v", seen())
	require.NoError(t, tp.Shutdown(context.Background()))
}

var errExportFailed = errors.New("collector unreachable")

type failingExporter struct{}

func (failingExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error {
	return errExportFailed
}
func (failingExporter) Shutdown(context.Context) error { return nil }
