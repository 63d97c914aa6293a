package client

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/internal/panicvalue"
	"github.com/tppkit/psd2/store"
)

// Health keeps the health of the banks its clients call: per bank a
// rolling view of the requests (answers, 5xx, timeouts, 429s, latency)
// and the bank's circuit breaker (breaker.go). Give every client of a
// process one Health ([WithHealth]) so that they share each bank's
// breaker; a client without one keeps its own. A Health is safe for
// concurrent use; it holds no personal data.
type Health struct {
	mu    sync.Mutex
	banks map[string]*bankHealth // by Client.Scope
	subs  []func(BreakerChange)
}

// NewHealth returns an empty Health.
func NewHealth() *Health { return &Health{banks: map[string]*bankHealth{}} }

// WithHealth keeps the client's bank health, and its circuit breaker,
// in h, shared with every other client given h.
func WithHealth(h *Health) Option {
	return func(c *config) error {
		if h == nil {
			return errors.New("client: WithHealth(nil)")
		}
		c.health = h
		return nil
	}
}

// Health returns the Health the client reports to ([WithHealth], else
// its own).
func (c *Client) Health() *Health { return c.cfg.health }

// OnChange calls fn with every change of a breaker's state: the start of
// an unavailability (open) and its end (closed), with its downtime
// record. fn runs on the goroutine of the call that caused it, or, for a
// client with a store, on one the client starts for the store's writes
// (the call waits for it only as long as its context lasts). fn must not
// block. A panic of fn is recovered and logged at Error through the
// client's logger ([WithLogger]; slog's default logger without one): it
// ends neither the process nor the call, and the other subscribers are
// still told. Package events turns changes into "bank unavailable" and
// "bank available" events.
func (h *Health) OnChange(fn func(BreakerChange)) {
	h.mu.Lock()
	h.subs = append(h.subs, fn)
	h.mu.Unlock()
}

// BreakerChange is a change of a bank's breaker.
type BreakerChange struct {
	// Bank is the bank's identity ([Client.Bank]); Scope the client's
	// [Client.Scope].
	Bank, Scope string
	// From and To are the states before and after.
	From, To BreakerState
	// At is when it changed (the client's clock).
	At time.Time
	// Downtime is the unavailability the change opened or closed (End
	// zero while it lasts).
	Downtime Downtime
}

// bank returns the state of the bank of c, made on first use.
func (h *Health) bank(c *Client) *bankHealth {
	scope := c.Scope()
	h.mu.Lock()
	defer h.mu.Unlock()
	if b, ok := h.banks[scope]; ok {
		return b
	}
	p := DefaultBreakerPolicy()
	if c.cfg.breaker != nil {
		p = *c.cfg.breaker
	}
	b := &bankHealth{h: h, scope: scope, bank: c.Bank(), policy: p, st: c.cfg.store, now: c.cfg.clock, owner: rand.Text(),
		storeWait: breakerStoreWait, log: c.cfg.logger}
	h.banks[scope] = b
	return b
}

// bankHealth returns the health of c's bank.
func (c *Client) bankHealth() *bankHealth {
	if b := c.health.Load(); b != nil {
		return b
	}
	b := c.cfg.health.bank(c)
	if c.identity.Load() != nil { // the scope is fixed
		c.health.Store(b)
	}
	return b
}

// healthBuckets and healthBucket make the rolling window of the health
// view: 12 buckets of 5 s, the last minute.
const (
	healthBuckets = 12
	healthBucket  = 5 * time.Second
	// latencySamples bounds the latencies kept for the percentiles: the
	// last ones of the window.
	latencySamples = 1024
	// maxEvidence bounds the failed requests a downtime record keeps:
	// those that opened the breaker and the first failed probes.
	maxEvidence = 32
	// keptDowntimes bounds the downtime records a Health keeps in memory
	// per bank (the store keeps them for DowntimeKept, at most
	// MaxDowntimes).
	keptDowntimes = 64
)

