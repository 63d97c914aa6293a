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
// against the emulator by a client without an observer and by two with
// this module (every span sampled and batched to an exporter, every
// metric aggregated): one whose tracer provider has the OpenTelemetry
// SDK's batch span processor (sdktrace.WithBatcher), one with this
// module's NewSpanBatcher. The three are interleaved call by call in one
// run, each taking each place in turn, so that the machine's noise falls
// on all alike; one op is one call of each. The emulator runs in the
// process, so its work counts on every side alike.
//
// It reports, for each side, wall time and (on Linux) process CPU time
// per call: none-ns/call, otel-ns/call (the SDK's processor),
// batcher-ns/call, and the same as -cpu-ns/call. The module's cost per
// request (goal: at most 1.02) is, with the SDK's processor, otel/none
// (ratio of the sums of wall time), otel/none-median (the median of the
// calls' wall ratios to the none call of their round) and
// otel/none-cpu-median (the same of CPU time); with NewSpanBatcher,
// batcher/none, batcher/none-median and batcher/none-cpu-median. CPU
// time counts what the process did whoever else runs on the machine, so
// on a loaded machine the CPU median is the figure to read; the wall
// ratios also count the time the process waits for a core. After each
// call the benchmark waits a moment (settle) before it reads the CPU
// time, so that work the call left to another goroutine, such as the
// SDK's span processor's, is counted on the call that caused it and not
// on the next call, which may be another side's.
func BenchmarkPerRequestCost(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	tpb := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(psd2otel.NewSpanBatcher(tracetest.NewNoopExporter())))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	mpb := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer func() {
		ctx := context.Background()
		_, _, _, _ = tp.Shutdown(ctx), tpb.Shutdown(ctx), mp.Shutdown(ctx), mpb.Shutdown(ctx)
	}()

	s := testtpp.Server(b)
	none := testtpp.NewClient(b, s, "Bench TPP")
	clients := []*client.Client{none}
	for _, p := range []struct {
		tp *sdktrace.TracerProvider
		mp *sdkmetric.MeterProvider
	}{{tp, mp}, {tpb, mpb}} {
		obs, err := psd2otel.New(psd2otel.WithTracerProvider(p.tp), psd2otel.WithMeterProvider(p.mp))
		require.NoError(b, err)
		c, err := client.New(s.URL, none.Credentials(), client.WithHTTPClient(s.Client()),
			client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithObserver(obs))
		require.NoError(b, err)
		clients = append(clients, c)
	}
	r := &rig{s: s, c: none}
	seedPSU(b, r)
	const sides = 3 // none, the SDK's processor, NewSpanBatcher
	var svcs [sides]*accounts.Service
	for i, c := range clients {
		var err error
		svcs[i], err = accounts.New(c)
		require.NoError(b, err)
	}
	ctx := context.Background()
	_, cpuOK := cpuclock.Process()
	var d, cpu [sides]time.Duration
	var ratios, cpuRatios [sides][]float64 // side/none of each round, sides 1 and 2
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
			// against the next call, another side's.
			time.Sleep(settle)
			c1, _ := cpuclock.Process()
			ec[i] = c1 - c0
			d[i] += el[i]
			cpu[i] += ec[i]
		}
		calls++
		for i := 1; i < sides; i++ {
			ratios[i] = append(ratios[i], float64(el[i])/float64(el[0]))
			if ec[0] > 0 {
				cpuRatios[i] = append(cpuRatios[i], float64(ec[i])/float64(ec[0]))
			}
		}
	}
	if calls == 0 || d[0] <= 0 {
		return
	}
	names := [sides]string{"none", "otel", "batcher"}
	for i, name := range names {
		b.ReportMetric(float64(d[i])/float64(calls), name+"-ns/call")
		if i == 0 {
			continue
		}
		b.ReportMetric(float64(d[i])/float64(d[0]), name+"/none")
		// The median of the rounds' ratios is robust to the pauses
		// another process inflicts on a single call.
		b.ReportMetric(median(ratios[i]), name+"/none-median")
		if cpuOK && cpu[0] > 0 && len(cpuRatios[i]) > 0 {
			b.ReportMetric(float64(cpu[i])/float64(calls), name+"-cpu-ns/call")
			b.ReportMetric(median(cpuRatios[i]), name+"/none-cpu-median")
		}
	}
	if cpuOK && cpu[0] > 0 {
		b.ReportMetric(float64(cpu[0])/float64(calls), "none-cpu-ns/call")
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
