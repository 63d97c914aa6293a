package emulator

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Outages: the bank down, slow or refusing calls over a time span, where
// an injected [Fault] hits a number of requests. The span is on the
// bank's clock (clock.go): it starts when the control is called and ends
// when [Controls.Now] passes its end, so a test with a frozen clock ends
// it with [Controls.Advance], and one on the real clock waits it out.
// Latency (a slow bank, a hang) is wall time: it is what the client's
// timeouts see.
//
// An outage hits every API request (/api/...) and, when connections are
// refused, everything the bank's listener serves. Several outages may
// overlap: a refusing one shuts the listener, then the first one in
// order of the controls' calls answers the request. They apply before
// the injected faults, which stay armed for the requests after.

// OutageKind is how the bank fails during an outage.
type OutageKind int

// Outage kinds.
const (
	// OutageRefused: the bank's listener is shut, so new connections are
	// refused (the client sees "connection refused") and open ones are
	// closed. It opens again on the same address when the outage ends.
	// On the shared host-name listener of a [MultiBank], which serves
	// the other banks too, the bank's connections are closed without an
	// answer instead.
	OutageRefused OutageKind = iota + 1
	// OutageUnavailable: every request is answered 503 Service
	// Unavailable with a tppMessages body (SYSTEM_ERROR), unprocessed.
	OutageUnavailable
	// OutageHang: every request is read and then held without an
	// answer until the client gives up (its request is then never
	// processed) or the outage ends (it is then processed normally, late).
	OutageHang

	lastOutage = OutageHang
)

var outageNames = [...]string{OutageRefused: "refused", OutageUnavailable: "unavailable", OutageHang: "hang"}

// String returns the kind's name: refused, unavailable or hang (the
// names the control API takes).
func (k OutageKind) String() string {
	if k < OutageRefused || k > lastOutage {
		return "OutageKind(" + strconv.Itoa(int(k)) + ")"
	}
	return outageNames[k]
}

// ParseOutageKind returns the kind named refused, unavailable (or 503)
// or hang.
func ParseOutageKind(name string) (OutageKind, error) {
	if name == "503" {
		return OutageUnavailable, nil
	}
	for k := OutageRefused; k <= lastOutage; k++ {
		if outageNames[k] == name {
			return k, nil
		}
	}
	return 0, errors.New("emulator: unknown outage kind (want refused, unavailable or hang)")
}

// Latency is the distribution of a slow bank's delays: log-normal, with
// median P50 and 99th percentile P99 (a P99 below P50 counts as P50, so
// P50 alone gives a fixed delay). Each request waits one draw, on the wall
// clock, before the bank processes it; no draw is longer than
// [maxLatency].
type Latency struct {
	P50, P99 time.Duration
}

// maxLatency caps a slow bank's delay: far beyond any client's timeout,
// and short enough that a forgotten span does not hold requests for
// ever.
const maxLatency = 10 * time.Minute

// z99 is the 99th percentile of the standard normal distribution.
const z99 = 2.3263478740408408

// draw returns the delay of the distribution at the standard normal
// draw z.
func (l Latency) draw(z float64) time.Duration {
	if l.P50 <= 0 {
		return 0
	}
	p99 := max(l.P99, l.P50)
	if p99 == l.P50 {
		return min(l.P50, maxLatency)
	}
	mu := math.Log(float64(l.P50))
	sigma := (math.Log(float64(p99)) - mu) / z99
	d := math.Exp(mu + sigma*z)
	if d >= float64(maxLatency) || math.IsNaN(d) {
		return maxLatency
	}
	return time.Duration(math.Round(d))
}

// disruption is one outage of the bank: what it does and when, on the
// bank's clock.
type disruption struct {
	kind       OutageKind    // refused, unavailable, hang; 0: a slow bank or a 429 storm
	slow       *Latency      // a slow bank
	retryAfter time.Duration // a 429 storm: its Retry-After (at least 1 s)
	from, to   time.Time     // the span [from, to) on the bank's clock
	down, up   time.Duration // flapping: down for down, then up for up, from from; 0: down all along
}

// activeAt reports whether d is down at t.
func (d *disruption) activeAt(t time.Time) bool {
	if t.Before(d.from) || !t.Before(d.to) {
		return false
	}
	if d.down <= 0 || d.up <= 0 {
		return true
	}
	return t.Sub(d.from)%(d.down+d.up) < d.down
}

