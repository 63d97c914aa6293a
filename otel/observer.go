package otel

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/tppkit/psd2/client"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/tppkit/psd2/otel"

// Attribute keys of the SDK's own attributes (the rest follow the HTTP
// client semantic conventions).
const (
	// AttrOperation is the SDK call, such as "payments.Create".
	AttrOperation = attribute.Key("psd2.operation")
	// AttrBank names the bank: its directory id (the name given with
	// client.WithBank), else the host of its base URL
	// ([client.OperationStart].Bank).
	AttrBank = attribute.Key("psd2.bank")
	// AttrOutcome is the outcome class ([client.Outcome.String]).
	AttrOutcome = attribute.Key("psd2.outcome")
	// AttrErrorCode is the bank's error code an operation ended with, on
	// [MetricOutcomes] and [MetricOperationDuration]: the first tppMessage
	// code of the bank's error answer that is in the interface's list
	// ([client.Codes]), "OTHER" for an error answer without one, "none"
	// when the operation ended without an error answer of the bank.
	AttrErrorCode = attribute.Key("psd2.error.code")
	// AttrCodes are the bank's tppMessage codes ([client.Codes]), each
	// once, in the order of their first message; a code outside the
	// list is "OTHER".
	AttrCodes = attribute.Key("psd2.tpp_message.codes")
	// AttrStatusClass is "2xx", "4xx", "5xx" (and so on) or "none".
	AttrStatusClass = attribute.Key("http.response.status_class")
	// AttrAttempts is the number of attempts of an operation.
	AttrAttempts = attribute.Key("psd2.attempts")
	// AttrSent says whether a byte of the call may have left.
	AttrSent = attribute.Key("psd2.sent")
	// AttrBudgetLeft is the without-PSU budget's calls left.
	AttrBudgetLeft = attribute.Key("psd2.budget.left")
)

// Observer is a [client.Observer] that records OpenTelemetry spans and
// metrics. Make one with [New], give it to the client with
// client.WithObserver, and register lifecycle gauges with
// [Observer.RegisterGauges].
type Observer struct {
	tracer trace.Tracer
	meter  metric.Meter

	duration metric.Float64Histogram
	opDur    metric.Float64Histogram
	outcomes metric.Int64Counter
	spent    metric.Int64Counter
	refused  metric.Int64Counter
	rounds   metric.Int64Counter
	lateness metric.Float64Histogram
	routes   boundedCache[routeKey, *route]
	// The label values exported, each set bounded (cache.go).
	banks, operations, routeNames, hosts admitted
	// exemplars: WithExemplars.
	exemplars bool
	// The attributes spans end with, when they carry no codes.
	attemptEnds boundedCache[attemptEndKey, []attribute.KeyValue]
	opEnds      boundedCache[opEndKey, []attribute.KeyValue]
	// deferred keeps measurements to record in batches (deferred.go).
	deferred deferred
}

// route returns what the spans and measurements of op share, built once.
// Its values are bounded: each of bank, operation, route and host is one
// of the first values of its kind the Observer saw, else OtherValue; the
// method one of the known ones, else OtherValue.
func (o *Observer) route(op client.OperationStart) *route {
	k := routeKey{op.Operation, op.Method, op.Route, op.Bank, op.Host}
	if r, ok := o.routes.load(k); ok {
		return r
	}
	r := buildRoute(o.exported(k))
	o.routes.store(k, r)
	return r
}

// exported returns k with each value as it is exported.
func (o *Observer) exported(k routeKey) routeKey {
	k.op, k.route = o.operations.value(k.op), o.routeNames.value(k.route)
	k.bank = o.bankValue(k.bank)
	if k.host != "" {
		k.host = o.hosts.value(k.host)
	}
	if !knownMethods[k.method] {
		k.method = OtherValue
	}
	return k
}

// bankValue is the psd2.bank value of bank: bank, else OtherValue past
// the limit of banks.
func (o *Observer) bankValue(bank string) string { return o.banks.value(bank) }