// counts is one bucket of the rolling window.
type counts struct {
	start                                         int64 // bucket's start, UnixNano / healthBucket
	requests, answered, status5xx, timeouts, s429 int
}

// bankHealth is one bank's health and breaker.
type bankHealth struct {
	h      *Health
	scope  string
	bank   string
	policy BreakerPolicy
	st     store.Store
	now    func() time.Time
	// owner names this process's probe turns in the store (claimProbe):
	// random, never an account's or a PSU's.
	owner string
	// storeWait is breakerStoreWait.
	storeWait time.Duration
	// log is the logger of the client that made it (nil: none), where
	// a subscriber's panic is reported (notify).
	log    *slog.Logger
	readAt atomic.Int64 // readShared's last read, UnixNano
	swept  atomic.Bool  // sweepStale ran

	mu          sync.Mutex
	state       BreakerState
	changed     time.Time
	consecutive int
	// failedProbes counts the probes that failed since the breaker
	// opened (BreakerPolicy.probeWait).
	failedProbes int
	// probeSeq numbers the probes (admit): the half-open state is the
	// probe's whose admission carries the current number.
	probeSeq uint64
	// claiming: a call of this process takes part in the probe turn
	// (admit), so that the process's other calls do not.
	claiming bool
	// shareSeq numbers the breaker's writes for the replicas
	// (shareLocked); shareMu orders them and shareWritten is the last
	// made (writeShared).
	shareSeq     uint64
	shareMu      sync.Mutex
	shareWritten uint64
	openedAt     time.Time
	probeAt      time.Time
	streak       []Evidence // failed requests since the last answer
	window       [healthBuckets]counts
	lat          [latencySamples]time.Duration
	latAt        [latencySamples]int64 // UnixNano of each sample
	latN         int
	current      *Downtime
	downs        []Downtime
	// adoptedFailures counts the failed requests (probes) of this
	// process while its breaker is open from another replica's state
	// (readShared: no record of its own, current nil), and adoptedLast
	// is when the last was sent: the close ends that replica's record
	// with them (endAdopted), which else would say the bank was last
	// seen down when that replica last saw it.
	adoptedFailures int
	adoptedLast     time.Time

	// recordKey is the key of the downtime record this process last
	// wrote and recordFailures the failures it wrote there (writeRecord):
	// the close merges its count into the record without counting them
	// twice.
	recordKey      string
	recordFailures int

	// opened says this process opened the breaker itself once: a record
	// a crashed process left is then not the last (sweepStale).
	opened bool
}

// record takes one attempt into the bank's health and breaker; probe is
// the number of the probe the attempt belongs to (admission.seq), 0 for
// a call that is no probe.
//
// The store's reads and writes that follow (the shared breaker, the
// downtime records) and the subscribers' notices run after b.mu is
// released, each store call within breakerStoreWait, and are waited for
// only as long as ctx, the caller's, lasts: the caller's deadline bounds
// the call whatever the store does, and what is not over by then goes on
// without it, within its bound.
func (b *bankHealth) record(ctx context.Context, k attemptKind, ev Evidence, took time.Duration, probe uint64) {
	if k == kindIgnored {
		return
	}
	now := b.now()
	var changes []BreakerChange
	var share *sharedWrite
	b.mu.Lock()
	c := b.bucket(now)
	c.requests++
	switch k {
	case kindAnswered:
		c.answered++
		if ev.Status == 429 {
			c.s429++
		}
	case kind5xx:
		c.status5xx++
	case kindTimeout:
		c.timeouts++
	}
	if ev.Status != 0 || k == kindAnswered {
		i := b.latN % latencySamples
		b.lat[i], b.latAt[i] = took, now.UnixNano()
		b.latN++
	}
	if !b.policy.Off {
		changes, share = b.judge(k, ev, now, probe)
	}
	b.mu.Unlock()
	if b.st == nil {
		b.tell(k, now, share, changes)
		return
	}
	if share == nil && len(changes) == 0 && (k != kindAnswered || b.swept.Load()) {
		return // nothing for the store, nor the subscribers
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		b.tell(k, now, share, changes)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
	}
}

