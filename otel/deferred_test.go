package otel_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/tppkit/psd2/client"

	psd2otel "github.com/tppkit/psd2/otel"
)

// deferStart is the operation the deferral tests end, again and again.
var deferStart = client.OperationStart{Operation: "accounts.Balances", Method: "GET", Route: "/v1/accounts/{id}/balances",
	Bank: "sr-bank", Repeatable: true, Start: time.Now()}

// endOps ends n operations of one sent attempt each, with a budget call.
func endOps(obs *psd2otel.Observer, n int) {
	for range n {
		ctx := obs.StartOperation(context.Background(), deferStart)
		obs.ObserveAttempt(ctx, client.AttemptEvent{OperationStart: deferStart, Attempt: 1, Start: deferStart.Start,
			Duration: time.Millisecond, Sent: true, StatusCode: 200, Outcome: client.OutcomeOK})
		obs.EndOperation(ctx, client.OperationEvent{OperationStart: deferStart, Duration: 2 * time.Millisecond, Attempts: 1,
			Sent: true, StatusCode: 200, Outcome: client.OutcomeOK, BudgetCalls: 1, BudgetLeft: 3})
	}
}

// counts returns the total of each of the operation's metrics in rm:
// the outcomes counted, the operation and request histograms' counts,
// the budget's calls spent. The hook's instrument is never among them.
func counts(t *testing.T, rm metricdata.ResourceMetrics) map[string]int64 {
	t.Helper()
	_, hooked := find(rm, psd2otel.DeferHookName)
	assert.False(t, hooked, "the deferral's hook instrument is exported")
	got := map[string]int64{}
	for _, name := range []string{psd2otel.MetricOutcomes, psd2otel.MetricBudgetSpent} {
		if m, ok := find(rm, name); ok {
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				got[name] += dp.Value
			}
		}
	}
	for _, name := range []string{psd2otel.MetricOperationDuration, psd2otel.MetricRequestDuration} {
		if m, ok := find(rm, name); ok {
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				got[name] += int64(dp.Count)
			}
		}
	}
	return got
}

// want is what counts returns after n operations.
func want(n int64) map[string]int64 {
	return map[string]int64{psd2otel.MetricOutcomes: n, psd2otel.MetricBudgetSpent: n,
		psd2otel.MetricOperationDuration: n, psd2otel.MetricRequestDuration: n}
}

// newDeferring returns an Observer on the SDK's meter with a manual
// reader, and the reader.
func newDeferring(t *testing.T, opts ...sdkmetric.Option) (*psd2otel.Observer, *sdkmetric.ManualReader) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(append([]sdkmetric.Option{sdkmetric.WithReader(reader)}, opts...)...)
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()); _ = tp.Shutdown(context.Background()) })
	obs, err := psd2otel.New(psd2otel.WithMeterProvider(mp), psd2otel.WithTracerProvider(tp))
	require.NoError(t, err)
	return obs, reader
}

func collectFrom(t *testing.T, reader *sdkmetric.ManualReader) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	return rm
}

// A collection right after the calls sees every measurement of them,
// though they are kept for a batch: the collection records them first.
// The instrument that hooks the collection is never exported.
func TestDeferredMeasurementsAreCollected(t *testing.T) {
	obs, reader := newDeferring(t)
	require.True(t, psd2otel.Deferring(obs))
	endOps(obs, 3)
	assert.Equal(t, 3*4, psd2otel.Kept(obs), "measurements kept before the collection")
	assert.Equal(t, want(3), counts(t, collectFrom(t, reader)))
	assert.Zero(t, psd2otel.Kept(obs))
	// Across a full batch and more: each counted once.
	endOps(obs, psd2otel.DeferBatch)
	assert.Less(t, psd2otel.Kept(obs), psd2otel.DeferBatch)
	assert.Equal(t, want(3+psd2otel.DeferBatch), counts(t, collectFrom(t, reader)))
	assert.Equal(t, want(3+psd2otel.DeferBatch), counts(t, collectFrom(t, reader)), "a second collection counts nothing twice")
}