// nextChange returns the first time after t at which activeAt may change
// (the zero time when it never will).
func (d *disruption) nextChange(t time.Time) time.Time {
	if t.Before(d.from) {
		return d.from
	}
	if !t.Before(d.to) {
		return time.Time{}
	}
	if d.down <= 0 || d.up <= 0 {
		return d.to
	}
	period := d.down + d.up
	in := t.Sub(d.from) % period
	next := t.Add(d.down - in)
	if in >= d.down {
		next = t.Add(period - in)
	}
	if next.After(d.to) {
		return d.to
	}
	return next
}

// outageState is the Server's outages. It has its own lock: the request
// path reads it without the bank's.
type outageState struct {
	n    atomic.Int32 // len(list), read without the lock on every request
	held atomic.Int32 // requests held by a hang, now (tests wait for them)
	mu   sync.Mutex
	list []*disruption

	door    sync.Mutex    // serialises the decisions to shut or open the gate (syncDoor)
	gate    *gateListener // the bank's own listener (NewServer), nil in a Handler
	closing func()        // closes the connections of the bank's own listener
	watch   bool          // the doorman goroutine runs
	done    chan struct{} // closed by Server.Close
}

// add registers d and, for a refusing outage, shuts the listener at once.
func (s *Server) addDisruption(d *disruption) {
	o := &s.out
	o.mu.Lock()
	now := s.now()
	// Drop the outages that are over: the list stays as long as the
	// ones a test has running.
	keep := o.list[:0]
	for _, e := range o.list {
		if now.Before(e.to) {
			keep = append(keep, e)
		}
	}
	o.list = append(keep, d)
	o.n.Store(int32(len(o.list)))
	start := d.kind == OutageRefused && !o.watch && o.gate != nil
	if start {
		o.watch = true
	}
	o.mu.Unlock()
	if start {
		go s.doorman()
	}
	s.clock.change(func() {}) // wake the doorman and held requests
	s.syncDoor()
}

// maxOutages bounds the outages, slow banks and 429 storms the control API
// keeps running at once: every request of the bank looks at each of them.
const maxOutages = 1024

// outagesRunning returns the number of outages not over at the bank's
// clock's reading.
func (s *Server) outagesRunning() int {
	o := &s.out
	now := s.now()
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, e := range o.list {
		if now.Before(e.to) {
			n++
		}
	}
	return n
}

// syncDoor shuts or opens the bank's listener as the outages say at the
// bank's clock's reading, at once: the controls call it, so that after
// Outage, Advance or EndOutages returns the listener is as they say. The
// doorman does the same as the clock runs.
func (s *Server) syncDoor() (refused, open bool) {
	o := &s.out
	if o.gate == nil {
		return false, true
	}
	// One decision at a time, each on a fresh reading of the clock: the
	// last to run is right, whoever it is.
	o.door.Lock()
	defer o.door.Unlock()
	if _, refused := o.current(s.now()); refused {
		if o.gate.shut() && o.closing != nil {
			o.closing()
		}
		return true, false
	}
	return false, o.gate.open()
}

// EndOutages ends every outage, slow bank and 429 storm at once: the
// listener opens again and held requests go on. Injected faults stay
// armed.
func (c *Controls) EndOutages() {
	s := c.s
	s.out.mu.Lock()
	s.out.list = nil
	s.out.n.Store(0)
	s.out.mu.Unlock()
	s.clock.change(func() {})
	s.syncDoor()
}

// current returns the first request-level outage active at now, and
// whether a refusing one is.
func (o *outageState) current(now time.Time) (first *disruption, refused bool) {
	if o.n.Load() == 0 {
		return nil, false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, d := range o.list {
		if !d.activeAt(now) {
			continue
		}
		if d.kind == OutageRefused {
			refused = true
			continue
		}
		if first == nil {
			first = d
		}
	}
	return first, refused
}

// next returns the earliest time after now at which an outage starts or
// ends, the zero time for none.
func (o *outageState) next(now time.Time) time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out time.Time
	for _, d := range o.list {
		if t := d.nextChange(now); !t.IsZero() && (out.IsZero() || t.Before(out)) {
			out = t
		}
	}
	return out
}

