package otel

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The batcher's limits: the OpenTelemetry SDK's batch span processor's
// defaults (the OTEL_BSP_* variables' defaults), so that a TPP that
// swaps one for the other keeps the same batches, delays and memory.
const (
	// batchDelay is the longest a span waits to be exported.
	batchDelay = 5 * time.Second
	// batchExportTimeout bounds one export.
	batchExportTimeout = 30 * time.Second
	// batchMaxQueue is the most spans kept waiting; more are dropped.
	batchMaxQueue = 2048
	// batchMaxExport is the most spans in one export, and the count at
	// which the export goroutine is woken before batchDelay.
	batchMaxExport = 512
)

// NewSpanBatcher returns a span processor that exports sampled spans to
// exp in batches, as the OpenTelemetry SDK's batch span processor
// (sdktrace.NewBatchSpanProcessor) does and with its default limits:
// at most 512 spans an export, an export at least every 5 s, each export
// bounded by 30 s, at most 2,048 spans waiting (a span that finds the
// queue full is dropped, and the drops are reported to the global error
// handler, otel.Handle, as are failed exports). An export that panics is
// recovered and reported as a failed one (a Shutdown that panics returns
// the panic as its error): the exporter runs on the batcher's own
// goroutine. ForceFlush exports every span ended before it; Shutdown
// exports them too, then shuts exp down.
// The exporter is never called concurrently, and a batch's slice is
// reused once its export returned, as the SDK's processor does. The
// limits are fixed: the OTEL_BSP_* variables are not read.
//
// The difference is the cost of ending a span. The SDK's processor
// sends each ended span on a channel to its export goroutine, which
// waits on that channel: every span's end wakes that goroutine, and with
// a core idle a thread too (about 15 µs of CPU a span on the 2-core
// machine of this module's benchmarks). This one appends the span to a
// slice under a mutex and wakes its goroutine only when a batch is full,
// at the delay, or for ForceFlush and Shutdown. BenchmarkPerRequestCost
// reports the client's cost per request with each processor, in one run.
//
// Give it to the tracer provider in place of sdktrace.WithBatcher:
//
//	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(otel.NewSpanBatcher(exp)))
func NewSpanBatcher(exp sdktrace.SpanExporter) sdktrace.SpanProcessor {
	b := &spanBatcher{
		exp:    exp,
		kick:   make(chan struct{}, 1),
		ask:    make(chan chan struct{}),
		stop:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	go b.loop()
	return b
}

// spanBatcher is NewSpanBatcher's processor. Spans ended wait in queue;
// the loop goroutine alone exports them, taking the queue whole and
// keeping the emptied slice of its last export as the next queue's
// start.
type spanBatcher struct {
	exp sdktrace.SpanExporter

	mu      sync.Mutex
	queue   []sdktrace.ReadOnlySpan
	spare   []sdktrace.ReadOnlySpan
	dropped int
	stopped bool

	// kick wakes the loop when a batch is full.
	kick chan struct{}
	// ask carries a flush request to the loop, closed when the spans
	// queued before it have been exported.
	ask chan chan struct{}
	// stop, closed by Shutdown, makes the loop export what is queued,
	// shut the exporter down and return; exited is closed then, with
	// shutErr set.
	stop     chan struct{}
	exited   chan struct{}
	shutErr  error
	stopOnce sync.Once
}

// OnStart implements sdktrace.SpanProcessor: nothing to do.
func (b *spanBatcher) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues a sampled span, or drops it when the queue is full or
// the processor shut down, and wakes the loop when a batch is full.
func (b *spanBatcher) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return
	}
	if len(b.queue) >= batchMaxQueue {
		b.dropped++
		b.mu.Unlock()
		return
	}
	b.queue = append(b.queue, s)
	full := len(b.queue) == batchMaxExport
	b.mu.Unlock()
	if full {
		select {
		case b.kick <- struct{}{}:
		default: // already woken
		}
	}
}

// loop exports the queue when a batch is full, at the delay and when
// asked to; when stopped, it exports what is left, shuts the exporter
// down and returns.
func (b *spanBatcher) loop() {
	defer close(b.exited)
	t := time.NewTicker(batchDelay)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			b.export()
		case <-b.kick:
			b.export()
		case reply := <-b.ask:
			b.export()
			close(reply)
		case <-b.stop:
			b.mu.Lock()
			b.stopped = true
			b.mu.Unlock()
			b.export()
			ctx, cancel := context.WithTimeout(context.Background(), batchExportTimeout)
			b.shutErr = recovered("shutdown", func() error { return b.exp.Shutdown(ctx) })
			cancel()
			return
		}
	}
}

// export takes the queue and exports it in batches of at most
// batchMaxExport; it runs on the loop goroutine only.
func (b *spanBatcher) export() {
	b.mu.Lock()
	spans, dropped := b.queue, b.dropped
	b.queue, b.spare, b.dropped = b.spare[:0], nil, 0
	b.mu.Unlock()
	if dropped > 0 {
		otel.Handle(fmt.Errorf("psd2 otel span batcher: %d span(s) dropped: more than %d waited for an export", dropped, batchMaxQueue))
	}
	for i := 0; i < len(spans); i += batchMaxExport {
		ctx, cancel := context.WithTimeout(context.Background(), batchExportTimeout)
		batch := spans[i:min(i+batchMaxExport, len(spans))]
		err := recovered("export", func() error { return b.exp.ExportSpans(ctx, batch) })
		cancel()
		if err != nil {
			otel.Handle(fmt.Errorf("psd2 otel span batcher: export: %w", err))
		}
	}
	clear(spans) // the spare keeps no span alive
	b.mu.Lock()
	b.spare = spans[:0]
	b.mu.Unlock()
}

// recovered runs the exporter's call fn (what names it), a panic of it
// made its error: the exporter runs on the loop goroutine, the
// batcher's own, where a panic would end the process. A panicked export
// is reported as a failed one, with a runtime error's message or the
// panic value's type (describePanic), never the value.
func recovered(what string, fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the exporter panicked in %s: %s", what, describePanic(v))
		}
	}()
	return fn()
}

// describePanic is what an error may show of the panic value v: a
// runtime error's message (the runtime's words), else v's type only, as
// the root module's logs of recovered panics show them: the value is the
// exporter's, and may hold a span's attributes.
func describePanic(v any) string {
	if re, ok := v.(runtime.Error); ok {
		return re.Error()
	}
	return fmt.Sprintf("panic value of type %T", v)
}

// ForceFlush exports every span ended before it, waiting at most until
// ctx ends. After Shutdown it has nothing to do.
func (b *spanBatcher) ForceFlush(ctx context.Context) error {
	reply := make(chan struct{})
	select {
	case b.ask <- reply:
	case <-b.exited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-reply:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown exports every span ended before it, stops the processor (a
// span ended later is dropped) and shuts the exporter down (its
// Shutdown bounded by 30 s). It waits at most until ctx ends: then it
// returns ctx's error and the rest goes on in the background. A later
// call waits for the first one's work in the same way and returns its
// result.
func (b *spanBatcher) Shutdown(ctx context.Context) error {
	b.stopOnce.Do(func() { close(b.stop) })
	select {
	case <-b.exited:
		return b.shutErr
	case <-ctx.Done():
		return ctx.Err()
	}
}