// tell makes the store's reads and writes an attempt of kind k at now
// called for (the shared write share, the downtime records of changes)
// and notifies the subscribers of changes (see record).
func (b *bankHealth) tell(k attemptKind, now time.Time, share *sharedWrite, changes []BreakerChange) {
	b.writeShared(share)
	if k == kindAnswered && len(changes) == 0 {
		b.sweepStale(now)
	}
	for _, ch := range changes {
		if ch.To == BreakerClosed && ch.Downtime.Start.IsZero() {
			var ok bool
			if ch.Downtime, ok = b.endAdopted(ch.At, ch.Downtime); !ok {
				continue // no record to end, or its replica ended it
			}
			b.h.notify(ch, b.log)
			continue
		}
		b.h.notify(ch, b.log)
		if ch.To == BreakerOpen && ch.From == BreakerClosed || ch.To == BreakerClosed {
			b.writeRecord(ch)
		}
	}
}

// bucket returns the window's bucket of now, emptied when it was an
// older one's.
func (b *bankHealth) bucket(now time.Time) *counts {
	n := now.UnixNano() / int64(healthBucket)
	c := &b.window[n%healthBuckets]
	if c.start != n {
		*c = counts{start: n}
	}
	return c
}

// judge runs the breaker's rules on one attempt of probe (0: no probe);
// b.mu is held. It returns the changes and the write that tells the
// replicas of them (nil: none), made once b.mu is released.
func (b *bankHealth) judge(k attemptKind, ev Evidence, now time.Time, probe uint64) ([]BreakerChange, *sharedWrite) {
	p := b.policy
	if !k.failed() {
		b.consecutive, b.streak = 0, b.streak[:0]
		if b.state == BreakerClosed {
			return nil, nil
		}
		// A probe answered: the bank is back.
		from := b.state
		b.setState(BreakerClosed, now)
		share := b.shareLocked(false)
		if b.current == nil {
			// Opened from another replica's state (readShared): its
			// record is in the store, and that replica may be gone;
			// record ends it (endAdopted), the Downtime's Start zero
			// until then, its LastFailure and Failures this process's
			// failures meanwhile, which endAdopted adds to the record.
			seen := Downtime{LastFailure: b.adoptedLast, Failures: b.adoptedFailures}
			b.adoptedFailures, b.adoptedLast = 0, time.Time{}
			return []BreakerChange{{Bank: b.bank, Scope: b.scope, From: from, To: BreakerClosed, At: now, Downtime: seen}}, share
		}
		d := *b.current
		d.End = now
		b.current = nil
		b.keep(d)
		return []BreakerChange{{Bank: b.bank, Scope: b.scope, From: from, To: BreakerClosed, At: now, Downtime: d}}, share
	}
	b.consecutive++
	if len(b.streak) < maxEvidence {
		b.streak = append(b.streak, ev)
	}
	switch b.state {
	case BreakerHalfOpen, BreakerOpen:
		// The probe failed (or a call admitted before it opened): open
		// again until the next probe.
		from := b.state
		if b.current != nil {
			// Every failure counts; the evidence stops at its bound.
			b.current.Failures++
			b.current.LastFailure = latest(b.current.LastFailure, ev.At)
			if len(b.current.Evidence) < maxEvidence {
				b.current.Evidence = append(b.current.Evidence, ev)
			}
		} else {
			b.adoptedFailures++
			b.adoptedLast = latest(b.adoptedLast, ev.At)
		}
		if from == BreakerHalfOpen && probe != b.probeSeq {
			// A call admitted before the breaker opened failed while
			// the probe is on its way: the probe's own end decides, and
			// no second probe goes out meanwhile.
			return nil, nil
		}
		if from == BreakerHalfOpen {
			b.failedProbes++
		}
		b.probeAt = now.Add(p.probeWait(b.failedProbes))
		if from == BreakerHalfOpen {
			b.setState(BreakerOpen, now)
			return nil, b.shareLocked(true)
		}
		return nil, nil
	}
	if b.consecutive < p.Consecutive && !b.rateExceeded(now) {
		return nil, nil
	}
	b.openedAt, b.probeAt, b.failedProbes = now, now.Add(p.ProbeAfter), 0
	b.adoptedFailures, b.adoptedLast = 0, time.Time{}
	b.setState(BreakerOpen, now)
	start := now
	if len(b.streak) > 0 {
		start = b.streak[0].At
	}
	d := Downtime{Bank: b.bank, Start: start, LastFailure: latest(start, ev.At), Failures: b.consecutive, Evidence: slices.Clone(b.streak)}
	b.current = &d
	b.opened = true
	return []BreakerChange{{Bank: b.bank, Scope: b.scope, From: BreakerClosed, To: BreakerOpen, At: now, Downtime: d}}, b.shareLocked(true)
}