// Option configures [New].
type Option func(*Observer) error

// WithTracerProvider records spans with tp instead of the global provider.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *Observer) error {
		if tp == nil {
			return errors.New("otel: nil TracerProvider")
		}
		o.tracer = tp.Tracer(ScopeName)
		return nil
	}
}

// WithExemplars records the measurements of operations and attempts with
// the context of their span, so that the meter provider's exemplar
// filter (the SDK's default keeps those of sampled spans) can link a
// point of a metric to the trace of a call. Without it they are recorded
// without one, and carry no exemplar: exemplars cost 0.2 to 0.9 percent
// of a signed request in BenchmarkPerRequestCost, and need an exporter
// and a backend that keep them. With it each measurement is also
// recorded as its call ends, not kept for a batch (see New).
func WithExemplars() Option {
	return func(o *Observer) error {
		o.exemplars = true
		return nil
	}
}

// measureCtx is the context an operation's measurements are recorded
// with: ctx with WithExemplars, else one without its span.
func (o *Observer) measureCtx(ctx context.Context) context.Context {
	if o.exemplars {
		return ctx
	}
	return context.Background()
}

// WithMeterProvider records metrics with mp instead of the global provider.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *Observer) error {
		if mp == nil {
			return errors.New("otel: nil MeterProvider")
		}
		o.meter = mp.Meter(ScopeName)
		return nil
	}
}

// Metric names. The description (a scrape's HELP line) of each metric an
// on-call engineer alerts on names the psd2 command to run; the README
// lists them.
const (
	MetricRequestDuration   = "psd2.client.request.duration"
	MetricOperationDuration = "psd2.client.operation.duration"
	MetricOutcomes          = "psd2.client.operations"
	MetricBudgetSpent       = "psd2.budget.calls.spent"
	MetricBudgetRefused     = "psd2.budget.calls.refused"
	MetricConsents          = "psd2.consents"
	MetricCertificateDays   = "psd2.certificate.days_left"
	MetricJournalInDoubt    = "psd2.journal.in_doubt"
	MetricRefreshRounds     = "psd2.refresh.rounds"
	MetricRefreshLateness   = "psd2.refresh.start_lateness"
	MetricBankBreaker       = "psd2.bank.breaker"
	MetricBankRequests      = "psd2.bank.requests"
	MetricBankLatency       = "psd2.bank.latency"
	MetricQueueJobs         = "psd2.refresh.queue.jobs"
	MetricQueuePaused       = "psd2.refresh.queue.paused"
	MetricGaugeReadable     = "psd2.gauge.readable"
)

