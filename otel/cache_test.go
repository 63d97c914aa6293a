package otel

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/tppkit/psd2/client"
)

// recorded is an Observer with what it recorded.
type recorded struct {
	o      *Observer
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

func newRecorded(t *testing.T) recorded {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	rd := sdkmetric.NewManualReader()
	o, err := New(WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))),
		WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(rd))))
	require.NoError(t, err)
	return recorded{o: o, spans: sr, reader: rd}
}

// drive reports operations of several routes, banks and outcomes: a
// retried read, a refused one, a budget spent, a create in doubt with
// codes and an error type, a bank without a port. Each attempt starts
// with StartAttempt, as the client does, except those of the last
// operation, reported after the fact only.
func drive(o *Observer) {
	t0 := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	ops := []struct {
		op, method, route, bank string
		attempts                []client.AttemptEvent
		end                     client.OperationEvent
	}{
		{"accounts.Balances", "GET", "/v1/accounts/{id}/balances", "bank.example:8443",
			[]client.AttemptEvent{{Attempt: 1, Sent: true, StatusCode: 503, Outcome: client.OutcomeFailed, Codes: []string{"SERVICE_UNAVAILABLE"}},
				{Attempt: 2, Sent: true, StatusCode: 200, Outcome: client.OutcomeOK}},
			client.OperationEvent{Attempts: 2, Sent: true, StatusCode: 200, Outcome: client.OutcomeOK, BudgetCalls: 2, BudgetLeft: 1}},
		{"accounts.Balances", "GET", "/v1/accounts/{id}/balances", "bank.example:8443", nil,
			client.OperationEvent{Outcome: client.OutcomeBudgetRefused}},
		{"payments.CreateNorwegianDomestic", "POST", "/v1/payments/{product}", "other.example",
			[]client.AttemptEvent{{Attempt: 1, Sent: true, Outcome: client.OutcomeUnknown, ErrorType: "connection_reset"}},
			client.OperationEvent{Attempts: 1, Sent: true, Outcome: client.OutcomeUnknown}},
		{"payments.Status", "GET", "/v1/payments/{product}/{id}/status", "bank.example:8443",
			[]client.AttemptEvent{{Attempt: 1, Sent: true, StatusCode: 404, Outcome: client.OutcomeRefused, Codes: []string{"RESOURCE_UNKNOWN"}}},
			client.OperationEvent{Attempts: 1, Sent: true, StatusCode: 404, Outcome: client.OutcomeRefused, Codes: []string{"RESOURCE_UNKNOWN"}}},
	}
	for i, c := range ops {
		start := client.OperationStart{Operation: c.op, Method: c.method, Route: c.route, Bank: c.bank,
			Start: t0.Add(time.Duration(i) * time.Second)}
		ctx := o.StartOperation(context.Background(), start)
		for _, a := range c.attempts {
			a.OperationStart, a.Start, a.Duration = start, start.Start.Add(time.Millisecond), 3*time.Millisecond
			actx := ctx
			if i < len(ops)-1 {
				actx = o.StartAttempt(ctx, client.AttemptStart{OperationStart: start, Attempt: a.Attempt, Start: start.Start})
			}
			o.ObserveAttempt(actx, a)
		}
		e := c.end
		e.OperationStart, e.Duration = start, 7*time.Millisecond
		o.EndOperation(ctx, e)
	}
}

