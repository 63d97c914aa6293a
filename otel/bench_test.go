package otel_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"

	psd2otel "github.com/tppkit/psd2/otel"
)

// BenchmarkPerRequestCost measures one balances read (the PSU present)
// against the
// emulator by a client without an observer and by one with this module
// (every span sampled and batched to an exporter, every metric
// aggregated), the two interleaved call by call in one run so that the
// machine's noise falls on both alike; one op is one call of each.
// otel/none is the module's cost per request (goal: at most 1.02).
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
	var d [2]time.Duration
	var pairs []float64 // otel/none of each pair of calls
	for k := 0; b.Loop(); k++ {
		var el [2]time.Duration
		for n := range 2 {
			i := (n + k) % 2 // half the pairs start with the observed client
			t0 := time.Now()
			if _, err := svcs[i].Balances(ctx, r.account, r.present()); err != nil {
				b.Fatal(err)
			}
			el[i] = time.Since(t0)
			d[i] += el[i]
		}
		pairs = append(pairs, float64(el[1])/float64(el[0]))
	}
	if d[0] > 0 && len(pairs) > 0 {
		slices.Sort(pairs)
		b.ReportMetric(float64(d[1])/float64(d[0]), "otel/none")
		// The median of the pairs' ratios is robust to the pauses another
		// process inflicts on a single call.
		b.ReportMetric(pairs[len(pairs)/2], "otel/none-median")
	}
}

// BenchmarkObserverAlone measures the module's own work per operation of
// one attempt (a span, a child span, the metrics), without HTTP.
func BenchmarkObserverAlone(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }()
	obs, err := psd2otel.New(psd2otel.WithTracerProvider(tp), psd2otel.WithMeterProvider(mp))
	require.NoError(b, err)
	start := client.OperationStart{Operation: "accounts.Balances", Method: "GET", Route: "/v1/accounts/{id}/balances",
		Bank: "bank.example:443", Repeatable: true, Start: time.Now()}
	b.ReportAllocs()
	for b.Loop() {
		ctx := obs.StartOperation(context.Background(), start)
		obs.ObserveAttempt(ctx, client.AttemptEvent{OperationStart: start, Attempt: 1, Start: start.Start,
			Duration: time.Millisecond, Sent: true, StatusCode: 200, Outcome: client.OutcomeOK})
		obs.EndOperation(ctx, client.OperationEvent{OperationStart: start, Duration: time.Millisecond, Attempts: 1,
			Sent: true, StatusCode: 200, Outcome: client.OutcomeOK})
	}
}
