package otel_test

import (
	"context"
	"fmt"
	"log"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"

	psd2otel "github.com/tppkit/psd2/otel"
)

// Example_refreshRounds wires package refresh's rounds to the refresh
// metrics: every round a Refresher ends (in Run, and in Refresh on a job
// engine such as riverrefresh) is counted by its class, with how late it
// started. Here one job without a session fails before any call.
func Example_refreshRounds() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	obs, err := psd2otel.New(psd2otel.WithMeterProvider(mp))
	if err != nil {
		log.Fatal(err)
	}
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example TPP")
	if err != nil {
		log.Fatal(err)
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()), client.WithObserver(obs))
	if err != nil {
		log.Fatal(err)
	}
	svc, err := accounts.New(c)
	if err != nil {
		log.Fatal(err)
	}
	r, err := refresh.New(svc, refresh.WithRounds(func(ctx context.Context, rd refresh.Round) {
		obs.RecordRefreshRound(ctx, psd2otel.RoundResult(rd.Class()), rd.Planned, rd.Started)
	}))
	if err != nil {
		log.Fatal(err)
	}
	res := r.Refresh(context.Background(), refresh.Job{}) // not made with refresh.NewJob: refused
	fmt.Println(res.Outcome)

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == psd2otel.MetricRefreshRounds {
				for _, dp := range sum.DataPoints {
					v, _ := dp.Attributes.Value(psd2otel.AttrRoundResult)
					fmt.Println(m.Name, v.AsString(), dp.Value)
				}
			}
		}
	}
	// Output:
	// refused
	// psd2.refresh.rounds failed 1
}
