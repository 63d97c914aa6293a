package otel

import (
	"context"
	"reflect"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
)

// Deferred measurements.
//
// An operation's measurements (its attempts' durations, its duration,
// its outcome, its budget's calls) are not recorded as the operation
// ends but kept in a small batch, recorded together when the batch is
// full (by the call that fills it), when a reader collects, and at most
// deferMaxDelay after the first one was kept. A measurement recorded
// alone, between two signed requests whose RSA operation, TLS and JSON
// have pushed the metric SDK's code and data out of the processor's
// caches, costs several times what the same measurement costs in a
// batch of them (BenchmarkPerRequestCost, docs in the README).
//
// Nothing is lost or late for a reader: the OpenTelemetry SDK runs the
// callback of every observable instrument at the start of each
// collection, and the Observer registers one (deferHookName, which
// observes nothing and so is never exported) whose callback records
// the batch first. Measurements are deferred only when that callback
// is registered with the OpenTelemetry SDK's meter; with any other
// meter, with a view that drops the hook's instrument, or with
// WithExemplars (an exemplar needs the call's context), each is
// recorded at once, as before.

// deferBatch is the most measurements kept before they are recorded.
const deferBatch = 64

// deferMaxDelay bounds how long a measurement is kept when no batch
// fills and no reader collects.
const deferMaxDelay = time.Second

// deferHookName is the observable instrument whose callback records the
// kept measurements at each collection. It observes nothing: an
// instrument without a point is left out of every export.
const deferHookName = "psd2.client.deferred_measurements"

// instrument names a synchronous instrument of the Observer.
type instrument uint8

const (
	instDuration instrument = iota // MetricRequestDuration
	instOpDur                      // MetricOperationDuration
	instOutcomes                   // MetricOutcomes
	instSpent                      // MetricBudgetSpent
	instRefused                    // MetricBudgetRefused
)

// pending is one kept measurement: a float64 histogram's value or an
// int64 counter's increment, with the options carrying its attribute
// set (held by its route, made once).
type pending struct {
	inst instrument
	f    float64
	i    int64
	m    *measure
}

// deferred holds the kept measurements of an Observer.
type deferred struct {
	// on says measurements are kept (the hook is registered with the
	// SDK's meter).
	on bool

	mu    sync.Mutex
	batch []pending
	// spare is the slice of the last batch recorded, for the next batch,
	// so that a batch allocates none.
	spare []pending
	// timer records the batch deferMaxDelay after its first
	// measurement; armed says it runs.
	timer *time.Timer
	armed bool
}

// startDeferring registers the hook that records kept measurements at
// each collection, and turns deferral on if the meter is the
// OpenTelemetry SDK's and the hook took.
func (o *Observer) startDeferring() error {
	if o.exemplars {
		return nil
	}
	hook, err := o.meter.Int64ObservableGauge(deferHookName,
		metric.WithDescription("Never exported: its callback records the psd2 client's kept measurements before each collection."))
	if err != nil {
		return err
	}
	reg, err := o.meter.RegisterCallback(func(context.Context, metric.Observer) error {
		o.flush()
		return nil
	}, hook)
	if err != nil {
		return err
	}
	if !sdkRegistration(reg) {
		if reg != nil {
			_ = reg.Unregister()
		}
		return nil
	}
	o.deferred.on = true
	o.deferred.timer = time.AfterFunc(time.Hour, o.flushTimed)
	o.deferred.timer.Stop()
	return nil
}

// sdkRegistration says whether reg is a callback the OpenTelemetry SDK's
// meter will run at each collection: one of its own, not the no-op it
// returns when every instrument of the callback is dropped by a view.
// It knows that no-op by its type's name, unexported in the SDK: were a
// new SDK version to rename it, TestMeasurementsNotDeferred (a view
// dropping the hook) would fail.
func sdkRegistration(reg metric.Registration) bool {
	if reg == nil {
		return false
	}
	t := reflect.TypeOf(reg)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == "go.opentelemetry.io/otel/sdk/metric" && t.Name() != "noopRegister"
}

// measure records ps now, with the context of the call they measure
// (measureCtx), or keeps them for the next batch. ps are the
// measurements of one call, passed together so that they are kept under
// one lock. A call that fills the batch records it, then keeps the rest
// of ps in the next batch, which reuses the recorded batch's slice.
func (o *Observer) measure(ctx context.Context, ps ...pending) {
	d := &o.deferred
	if !d.on {
		ctx = o.measureCtx(ctx)
		for _, p := range ps {
			o.recordNow(ctx, p)
		}
		return
	}
	for len(ps) > 0 {
		d.mu.Lock()
		if d.batch == nil {
			d.batch, d.spare = d.spare, nil
			if d.batch == nil {
				d.batch = make([]pending, 0, deferBatch)
			}
		}
		n := min(len(ps), deferBatch-len(d.batch))
		d.batch, ps = append(d.batch, ps[:n]...), ps[n:]
		if len(d.batch) < deferBatch {
			if !d.armed {
				d.armed = true
				d.timer.Reset(deferMaxDelay)
			}
			d.mu.Unlock()
			return
		}
		full := d.batch
		d.batch = nil
		d.mu.Unlock()
		o.recordAll(full)
	}
}

// flush records the kept measurements now.
func (o *Observer) flush() { o.recordAll(o.deferred.take(false)) }

// flushTimed is the timer's flush.
func (o *Observer) flushTimed() { o.recordAll(o.deferred.take(true)) }

// take returns the kept measurements and keeps none; timed says the
// timer fired, so that the next measurement kept arms it again.
func (d *deferred) take(timed bool) []pending {
	d.mu.Lock()
	defer d.mu.Unlock()
	if timed {
		d.armed = false
	}
	kept := d.batch
	d.batch = nil
	return kept
}

// recordAll records a batch ps, then keeps its slice as the spare for
// the next batch. The slice is not cleared: its elements point to the
// attribute sets of routes, which the route cache keeps anyway (a route
// built past the cache's limit stays alive while an element points to
// it: 64 at most), and clearing pointers costs write barriers while the
// garbage collector marks.
func (o *Observer) recordAll(ps []pending) {
	if ps == nil {
		return
	}
	ctx := context.Background()
	for _, p := range ps {
		o.recordNow(ctx, p)
	}
	d := &o.deferred
	d.mu.Lock()
	d.spare = ps[:0]
	d.mu.Unlock()
}

// recordNow records p with ctx.
func (o *Observer) recordNow(ctx context.Context, p pending) {
	switch p.inst {
	case instDuration:
		o.duration.Record(ctx, p.f, p.m.rec...)
	case instOpDur:
		o.opDur.Record(ctx, p.f, p.m.rec...)
	case instOutcomes:
		o.outcomes.Add(ctx, p.i, p.m.add...)
	case instSpent:
		o.spent.Add(ctx, p.i, p.m.add...)
	case instRefused:
		o.refused.Add(ctx, p.i, p.m.add...)
	}
}
