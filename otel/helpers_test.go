package otel_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"

	psd2otel "github.com/tppkit/psd2/otel"
)

// Planted personal values: none may reach a span or a metric.
const (
	plantedNumber   = "01017712345" // the customer's national id number
	plantedName     = "Plantedotter Kvist"
	plantedCreditor = "Pia Plantesen"
	plantedRemit    = "Plantet melding 4711"
	plantedIP       = "203.0.113.77"
	plantedBBAN     = "91026527436"
)

// rig is an emulator, a client observed by a psd2otel.Observer recording
// into in-memory exporters, and a seeded customer whose consent lets the
// TPP read without the PSU.
type rig struct {
	s       *emulator.Server
	c       *client.Client
	obs     *psd2otel.Observer
	spans   *tracetest.SpanRecorder
	reader  *sdkmetric.ManualReader
	acc     *accounts.Service
	pay     *payments.Service
	seeded  emulator.SeededCustomer
	absent  client.RequestOption // the seeded PSU's session, not present
	account string
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := newObservedRig(t)
	var err error
	r.acc, err = accounts.New(r.c)
	require.NoError(t, err)
	r.pay, err = payments.New(r.c)
	require.NoError(t, err)
	seedPSU(t, r)
	return r
}

// newObservedRig starts the emulator and the observed client.
func newObservedRig(t testing.TB) *rig {
	r := &rig{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	var err error
	r.obs, err = psd2otel.New(psd2otel.WithTracerProvider(tp), psd2otel.WithMeterProvider(mp))
	require.NoError(t, err)
	r.s = testtpp.Server(t)
	r.c = testtpp.NewClient(t, r.s, "Otel test TPP", client.WithObserver(r.obs),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRetryAfter: 2 * time.Second}))
	return r
}

// seedPSU seeds the customer with the planted values, with a consent
// given two hours ago.
func seedPSU(t testing.TB, r *rig) {
	t.Helper()
	res, err := r.s.Control().Seed(t.Context(), r.c.Credentials().Certificate, emulator.SeedData{Customers: []emulator.SeedCustomer{{
		Number: plantedNumber, Name: plantedName,
		Accounts: []emulator.SeedAccount{{Balance: "1000.00", BBAN: plantedBBAN}},
		Consent:  &emulator.SeedConsent{At: time.Now().Add(-2 * time.Hour)},
	}}})
	require.NoError(t, err)
	r.seeded = res.Customers[0]
	cs := r.seeded.Session
	s := &sca.Session{PSUID: cs.PSUID, TPPSessionID: cs.TPPSessionID, Context: client.PSUContext(cs.Context), SCAAt: cs.SCAAt}
	r.absent = s.RequestOptions(nil)
	r.account = r.seeded.Accounts[0].ID
}

// present is the option of a call with the seeded PSU present.
func (r *rig) present() client.RequestOption {
	cs := r.seeded.Session
	s := &sca.Session{PSUID: cs.PSUID, TPPSessionID: cs.TPPSessionID, Context: client.PSUContext(cs.Context), SCAAt: cs.SCAAt}
	return s.RequestOptions(&client.PSU{IPAddress: plantedIP})
}

// paymentAsPSU creates a domestic payment with the seeded PSU present.
func (r *rig) paymentAsPSU(t testing.TB) (*payments.Initiation, error) {
	t.Helper()
	return r.pay.CreateNorwegianDomestic(t.Context(), &payments.NorwegianDomestic{
		InstructedAmount:                  money.MustParse("150.00", "NOK"),
		CreditorName:                      plantedCreditor,
		CreditorAccount:                   payments.AccountReference{BBAN: "95312776066", Currency: "NOK"},
		CreditorAddress:                   &payments.Address{Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: plantedBBAN, Currency: "NOK"},
		RemittanceInformationUnstructured: plantedRemit,
	}, r.present())
}

// collect reads the metrics.
func (r *rig) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(t.Context(), &rm))
	return rm
}

// find returns the metric called name.
func find(rm metricdata.ResourceMetrics, name string) (metricdata.Metrics, bool) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}