// descriptions are the metrics' descriptions (the HELP line of a
// Prometheus scrape), by metric name. Those an on-call engineer alerts on
// say what to do, naming the psd2 command to run (cmd/psd2). The
// <psd2_bank> they name is the value of the point's psd2.bank label: the
// bank's directory id, which psd2 -bank takes, for a client named with
// client.WithBank.
var descriptions = map[string]string{
	MetricRequestDuration:   "Duration of each signed HTTP request to the bank, by operation, bank and status class.",
	MetricOperationDuration: "Duration of each SDK operation, retries and waits included, by outcome and the bank's error code.",
	MetricOutcomes: "SDK operations by outcome and the bank's error code. unknown: a payment may be in doubt, " +
		"run `psd2 journal list`; budget_refused or ACCESS_EXCEEDED: run `psd2 budget -bank <psd2_bank>`; " +
		"CONSENT_EXPIRED, CONSENT_INVALID or sca_required: the PSU must consent again; " +
		"CERTIFICATE_* or SIGNATURE_*: run `psd2 keyid` and `psd2 probe -bank <psd2_bank>`.",
	MetricBudgetSpent: "Calls counted against a without-PSU budget (4 a day per account). " +
		"Run `psd2 budget -bank <psd2_bank>` for an account's count and its next allowed call.",
	MetricBudgetRefused: "Calls refused before sending because a without-PSU budget was spent. " +
		"Run `psd2 budget -bank <psd2_bank>` for an account's count and its next allowed call.",
	MetricConsents: "Live consents by days left until they end. Those in expired and 0-6 need the PSU to consent again.",
	MetricCertificateDays: "Days until each certificate expires, by role and serial. Renew it before 0; " +
		"run `psd2 keyid` on the new certificate and `psd2 probe` to check that the bank accepts it.",
	MetricJournalInDoubt: "Payment journal entries in doubt: the bank may have made the payment. " +
		"Run `psd2 journal list`, then `psd2 journal resolve <request id>` for each.",
	MetricRefreshRounds: "Refresh rounds by result (done, snoozed, failed). Snoozed rounds wait for a budget " +
		"(run `psd2 budget -bank <psd2_bank>`) or for the bank: its circuit breaker open, its pause or its rate limit " +
		"(run `psd2 health -bank <psd2_bank>`).",
	MetricRefreshLateness: "How late each refresh round started after its planned time: high values mean the workers fall behind.",
	MetricBankBreaker: "The bank's circuit breaker: 0 closed, 1 open (the bank is unavailable; calls fail fast), 2 half-open. " +
		"Run `psd2 health -bank <psd2_bank>`, and `psd2 health report -bank <psd2_bank> -from ... -to ...` for the record to file.",
	MetricBankRequests: "Requests to the bank in the last minute by result (answered, 5xx, timeout, no_answer; 429 among answered). " +
		"Run `psd2 health -bank <psd2_bank>`.",
	MetricBankLatency: "Latency of the bank's answers in the last minute, by quantile (p50, p95, p99).",
	MetricQueueJobs: "Refresh jobs in each bank's River queue by state (available, running, scheduled: snoozed or planned, " +
		"retryable, discarded, cancelled). Retryable or discarded rising: run `psd2 health -bank <psd2_bank>` " +
		"and read the jobs' errors in River's UI; available rising while running stays flat: the workers are down or fall behind.",
	MetricQueuePaused: "1 while the bank's River refresh queue is paused (the bank's 429 with Retry-After, its open breaker, " +
		"or an operator in River's UI), else 0. Run `psd2 health -bank <psd2_bank>` and `psd2 budget -bank <psd2_bank>`; " +
		"a queue an operator paused is resumed in River's UI.",
	MetricGaugeReadable: "1 when the gauge named by psd2_gauge read its source at the last collection, 0 when it could not: " +
		"its points are then missing, not zero, and an alert on its value stays quiet. At 0, run the gauge's command " +
		"(`psd2 journal list`, `psd2 health -bank <psd2_bank>`) to see the store's error.",
}