// rateExceeded reports whether the error-rate rule opens the breaker.
func (b *bankHealth) rateExceeded(now time.Time) bool {
	var req, failed int
	for _, c := range b.inWindow(now, b.policy.RateWindow) {
		req += c.requests
		failed += c.requests - c.answered
	}
	return req >= b.policy.RateMin && float64(failed) > b.policy.ErrorRate*float64(req)
}

// inWindow returns the buckets within d before now (at most the
// window's minute).
func (b *bankHealth) inWindow(now time.Time, d time.Duration) []counts {
	n := now.UnixNano() / int64(healthBucket)
	oldest := n - int64(min(d, healthBuckets*healthBucket)/healthBucket) + 1
	out := make([]counts, 0, healthBuckets)
	for _, c := range b.window {
		if c.start >= oldest && c.start <= n {
			out = append(out, c)
		}
	}
	return out
}

// setState changes the state; b.mu is held.
func (b *bankHealth) setState(s BreakerState, now time.Time) {
	if b.state != s {
		b.state, b.changed = s, now
	}
}

// keep adds d to the records kept in memory; b.mu is held.
func (b *bankHealth) keep(d Downtime) {
	if len(b.downs) == keptDowntimes {
		b.downs = slices.Delete(b.downs, 0, 1)
	}
	b.downs = append(b.downs, d)
}

// notify calls the subscribers with ch.
//
// A subscriber that panics is recovered: the panic is logged at Error
// through log (the client's [WithLogger]; slog's default logger when it
// has none), with the change's bank and states, the stack and of the
// panic's value only a runtime error's message or its type (the value is
// the TPP's code's, and may hold personal data), and the other
// subscribers are still told. A subscriber runs on a goroutine the client
// may own, where a panic would end the TPP's whole process.
func (h *Health) notify(ch BreakerChange, log *slog.Logger) {
	h.mu.Lock()
	subs := slices.Clone(h.subs)
	h.mu.Unlock()
	for _, fn := range subs {
		callSubscriber(fn, ch, log)
	}
}

// callSubscriber calls fn with ch, recovering a panic of fn (see notify).
func callSubscriber(fn func(BreakerChange), ch BreakerChange, log *slog.Logger) {
	defer func() {
		if v := recover(); v != nil {
			if log == nil {
				log = slog.Default()
			}
			log.LogAttrs(context.Background(), slog.LevelError, "psd2 breaker subscriber panicked",
				slog.String("bank", ch.Bank), slog.String("from", ch.From.String()), slog.String("to", ch.To.String()),
				slog.String("panic", panicvalue.Describe(v)), slog.String("stack", string(debug.Stack())))
		}
	}()
	fn(ch)
}

