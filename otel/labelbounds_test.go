package otel

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// labelSets returns the distinct attribute sets of every point of every
// metric collected, encoded, by metric.
func labelSets(t *testing.T, r recorded) map[string]map[string]bool {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	out := map[string]map[string]bool{}
	add := func(name string, set attribute.Set) {
		if out[name] == nil {
			out[name] = map[string]bool{}
		}
		out[name][set.Encoded(attribute.DefaultEncoder())] = true
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					add(m.Name, p.Attributes)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					add(m.Name, p.Attributes)
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					add(m.Name, p.Attributes)
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					add(m.Name, p.Attributes)
				}
			}
		}
	}
	return out
}

// TestLabelsBoundedWhateverCallersSend drives thousands of distinct banks
// (a caller's per-request WithBank), operation names, routes, hosts and
// methods through the observer, and thousands of odd paths through a
// real client, and checks that the label sets and span names stay
// bounded. Before the fix, every value was exported as given: one series
// per caller's value.
func TestLabelsBoundedWhateverCallersSend(t *testing.T) {
	r := newRecorded(t)
	const n = 3000
	for i := range n {
		start := client.OperationStart{Operation: fmt.Sprintf("custom.Op%d", i), Method: fmt.Sprintf("M%d", i),
			Route: fmt.Sprintf("/v%d/x", i%999) + strings.Repeat("/", i%50), Bank: fmt.Sprintf("per-request-%d", i),
			Host: fmt.Sprintf("h%d.bank.example:443", i), Start: time.Now()}
		ctx := r.o.StartOperation(context.Background(), start)
		ctx = r.o.StartAttempt(ctx, client.AttemptStart{OperationStart: start, Attempt: 1, Start: start.Start})
		r.o.ObserveAttempt(ctx, client.AttemptEvent{OperationStart: start, Attempt: 1, Start: start.Start, Sent: true,
			StatusCode: 400 + i%200, Codes: []string{fmt.Sprintf("CODE_%d", i)}, Outcome: client.OutcomeRefused,
			ErrorType: fmt.Sprintf("err %d", i)})
		r.o.EndOperation(ctx, client.OperationEvent{OperationStart: start, Attempts: 1, Sent: true, StatusCode: 400 + i%200,
			Codes: []string{fmt.Sprintf("CODE_%d", i)}, Outcome: client.OutcomeRefused})
	}
	sets := labelSets(t, r)
	for name, s := range sets {
		// bankLimit banks (one operation each) and OTHER.
		require.LessOrEqual(t, len(s), bankLimit+2, "%s: %d label sets", name, len(s))
	}
	names, addrs := map[string]bool{}, map[string]bool{}
	for _, s := range r.spans.Ended() {
		names[s.Name()] = true
		set := attribute.NewSet(s.Attributes()...)
		if v, ok := set.Value("server.address"); ok {
			addrs[v.AsString()] = true
		}
		if v, ok := set.Value("http.request.method"); ok {
			require.Equal(t, OtherValue, v.AsString(), "an unknown method")
		}
	}
	require.LessOrEqual(t, len(names), operationLimit+routeLimit+2, "span names")
	require.LessOrEqual(t, len(addrs), hostLimit+1, "server.address values")
}

// TestOddPathsThroughTheClient sends custom calls (no op.Name) whose
// paths, queries and headers hold planted personal values, with ids
// that do not look like ids, and checks that no planted value reaches a
// span or a label and that the span names stay few.
func TestOddPathsThroughTheClient(t *testing.T) {
	rr := newRecorded(t)
	s := testtpp.Server(t)
	c := testtpp.NewClient(t, s, "Odd paths TPP", client.WithObserver(rr.o), client.WithBank("odd-bank"),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 0}))
	planted := []string{"13039319955", "NO9386011117947", "enc!!c2VjcmV0", "3f2c8a9e-7b1d-4c55-9a0e-2b9f6d1e4a77",
		"203.0.113.77", "sess-5f1e2d3c"}
	for i := range 300 {
		p := planted[i%len(planted)]
		path := []string{"/v1/accounts/" + p + "/balances", "/v1/customers/" + p, "/api/" + p + "/v1/consents/" + p + "/status",
			"/v1/" + p, "/" + p, "/v1/payments/" + p + "/" + p, "/v1/accounts/" + p + "/transactions/" + p + "?psuId=" + p}[i%7]
		_, _ = c.Do(context.Background(), client.Operation{Method: http.MethodGet, Path: path, Statuses: []int{200}}, nil,
			client.WithHeader("X-Odd", p))
	}
	var dump strings.Builder
	names := map[string]bool{}
	for _, s := range rr.spans.Ended() {
		names[s.Name()] = true
		set := attribute.NewSet(s.Attributes()...)
		dump.WriteString(s.Name() + " " + s.Status().Description + " " + set.Encoded(attribute.DefaultEncoder()) + "\n")
		for _, e := range s.Events() {
			es := attribute.NewSet(e.Attributes...)
			dump.WriteString(e.Name + " " + es.Encoded(attribute.DefaultEncoder()) + "\n")
		}
	}
	for name, set := range labelSets(t, rr) {
		for k := range set {
			dump.WriteString(name + " " + k + "\n")
		}
	}
	out := dump.String()
	for _, p := range planted {
		require.NotContains(t, out, p)
	}
	require.LessOrEqual(t, len(names), 20, "span names: %v", names)
}

