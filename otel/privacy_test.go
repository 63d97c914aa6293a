package otel_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"

	psd2otel "github.com/tppkit/psd2/otel"
)

// TestNoPersonalData plants known personal values in every call a TPP
// makes (national id, names, IP address, PSU-ID, session id, account
// ids, remittance text, a bank error text) and finds none of them in any
// exported span, attribute, event, status or metric.
func TestNoPersonalData(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	_, err := r.obs.RegisterGauges(psd2otel.Gauges{
		ConsentEnds:  func(context.Context) ([]time.Time, error) { return []time.Time{time.Now().Add(24 * time.Hour)}, nil },
		Certificates: psd2otel.ClientCertificates(r.c),
		InDoubt:      func(context.Context) (int64, error) { return 1, nil },
	})
	require.NoError(t, err)

	// The PSU present: the client retries the 503 (a counted call
	// without the PSU would end with it).
	r.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Method: "GET", PathPrefix: "/v1/accounts/", Count: 1})
	_, err = r.acc.Balances(ctx, r.account, r.present())
	require.NoError(t, err)
	_, err = r.acc.Transactions(ctx, r.account, nil, r.absent)
	require.NoError(t, err)
	_, err = r.acc.Balances(ctx, r.account+"x", r.absent, client.WithPSU(client.PSU{IPAddress: plantedIP}))
	require.Error(t, err)
	_, err = r.paymentAsPSU(t)
	require.NoError(t, err)
	r.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropAfterBody, Method: "POST", PathPrefix: "/v1/payments/"})
	_, err = r.paymentAsPSU(t)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	r.obs.RecordRefreshRound(ctx, psd2otel.RoundDone, time.Now().Add(-time.Minute), time.Now())

	var dump strings.Builder
	spans := r.spans.Ended()
	require.NotEmpty(t, spans)
	for _, s := range spans {
		fmt.Fprintln(&dump, s.Name(), s.Status().Description, s.SpanKind())
		for _, kv := range s.Attributes() {
			fmt.Fprintln(&dump, kv.Key, kv.Value.Emit())
		}
		for _, e := range s.Events() {
			fmt.Fprintln(&dump, e.Name, e.Attributes)
		}
		for _, kv := range s.Resource().Attributes() {
			fmt.Fprintln(&dump, kv.Key, kv.Value.Emit())
		}
	}
	rm := r.collect(t)
	n := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			fmt.Fprintln(&dump, m.Name, m.Description, m.Unit)
			for _, set := range pointSets(m) {
				n++
				fmt.Fprintln(&dump, set.Encoded(attribute.DefaultEncoder()))
			}
		}
	}
	require.Positive(t, n)
	fmt.Fprintf(&dump, "%+v\n", rm)
	out := dump.String()
	require.Contains(t, out, "accounts.Balances", "the dump holds what was recorded")

	cs := r.seeded.Session
	planted := map[string]string{
		"national id": plantedNumber, "customer name": plantedName, "creditor": plantedCreditor,
		"remittance": plantedRemit, "PSU IP": plantedIP, "BBAN": plantedBBAN,
		"PSU-ID": cs.PSUID, "TPP-Session-ID": cs.TPPSessionID, "account id": r.account,
		"customer id": r.seeded.CustomerID,
	}
	for what, v := range planted {
		require.NotEmpty(t, v, what)
		assert.NotContains(t, out, v, "%s reached the telemetry", what)
	}
}

// pointSets returns the attribute sets of m's data points.
func pointSets(m metricdata.Metrics) []attribute.Set {
	var out []attribute.Set
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Sum[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Gauge[int64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Gauge[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out = append(out, p.Attributes)
		}
	}
	return out
}
