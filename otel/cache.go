package otel

import (
	"maps"
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/tppkit/psd2/client"
)

// cacheLimit bounds the entries of each of an Observer's caches. Their
// keys take few values (the SDK's operations x the banks a TPP talks to
// x a handful of classes); past the limit the values are built afresh at
// each call, the same values at a higher cost.
const cacheLimit = 1024

// boundedCache is a concurrent map from K to V that stores at most limit
// entries. Values are built by a plain function of the key, so a value
// built afresh equals a cached one. Readers look the key up in a plain
// map without a lock (the map is never written once published); a
// writer publishes a copy that holds one more entry. The keys take few
// values and are stored once each, so copies are rare; a lookup hashes
// its key with the key type's own hash function, where a sync.Map keyed
// by any hashes a struct through the runtime's generic hash, which reads
// the type's field metadata at each call.
type boundedCache[K comparable, V any] struct {
	m     atomic.Pointer[map[K]V]
	mu    sync.Mutex // serialises writers
	limit int
}

// get returns k's value, cached or built by build.
func (c *boundedCache[K, V]) get(k K, build func(K) V) V {
	if v, ok := c.load(k); ok {
		return v
	}
	v := build(k)
	c.store(k, v)
	return v
}

// load returns k's value if it is cached.
func (c *boundedCache[K, V]) load(k K) (V, bool) {
	if m := c.m.Load(); m != nil {
		v, ok := (*m)[k]
		return v, ok
	}
	var zero V
	return zero, false
}

// store caches v as k's value, unless the cache is full or holds k
// already (a value stored first stays).
func (c *boundedCache[K, V]) store(k K, v V) {
	if c.len() >= c.limit { // full: no lock taken past the limit
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	n := 0
	if old != nil {
		if _, ok := (*old)[k]; ok {
			return
		}
		n = len(*old)
	}
	if n >= c.limit {
		return
	}
	m := make(map[K]V, n+1)
	if old != nil {
		maps.Copy(m, *old)
	}
	m[k] = v
	c.m.Store(&m)
}

// len is the number of entries stored.
func (c *boundedCache[K, V]) len() int {
	if m := c.m.Load(); m != nil {
		return len(*m)
	}
	return 0
}

// Label value limits: the distinct values of each label an Observer
// exports. The SDK's operations are a few dozen, its routes as many, and
// a TPP's banks (the directory's ids, or hosts) a few hundred at most;
// past its limit a new value (a caller's per-request name given with
// client.WithBank or as an operation's name, a path of a custom call
// that is not the interface's, a bank host that varies) is exported as
// [OtherValue], so that no caller or bank can grow a metric's series or
// the span names without bound.
const (
	bankLimit      = 256
	operationLimit = 256
	routeLimit     = 256
	hostLimit      = 256
)

// OtherValue stands for a label value past its limit (a bank, an
// operation, a route, a host), and for an HTTP method that is not one of
// the known ones, as the semantic conventions write it.
const OtherValue = "_OTHER"

// admitted is a set of label values that admits the first limit values
// it is asked about; any later one is OtherValue. A value admitted stays.
type admitted struct {
	mu    sync.RWMutex
	m     map[string]struct{}
	limit int
}

// value returns v when it is admitted (or can be), else OtherValue.
func (a *admitted) value(v string) string {
	a.mu.RLock()
	_, ok := a.m[v]
	a.mu.RUnlock()
	if ok {
		return v
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.m[v]; ok {
		return v
	}
	if len(a.m) >= a.limit {
		return OtherValue
	}
	if a.m == nil {
		a.m = make(map[string]struct{})
	}
	a.m[v] = struct{}{}
	return v
}

// knownMethods are the HTTP methods of the semantic conventions (RFC 9110
// and PATCH); any other is exported as OtherValue.
var knownMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "DELETE": true,
	"CONNECT": true, "OPTIONS": true, "TRACE": true, "PATCH": true}

// Span start options that never change, made once rather than at each
// call (trace.WithSpanKind allocates a closure).
var (
	kindInternal = trace.WithSpanKind(trace.SpanKindInternal)
	kindClient   = trace.WithSpanKind(trace.SpanKindClient)
)

// measure are the options of a measurement carrying one attribute set,
// as slices to pass on as they are (no slice made per measurement).
type measure struct {
	add []metric.AddOption
	rec []metric.RecordOption
}

// newMeasure returns the measurement options carrying kvs.
func newMeasure(kvs ...attribute.KeyValue) measure {
	opt := metric.WithAttributeSet(attribute.NewSet(kvs...))
	return measure{add: []metric.AddOption{opt}, rec: []metric.RecordOption{opt}}
}

// outcomeKey identifies an operation's outcome attribute set.
type outcomeKey struct {
	outcome client.Outcome
	code    string
}

// outcomeLimit bounds the outcome sets a route keeps: the outcome
// classes times the interface's codes, OTHER and none.
const outcomeLimit = 512

// routeKey identifies what an operation's spans and measurements share:
// the SDK call, its route and the bank.
type routeKey struct {
	op, method, route, bank, host string
}

// route is what the spans and measurements of one routeKey share, made
// once.
type route struct {
	key routeKey
	// requests are the attribute sets of MetricRequestDuration (operation,
	// bank, status class), by statusClass; budget that of the budget's
	// counters (operation, bank).
	requests [len(statusClasses)]measure
	budget   measure
	// outcomes are the attribute sets of MetricOutcomes and
	// MetricOperationDuration: operation, bank, outcome, error code.
	outcomes boundedCache[outcomeKey, *measure]
	// opStart are the operation span's start options: kind internal and
	// its first attributes, psd2.operation and psd2.bank (the HTTP ones
	// are its attempts'). A span holds at most 8 attributes in the common
	// cases. The SDK (v1.47) deduplicates a span's attributes through a
	// map when the span ends, whatever their keys, once any was set (at
	// its start as well as later); the map is made for the span's count
	// of attributes and, for 8 or fewer, kept on the stack: past 8 it
	// costs 3 allocations more a span (TestSpanAttributeMapPast8).
	// Options are passed on as a slice made once, so that a call
	// allocates none.
	opStart []trace.SpanStartOption
	// attemptName is the attempt span's name ("GET /v1/...").
	attemptName string
	// attemptFirst and attemptResent are the attempt span's start
	// options: kind client, its attributes (method, server.address,
	// url.template, server.port when the bank's host has one; the
	// operation is its parent's), and http.request.resend_count 1 for a
	// second attempt.
	attemptFirst, attemptResent []trace.SpanStartOption
	// attemptHead are those attributes of every attempt.
	attemptHead []attribute.KeyValue
}

// attemptStart returns the start options of the attempt numbered n, with
// its attributes.
func (r *route) attemptStart(n int) []trace.SpanStartOption {
	switch n {
	case 1:
		return r.attemptFirst
	case 2:
		return r.attemptResent
	}
	return resent(r.attemptHead, n-1)
}

// resent is the start options of an attempt with head's attributes, sent
// again for the nth time.
func resent(head []attribute.KeyValue, n int) []trace.SpanStartOption {
	return []trace.SpanStartOption{kindClient,
		trace.WithAttributes(append(head[:len(head):len(head)], semconv.HTTPRequestResendCount(n))...)}
}

// buildRoute builds k's route; k's values are those exported (see
// Observer.route).
func buildRoute(k routeKey) *route {
	hostport := k.host
	if hostport == "" { // an event built elsewhere: the bank's label is its host
		hostport = k.bank
	}
	host, port := splitHostPort(hostport)
	name := k.method
	if name == OtherValue {
		name = "HTTP" // the semantic conventions' name of a span of an unknown method
	}
	r := &route{
		key:         k,
		opStart:     []trace.SpanStartOption{kindInternal, trace.WithAttributes(AttrOperation.String(k.op), AttrBank.String(k.bank))},
		attemptName: name + " " + k.route,
		attemptHead: []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(k.method), semconv.ServerAddress(host),
			semconv.URLTemplate(k.route)},
	}
	if port > 0 {
		r.attemptHead = append(r.attemptHead, semconv.ServerPort(port))
	}
	r.attemptFirst = []trace.SpanStartOption{kindClient, trace.WithAttributes(r.attemptHead...)}
	r.attemptResent = resent(r.attemptHead, 1)
	op, bank := AttrOperation.String(k.op), AttrBank.String(k.bank)
	for i, class := range statusClasses {
		r.requests[i] = newMeasure(op, bank, AttrStatusClass.String(class))
	}
	r.budget = newMeasure(op, bank)
	r.outcomes.limit = outcomeLimit
	return r
}

