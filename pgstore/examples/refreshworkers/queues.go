package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	psd2otel "github.com/tppkit/psd2/otel"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
)

// queueStates is the adapter of River's queue states to the otel
// module's gauges (psd2otel.Gauges.Queues): the engine's QueueStats, one
// psd2otel.QueueState per bank queue. The pgstore module does not import
// OpenTelemetry and the otel module does not import pgstore, so these
// lines are the TPP's, in the program that imports both, as here.
func queueStates(e *riverrefresh.Engine) func(context.Context) ([]psd2otel.QueueState, error) {
	return func(ctx context.Context) ([]psd2otel.QueueState, error) {
		stats, err := e.QueueStats(ctx)
		out := make([]psd2otel.QueueState, len(stats))
		for i, s := range stats {
			out[i] = psd2otel.QueueState{Bank: s.Bank, Available: s.Available, Running: s.Running,
				Scheduled: s.Scheduled, Retryable: s.Retryable, Discarded: s.Discarded,
				Cancelled: s.Cancelled, Paused: !s.PausedAt.IsZero()}
		}
		return out, err
	}
}

// queueGauge exports an engine's queues as the otel module's gauges
// psd2.refresh.queue.jobs and psd2.refresh.queue.paused, on an
// OpenTelemetry SDK meter provider. A TPP gives the provider of its
// exporter (Prometheus, OTLP); this example reads it with a manual
// reader and prints what a collection holds. The queues are in the
// shared database, so one process exports them (here the scheduler):
// each replica would export the same counts.
type queueGauge struct {
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
	reg    metric.Registration
}

// newQueueGauge registers e's queue gauges on a meter provider of its own.
func newQueueGauge(e *riverrefresh.Engine) (*queueGauge, error) {
	g := &queueGauge{reader: sdkmetric.NewManualReader()}
	g.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(g.reader))
	obs, err := psd2otel.New(psd2otel.WithMeterProvider(g.mp))
	if err == nil {
		g.reg, err = obs.RegisterGauges(psd2otel.Gauges{Queues: queueStates(e)})
	}
	if err != nil {
		_ = g.mp.Shutdown(context.Background())
		return nil, err
	}
	return g, nil
}

// close unregisters the gauges and shuts the provider down.
func (g *queueGauge) close() {
	_ = g.reg.Unregister()
	_ = g.mp.Shutdown(context.Background())
}

// queuePoints is one bank queue as a collection of the gauges shows
// it: its jobs by psd2.refresh.job_state, and psd2.refresh.queue.paused.
type queuePoints struct {
	Jobs   map[string]int64
	Paused int64
}

// collect collects the gauges once and returns their points by bank
// (psd2.bank).
func (g *queueGauge) collect(ctx context.Context) (map[string]*queuePoints, error) {
	var rm metricdata.ResourceMetrics
	if err := g.reader.Collect(ctx, &rm); err != nil {
		return nil, err
	}
	out := map[string]*queuePoints{}
	of := func(dp metricdata.DataPoint[int64]) *queuePoints {
		v, _ := dp.Attributes.Value(psd2otel.AttrBank)
		q := out[v.AsString()]
		if q == nil {
			q = &queuePoints{Jobs: map[string]int64{}}
			out[v.AsString()] = q
		}
		return q
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			gauge, ok := m.Data.(metricdata.Gauge[int64])
			if !ok {
				continue
			}
			for _, dp := range gauge.DataPoints {
				switch m.Name {
				case psd2otel.MetricQueueJobs:
					state, _ := dp.Attributes.Value(psd2otel.AttrJobState)
					of(dp).Jobs[state.AsString()] = dp.Value
				case psd2otel.MetricQueuePaused:
					of(dp).Paused = dp.Value
				}
			}
		}
	}
	return out, nil
}

// line is a collection as the example prints it: per bank, the jobs by
// state in riverrefresh.QueueStates' order, and the pause.
func (g *queueGauge) line(ctx context.Context) (string, error) {
	points, err := g.collect(ctx)
	if err != nil {
		return "", err
	}
	if len(points) == 0 {
		return "no queue point (QueueStats failed: see OpenTelemetry's error handler)", nil
	}
	banks := make([]string, 0, len(points))
	for b := range points {
		banks = append(banks, b)
	}
	slices.Sort(banks)
	var sb strings.Builder
	for i, b := range banks {
		if i > 0 {
			sb.WriteString("; ")
		}
		sb.WriteString(b + ":")
		for _, st := range riverrefresh.QueueStates {
			fmt.Fprintf(&sb, " %s %d", st, points[b].Jobs[st])
		}
		fmt.Fprintf(&sb, " paused %d", points[b].Paused)
	}
	return sb.String(), nil
}