// TestServerAddressIsTheHost checks the attempt span's server.address
// and server.port for a client named with WithBank: the bank's host and
// port, as the HTTP client conventions want, not the bank's name. Before
// the fix server.address was the WithBank name and server.port missing.
func TestServerAddressIsTheHost(t *testing.T) {
	rr := newRecorded(t)
	s := testtpp.Server(t)
	c := testtpp.NewClient(t, s, "Semconv TPP", client.WithObserver(rr.o), client.WithBank("example-bank"))
	_, _ = c.Do(context.Background(), client.Operation{Name: "custom.Read", Method: http.MethodGet, Path: "/v1/consents/x/status",
		Statuses: []int{200}}, nil)
	var attempt attribute.Set
	for _, sp := range rr.spans.Ended() {
		if sp.Name() == "GET /v1/consents/{id}/status" {
			attempt = attribute.NewSet(sp.Attributes()...)
		}
	}
	addr, ok := attempt.Value("server.address")
	require.True(t, ok)
	require.Equal(t, "127.0.0.1", addr.AsString())
	_, ok = attempt.Value("server.port")
	require.True(t, ok, "server.port is required")
}

// TestServerPortDefault: a bank URL without a port has server.port 443.
func TestServerPortDefault(t *testing.T) {
	r := buildRoute(routeKey{"accounts.Balances", "GET", "/v1/accounts/{id}/balances", "dnb", "bank.example:443"})
	set := attribute.NewSet(r.attemptHead...)
	v, _ := set.Value("server.port")
	require.Equal(t, int64(443), v.AsInt64())
	v, _ = set.Value("server.address")
	require.Equal(t, "bank.example", v.AsString())
}

// TestHealthOfOneLabelReportsTheWorst: two entries of client.Health with
// one psd2.bank (one bank's clients of two TPP identities, or two base
// URLs on one host), one of them open, report the bank open, and their
// requests summed. Before the fix the last entry's observation won: a
// closed breaker hid the open one (a false all-clear).
func TestHealthOfOneLabelReportsTheWorst(t *testing.T) {
	r := newRecorded(t)
	_, err := r.o.RegisterGauges(Gauges{Health: func() []client.BankHealth {
		return []client.BankHealth{
			{Bank: "bank:dnb", Scope: "a", State: client.BreakerOpen, Requests: 10, Status5xx: 10},
			{Bank: "bank:dnb", Scope: "b", State: client.BreakerClosed, Requests: 3, Answered: 3},
			{Bank: "https://bank.example/a", Scope: "c", State: client.BreakerHalfOpen},
			{Bank: "https://bank.example/b", Scope: "d", State: client.BreakerClosed},
		}
	}})
	require.NoError(t, err)
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	got := map[string]int64{}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if m.Name != MetricBankBreaker && m.Name != MetricBankRequests {
			continue
		}
		for _, p := range m.Data.(metricdata.Gauge[int64]).DataPoints {
			b, _ := p.Attributes.Value(AttrBank)
			res, _ := p.Attributes.Value(AttrBankResult)
			got[m.Name+" "+b.AsString()+" "+res.AsString()] = p.Value
		}
	}
	require.Equal(t, int64(client.BreakerOpen), got[MetricBankBreaker+" dnb "])
	require.Equal(t, int64(client.BreakerHalfOpen), got[MetricBankBreaker+" bank.example "])
	require.Equal(t, int64(10), got[MetricBankRequests+" dnb 5xx"])
	require.Equal(t, int64(3), got[MetricBankRequests+" dnb answered"])
}