// outcome returns the attribute set of an operation of r that ended with
// the outcome and the bank's error code.
func (r *route) outcome(o client.Outcome, code string) *measure {
	k := outcomeKey{o, code}
	if m, ok := r.outcomes.load(k); ok {
		return m
	}
	m := newMeasure(AttrOperation.String(r.key.op), AttrBank.String(r.key.bank),
		AttrOutcome.String(o.String()), AttrErrorCode.String(code))
	r.outcomes.store(k, &m)
	return &m
}

// splitHostPort splits "host:port"; without a port the host is all of it.
func splitHostPort(hostport string) (string, int) {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport, 0
	}
	port, _ := strconv.Atoi(p)
	return host, port
}

// attemptEndKey identifies the attributes an attempt span ends with.
type attemptEndKey struct {
	outcome client.Outcome
	sent    bool
	status  int
	errType string
}

// buildAttemptEnd returns the attributes an attempt span of k ends with:
// psd2.outcome, psd2.sent, http.response.status_code (with a status),
// error.type (on a failure).
func buildAttemptEnd(k attemptEndKey) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs, AttrOutcome.String(k.outcome.String()), AttrSent.Bool(k.sent))
	if k.status > 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(k.status))
	}
	if k.errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(k.errType))
	}
	return attrs
}

// opEndKey identifies the attributes an operation span ends with.
type opEndKey struct {
	outcome  client.Outcome
	attempts int
	sent     bool
	status   int
	budget   bool // it counted against a without-PSU budget, which has left calls left
	left     int
}

// buildOpEnd returns the attributes an operation span of k ends with:
// psd2.outcome, psd2.attempts, psd2.sent, http.response.status_code
// (with a status), psd2.budget.left (when it counted against a budget).
func buildOpEnd(k opEndKey) []attribute.KeyValue {
	return buildOpEndCodes(k, nil)
}

// buildOpEndCodes is buildOpEnd with the bank's codes, when there are
// any, before psd2.budget.left.
func buildOpEndCodes(k opEndKey, codes []string) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, AttrOutcome.String(k.outcome.String()), AttrAttempts.Int(k.attempts), AttrSent.Bool(k.sent))
	if k.status > 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(k.status))
	}
	if len(codes) > 0 {
		attrs = append(attrs, AttrCodes.StringSlice(codes))
	}
	if k.budget {
		attrs = append(attrs, AttrBudgetLeft.Int(k.left))
	}
	return attrs
}