// BankHealth is the health of one bank over the last minute, as one
// process saw it.
type BankHealth struct {
	// Bank is the bank's identity ([Client.Bank]); Scope the client's
	// [Client.Scope].
	Bank  string `json:"bank"`
	Scope string `json:"scope"`
	// Requests counts the requests sent within Window (attempts,
	// retries included); Answered those answered (not 5xx) within the
	// breaker's AnswerWithin; Status5xx, Timeouts and Status429 what
	// their names say. Requests - Answered - Status5xx - Timeouts is the
	// requests that got no answer at all.
	Requests  int `json:"requests"`
	Answered  int `json:"answered"`
	Status5xx int `json:"status5xx"`
	Timeouts  int `json:"timeouts"`
	Status429 int `json:"status429"`
	// P50, P95 and P99 are the latency percentiles of the answers within
	// Window (at most the last 1024).
	P50 time.Duration `json:"p50"`
	P95 time.Duration `json:"p95"`
	P99 time.Duration `json:"p99"`
	// Window is the span the counts cover.
	Window time.Duration `json:"window"`
	// State is the breaker's state and Changed the time of its last
	// change (zero: never changed); ProbeAt, while open, when the next
	// probe goes.
	State   BreakerState `json:"state"`
	Changed time.Time    `json:"changed,omitzero"`
	ProbeAt time.Time    `json:"probeAt,omitzero"`
	// Down is the unavailability under way, if any.
	Down *Downtime `json:"down,omitempty"`
	// Recent are the last unavailabilities this process saw end (at most
	// 64), oldest first; the store keeps them for [DowntimeKept], at most
	// [MaxDowntimes] ([Client.Downtimes]).
	Recent []Downtime `json:"recent,omitempty"`
}

// Banks returns the health of every bank h knows, ordered by bank.
func (h *Health) Banks() []BankHealth {
	h.mu.Lock()
	banks := make([]*bankHealth, 0, len(h.banks))
	for _, b := range h.banks {
		banks = append(banks, b)
	}
	h.mu.Unlock()
	out := make([]BankHealth, 0, len(banks))
	for _, b := range banks {
		out = append(out, b.snapshot())
	}
	slices.SortFunc(out, func(a, b BankHealth) int {
		if a.Bank != b.Bank {
			if a.Bank < b.Bank {
				return -1
			}
			return 1
		}
		if a.Scope < b.Scope {
			return -1
		}
		if a.Scope > b.Scope {
			return 1
		}
		return 0
	})
	return out
}

// BankHealth returns the health of the client's bank.
func (c *Client) BankHealth() BankHealth { return c.bankHealth().snapshot() }

// snapshot returns b's health now.
func (b *bankHealth) snapshot() BankHealth {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	v := BankHealth{Bank: b.bank, Scope: b.scope, Window: healthBuckets * healthBucket, State: b.state, Changed: b.changed}
	for _, c := range b.inWindow(now, v.Window) {
		v.Requests += c.requests
		v.Answered += c.answered
		v.Status5xx += c.status5xx
		v.Timeouts += c.timeouts
		v.Status429 += c.s429
	}
	oldest := now.Add(-v.Window).UnixNano()
	lat := make([]time.Duration, 0, min(b.latN, latencySamples))
	for i := range min(b.latN, latencySamples) {
		if b.latAt[i] >= oldest {
			lat = append(lat, b.lat[i])
		}
	}
	if len(lat) > 0 {
		slices.Sort(lat)
		pct := func(p int) time.Duration { return lat[min(len(lat)-1, (len(lat)*p+99)/100-1)] }
		v.P50, v.P95, v.P99 = pct(50), pct(95), pct(99)
	}
	if b.state != BreakerClosed {
		v.ProbeAt = b.probeAt
	}
	if b.current != nil {
		d := *b.current
		d.Evidence = slices.Clone(d.Evidence)
		v.Down = &d
	}
	v.Recent = slices.Clone(b.downs)
	return v
}
