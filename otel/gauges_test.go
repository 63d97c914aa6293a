package otel_test

import (
	"context"
	"crypto/x509"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"

	psd2otel "github.com/tppkit/psd2/otel"
)

func TestGauges(t *testing.T) {
	r := newObservedRig(t)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	j, err := journal.New(store.NewMemoryStore())
	require.NoError(t, err)
	reg, err := r.obs.RegisterGauges(psd2otel.Gauges{
		ConsentEnds: func(context.Context) ([]time.Time, error) {
			return []time.Time{now.Add(-time.Hour), now.Add(2 * day), now.Add(6 * day), now.Add(20 * day), now.Add(89 * day), now.Add(90 * day)}, nil
		},
		Certificates: func(context.Context) (map[string]*x509.Certificate, error) {
			return map[string]*x509.Certificate{"signing": {NotAfter: now.Add(10*day + 12*time.Hour)}, "qwac": {NotAfter: now.Add(-day)}}, nil
		},
		InDoubt: psd2otel.JournalInDoubt(j),
		Now:     func() time.Time { return now },
	})
	require.NoError(t, err)

	rm := r.collect(t)
	m, ok := find(rm, psd2otel.MetricConsents)
	require.True(t, ok)
	byDays := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
		v, _ := dp.Attributes.Value(psd2otel.AttrDaysLeft)
		byDays[v.AsString()] = dp.Value
	}
	assert.Equal(t, map[string]int64{"expired": 1, "0-6": 2, "7-29": 1, "30-89": 1, "90+": 1}, byDays)

	m, ok = find(rm, psd2otel.MetricCertificateDays)
	require.True(t, ok)
	certs := map[string]float64{}
	for _, dp := range m.Data.(metricdata.Gauge[float64]).DataPoints {
		v, _ := dp.Attributes.Value(psd2otel.AttrCertificateRole)
		certs[v.AsString()] = dp.Value
	}
	assert.Equal(t, map[string]float64{"signing": 10.5, "qwac": -1}, certs)

	m, ok = find(rm, psd2otel.MetricJournalInDoubt)
	require.True(t, ok)
	assert.EqualValues(t, 0, m.Data.(metricdata.Gauge[int64]).DataPoints[0].Value)

	require.NoError(t, reg.Unregister())
	rm = r.collect(t)
	_, ok = find(rm, psd2otel.MetricConsents)
	assert.False(t, ok, "unregistered gauges report nothing")
}

func TestGaugeCallbackErrorKeepsTheOthers(t *testing.T) {
	r := newObservedRig(t)
	_, err := r.obs.RegisterGauges(psd2otel.Gauges{
		ConsentEnds: func(context.Context) ([]time.Time, error) { return nil, errors.New("db down") },
		InDoubt:     func(context.Context) (int64, error) { return 3, nil },
	})
	require.NoError(t, err)
	rm := r.collect(t)
	m, ok := find(rm, psd2otel.MetricJournalInDoubt)
	require.True(t, ok)
	assert.EqualValues(t, 3, m.Data.(metricdata.Gauge[int64]).DataPoints[0].Value)
	_, ok = find(rm, psd2otel.MetricConsents)
	assert.False(t, ok, "a gauge that could not read reports no point, not 0")

	// psd2.gauge.readable says which gauge could not read, so that its
	// missing points are not taken for an all-clear.
	m, ok = find(rm, psd2otel.MetricGaugeReadable)
	require.True(t, ok)
	readable := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
		g, _ := dp.Attributes.Value(psd2otel.AttrGauge)
		readable[g.AsString()] = dp.Value
	}
	assert.Equal(t, map[string]int64{"consents": 0, "journal_in_doubt": 1}, readable)
}

func TestRegisterGaugesNeedsACallback(t *testing.T) {
	r := newObservedRig(t)
	_, err := r.obs.RegisterGauges(psd2otel.Gauges{})
	require.Error(t, err)
}

func TestRefreshRounds(t *testing.T) {
	r := newObservedRig(t)
	ctx := t.Context()
	planned := time.Now()
	r.obs.RecordRefreshRound(ctx, psd2otel.RoundDone, planned, planned.Add(2*time.Second))
	r.obs.RecordRefreshRound(ctx, psd2otel.RoundSnoozed, planned, planned.Add(-time.Second)) // early: 0
	r.obs.RecordRefreshRound(ctx, psd2otel.RoundFailed, planned, planned)
	r.obs.RecordRefreshRound(ctx, "bogus", planned, planned)
	rm := r.collect(t)
	m, ok := find(rm, psd2otel.MetricRefreshRounds)
	require.True(t, ok)
	got := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		v, _ := dp.Attributes.Value(psd2otel.AttrRoundResult)
		got[v.AsString()] = dp.Value
	}
	assert.Equal(t, map[string]int64{"done": 1, "snoozed": 1, "failed": 2}, got)
	m, ok = find(rm, psd2otel.MetricRefreshLateness)
	require.True(t, ok)
	var sum float64
	for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
		sum += dp.Sum
	}
	assert.InDelta(t, 2.0, sum, 1e-9)
}

