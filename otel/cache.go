package otel

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"
)

// cacheLimit bounds the entries of each of an Observer's caches. Their
// keys take few values (the SDK's operations x the banks a TPP talks to
// x a handful of classes); past the limit the values are built afresh at
// each call, the same values at a higher cost.
const cacheLimit = 1024

// boundedCache is a concurrent map from K to V that stores at most limit
// entries. Values are built by a plain function of the key, so a value
// built afresh equals a cached one.
type boundedCache[K comparable, V any] struct {
	m     sync.Map // K -> V
	n     atomic.Int64
	limit int64
}

// get returns k's value, cached or built by build.
func (c *boundedCache[K, V]) get(k K, build func(K) V) V {
	if v, ok := c.m.Load(k); ok {
		return v.(V)
	}
	v := build(k)
	if c.n.Load() < c.limit {
		if _, loaded := c.m.LoadOrStore(k, v); !loaded {
			c.n.Add(1)
		}
	}
	return v
}

// len is the number of entries stored.
func (c *boundedCache[K, V]) len() int { return int(c.n.Load()) }

// Span start options that never change, made once rather than at each
// call (trace.WithSpanKind allocates a closure).
var (
	kindInternal = trace.WithSpanKind(trace.SpanKindInternal)
	kindClient   = trace.WithSpanKind(trace.SpanKindClient)
)

// setKey identifies a metric attribute set.
type setKey struct {
	kind            byte // 'r' request, 'o' operation outcome, 'b' budget
	op, bank, class string
	code            string // 'o': the bank's error code (errorCode)
}

// measure are the options of a measurement carrying one attribute set,
// as slices to pass on as they are (no slice made per measurement).
type measure struct {
	add []metric.AddOption
	rec []metric.RecordOption
}

// buildSet returns the measurement options carrying k's attribute set.
func buildSet(k setKey) measure {
	kvs := []attribute.KeyValue{AttrOperation.String(k.op), AttrBank.String(k.bank)}
	switch k.kind {
	case 'r':
		kvs = append(kvs, AttrStatusClass.String(k.class))
	case 'o':
		kvs = append(kvs, AttrOutcome.String(k.class), AttrErrorCode.String(k.code))
	}
	opt := metric.WithAttributeSet(attribute.NewSet(kvs...))
	return measure{add: []metric.AddOption{opt}, rec: []metric.RecordOption{opt}}
}

// routeKey identifies what an operation's spans share: the SDK call, its
// route and the bank.
type routeKey struct {
	op, method, route, bank string
}

// route is what the spans of one routeKey share, made once.
type route struct {
	// opAttrs are the operation span's attributes.
	opAttrs trace.SpanStartEventOption
	// attemptName is the attempt span's name ("GET /v1/...").
	attemptName string
	// attemptFirst and attemptResent are the attempt span's start
	// options: its attributes (method, server.address, url.template,
	// operation, server.port when the bank's host has one), and
	// http.request.resend_count 1 for a second attempt.
	attemptFirst, attemptResent trace.SpanStartEventOption
	// attemptHead are those attributes of every attempt.
	attemptHead []attribute.KeyValue
}

// attemptStart returns the start option of the attempt numbered n, with
// its attributes.
func (r *route) attemptStart(n int) trace.SpanStartEventOption {
	switch n {
	case 1:
		return r.attemptFirst
	case 2:
		return r.attemptResent
	}
	return resent(r.attemptHead, n-1)
}

// resent is the start option of an attempt with head's attributes, sent
// again for the nth time.
func resent(head []attribute.KeyValue, n int) trace.SpanStartEventOption {
	return trace.WithAttributes(append(head[:len(head):len(head)], semconv.HTTPRequestResendCount(n))...)
}

func buildRoute(k routeKey) *route {
	host, port := splitHostPort(k.bank)
	r := &route{
		opAttrs: trace.WithAttributes(AttrOperation.String(k.op), AttrBank.String(k.bank),
			semconv.HTTPRequestMethodKey.String(k.method), semconv.URLTemplate(k.route)),
		attemptName: k.method + " " + k.route,
		attemptHead: []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(k.method), semconv.ServerAddress(host),
			semconv.URLTemplate(k.route), AttrOperation.String(k.op)},
	}
	if port > 0 {
		r.attemptHead = append(r.attemptHead, semconv.ServerPort(port))
	}
	r.attemptFirst = trace.WithAttributes(r.attemptHead...)
	r.attemptResent = resent(r.attemptHead, 1)
	return r
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