// durationBuckets are the histogram bounds in seconds (those the HTTP
// semantic conventions advise).
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// New returns an Observer recording through the global providers unless
// WithTracerProvider and WithMeterProvider say otherwise.
//
// On the OpenTelemetry SDK's meter the Observer keeps an operation's
// measurements and records them in batches of up to 64: when a batch
// fills, before each collection of a reader (a callback of an
// instrument, psd2.client.deferred_measurements, that observes nothing
// and is never exported), and at most a second after the batch's first.
// A reader therefore never misses a measurement of a call that ended
// before it collected. Recorded in a batch, a measurement costs a
// fraction of what it costs alone between two signed requests, with the
// SDK's code and data out of the processor's caches. With another meter,
// a view that drops that instrument, or WithExemplars, each measurement
// is recorded as its call ends.
func New(opts ...Option) (*Observer, error) {
	o := &Observer{tracer: otel.GetTracerProvider().Tracer(ScopeName), meter: otel.GetMeterProvider().Meter(ScopeName)}
	o.routes.limit, o.attemptEnds.limit, o.opEnds.limit = cacheLimit, cacheLimit, cacheLimit
	o.banks.limit, o.operations.limit, o.routeNames.limit, o.hosts.limit = bankLimit, operationLimit, routeLimit, hostLimit
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	m := o.meter
	var errs []error
	var err error
	o.duration, err = m.Float64Histogram(MetricRequestDuration, metric.WithUnit("s"),
		metric.WithDescription(descriptions[MetricRequestDuration]), metric.WithExplicitBucketBoundaries(durationBuckets...))
	errs = append(errs, err)
	o.opDur, err = m.Float64Histogram(MetricOperationDuration, metric.WithUnit("s"),
		metric.WithDescription(descriptions[MetricOperationDuration]), metric.WithExplicitBucketBoundaries(durationBuckets...))
	errs = append(errs, err)
	o.outcomes, err = m.Int64Counter(MetricOutcomes, metric.WithUnit("{operation}"),
		metric.WithDescription(descriptions[MetricOutcomes]))
	errs = append(errs, err)
	o.spent, err = m.Int64Counter(MetricBudgetSpent, metric.WithUnit("{call}"),
		metric.WithDescription(descriptions[MetricBudgetSpent]))
	errs = append(errs, err)
	o.refused, err = m.Int64Counter(MetricBudgetRefused, metric.WithUnit("{call}"),
		metric.WithDescription(descriptions[MetricBudgetRefused]))
	errs = append(errs, err)
	o.rounds, err = m.Int64Counter(MetricRefreshRounds, metric.WithUnit("{round}"),
		metric.WithDescription(descriptions[MetricRefreshRounds]))
	errs = append(errs, err)
	o.lateness, err = m.Float64Histogram(MetricRefreshLateness, metric.WithUnit("s"),
		metric.WithDescription(descriptions[MetricRefreshLateness]),
		metric.WithExplicitBucketBoundaries(1, 5, 15, 60, 300, 900, 3600, 4*3600))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := o.startDeferring(); err != nil {
		return nil, err
	}
	return o, nil
}

// StartOperation starts the operation's span (internal kind) now: the
// client calls it when the operation starts. The context it returns
// carries the span and what the operation's attempts and its end share,
// so that they look nothing up again.
func (o *Observer) StartOperation(ctx context.Context, op client.OperationStart) context.Context {
	ctx = orBackground(ctx)
	r := o.route(op)
	ctx, span := o.tracer.Start(ctx, r.key.op, r.opStart...)
	return &opContext{Context: ctx, span: span, r: r}
}

// orBackground returns ctx, or context.Background() for a nil one: the
// observer never panics on what the client hands it.
func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// safeCodes returns codes with each code outside the interface's list
// replaced by "OTHER" (client.SafeCode) and each code after its first
// left out, so that a span holds at most one entry per code of the list
// and OTHER, however many messages the bank's answer holds (its error
// body may hold thousands); codes itself when all are in the list, once.
func safeCodes(codes []string) []string {
	for i, c := range codes {
		if !knownCodes[c] && c != "OTHER" || slices.Contains(codes[:i], c) {
			out := make([]string, i, min(len(codes), len(knownCodes)+1))
			copy(out, codes[:i])
			for _, c := range codes[i:] {
				if c = client.SafeCode(c); c == "" {
					c = "OTHER"
				}
				if !slices.Contains(out, c) {
					out = append(out, c)
				}
			}
			return out
		}
	}
	return codes
}

// opKey is the context key of an operation's opContext.
type opKey struct{}

// opContext is the context StartOperation returns: the tracer's, which
// carries the operation's span, with the operation's route and the spans
// of its attempts. One operation's calls come one after the other (the
// client makes them on the caller's goroutine); mu guards the spans
// against an Observer shared by a caller that does not.
type opContext struct {
	context.Context
	span trace.Span
	r    *route

	mu sync.Mutex
	// live is the span StartAttempt started for the attempt that runs,
	// until ObserveAttempt takes it.
	live trace.Span
	// last is the span of the operation's last attempt (one after which
	// no retry follows), which EndOperation ends at lastEnd, the
	// attempt's end, together with the operation's.
	last    trace.Span
	lastEnd time.Time
	// ended says EndOperation ran: an attempt observed later ends its
	// span at once.
	ended bool
	// endOpts holds the option an attempt's span ends with, so that
	// ending it makes no slice.
	endOpts [1]trace.SpanEndOption
}

