package otel_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"

	psd2otel "github.com/tppkit/psd2/otel"
)

// attr returns the value of key on s.
func attr(s sdktrace.ReadOnlySpan, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// children returns the spans whose parent is p.
func children(all []sdktrace.ReadOnlySpan, p sdktrace.ReadOnlySpan) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range all {
		if s.Parent().SpanID() == p.SpanContext().SpanID() && s.Parent().IsValid() {
			out = append(out, s)
		}
	}
	return out
}

// operations returns the operation spans (roots) named name.
func operations(all []sdktrace.ReadOnlySpan, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range all {
		if s.Name() == name && !s.Parent().IsValid() {
			out = append(out, s)
		}
	}
	return out
}

// TestScriptedRun drives the emulator through a retried GET, budgeted
// reads up to the budget's refusal, a bank refusal and a payment, and
// checks the spans and metrics they leave.
func TestScriptedRun(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()

	// 1. A GET the bank first answers 503: two attempts, the second a
	// resend (with the PSU present: a counted call without the PSU is
	// not retried after a 5xx, see package budget).
	r.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Method: "GET", PathPrefix: "/v1/accounts/", Count: 1})
	_, err := r.acc.Balances(ctx, r.account, r.present())
	require.NoError(t, err)
	// 2. Four budgeted reads, then the budget (4 a day) is spent.
	for range 4 {
		_, err = r.acc.Balances(ctx, r.account, r.absent)
		require.NoError(t, err)
	}
	_, err = r.acc.Balances(ctx, r.account, r.absent)
	require.ErrorIs(t, err, budget.ErrExhausted)
	// 3. A bank refusal: an unknown account.
	_, err = r.acc.Balances(ctx, "enc!!unknown-account", r.absent, client.WithPSU(client.PSU{IPAddress: plantedIP}))
	require.Error(t, err)
	// 4. A payment: created, one attempt.
	init, err := r.paymentAsPSU(t)
	require.NoError(t, err)
	require.NotEmpty(t, init.PaymentID)

	spans := r.spans.Ended()
	bal := operations(spans, "accounts.Balances")
	require.Len(t, bal, 7)
	first := children(spans, bal[0])
	require.Len(t, first, 2, "a retried GET shows its attempts")
	assert.Equal(t, trace.SpanKindClient, first[0].SpanKind())
	v, _ := attr(first[0], "http.response.status_code")
	assert.EqualValues(t, 503, v.AsInt64())
	v, _ = attr(first[0], psd2otel.AttrCodes)
	assert.Equal(t, []string{"SYSTEM_ERROR"}, v.AsStringSlice())
	v, _ = attr(first[0], "error.type")
	assert.Equal(t, "503", v.AsString())
	assert.Equal(t, codes.Error, first[0].Status().Code)
	v, _ = attr(first[1], "http.request.resend_count")
	assert.EqualValues(t, 1, v.AsInt64())
	v, _ = attr(first[1], "http.response.status_code")
	assert.EqualValues(t, 200, v.AsInt64())
	v, _ = attr(first[1], "http.request.method")
	assert.Equal(t, "GET", v.AsString())
	v, _ = attr(first[1], "url.template")
	assert.Equal(t, "/v1/accounts/{id}/balances", v.AsString())
	_, ok := attr(first[1], "server.address")
	assert.True(t, ok)
	v, _ = attr(bal[0], psd2otel.AttrOutcome)
	assert.Equal(t, "ok", v.AsString())
	v, _ = attr(bal[1], psd2otel.AttrBudgetLeft)
	assert.EqualValues(t, 3, v.AsInt64(), "the first counted call")

	refusedSpan := bal[5]
	assert.Empty(t, children(spans, refusedSpan), "a call refused by the budget sends nothing")
	v, _ = attr(refusedSpan, psd2otel.AttrOutcome)
	assert.Equal(t, "budget_refused", v.AsString())

	v, _ = attr(bal[6], psd2otel.AttrOutcome)
	assert.Equal(t, "refused", v.AsString())
	v, _ = attr(bal[6], psd2otel.AttrCodes)
	assert.NotEmpty(t, v.AsStringSlice())

	pay := operations(spans, "payments.CreateNorwegianDomestic")
	require.Len(t, pay, 1)
	require.Len(t, children(spans, pay[0]), 1, "a payment create shows exactly one attempt")
	v, _ = attr(pay[0], psd2otel.AttrOutcome)
	assert.Equal(t, "created", v.AsString())

	rm := r.collect(t)
	outcomes := map[string]int64{}
	m, ok := find(rm, psd2otel.MetricOutcomes)
	require.True(t, ok)
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		o, _ := dp.Attributes.Value(psd2otel.AttrOutcome)
		op, _ := dp.Attributes.Value(psd2otel.AttrOperation)
		code, _ := dp.Attributes.Value(psd2otel.AttrErrorCode)
		outcomes[op.AsString()+"/"+o.AsString()+"/"+code.AsString()] += dp.Value
	}
	assert.Equal(t, map[string]int64{"accounts.Balances/ok/none": 5, "accounts.Balances/budget_refused/none": 1,
		"accounts.Balances/refused/RESOURCE_UNKNOWN": 1, "payments.CreateNorwegianDomestic/created/none": 1}, outcomes,
		"outcomes carry the bank's error code")

	m, ok = find(rm, psd2otel.MetricBudgetSpent)
	require.True(t, ok)
	assert.EqualValues(t, 4, sum(m), "the bank counted four calls: the reads without the PSU")
	m, ok = find(rm, psd2otel.MetricBudgetRefused)
	require.True(t, ok)
	assert.EqualValues(t, 1, sum(m))

	m, ok = find(rm, psd2otel.MetricRequestDuration)
	require.True(t, ok)
	classes := map[string]uint64{}
	for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
		c, _ := dp.Attributes.Value(psd2otel.AttrStatusClass)
		classes[c.AsString()] += dp.Count
	}
	assert.Equal(t, map[string]uint64{"2xx": 6, "5xx": 1, "4xx": 1}, classes, "every request that left, by status class")
}