// TestCachedEqualsFresh: an Observer whose caches are full (every value
// built afresh at each call, as before the caches) and one whose caches
// serve them record the same spans and the same metrics.
func TestCachedEqualsFresh(t *testing.T) {
	cached, fresh := newRecorded(t), newRecorded(t)
	fresh.o.routes.limit, fresh.o.attemptEnds.limit, fresh.o.opEnds.limit = 0, 0, 0
	for range 2 { // the second time from the caches
		drive(cached.o)
		drive(fresh.o)
	}
	require.Positive(t, cached.o.routes.len())
	require.Positive(t, cached.o.attemptEnds.len())
	require.Positive(t, cached.o.opEnds.len())
	require.Zero(t, fresh.o.routes.len()+fresh.o.attemptEnds.len()+fresh.o.opEnds.len())

	got, want := cached.spans.Ended(), fresh.spans.Ended()
	require.Len(t, got, len(want))
	require.Len(t, got, 2*8)
	for i := range want {
		g, w := got[i], want[i]
		require.Equal(t, w.Name(), g.Name())
		require.Equal(t, w.SpanKind(), g.SpanKind())
		if w.SpanKind() == trace.SpanKindClient { // an attempt ends at its event's end
			require.Equal(t, w.EndTime(), g.EndTime())
		}
		require.Equal(t, w.Status(), g.Status())
		require.Equal(t, w.Attributes(), g.Attributes(), "span %d %s", i, w.Name()) // in the same order
		require.Equal(t, w.Parent().IsValid(), g.Parent().IsValid())
	}

	// The attributes, those known when the attempt starts first: the
	// second attempt of the retried read, then its operation.
	require.Equal(t, "GET /v1/accounts/{id}/balances", got[1].Name())
	require.Equal(t, []attribute.KeyValue{
		semconv.HTTPRequestMethodKey.String("GET"), semconv.ServerAddress("bank.example"),
		semconv.URLTemplate("/v1/accounts/{id}/balances"), semconv.ServerPort(8443), semconv.HTTPRequestResendCount(1),
		AttrOutcome.String("ok"), AttrSent.Bool(true), semconv.HTTPResponseStatusCode(200),
	}, got[1].Attributes())
	// A live attempt span starts when StartAttempt is called (the client
	// calls it when the attempt starts) and ends when the attempt ended
	// (Start plus Duration of its event).
	t0 := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	require.Equal(t, t0.Add(4*time.Millisecond), got[1].EndTime())
	// One reported after the fact only runs from its event's Start.
	require.Equal(t, "GET /v1/payments/{product}/{id}/status", got[6].Name())
	require.Equal(t, t0.Add(3*time.Second+time.Millisecond), got[6].StartTime())
	require.Equal(t, t0.Add(3*time.Second+4*time.Millisecond), got[6].EndTime())
	require.Equal(t, "accounts.Balances", got[2].Name())
	require.Equal(t, []attribute.KeyValue{
		AttrOperation.String("accounts.Balances"), AttrBank.String("bank.example:8443"),
		AttrOutcome.String("ok"), AttrAttempts.Int(2), AttrSent.Bool(true),
		semconv.HTTPResponseStatusCode(200), AttrBudgetLeft.Int(1),
	}, got[2].Attributes())
	// A bank without a port has no server.port.
	require.Equal(t, "POST /v1/payments/{product}", got[4].Name())
	payAttrs := attribute.NewSet(got[4].Attributes()...)
	_, hasPort := payAttrs.Value("server.port")
	require.False(t, hasPort)

	var gm, wm metricdata.ResourceMetrics
	require.NoError(t, cached.reader.Collect(context.Background(), &gm))
	require.NoError(t, fresh.reader.Collect(context.Background(), &wm))
	require.Len(t, gm.ScopeMetrics, 1)
	require.Len(t, gm.ScopeMetrics[0].Metrics, 5) // request and operation durations, outcomes, spent, refused
	metricdatatest.AssertEqual(t, wm.ScopeMetrics[0], gm.ScopeMetrics[0], metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars())
}

// TestCachesBounded: past the limit nothing more is stored, and values
// are still right.
func TestCachesBounded(t *testing.T) {
	c := boundedCache[int, string]{limit: 3}
	for i := range 10 {
		require.Equal(t, fmt.Sprint(i), c.get(i, func(k int) string { return fmt.Sprint(k) }))
	}
	require.Equal(t, 3, c.len())
	require.Len(t, *c.m.Load(), 3)

	r := newRecorded(t)
	for i := range cacheLimit + 50 {
		start := client.OperationStart{Operation: "accounts.Balances", Method: "GET", Route: "/v1/accounts/{id}/balances",
			Bank: fmt.Sprintf("bank%d.example:443", i), Start: time.Now()}
		ctx := r.o.StartOperation(context.Background(), start)
		r.o.ObserveAttempt(ctx, client.AttemptEvent{OperationStart: start, Attempt: 1, Start: start.Start, Sent: true,
			StatusCode: 200, Outcome: client.OutcomeOK})
		r.o.EndOperation(ctx, client.OperationEvent{OperationStart: start, Attempts: 1, Sent: true, StatusCode: 200, Outcome: client.OutcomeOK})
	}
	require.Equal(t, cacheLimit, r.o.routes.len())
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	banks := map[string]int64{}
	var total int64
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if m.Name == MetricOutcomes {
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				b, _ := dp.Attributes.Value(AttrBank)
				banks[b.AsString()] += dp.Value
				total += dp.Value
			}
		}
	}
	// Every operation counted; the banks past the limit as OtherValue, so
	// that a caller's per-request bank names make no series of their own.
	require.Equal(t, int64(cacheLimit+50), total)
	require.Len(t, banks, bankLimit+1)
	require.Equal(t, int64(cacheLimit+50-bankLimit), banks[OtherValue])
	require.Equal(t, int64(1), banks["bank0.example:443"])
	last := r.spans.Ended()
	set := attribute.NewSet(last[len(last)-2].Attributes()...) // the last attempt, past the limit
	v, ok := set.Value("server.address")
	require.True(t, ok)
	require.Equal(t, OtherValue, v.AsString(), "an event without Host: its bank label stands for the host")
	set = attribute.NewSet(last[0].Attributes()...) // the first operation's attempt
	v, _ = set.Value("server.address")
	require.Equal(t, "bank0.example", v.AsString())
}

// TestRouteOutcomesBounded: a route keeps at most outcomeLimit outcome
// sets, and builds the right one past it.
func TestRouteOutcomesBounded(t *testing.T) {
	r := buildRoute(routeKey{"accounts.Balances", "GET", "/v1/accounts/{id}/balances", "bank.example", ""})
	for i := range outcomeLimit + 20 {
		m := r.outcome(client.OutcomeRefused, fmt.Sprint("CODE_", i))
		require.Len(t, m.add, 1)
	}
	require.Equal(t, outcomeLimit, r.outcomes.len())
	set := metric.NewAddConfig(r.outcome(client.OutcomeRefused, "CODE_LAST").add).Attributes()
	v, ok := set.Value(AttrErrorCode)
	require.True(t, ok)
	require.Equal(t, "CODE_LAST", v.AsString())
}