// Outage makes the bank fail as kind says from now for span on the
// bank's clock: connections refused, 503 to every request, or every
// request held without an answer. It ends when [Controls.Now] passes
// now+span ([Controls.Advance] gets there at once) or at
// [Controls.EndOutages]. A span of zero or less, or an unknown kind, does
// nothing.
func (c *Controls) Outage(kind OutageKind, span time.Duration) {
	if kind < OutageRefused || kind > lastOutage || span <= 0 {
		return
	}
	now := c.s.now()
	c.s.addDisruption(&disruption{kind: kind, from: now, to: now.Add(span)})
}

// minFlapPhase is the shortest down or up phase of [Controls.Flapping]:
// the bank's listener is shut and opened again at every change of a
// refusing one, and phases of nanoseconds would keep a goroutine doing
// nothing else for the whole span.
const minFlapPhase = 10 * time.Millisecond

// Flapping makes the bank go down as kind says and come back, again and
// again, from now for span on the bank's clock: down for down, then up for
// up, and so on. A non-positive span, down or up, or an unknown kind, does
// nothing; a down or up shorter than 10 ms counts as 10 ms.
func (c *Controls) Flapping(kind OutageKind, down, up, span time.Duration) {
	if kind < OutageRefused || kind > lastOutage || span <= 0 || down <= 0 || up <= 0 {
		return
	}
	down, up = max(down, minFlapPhase), max(up, minFlapPhase)
	now := c.s.now()
	c.s.addDisruption(&disruption{kind: kind, from: now, to: now.Add(span), down: down, up: up})
}

// SlowBank delays every request by a draw of lat (wall time) before the
// bank processes it, from now for span on the bank's clock. A client that
// gives up while its request waits leaves it unprocessed. A non-positive
// span or lat.P50 does nothing.
func (c *Controls) SlowBank(lat Latency, span time.Duration) {
	if span <= 0 || lat.P50 <= 0 {
		return
	}
	now := c.s.now()
	c.s.addDisruption(&disruption{slow: &lat, from: now, to: now.Add(span)})
}

// RateLimitStorm answers every request 429 ACCESS_EXCEEDED with a
// Retry-After of retryAfter (whole seconds, at least 1), unprocessed, from
// now for span on the bank's clock: the platform's code for a rate limit
// as for a spent access budget (docs/interface.md section 8). A
// non-positive span does nothing.
func (c *Controls) RateLimitStorm(retryAfter, span time.Duration) {
	if span <= 0 {
		return
	}
	now := c.s.now()
	c.s.addDisruption(&disruption{retryAfter: retryAfter, from: now, to: now.Add(span)})
}

// serveOutage answers r as the outage d says, or hands it to next (a
// slow bank, a hang that ended). Called for API requests only.
func (s *Server) serveOutage(w http.ResponseWriter, r *http.Request, d *disruption, next http.Handler) {
	switch {
	case d.kind == OutageUnavailable:
		drain(r)
		s.setCommonHeaders(w, r)
		writeError(w, newError(http.StatusServiceUnavailable, "SYSTEM_ERROR", "The service is unavailable (an outage of the emulator's bank)."))
	case d.kind == OutageHang:
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.out.held.Add(1)
		defer s.out.held.Add(-1)
		if !s.holdWhile(r, func(now time.Time) bool {
			first, _ := s.out.current(now)
			return first != nil && first.kind == OutageHang
		}) {
			// The client gave up, or the server closes: a hung bank
			// writes nothing (see serveFault's FaultHang).
			drop(w)
			return
		}
		next.ServeHTTP(w, r)
	case d.slow != nil:
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
		r.Body = io.NopCloser(bytes.NewReader(body))
		t := time.NewTimer(d.slow.draw(rand.NormFloat64()))
		defer t.Stop()
		select {
		case <-r.Context().Done():
			drop(w) // as a hung bank: nothing written
			return
		case <-t.C:
		}
		next.ServeHTTP(w, r)
	default: // a 429 storm
		drain(r)
		s.setCommonHeaders(w, r)
		secs := max(int(math.Ceil(d.retryAfter.Seconds())), 1)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeError(w, newError(http.StatusTooManyRequests, "ACCESS_EXCEEDED", "Too many requests; retry after %d seconds.", secs))
	}
}

// pollEvery is how often a wait on the bank's clock looks at it again
// when the server's clock is not the machine's (WithClock: it may move
// at any time without telling).
const pollEvery = 10 * time.Millisecond