// sum adds the points of an int64 sum.
func sum(m metricdata.Metrics) int64 {
	var n int64
	for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
		n += dp.Value
	}
	return n
}

// TestRateLimitedAttempt: the bank's 429 with Retry-After is an attempt
// classed rate_limited, with its code, followed by a resend.
func TestRateLimitedAttempt(t *testing.T) {
	r := newRig(t)
	r.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultRateLimit, Method: "GET", PathPrefix: "/v1/accounts/", RetryAfter: time.Second})
	_, err := r.acc.Balances(t.Context(), r.account, r.present())
	require.NoError(t, err)
	spans := r.spans.Ended()
	ops := operations(spans, "accounts.Balances")
	require.Len(t, ops, 1)
	atts := children(spans, ops[0])
	require.Len(t, atts, 2)
	v, _ := attr(atts[0], psd2otel.AttrOutcome)
	assert.Equal(t, "rate_limited", v.AsString())
	v, _ = attr(atts[0], psd2otel.AttrCodes)
	assert.Equal(t, []string{"ACCESS_EXCEEDED"}, v.AsStringSlice())
	v, _ = attr(atts[0], "http.response.status_code")
	assert.EqualValues(t, 429, v.AsInt64())
	v, _ = attr(ops[0], psd2otel.AttrAttempts)
	assert.EqualValues(t, 2, v.AsInt64())
	assert.True(t, atts[1].StartTime().After(atts[0].EndTime()), "the resend came after the wait")
}

// seenRequest is what a transport saw of one request's context.
type seenRequest struct {
	span trace.SpanContext
	at   time.Time
}

// seeingTransport records the span in each request's context.
type seeingTransport struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []seenRequest
}

func (s *seeingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.seen = append(s.seen, seenRequest{trace.SpanContextFromContext(req.Context()), time.Now()})
	s.mu.Unlock()
	return s.next.RoundTrip(req)
}

// TestAttemptSpansLive: each attempt's span is started when the attempt
// starts (client.AttemptStarter), so it is the span in the context of
// the request while the request is sent, and its start and end enclose
// the moment the transport got the request.
func TestAttemptSpansLive(t *testing.T) {
	r := newRig(t)
	tr := &seeingTransport{next: r.s.Client().Transport}
	c, err := client.New(r.s.URL, r.c.Credentials(), client.WithHTTPClient(&http.Client{Transport: tr}),
		client.WithObserver(r.obs), client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}))
	require.NoError(t, err)
	acc, err := accounts.New(c)
	require.NoError(t, err)
	r.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Method: "GET", PathPrefix: "/v1/accounts/", Count: 1})
	_, err = acc.Balances(t.Context(), r.account, r.present())
	require.NoError(t, err)

	spans := r.spans.Ended()
	ops := operations(spans, "accounts.Balances")
	require.Len(t, ops, 1)
	atts := children(spans, ops[0])
	require.Len(t, atts, 2)
	require.Len(t, tr.seen, 2)
	for i, a := range atts {
		seen := tr.seen[i]
		assert.Equal(t, a.SpanContext().SpanID(), seen.span.SpanID(), "attempt %d was sent within its own span", i+1)
		assert.Equal(t, trace.SpanKindClient, a.SpanKind())
		assert.False(t, seen.at.Before(a.StartTime()), "attempt %d's span started before its request was sent", i+1)
		assert.False(t, seen.at.After(a.EndTime()), "attempt %d's span ended after its request was sent", i+1)
		assert.False(t, a.StartTime().Before(ops[0].StartTime()))
		assert.False(t, a.EndTime().After(ops[0].EndTime()))
	}
	v, _ := attr(atts[1], "http.request.resend_count")
	assert.EqualValues(t, 1, v.AsInt64())
	assert.True(t, atts[1].StartTime().After(atts[0].EndTime()))
}
