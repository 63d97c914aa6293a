package otel

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/tppkit/psd2/client"
)

// TestNilContexts checks that the observer does not panic when the
// client reports an attempt or an operation's end with a nil context.
// Before the fix, StartAttempt, ObserveAttempt and EndOperation called
// ctx.Value on the nil context (opContextOf) and panicked.
func TestNilContexts(t *testing.T) {
	r := newRecorded(t)
	start := client.OperationStart{Operation: "accounts.Balances", Method: "GET", Route: "/v1/accounts/{id}/balances",
		Bank: "bank.example", Start: time.Now()}
	for name, f := range map[string]func(){
		"StartOperation": func() { r.o.StartOperation(nil, start) },
		"StartAttempt": func() {
			r.o.StartAttempt(nil, client.AttemptStart{OperationStart: start, Attempt: 1, Start: start.Start})
		},
		"ObserveAttempt": func() {
			r.o.ObserveAttempt(nil, client.AttemptEvent{OperationStart: start, Attempt: 1, Start: start.Start,
				Sent: true, StatusCode: 200, Outcome: client.OutcomeOK})
		},
		"EndOperation": func() {
			r.o.EndOperation(nil, client.OperationEvent{OperationStart: start, Attempts: 1, Sent: true,
				StatusCode: 200, Outcome: client.OutcomeOK})
		},
	} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s with a nil context panicked: %v", name, p)
				}
			}()
			f()
		}()
	}
}

// TestSpanCodesAndErrorTypeBounded checks that a bank's text handed
// to the observer as a tppMessage code, or an error type outside the
// client's closed set, never reaches a span (attributes, status). Before
// the fix, psd2.tpp_message.codes carried the codes as given (the metric
// label alone went through the list of known codes), and error.type and
// the span status description carried ErrorType as given.
func TestSpanCodesAndErrorTypeBounded(t *testing.T) {
	const planted = "Kari Nordmann 01019912345"
	r := newRecorded(t)
	start := client.OperationStart{Operation: "accounts.Balances", Method: "GET", Route: "/v1/accounts/{id}/balances",
		Bank: "bank.example", Start: time.Now()}
	ctx := r.o.StartOperation(context.Background(), start)
	r.o.ObserveAttempt(ctx, client.AttemptEvent{OperationStart: start, Attempt: 1, Start: start.Start, Sent: true,
		StatusCode: 400, Outcome: client.OutcomeRefused, Codes: []string{planted, "FORMAT_ERROR"}, Retry: true})
	r.o.ObserveAttempt(ctx, client.AttemptEvent{OperationStart: start, Attempt: 2, Start: start.Start, Sent: true,
		Outcome: client.OutcomeFailed, ErrorType: "dial tcp 203.0.113.77:443: " + planted})
	r.o.EndOperation(ctx, client.OperationEvent{OperationStart: start, Attempts: 2, Sent: true, StatusCode: 400,
		Outcome: client.OutcomeRefused, Codes: []string{planted}})
	var dump strings.Builder
	for _, s := range r.spans.Ended() {
		dump.WriteString(s.Name() + " " + s.Status().Description + "\n")
		set := attribute.NewSet(s.Attributes()...)
		dump.WriteString(set.Encoded(attribute.DefaultEncoder()) + "\n")
	}
	out := dump.String()
	if strings.Contains(out, planted) || strings.Contains(out, "203.0.113.77") {
		t.Errorf("a bank's or transport's text reached a span:\n%s", out)
	}
	if !strings.Contains(out, "FORMAT_ERROR") || !strings.Contains(out, "OTHER") {
		t.Errorf("known codes and OTHER are kept:\n%s", out)
	}
}

// TestObserveAfterEnd checks that an attempt reported after its
// operation ended (attempts out of order) still ends its span. Before
// the fix, ObserveAttempt kept it as the operation's last attempt span,
// for an EndOperation that had already run: it was never ended, nor
// exported.
func TestObserveAfterEnd(t *testing.T) {
	r := newRecorded(t)
	start := client.OperationStart{Operation: "accounts.Balances", Method: "GET", Route: "/v1/accounts/{id}/balances",
		Bank: "bank.example", Start: time.Now()}
	ctx := r.o.StartOperation(context.Background(), start)
	r.o.EndOperation(ctx, client.OperationEvent{OperationStart: start, Attempts: 1, Sent: true, StatusCode: 200, Outcome: client.OutcomeOK})
	actx := r.o.StartAttempt(ctx, client.AttemptStart{OperationStart: start, Attempt: 1, Start: start.Start})
	r.o.ObserveAttempt(actx, client.AttemptEvent{OperationStart: start, Attempt: 1, Start: start.Start, Sent: true,
		StatusCode: 200, Outcome: client.OutcomeOK})
	if n := len(r.spans.Ended()); n != 2 {
		t.Errorf("%d spans ended, want 2 (the operation's and its late attempt's)", n)
	}
}