// holdWhile waits while down(now) holds on the bank's clock, until the
// client gives up (false) or the server closes (false).
func (s *Server) holdWhile(r *http.Request, down func(time.Time) bool) bool {
	for {
		now := s.now()
		if !down(now) {
			return true
		}
		if !s.waitClock(r.Context().Done(), s.out.next(now)) {
			return false
		}
	}
}

// waitClock waits until the bank's clock reaches t (t zero: until it
// changes), the clock is moved, or stop or the server's end (false).
func (s *Server) waitClock(stop <-chan struct{}, t time.Time) bool {
	moved := s.clock.changed()
	var timer <-chan time.Time
	if !t.IsZero() && !s.clock.isFrozen() {
		d := t.Sub(s.now())
		if s.clock.custom {
			d = min(d, pollEvery)
		}
		tm := time.NewTimer(max(d, 0))
		defer tm.Stop()
		timer = tm.C
	}
	select {
	case <-stop:
		return false
	case <-s.out.done:
		return false
	case <-moved:
	case <-timer:
	}
	return true
}

// doorman shuts and opens the bank's listener as the refusing outages
// say, until none is left or the server closes.
func (s *Server) doorman() {
	o := &s.out
	for {
		now := s.now()
		refused, open := s.syncDoor()
		if !refused && !open {
			// The port was taken meanwhile: try again shortly.
			select {
			case <-o.done:
				return
			case <-time.After(reopenEvery):
			}
			continue
		}
		next := o.next(now)
		o.mu.Lock()
		pending := false
		for _, d := range o.list {
			if d.kind == OutageRefused && now.Before(d.to) {
				pending = true
			}
		}
		if !pending && !refused {
			o.watch = false
			o.mu.Unlock()
			return
		}
		o.mu.Unlock()
		if !s.waitClock(nil, next) {
			return
		}
	}
}

// gateListener is the bank's listener with a door: shut, it closes the
// socket, so that connections are refused, and Accept waits; open, it
// listens on the same address again.
type gateListener struct {
	addr net.Addr

	mu     sync.Mutex
	cond   *sync.Cond
	l      net.Listener // nil while shut
	closed bool
}

func newGate(l net.Listener) *gateListener {
	g := &gateListener{addr: l.Addr(), l: l}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// Accept waits for a connection while the door is open.
func (g *gateListener) Accept() (net.Conn, error) {
	for {
		g.mu.Lock()
		for g.l == nil && !g.closed {
			g.cond.Wait()
		}
		if g.closed {
			g.mu.Unlock()
			return nil, net.ErrClosed
		}
		l := g.l
		g.mu.Unlock()
		c, err := l.Accept()
		if err == nil {
			return c, nil
		}
		g.mu.Lock()
		shut, closed := g.l != l, g.closed
		g.mu.Unlock()
		if closed {
			return nil, net.ErrClosed
		}
		if !shut {
			return nil, err
		}
	}
}

// shut closes the socket; it reports whether the door was open.
func (g *gateListener) shut() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.l == nil || g.closed {
		return false
	}
	_ = g.l.Close()
	g.l = nil
	return true
}

// open listens again on the address, when shut. It reports false when
// that fails (another program took the port meanwhile): the door stays
// shut until the next try.
func (g *gateListener) open() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.l != nil || g.closed {
		return true
	}
	l, err := net.Listen(g.addr.Network(), g.addr.String())
	if err != nil {
		return false
	}
	g.l = l
	g.cond.Broadcast()
	return true
}

// reopenEvery is how often the doorman tries to listen again on a port
// another program took while the bank refused connections.
const reopenEvery = 100 * time.Millisecond

// Close closes the listener for good.
func (g *gateListener) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.cond.Broadcast()
	if g.l != nil {
		return g.l.Close()
	}
	return nil
}

// Addr is the listener's address, shut or open.
func (g *gateListener) Addr() net.Addr { return g.addr }

// refusing closes the connection of every request, without an answer,
// while a refusing outage lasts: what a bank whose listener is shut does
// to a connection opened just before, and all a shared listener (a
// [MultiBank]'s host names, a Handler mounted elsewhere) can do for one
// bank.
func (s *Server) refusing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, refused := s.out.current(s.now()); refused {
			drain(r)
			drop(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}
