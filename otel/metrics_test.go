package otel_test

import (
	"context"
	"crypto/x509"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"

	psd2otel "github.com/tppkit/psd2/otel"
)

// TestErrorCodeLabel: an operation's outcome carries the bank's error
// code from the interface's list, "OTHER" for an error answer without
// one (or with codes outside the list), "none" without an error answer.
func TestErrorCodeLabel(t *testing.T) {
	r := newObservedRig(t)
	start := client.OperationStart{Operation: "accounts.Balances", Method: "GET", Route: "/v1/accounts/{id}/balances",
		Bank: "sr-bank", Repeatable: true, Start: time.Now()}
	for _, e := range []client.OperationEvent{
		{Outcome: client.OutcomeOK, StatusCode: 200},
		{Outcome: client.OutcomeRefused, StatusCode: 401, Codes: []string{"CONSENT_EXPIRED"}},
		{Outcome: client.OutcomeRefused, StatusCode: 400, Codes: []string{"OTHER", "FORMAT_ERROR"}},
		{Outcome: client.OutcomeRefused, StatusCode: 400, Codes: []string{"Kari Nordmann 01019912345"}},
		{Outcome: client.OutcomeFailed, StatusCode: 502},
		{Outcome: client.OutcomeFailed},
		{Outcome: client.OutcomeBudgetRefused},
	} {
		e.OperationStart = start
		ctx := r.obs.StartOperation(t.Context(), start)
		r.obs.EndOperation(ctx, e)
	}
	m, ok := find(r.collect(t), psd2otel.MetricOutcomes)
	require.True(t, ok)
	got := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		o, _ := dp.Attributes.Value(psd2otel.AttrOutcome)
		code, _ := dp.Attributes.Value(psd2otel.AttrErrorCode)
		got[o.AsString()+"/"+code.AsString()] += dp.Value
	}
	assert.Equal(t, map[string]int64{"ok/none": 1, "refused/CONSENT_EXPIRED": 1, "refused/FORMAT_ERROR": 1,
		"refused/OTHER": 1, "failed/OTHER": 1, "failed/none": 1, "budget_refused/none": 1}, got)
}

// TestBankLabel: a client named with WithBank (the directory's id) is
// labelled by it in every metric and span, not by its host.
func TestBankLabel(t *testing.T) {
	r := newObservedRig(t)
	seedPSU(t, r)
	c := testtpp.NewClient(t, r.s, "Labelled TPP", client.WithObserver(r.obs), client.WithBank("sr-bank"))
	acc, err := accounts.New(c)
	require.NoError(t, err)
	_, err = acc.Balances(t.Context(), "no-such-account", r.present())
	require.Error(t, err)

	rm := r.collect(t)
	n := 0
	for _, name := range []string{psd2otel.MetricOutcomes, psd2otel.MetricOperationDuration, psd2otel.MetricRequestDuration} {
		m, ok := find(rm, name)
		require.True(t, ok, name)
		for _, set := range pointSets(m) {
			v, _ := set.Value(psd2otel.AttrBank)
			assert.Equal(t, "sr-bank", v.AsString(), name)
			n++
		}
	}
	assert.Equal(t, 3, n)
	for _, s := range r.spans.Ended() {
		if v, ok := attr(s, psd2otel.AttrBank); ok {
			assert.Equal(t, "sr-bank", v.AsString())
		}
	}
}

// TestCertificateSerial: the certificate gauge names each certificate by
// its serial, so that an old and a new one are told apart.
func TestCertificateSerial(t *testing.T) {
	r := newObservedRig(t)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	old := &x509.Certificate{SerialNumber: big.NewInt(0x1a2b), NotAfter: now.Add(5 * 24 * time.Hour)}
	renewed := &x509.Certificate{SerialNumber: big.NewInt(0x3c4d5e), NotAfter: now.Add(730 * 24 * time.Hour)}
	_, err := r.obs.RegisterGauges(psd2otel.Gauges{
		Certificates: func(context.Context) (map[string]*x509.Certificate, error) {
			return map[string]*x509.Certificate{"signing": old, "signing-next": renewed, "qwac": {NotAfter: now}}, nil
		},
		Now: func() time.Time { return now },
	})
	require.NoError(t, err)
	m, ok := find(r.collect(t), psd2otel.MetricCertificateDays)
	require.True(t, ok)
	got := map[string]float64{}
	for _, dp := range m.Data.(metricdata.Gauge[float64]).DataPoints {
		role, _ := dp.Attributes.Value(psd2otel.AttrCertificateRole)
		sn, _ := dp.Attributes.Value(psd2otel.AttrCertificateSerial)
		got[role.AsString()+"/"+sn.AsString()] = dp.Value
	}
	assert.Equal(t, map[string]float64{"signing/1A2B": 5, "signing-next/3C4D5E": 730, "qwac/": 0}, got)
}

