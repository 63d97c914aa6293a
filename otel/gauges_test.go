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
