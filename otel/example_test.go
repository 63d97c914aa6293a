package otel_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"

	psd2otel "github.com/tppkit/psd2/otel"
)

// Example wires an Observer into a client: one span per operation, one
// child span per attempt, and the metrics.
func Example() {
	spans := tracetest.NewSpanRecorder() // in production: an OTLP exporter
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }()

	obs, err := psd2otel.New(psd2otel.WithTracerProvider(tp), psd2otel.WithMeterProvider(mp))
	if err != nil {
		log.Fatal(err)
	}
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example TPP")
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()), client.WithObserver(obs),
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	if err != nil {
		log.Fatal(err)
	}
	acc, err := accounts.New(c)
	if err != nil {
		log.Fatal(err)
	}
	// Without a session the bank asks for SCA: an operation whose outcome
	// is sca_required.
	_, err = acc.List(context.Background(), nil, client.WithTPPSessionID("3f1c2a8e-5b7d-4c1e-9a2f-6d8b0e4c7a51"),
		client.WithPSU(client.PSU{IPAddress: "192.0.2.10"}))
	fmt.Println(errors.Is(err, client.ErrSCARequired))
	for _, s := range spans.Ended() {
		fmt.Println(s.SpanKind(), s.Name(), s.Status().Description)
	}
	// Output:
	// true
	// client GET /v1/accounts 401
	// internal accounts.List sca_required
}

// ExampleWithExemplars links the points of the duration histograms to
// the traces of the calls they measured: each carries an exemplar with
// the trace id of a sampled span.
func ExampleWithExemplars() {
	tp := sdktrace.NewTracerProvider() // samples every span
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }()
	obs, err := psd2otel.New(psd2otel.WithTracerProvider(tp), psd2otel.WithMeterProvider(mp), psd2otel.WithExemplars())
	if err != nil {
		log.Fatal(err)
	}
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example TPP")
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()), client.WithObserver(obs),
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	if err != nil {
		log.Fatal(err)
	}
	acc, err := accounts.New(c)
	if err != nil {
		log.Fatal(err)
	}
	_, _ = acc.List(context.Background(), nil, client.WithTPPSessionID("3f1c2a8e-5b7d-4c1e-9a2f-6d8b0e4c7a51"),
		client.WithPSU(client.PSU{IPAddress: "192.0.2.10"}))

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if h, ok := m.Data.(metricdata.Histogram[float64]); ok {
			fmt.Println(m.Name, "exemplars:", len(h.DataPoints[0].Exemplars))
		}
	}
	// Output:
	// psd2.client.request.duration exemplars: 1
	// psd2.client.operation.duration exemplars: 1
}

// ExampleObserver_RegisterGauges_queues exports the state of the
// refresh queues a River engine reads: a TPP's Queues is the adapter of
// [psd2otel.QueueState] over the pgstore module's
// riverrefresh.Engine.QueueStats; this one returns the states as it
// would.
func ExampleObserver_RegisterGauges_queues() {
	reader := sdkmetric.NewManualReader() // in production: a Prometheus or OTLP exporter
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	obs, err := psd2otel.New(psd2otel.WithMeterProvider(mp))
	if err != nil {
		log.Fatal(err)
	}
	reg, err := obs.RegisterGauges(psd2otel.Gauges{
		Queues: func(context.Context) ([]psd2otel.QueueState, error) {
			// stats, err := engine.QueueStats(ctx), then one QueueState
			// per riverrefresh.QueueStats (see QueueState).
			return []psd2otel.QueueState{
				{Bank: "dnb", Available: 120, Running: 8, Scheduled: 40},
				{Bank: "sbanken", Scheduled: 300, Paused: true},
			}, nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = reg.Unregister() }()

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
			bank, _ := dp.Attributes.Value(psd2otel.AttrBank)
			state, ok := dp.Attributes.Value(psd2otel.AttrJobState)
			gauge, isGauge := dp.Attributes.Value(psd2otel.AttrGauge)
			switch {
			case isGauge: // psd2.gauge.readable: the queues were read
				fmt.Println(m.Name, gauge.AsString(), dp.Value)
			case !ok: // psd2.refresh.queue.paused
				fmt.Println(m.Name, bank.AsString(), dp.Value)
			case dp.Value > 0: // the states with a job
				fmt.Println(m.Name, bank.AsString(), state.AsString(), dp.Value)
			}
		}
	}
	// Unordered output:
	// psd2.gauge.readable queues 1
	// psd2.refresh.queue.jobs dnb available 120
	// psd2.refresh.queue.jobs dnb running 8
	// psd2.refresh.queue.jobs dnb scheduled 40
	// psd2.refresh.queue.jobs sbanken scheduled 300
	// psd2.refresh.queue.paused dnb 0
	// psd2.refresh.queue.paused sbanken 1
}

// ExampleNewSpanBatcher batches the spans to the exporter as the SDK's
// batch span processor does, without waking its export goroutine at
// every span's end.
func ExampleNewSpanBatcher() {
	exp := tracetest.NewInMemoryExporter() // in production: an OTLP exporter
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(psd2otel.NewSpanBatcher(exp)))
	obs, err := psd2otel.New(psd2otel.WithTracerProvider(tp))
	if err != nil {
		log.Fatal(err)
	}
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example TPP")
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()), client.WithObserver(obs),
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	if err != nil {
		log.Fatal(err)
	}
	acc, err := accounts.New(c)
	if err != nil {
		log.Fatal(err)
	}
	_, _ = acc.List(context.Background(), nil, client.WithTPPSessionID("3f1c2a8e-5b7d-4c1e-9a2f-6d8b0e4c7a51"),
		client.WithPSU(client.PSU{IPAddress: "192.0.2.10"}))

	// The spans wait for a full batch or 5 s; ForceFlush exports them now.
	if err := tp.ForceFlush(context.Background()); err != nil {
		log.Fatal(err)
	}
	for _, s := range exp.GetSpans() {
		fmt.Println(s.Name)
	}
	_ = tp.Shutdown(context.Background())
	// Output:
	// GET /v1/accounts
	// accounts.List
}
