package otel_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"

	psd2otel "github.com/tppkit/psd2/otel"
)

// The health of the banks a Health knows is observed by bank: the
// breaker's state, the last minute's requests by result, latency
// quantiles.
func TestBankHealthGauges(t *testing.T) {
	r := newObservedRig(t)
	h := client.NewHealth()
	c := testtpp.NewClient(t, r.s, "Otel health TPP", client.WithHealth(h), client.WithBank("alpha"),
		client.WithRetryPolicy(client.RetryPolicy{}))
	r.s.Control().Outage(emulator.OutageUnavailable, 3600e9)
	for range 6 {
		_, _ = c.Do(t.Context(), client.Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil)
	}
	reg, err := r.obs.RegisterGauges(psd2otel.Gauges{Health: h.Banks})
	require.NoError(t, err)
	defer func() { _ = reg.Unregister() }()

	rm := r.collect(t)
	m, ok := find(rm, psd2otel.MetricBankBreaker)
	require.True(t, ok)
	dps := m.Data.(metricdata.Gauge[int64]).DataPoints
	require.Len(t, dps, 1)
	bank, _ := dps[0].Attributes.Value(psd2otel.AttrBank)
	assert.Equal(t, "alpha", bank.AsString(), "the directory id")
	assert.Equal(t, int64(client.BreakerOpen), dps[0].Value)

	m, ok = find(rm, psd2otel.MetricBankRequests)
	require.True(t, ok)
	by := map[string]int64{}
	for _, dp := range m.Data.(metricdata.Gauge[int64]).DataPoints {
		v, _ := dp.Attributes.Value(psd2otel.AttrBankResult)
		by[v.AsString()] = dp.Value
	}
	assert.Equal(t, map[string]int64{"answered": 0, "5xx": 5, "timeout": 0, "no_answer": 0, "429": 0}, by)
	_, ok = find(rm, psd2otel.MetricBankLatency)
	assert.True(t, ok)
}