// alertable are the metrics an on-call engineer alerts on, and the psd2
// command each one's description names.
var alertable = map[string][]string{
	psd2otel.MetricOutcomes:        {"`psd2 journal list`", "`psd2 budget -bank <psd2_bank>`", "`psd2 keyid`"},
	psd2otel.MetricBudgetSpent:     {"`psd2 budget -bank <psd2_bank>`"},
	psd2otel.MetricBudgetRefused:   {"`psd2 budget -bank <psd2_bank>`"},
	psd2otel.MetricCertificateDays: {"`psd2 keyid`", "`psd2 probe`"},
	psd2otel.MetricJournalInDoubt:  {"`psd2 journal list`", "`psd2 journal resolve"},
	// Snoozed rounds wait for a budget, or for a bank whose breaker is
	// open, which paused the TPP or rate-limits the account.
	psd2otel.MetricRefreshRounds: {"`psd2 budget -bank <psd2_bank>`", "`psd2 health -bank <psd2_bank>`"},
	psd2otel.MetricQueueJobs:     {"`psd2 health -bank <psd2_bank>`", "River's UI"},
	psd2otel.MetricQueuePaused:   {"`psd2 health -bank <psd2_bank>`", "`psd2 budget -bank <psd2_bank>`", "River's UI"},
	psd2otel.MetricGaugeReadable: {"`psd2 journal list`", "`psd2 health -bank <psd2_bank>`"},
}

// TestAlertableDescriptions: each alertable metric's description (its
// HELP line) names the command to run, and every metric has one.
func TestAlertableDescriptions(t *testing.T) {
	r := newRig(t)
	_, err := r.obs.RegisterGauges(psd2otel.Gauges{
		ConsentEnds:  func(context.Context) ([]time.Time, error) { return nil, nil },
		Certificates: psd2otel.ClientCertificates(r.c),
		InDoubt:      func(context.Context) (int64, error) { return 0, nil },
		Queues: func(context.Context) ([]psd2otel.QueueState, error) {
			return []psd2otel.QueueState{{Bank: "alpha"}}, nil
		},
	})
	require.NoError(t, err)
	_, err = r.acc.Balances(t.Context(), r.account, r.absent)
	require.NoError(t, err)
	r.obs.RecordRefreshRound(t.Context(), psd2otel.RoundDone, time.Now(), time.Now())
	ctx := r.obs.StartOperation(t.Context(), client.OperationStart{Operation: "accounts.Balances"})
	r.obs.EndOperation(ctx, client.OperationEvent{Outcome: client.OutcomeBudgetRefused})

	seen := map[string]bool{}
	for _, sm := range r.collect(t).ScopeMetrics {
		for _, m := range sm.Metrics {
			seen[m.Name] = true
			assert.NotEmpty(t, m.Description, m.Name)
			for _, cmd := range alertable[m.Name] {
				assert.Contains(t, m.Description, cmd, m.Name)
			}
			if alertable[m.Name] == nil {
				assert.NotContains(t, m.Description, "`psd2 ", "%s is not alertable", m.Name)
			}
		}
	}
	for name := range alertable {
		assert.True(t, seen[name], "%s was not collected", name)
	}
	assert.Len(t, seen, 13, "every metric of the module")
}

// TestExemplars: with WithExemplars the measurements of a call carry an
// exemplar naming its trace; without it, none.
func TestExemplars(t *testing.T) {
	for _, with := range []bool{false, true} {
		spans := tracetest.NewSpanRecorder()
		reader := sdkmetric.NewManualReader()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		opts := []psd2otel.Option{psd2otel.WithTracerProvider(tp), psd2otel.WithMeterProvider(mp)}
		if with {
			opts = append(opts, psd2otel.WithExemplars())
		}
		obs, err := psd2otel.New(opts...)
		require.NoError(t, err)
		start := client.OperationStart{Operation: "accounts.Balances", Method: "GET", Route: "/v1/accounts/{id}/balances",
			Bank: "sr-bank", Repeatable: true, Start: time.Now()}
		ctx := obs.StartOperation(t.Context(), start)
		actx := obs.StartAttempt(ctx, client.AttemptStart{OperationStart: start, Attempt: 1, Start: time.Now()})
		obs.ObserveAttempt(actx, client.AttemptEvent{OperationStart: start, Attempt: 1, Start: time.Now(),
			Duration: time.Millisecond, Sent: true, StatusCode: 200, Outcome: client.OutcomeOK})
		obs.EndOperation(ctx, client.OperationEvent{OperationStart: start, Duration: time.Millisecond, Attempts: 1,
			Sent: true, StatusCode: 200, Outcome: client.OutcomeOK})

		var rm metricdata.ResourceMetrics
		require.NoError(t, reader.Collect(t.Context(), &rm))
		traceID := spans.Ended()[0].SpanContext().TraceID()
		for _, name := range []string{psd2otel.MetricRequestDuration, psd2otel.MetricOperationDuration} {
			m, ok := find(rm, name)
			require.True(t, ok, name)
			dps := m.Data.(metricdata.Histogram[float64]).DataPoints
			require.Len(t, dps, 1)
			if !with {
				assert.Empty(t, dps[0].Exemplars, name)
				continue
			}
			require.NotEmpty(t, dps[0].Exemplars, name)
			assert.Equal(t, traceID[:], dps[0].Exemplars[0].TraceID, name)
		}
	}
}
