package otel_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/cpuclock"
	"github.com/tppkit/psd2/internal/testkit/testtpp"

	psd2otel "github.com/tppkit/psd2/otel"
)

// BenchmarkPerRequestCost measures one balances read (the PSU present)
// against the emulator by a client without an observer (none) and by
// one with this module (every span sampled and batched to an exporter,
// every metric aggregated), in three sub-benchmarks, one per setup of
// the module:
//   - otel: the tracer provider has the OpenTelemetry SDK's batch span
//     processor (sdktrace.WithBatcher), the default setup;
//   - batcher: it has this module's NewSpanBatcher instead;
//   - direct: the SDK's processor, and an Observer that records each
//     measurement as its call ends rather than in batches (deferred.go),
//     as before deferral.
//
// In each, the two clients' calls are interleaved call by call, each
// taking each place in turn, so that the machine's noise falls on both
// alike; one op is one call of each. Two sides only: a call's cost
// depends on what ran before it (the module's code and data stay in the
// processor's caches when another instrumented call ran just before),
// so each setup is measured against none alone, as a TPP's service runs
// it. The emulator runs in the process, so its work counts on both
// sides alike.
//
// It reports wall time and (on Linux) process CPU time per call of each
// side (none-ns/call, X-ns/call, none-cpu-ns/call, X-cpu-ns/call, X
// being the sub-benchmark's name) and the module's cost per request
// (goal: at most 1.02): X/none (ratio of the sums of wall time),
// X/none-cpu (the same of CPU time), X/none-median (the median of the
// calls' wall ratios to the none call of their round) and
// X/none-cpu-median (the same of CPU time). The medians leave out the
// one call in DeferBatch measurements that records a batch; the ratios
// of sums count it. CPU time counts what the process did whoever else
// runs on the machine, so on a loaded machine the CPU figures are the
// ones to read; the wall ratios also count the time the process waits
// for a core. After each call the benchmark waits a moment (settle)
// before it reads the CPU time, so that work the call left to another
// goroutine, such as the span processor's, is counted on the call that
// caused it and not on the next call, which is the other side's.
func BenchmarkPerRequestCost(b *testing.B) {
	for _, setup := range []struct {
		name   string
		proc   func(sdktrace.SpanExporter) sdktrace.SpanProcessor
		atOnce bool
	}{
		{"otel", func(e sdktrace.SpanExporter) sdktrace.SpanProcessor { return sdktrace.NewBatchSpanProcessor(e) }, false},
		{"batcher", psd2otel.NewSpanBatcher, false},
		{"direct", func(e sdktrace.SpanExporter) sdktrace.SpanProcessor { return sdktrace.NewBatchSpanProcessor(e) }, true},
	} {
		b.Run(setup.name, func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(setup.proc(tracetest.NewNoopExporter())))
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			defer func() { _, _ = tp.Shutdown(context.Background()), mp.Shutdown(context.Background()) }()
			obs, err := psd2otel.New(psd2otel.WithTracerProvider(tp), psd2otel.WithMeterProvider(mp))
			require.NoError(b, err)
			if setup.atOnce {
				psd2otel.RecordAtOnce(obs)
			}
			perRequestCost(b, setup.name, obs)
		})
	}
}