// Value returns c for opKey, else ctx's value.
func (c *opContext) Value(key any) any {
	if key == (opKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// opContextOf returns the opContext ctx carries, nil without one (an
// operation this Observer did not start).
func opContextOf(ctx context.Context) *opContext {
	c, _ := ctx.Value(opKey{}).(*opContext)
	return c
}

// endAt ends an attempt's span at t; c.mu is held.
func (c *opContext) endAt(span trace.Span, t time.Time) {
	c.endOpts[0] = trace.WithTimestamp(t)
	span.End(c.endOpts[:]...)
	c.endOpts[0] = nil
}

// endLast ends the last attempt's span, if any; c.mu is held.
func (c *opContext) endLast() {
	if c.last != nil {
		c.endAt(c.last, c.lastEnd)
		c.last = nil
	}
}

// attemptKey is the context key of the attempt span StartAttempt started
// in an operation this Observer did not start.
type attemptKey struct{}

// StartAttempt starts the attempt's client span now, a child of the
// operation's: the client calls it when the attempt starts. The span ends
// at the attempt's end (see ObserveAttempt). The returned context carries it: the
// client sends the attempt's request with it, so that spans of an
// instrumented transport are the attempt's children.
func (o *Observer) StartAttempt(ctx context.Context, a client.AttemptStart) context.Context {
	ctx = orBackground(ctx)
	oc := opContextOf(ctx)
	if oc == nil {
		r := o.route(a.OperationStart)
		ctx, span := o.tracer.Start(ctx, r.attemptName, r.attemptStart(a.Attempt)...)
		return context.WithValue(ctx, attemptKey{}, span)
	}
	ctx, span := o.tracer.Start(ctx, oc.r.attemptName, oc.r.attemptStart(a.Attempt)...)
	oc.mu.Lock()
	oc.endLast() // an attempt said to be the last was not
	if oc.live != nil {
		oc.live.End() // never observed
	}
	oc.live = span
	oc.mu.Unlock()
	return ctx
}

// ObserveAttempt ends the attempt's client span that StartAttempt
// started, at the attempt's end (a.Start plus a.Duration), with the
// attempt's outcome, and records its duration. Called without
// StartAttempt (with the operation's context), it records the span after
// the fact, from a.Start. The span of an operation's last attempt (no
// retry follows it) is handed to the span processor by EndOperation,
// just before the operation's own, so that a batch span processor is
// woken once per operation rather than twice; its timestamps are the
// same.
func (o *Observer) ObserveAttempt(ctx context.Context, a client.AttemptEvent) {
	ctx = orBackground(ctx)
	oc := opContextOf(ctx)
	var span trace.Span
	var r *route
	if oc != nil {
		r = oc.r
		oc.mu.Lock()
		span, oc.live = oc.live, nil
		oc.mu.Unlock()
	} else {
		r = o.route(a.OperationStart)
		span, _ = ctx.Value(attemptKey{}).(trace.Span)
	}
	if span == nil {
		opts := append([]trace.SpanStartOption{trace.WithTimestamp(a.Start)}, r.attemptStart(a.Attempt)...)
		_, span = o.tracer.Start(ctx, r.attemptName, opts...)
	}
	errType := client.SafeErrorType(a.ErrorType)
	if errType == "" && a.StatusCode >= 400 {
		errType = strconv.Itoa(a.StatusCode)
	}
	k := attemptEndKey{a.Outcome, a.Sent, a.StatusCode, errType}
	var attrs []attribute.KeyValue
	if len(a.Codes) == 0 {
		attrs = o.attemptEnds.get(k, buildAttemptEnd)
	} else {
		attrs = append(buildAttemptEnd(k), AttrCodes.StringSlice(safeCodes(a.Codes)))
	}
	span.SetAttributes(attrs...)
	if errType != "" {
		span.SetStatus(codes.Error, errType)
	}
	end := a.Start.Add(a.Duration)
	if oc != nil {
		oc.mu.Lock()
		oc.endLast()
		if a.Retry || oc.ended {
			oc.endAt(span, end)
		} else {
			oc.last, oc.lastEnd = span, end
		}
		oc.mu.Unlock()
	} else {
		span.End(trace.WithTimestamp(end))
	}
	if a.Sent {
		o.measure(ctx, pending{inst: instDuration, f: a.Duration.Seconds(), m: &r.requests[statusClass(a.StatusCode)]})
	}
}

// EndOperation ends the span of the operation's last attempt, if
// ObserveAttempt left it, and the operation's span now (the client calls
// it when the operation ends), and counts its outcome.
func (o *Observer) EndOperation(ctx context.Context, e client.OperationEvent) {
	ctx = orBackground(ctx)
	var span trace.Span
	var r *route
	oc := opContextOf(ctx)
	if oc != nil {
		span, r = oc.span, oc.r
	} else {
		span, r = trace.SpanFromContext(ctx), o.route(e.OperationStart)
	}
	k := opEndKey{outcome: e.Outcome, attempts: e.Attempts, sent: e.Sent, status: e.StatusCode}
	if e.BudgetCalls > 0 {
		k.budget, k.left = true, e.BudgetLeft
	}
	var attrs []attribute.KeyValue
	if len(e.Codes) == 0 {
		attrs = o.opEnds.get(k, buildOpEnd)
	} else {
		attrs = buildOpEndCodes(k, safeCodes(e.Codes))
	}
	span.SetAttributes(attrs...)
	switch e.Outcome {
	case client.OutcomeOK, client.OutcomeCreated:
	default:
		span.SetStatus(codes.Error, e.Outcome.String())
	}
	if oc != nil {
		oc.mu.Lock()
		oc.ended = true
		oc.endLast()
		if oc.live != nil {
			oc.live.End() // never observed
			oc.live = nil
		}
		oc.mu.Unlock()
	}
	span.End()

	set := r.outcome(e.Outcome, errorCode(e))
	ps := [3]pending{{inst: instOutcomes, i: 1, m: set}, {inst: instOpDur, f: e.Duration.Seconds(), m: set}}
	n := 2
	switch {
	case e.Outcome == client.OutcomeBudgetRefused:
		ps[n], n = pending{inst: instRefused, i: 1, m: &r.budget}, n+1
	case e.BudgetCalls > 0 && e.Sent:
		ps[n], n = pending{inst: instSpent, i: int64(e.BudgetCalls), m: &r.budget}, n+1
	}
	o.measure(ctx, ps[:n]...)
}

// knownCodes are the interface's tppMessage codes ([client.Codes]).
var knownCodes = func() map[string]bool {
	m := make(map[string]bool, len(client.Codes))
	for _, c := range client.Codes {
		m[c] = true
	}
	return m
}()

// errorCode is the value of AttrErrorCode for e: the first of its codes
// in the interface's list, "OTHER" for an error answer without one,
// "none" without an error answer.
func errorCode(e client.OperationEvent) string {
	if len(e.Codes) == 0 && (e.StatusCode < 300 || e.StatusCode > 599) {
		return "none"
	}
	for _, c := range e.Codes {
		if knownCodes[c] {
			return c
		}
	}
	return "OTHER"
}

// statusClasses are the values of AttrStatusClass, by statusClass.
var statusClasses = [...]string{0: "none", 1: "1xx", 2: "2xx", 3: "3xx", 4: "4xx", 5: "5xx"}

// statusClass is the index in statusClasses of a status's class: its
// first digit, 0 ("none") without a status.
func statusClass(status int) int {
	if status < 100 || status > 599 {
		return 0
	}
	return status / 100
}

var _ client.AttemptStarter = (*Observer)(nil)
