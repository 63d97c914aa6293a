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
// against the emulator by a client without an observer and by one with
// this module (every span sampled and batched to an exporter, every
// metric aggregated), the two interleaved call by call in one run so
// that the machine's noise falls on both alike; one op is one call of
// each. The emulator runs in the process, so its work counts on both
// sides alike.
//
// It reports, for each side, wall time and (on Linux) process CPU time
// per call: none-ns/call, otel-ns/call, none-cpu-ns/call and
// otel-cpu-ns/call. The module's cost per request (goal: at most 1.02)
// is otel/none (ratio of the sums of wall time), otel/none-median (the
// median of the pairs' wall ratios) and otel/none-cpu-median (the median
// of the pairs' CPU ratios). CPU time counts what the process did
// whoever else runs on the machine, so on a loaded machine the CPU
// median is the figure to read; the wall ratios also count the time the
// process waits for a core.
func BenchmarkPerRequestCost(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }()
	obs, err := psd2otel.New(psd2otel.WithTracerProvider(tp), psd2otel.WithMeterProvider(mp))
	require.NoError(b, err)

	s := testtpp.Server(b)
	none := testtpp.NewClient(b, s, "Bench TPP")
	with, err := client.New(s.URL, none.Credentials(), client.WithHTTPClient(s.Client()),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithObserver(obs))
	require.NoError(b, err)
	r := &rig{s: s, c: none}
	seedPSU(b, r)
	var svcs [2]*accounts.Service
	for i, c := range []*client.Client{none, with} {
		svcs[i], err = accounts.New(c)
		require.NoError(b, err)
	}
	ctx := context.Background()
	_, cpuOK := cpuclock.Process()
	var d, cpu [2]time.Duration
	var pairs, cpuPairs []float64 // otel/none of each pair of calls
	calls := 0
	for k := 0; b.Loop(); k++ {
		var el, ec [2]time.Duration
		for n := range 2 {
			i := (n + k) % 2 // half the pairs start with the observed client
			c0, _ := cpuclock.Process()
			t0 := time.Now()
			if _, err := svcs[i].Balances(ctx, r.account, r.present()); err != nil {
				b.Fatal(err)
			}
			el[i] = time.Since(t0)
			c1, _ := cpuclock.Process()
			ec[i] = c1 - c0
			d[i] += el[i]
			cpu[i] += ec[i]
		}
		calls++
		pairs = append(pairs, float64(el[1])/float64(el[0]))
		if ec[0] > 0 {
			cpuPairs = append(cpuPairs, float64(ec[1])/float64(ec[0]))
		}
	}
	if calls == 0 || d[0] <= 0 {
		return
	}
	b.ReportMetric(float64(d[0])/float64(calls), "none-ns/call")
	b.ReportMetric(float64(d[1])/float64(calls), "otel-ns/call")
	b.ReportMetric(float64(d[1])/float64(d[0]), "otel/none")
	// The median of the pairs' ratios is robust to the pauses another
	// process inflicts on a single call.
	b.ReportMetric(median(pairs), "otel/none-median")
	if cpuOK && cpu[0] > 0 && len(cpuPairs) > 0 {
		b.ReportMetric(float64(cpu[0])/float64(calls), "none-cpu-ns/call")
		b.ReportMetric(float64(cpu[1])/float64(calls), "otel-cpu-ns/call")
		b.ReportMetric(median(cpuPairs), "otel/none-cpu-median")
	}
	// The ratios grow with the machine's load (the module's work is
	// memory-bound and runs with cold caches between two signed
	// requests): say what the load was.
	if load, ok := loadAverage(); ok {
		b.ReportMetric(load, "loadavg")
	}
}

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