// perRequestCost is one sub-benchmark of BenchmarkPerRequestCost: a
// client without an observer against one with obs, whose figures are
// named after name.
func perRequestCost(b *testing.B, name string, obs client.Observer) {
	s := testtpp.Server(b)
	none := testtpp.NewClient(b, s, "Bench TPP")
	observed, err := client.New(s.URL, none.Credentials(), client.WithHTTPClient(s.Client()),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithObserver(obs))
	require.NoError(b, err)
	r := &rig{s: s, c: none}
	seedPSU(b, r)
	const sides = 2 // none, observed
	var svcs [sides]*accounts.Service
	for i, c := range []*client.Client{none, observed} {
		svcs[i], err = accounts.New(c)
		require.NoError(b, err)
	}
	ctx := context.Background()
	_, cpuOK := cpuclock.Process()
	var d, cpu [sides]time.Duration
	var ratios, cpuRatios []float64 // observed/none of each round
	calls := 0
	for k := 0; b.Loop(); k++ {
		var el, ec [sides]time.Duration
		for n := range sides {
			i := (n + k) % sides // each side takes each place in turn
			c0, _ := cpuclock.Process()
			t0 := time.Now()
			if _, err := svcs[i].Balances(ctx, r.account, r.present()); err != nil {
				b.Fatal(err)
			}
			el[i] = time.Since(t0)
			// The call's work on other goroutines (a span processor's,
			// woken by the span's end) is the call's: let it run before
			// the process's CPU time is read, so that it is not counted
			// against the next call, the other side's.
			time.Sleep(settle)
			c1, _ := cpuclock.Process()
			ec[i] = c1 - c0
			d[i] += el[i]
			cpu[i] += ec[i]
		}
		calls++
		ratios = append(ratios, float64(el[1])/float64(el[0]))
		if ec[0] > 0 {
			cpuRatios = append(cpuRatios, float64(ec[1])/float64(ec[0]))
		}
	}
	if calls == 0 || d[0] <= 0 {
		return
	}
	b.ReportMetric(float64(d[0])/float64(calls), "none-ns/call")
	b.ReportMetric(float64(d[1])/float64(calls), name+"-ns/call")
	b.ReportMetric(float64(d[1])/float64(d[0]), name+"/none")
	// The median of the rounds' ratios is robust to the pauses another
	// process inflicts on a single call.
	b.ReportMetric(median(ratios), name+"/none-median")
	if cpuOK && cpu[0] > 0 && len(cpuRatios) > 0 {
		b.ReportMetric(float64(cpu[0])/float64(calls), "none-cpu-ns/call")
		b.ReportMetric(float64(cpu[1])/float64(calls), name+"-cpu-ns/call")
		b.ReportMetric(float64(cpu[1])/float64(cpu[0]), name+"/none-cpu")
		b.ReportMetric(median(cpuRatios), name+"/none-cpu-median")
	}
	// The ratios grow with the machine's load (the module's work is
	// memory-bound and runs with cold caches between two signed
	// requests): say what the load was.
	if load, ok := loadAverage(); ok {
		b.ReportMetric(load, "loadavg")
	}
}

// settle is how long BenchmarkPerRequestCost lets a call's background
// work run before it reads the process's CPU time: the time a woken
// goroutine takes to run on the other core, with room to spare.
const settle = 200 * time.Microsecond

// loadAverage is the machine's load average over the last minute (Linux's
// /proc/loadavg), false where there is none.
func loadAverage() (float64, bool) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}

// median sorts xs and returns its middle value.
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// BenchmarkObserverAlone measures the module's own work per operation of
// one attempt (a span, a child span started live as the client starts it,
// the metrics), without HTTP, and
// (on Linux) the process CPU time per operation as cpu-ns/op.
func BenchmarkObserverAlone(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }()
	obs, err := psd2otel.New(psd2otel.WithTracerProvider(tp), psd2otel.WithMeterProvider(mp))
	require.NoError(b, err)
	start := client.OperationStart{Operation: "accounts.Balances", Method: "GET", Route: "/v1/accounts/{id}/balances",
		Bank: "bank.example:443", Repeatable: true, Start: time.Now()}
	b.ReportAllocs()
	c0, cpuOK := cpuclock.Process()
	n := 0
	for b.Loop() {
		ctx := obs.StartOperation(context.Background(), start)
		actx := obs.StartAttempt(ctx, client.AttemptStart{OperationStart: start, Attempt: 1, Start: start.Start})
		obs.ObserveAttempt(actx, client.AttemptEvent{OperationStart: start, Attempt: 1, Start: start.Start,
			Duration: time.Millisecond, Sent: true, StatusCode: 200, Outcome: client.OutcomeOK})
		obs.EndOperation(ctx, client.OperationEvent{OperationStart: start, Duration: time.Millisecond, Attempts: 1,
			Sent: true, StatusCode: 200, Outcome: client.OutcomeOK})
		n++
	}
	// ns/op is the loop's wall time; the batch span processor and the
	// garbage collector also run on other threads, which the process's
	// CPU time per operation counts.
	if c1, _ := cpuclock.Process(); cpuOK && n > 0 {
		b.ReportMetric(float64(c1-c0)/float64(n), "cpu-ns/op")
	}
}