func TestNewRefusesNilProviders(t *testing.T) {
	_, err := psd2otel.New(psd2otel.WithTracerProvider(nil))
	require.Error(t, err)
	_, err = psd2otel.New(psd2otel.WithMeterProvider(nil))
	require.Error(t, err)
}

// TestQueueGauges: each bank queue's jobs are observed by River state,
// and its pause as 0 or 1, by bank.
func TestQueueGauges(t *testing.T) {
	r := newObservedRig(t)
	reg, err := r.obs.RegisterGauges(psd2otel.Gauges{
		Queues: func(context.Context) ([]psd2otel.QueueState, error) {
			return []psd2otel.QueueState{
				{Bank: "alpha", Available: 11, Running: 2, Scheduled: 3, Retryable: 4, Discarded: 5, Cancelled: 6},
				{Bank: "beta", Available: 7, Retryable: 1, Paused: true},
			}, nil
		},
	})
	require.NoError(t, err)
	defer func() { _ = reg.Unregister() }()

	rm := r.collect(t)
	m, ok := find(rm, psd2otel.MetricQueueJobs)
	require.True(t, ok)
	assert.Equal(t, "{job}", m.Unit)
	jobs := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
		assert.Equal(t, 2, dp.Attributes.Len(), "bank and state only: %v", dp.Attributes.ToSlice())
		bank, _ := dp.Attributes.Value(psd2otel.AttrBank)
		state, _ := dp.Attributes.Value(psd2otel.AttrJobState)
		jobs[bank.AsString()+"/"+state.AsString()] = dp.Value
	}
	assert.Equal(t, map[string]int64{
		"alpha/available": 11, "alpha/running": 2, "alpha/scheduled": 3, "alpha/retryable": 4, "alpha/discarded": 5, "alpha/cancelled": 6,
		"beta/available": 7, "beta/running": 0, "beta/scheduled": 0, "beta/retryable": 1, "beta/discarded": 0, "beta/cancelled": 0,
	}, jobs)

	m, ok = find(rm, psd2otel.MetricQueuePaused)
	require.True(t, ok)
	paused := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
		assert.Equal(t, 1, dp.Attributes.Len(), "the bank only: %v", dp.Attributes.ToSlice())
		bank, _ := dp.Attributes.Value(psd2otel.AttrBank)
		paused[bank.AsString()] = dp.Value
	}
	assert.Equal(t, map[string]int64{"alpha": 0, "beta": 1}, paused)
}

// TestQueueGaugeErrorKeepsTheOthers: a Queues callback that fails (the
// database is down) reports no queue point, and the other gauges are
// still observed; a failing other callback leaves the queues observed.
func TestQueueGaugeErrorKeepsTheOthers(t *testing.T) {
	r := newObservedRig(t)
	_, err := r.obs.RegisterGauges(psd2otel.Gauges{
		Queues:  func(context.Context) ([]psd2otel.QueueState, error) { return nil, errors.New("db down") },
		InDoubt: func(context.Context) (int64, error) { return 3, nil },
		Health: func() []client.BankHealth {
			return []client.BankHealth{{Bank: "bank:alpha", State: client.BreakerOpen}}
		},
	})
	require.NoError(t, err)
	rm := r.collect(t)
	for _, name := range []string{psd2otel.MetricQueueJobs, psd2otel.MetricQueuePaused} {
		m, ok := find(rm, name)
		if ok {
			assert.Empty(t, m.Data.(metricdata.Gauge[int64]).DataPoints, "%s: no point from a failed read", name)
		}
	}
	m, ok := find(rm, psd2otel.MetricJournalInDoubt)
	require.True(t, ok)
	assert.EqualValues(t, 3, m.Data.(metricdata.Gauge[int64]).DataPoints[0].Value)
	m, ok = find(rm, psd2otel.MetricBankBreaker)
	require.True(t, ok)
	require.Len(t, m.Data.(metricdata.Gauge[int64]).DataPoints, 1)
	assert.EqualValues(t, client.BreakerOpen, m.Data.(metricdata.Gauge[int64]).DataPoints[0].Value)

	r = newObservedRig(t)
	_, err = r.obs.RegisterGauges(psd2otel.Gauges{
		Queues: func(context.Context) ([]psd2otel.QueueState, error) {
			return []psd2otel.QueueState{{Bank: "alpha", Running: 4}}, nil
		},
		InDoubt: func(context.Context) (int64, error) { return 0, errors.New("journal unreadable") },
	})
	require.NoError(t, err)
	m, ok = find(r.collect(t), psd2otel.MetricQueueJobs)
	require.True(t, ok)
	assert.Len(t, m.Data.(metricdata.Gauge[int64]).DataPoints, 6)
}