// With no collection and no full batch, kept measurements are recorded
// within DeferMaxDelay.
func TestDeferredMeasurementsAreRecordedInTime(t *testing.T) {
	obs, reader := newDeferring(t)
	endOps(obs, 1)
	require.NotZero(t, psd2otel.Kept(obs))
	require.Eventually(t, func() bool { return psd2otel.Kept(obs) == 0 }, psd2otel.DeferMaxDelay+2*time.Second, 10*time.Millisecond)
	assert.Equal(t, want(1), counts(t, collectFrom(t, reader)))
	// The timer is armed again for the next batch.
	endOps(obs, 1)
	require.Eventually(t, func() bool { return psd2otel.Kept(obs) == 0 }, psd2otel.DeferMaxDelay+2*time.Second, 10*time.Millisecond)
	assert.Equal(t, want(2), counts(t, collectFrom(t, reader)))
}

// Operations ending on many goroutines while a reader collects: every
// measurement is counted exactly once.
func TestDeferredMeasurementsConcurrently(t *testing.T) {
	obs, reader := newDeferring(t)
	const goroutines, each = 8, 500
	var wg sync.WaitGroup
	stop := make(chan struct{})
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for {
			select {
			case <-stop:
				return
			default:
				var rm metricdata.ResourceMetrics
				_ = reader.Collect(context.Background(), &rm)
			}
		}
	}()
	for range goroutines {
		wg.Go(func() { endOps(obs, each) })
	}
	wg.Wait()
	close(stop)
	<-collected
	assert.Equal(t, want(goroutines*each), counts(t, collectFrom(t, reader)))
}

// Where the collection cannot be hooked, each measurement is recorded at
// once: a view that drops the hook's instrument, a meter that is not the
// OpenTelemetry SDK's, and WithExemplars (an exemplar needs the call's
// context).
func TestMeasurementsNotDeferred(t *testing.T) {
	drop := sdkmetric.NewView(sdkmetric.Instrument{Name: psd2otel.DeferHookName},
		sdkmetric.Stream{Aggregation: sdkmetric.AggregationDrop{}})
	obs, reader := newDeferring(t, sdkmetric.WithView(drop))
	assert.False(t, psd2otel.Deferring(obs), "deferring with the hook dropped by a view")
	endOps(obs, 2)
	assert.Zero(t, psd2otel.Kept(obs))
	assert.Equal(t, want(2), counts(t, collectFrom(t, reader)))

	other, err := psd2otel.New(psd2otel.WithMeterProvider(noop.NewMeterProvider()))
	require.NoError(t, err)
	assert.False(t, psd2otel.Deferring(other), "deferring on a meter that is not the SDK's")
	endOps(other, 2)
	assert.Zero(t, psd2otel.Kept(other))

	reader = sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	ex, err := psd2otel.New(psd2otel.WithMeterProvider(mp), psd2otel.WithExemplars())
	require.NoError(t, err)
	assert.False(t, psd2otel.Deferring(ex), "deferring with exemplars")
	endOps(ex, 2)
	assert.Equal(t, want(2), counts(t, collectFrom(t, reader)))
}

// countingExporter is a metric exporter that keeps the counts of the
// last export it was given.
type countingExporter struct {
	t    *testing.T
	mu   sync.Mutex
	last map[string]int64
}

func (e *countingExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (e *countingExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (e *countingExporter) Export(_ context.Context, rm *metricdata.ResourceMetrics) error {
	c := counts(e.t, *rm)
	e.mu.Lock()
	e.last = c
	e.mu.Unlock()
	return nil
}

func (e *countingExporter) ForceFlush(context.Context) error { return nil }
func (e *countingExporter) Shutdown(context.Context) error   { return nil }

// A service that shuts its meter provider down as it stops exports the
// measurements still kept: the periodic reader's last collection records
// them first.
func TestDeferredMeasurementsAtShutdown(t *testing.T) {
	exp := &countingExporter{t: t}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(time.Hour))))
	obs, err := psd2otel.New(psd2otel.WithMeterProvider(mp))
	require.NoError(t, err)
	require.True(t, psd2otel.Deferring(obs))
	endOps(obs, 5)
	require.NotZero(t, psd2otel.Kept(obs))
	require.NoError(t, mp.Shutdown(context.Background()))
	exp.mu.Lock()
	defer exp.mu.Unlock()
	assert.Equal(t, want(5), exp.last)
}
