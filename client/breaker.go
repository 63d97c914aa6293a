package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/psd2/store"
)

// The circuit breaker (docs/design.md section 12). Every client keeps a
// breaker per bank, in its [Health]: clients given one Health
// ([WithHealth]) share the breaker of their bank, and clients on one
// shared store see each other's open breakers (breakerReadEvery). It
// opens on the EBA's definition of an unavailable dedicated interface
// (BreakerPolicy.Consecutive requests in a row not answered within
// BreakerPolicy.AnswerWithin, or answered 5xx) and on an error rate
// (BreakerPolicy.ErrorRate over BreakerPolicy.RateWindow). While it is
// open a call fails fast, before its hook, with a *NotSentError around a
// *BankUnavailableError: nothing is sent, no budget is spent, and the
// call matches both [ErrNotSent] and [ErrBankUnavailable]. After
// BreakerPolicy.ProbeAfter one call at a time goes through as a probe
// (half-open); an answer closes the breaker, a failure opens it again.
// Replicas on one store take turns: one probe per ProbeAfter among them
// (claimProbe). A probe is a real call: a failed probe of a without-PSU
// read costs that account one of its calls, as any failed call does;
// the interface names no request that proves the bank answers and counts
// against nothing.
// A payment POST whose outcome is unknown counts as not answered, and is
// never sent again: the breaker only refuses new calls and stops retries
// the policy would have made anyway.

// ErrBankUnavailable is matched (errors.Is) by the error of a call the
// client's circuit breaker refused because the bank is not answering
// ([BankUnavailableError]). Such an error also matches [ErrNotSent]:
// nothing left the machine, the bank saw nothing and counted nothing.
var ErrBankUnavailable = errors.New("client: bank unavailable")

// BankUnavailableError is the reason, inside a *NotSentError, of a call
// the breaker refused. It holds no personal data.
type BankUnavailableError struct {
	// Bank is the bank's identity in the client's scope ([Client.Bank]).
	Bank string
	// Since is when the breaker opened (the client's clock).
	Since time.Time
	// ProbeAt is when the breaker lets its next probe through; while a
	// probe is on its way, the earliest a next one can go should that
	// probe fail (never a time already past).
	ProbeAt time.Time
}

// Error says the bank is not answering and when the next probe goes.
func (e *BankUnavailableError) Error() string {
	return "bank " + e.Bank + " unavailable since " + e.Since.UTC().Format(time.RFC3339) +
		" (circuit breaker open; next probe at " + e.ProbeAt.UTC().Format(time.RFC3339) + ")"
}

// Is matches [ErrBankUnavailable].
func (e *BankUnavailableError) Is(target error) bool { return target == ErrBankUnavailable }

// BreakerPolicy configures a client's circuit breaker for its bank. The
// zero value of a field takes its default ([DefaultBreakerPolicy]).
type BreakerPolicy struct {
	// Off turns the breaker off: every call is sent, whatever the bank's
	// health (the health view still counts).
	Off bool
	// Consecutive is the number of requests in a row, not answered within
	// AnswerWithin or answered 5xx, that opens the breaker: the EBA's
	// definition of an unavailable dedicated interface (5).
	Consecutive int
	// AnswerWithin is how long an answer may take and still count as
	// one (30 s, the EBA's).
	AnswerWithin time.Duration
	// ErrorRate opens the breaker when at least RateMin requests were
	// made within RateWindow and more than this share of them failed
	// (more than 80% of at least 20 requests within 60 s).
	ErrorRate  float64
	RateMin    int
	RateWindow time.Duration
	// ProbeAfter is how long the breaker stays open before it lets one
	// probe through (5 s).
	ProbeAfter time.Duration
	// ProbeMax bounds the wait between probes: each failed probe doubles
	// the wait, from ProbeAfter up to ProbeMax (at least ProbeAfter; by
	// default ProbeAfter itself: no doubling). A probe is a real call, so
	// a ProbeMax of a minute makes an hour's outage cost about 60 probes
	// instead of 720, and finds the bank back up to a minute late, which
	// the downtime record then holds too.
	ProbeMax time.Duration
}

// probeWait is the wait before the next probe after failed failed probes
// since the breaker opened: ProbeAfter doubled per failed probe, at most
// ProbeMax.
func (p BreakerPolicy) probeWait(failed int) time.Duration {
	if failed > 30 {
		return p.ProbeMax
	}
	return min(p.ProbeAfter<<failed, p.ProbeMax)
}

// DefaultBreakerPolicy returns the policy of a client without
// [WithBreaker]: open after 5 requests in a row not answered within 30 s
// or answered 5xx (the EBA's guidelines on the dedicated interface), or
// when more than 80% of at least 20 requests within 60 s failed; a probe
// every 5 s while open (ProbeMax 5 s: no doubling). ASSUMPTION (the safe
// option): a probe every 5 s finds the bank back within seconds, so that
// no round waits on a bank that answers again and the downtime record
// ends within 5 s of the outage (what a report to the regulator needs);
// a TPP that would rather spend fewer probes on a long outage sets
// ProbeMax; a bank that
// fails more than 4 requests of 5 without 5 in a row is flapping faster
// than the consecutive rule sees, while one that fails every other
// request still answers half of them, which a TPP should not give up.
func DefaultBreakerPolicy() BreakerPolicy {
	return BreakerPolicy{Consecutive: 5, AnswerWithin: 30 * time.Second, ErrorRate: 0.8, RateMin: 20,
		RateWindow: time.Minute, ProbeAfter: 5 * time.Second, ProbeMax: 5 * time.Second}
}

// withDefaults fills p's zero fields from DefaultBreakerPolicy.
func (p BreakerPolicy) withDefaults() BreakerPolicy {
	d := DefaultBreakerPolicy()
	if p.Consecutive == 0 {
		p.Consecutive = d.Consecutive
	}
	if p.AnswerWithin == 0 {
		p.AnswerWithin = d.AnswerWithin
	}
	if p.ErrorRate == 0 {
		p.ErrorRate = d.ErrorRate
	}
	if p.RateMin == 0 {
		p.RateMin = d.RateMin
	}
	if p.RateWindow == 0 {
		p.RateWindow = d.RateWindow
	}
	if p.ProbeAfter == 0 {
		p.ProbeAfter = d.ProbeAfter
	}
	if p.ProbeMax == 0 {
		p.ProbeMax = max(d.ProbeMax, p.ProbeAfter)
	}
	return p
}

func (p BreakerPolicy) validate() error {
	if p.Consecutive < 1 || p.Consecutive > 1000 || p.AnswerWithin < time.Millisecond || p.AnswerWithin > time.Hour ||
		!(p.ErrorRate > 0 && p.ErrorRate <= 1) || p.RateMin < 1 || p.RateMin > 1_000_000 ||
		p.RateWindow < time.Second || p.RateWindow > 24*time.Hour || p.ProbeAfter < time.Millisecond || p.ProbeAfter > time.Hour ||
		p.ProbeMax < p.ProbeAfter || p.ProbeMax > time.Hour {
		return errors.New("client: invalid BreakerPolicy")
	}
	return nil
}

// WithBreaker sets the circuit breaker's policy for the client's bank
// (zero fields take [DefaultBreakerPolicy]'s). Clients sharing a
// [Health] share their bank's breaker, which keeps the policy of the
// first client of that bank.
func WithBreaker(p BreakerPolicy) Option {
	return func(c *config) error {
		p = p.withDefaults()
		if err := p.validate(); err != nil {
			return err
		}
		c.breaker = &p
		return nil
	}
}

// BreakerState is the state of a bank's circuit breaker.
type BreakerState int

// The breaker's states.
const (
	// BreakerClosed: calls go to the bank.
	BreakerClosed BreakerState = iota
	// BreakerOpen: calls fail fast with ErrBankUnavailable.
	BreakerOpen
	// BreakerHalfOpen: one probe is on its way; other calls fail fast.
	BreakerHalfOpen
)

// String returns "closed", "open" or "half-open".
func (s BreakerState) String() string {
	switch s {
	case BreakerClosed:
		return "closed"
	case BreakerOpen:
		return "open"
	case BreakerHalfOpen:
		return "half-open"
	}
	return "BreakerState(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes the state's name.
func (s BreakerState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a state's name.
func (s *BreakerState) UnmarshalText(b []byte) error {
	for _, v := range []BreakerState{BreakerClosed, BreakerOpen, BreakerHalfOpen} {
		if string(b) == v.String() {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("client: unknown breaker state %q", b)
}

// attemptKind is what one attempt tells the breaker and the health view.
type attemptKind int

const (
	kindIgnored  attemptKind = iota // local failure, the caller's cancel or short deadline
	kindAnswered                    // an answer within AnswerWithin (not 5xx)
	kind5xx                         // a 5xx answer
	kindTimeout                     // no answer within the time limit, or too slow
	kindNoAnswer                    // connection refused, reset, cut
)

// failed reports whether the attempt counts as "not answered" for the
// breaker.
func (k attemptKind) failed() bool { return k == kind5xx || k == kindTimeout || k == kindNoAnswer }

// kindOf sorts one attempt: caller is the call's context (its end is the
// caller's doing, not the bank's), took how long the attempt waited.
func kindOf(caller context.Context, res attemptResult, took, answerWithin time.Duration) attemptKind {
	if res.local || res.early {
		// Nothing reached the bank: it cannot have failed to answer.
		return kindIgnored
	}
	if res.err != nil {
		if caller.Err() != nil && took < answerWithin {
			return kindIgnored // the caller gave up before the bank's time was up
		}
		if errors.Is(res.err, ErrAnswerTooLarge) {
			// The bank answered; only the client's size limits refuse
			// the answer (limits.go).
			if took > answerWithin {
				return kindTimeout
			}
			return kindAnswered
		}
		var te *timeoutError
		var ne net.Error
		if errors.As(res.err, &te) && res.cut && took < answerWithin {
			// The attempt's time limit was the caller's deadline's share
			// (attemptLimit), shorter than the client's response timeout:
			// the caller's short deadline, not the bank's failure.
			return kindIgnored
		}
		if te != nil || errors.Is(res.err, context.DeadlineExceeded) || errors.As(res.err, &ne) && ne.Timeout() {
			return kindTimeout
		}
		return kindNoAnswer
	}
	switch {
	case res.r.status >= 500:
		return kind5xx
	case took > answerWithin:
		return kindTimeout
	}
	return kindAnswered
}

// admission is a call's pass through its bank's breaker: done must be
// called once the call ended.
type admission struct {
	b     *bankHealth
	probe bool
	// seq is the probe's number (bankHealth.probeSeq) when probe is
	// set, else 0: the half-open state it opened is this admission's
	// only while the number is the bank's current one.
	seq uint64
}

// admit lets a call through the breaker of c's bank, or refuses it with
// a *BankUnavailableError.
func (c *Client) admit(ctx context.Context) (admission, error) {
	b := c.bankHealth()
	if b.policy.Off {
		return admission{b: b}, nil
	}
	b.readShared(ctx)
	now := c.cfg.clock()
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case BreakerClosed:
		return admission{b: b}, nil
	case BreakerOpen:
		if !now.Before(b.probeAt) && !b.claiming {
			// The probe is due: this replica sends it only when it takes
			// the bank's probe turn on the shared store (claimProbe,
			// outside the lock: a store round trip); else another replica
			// probes, and this one waits for the turn's end. One call of
			// the process takes part (claiming); the others fail fast:
			// two calls of one process taking part would each lose to
			// the other, the turn held by the process and no probe sent.
			turn := b.policy.probeWait(b.failedProbes + 1)
			b.claiming = true
			b.mu.Unlock()
			until, ok := b.claimProbe(ctx, now, turn)
			b.mu.Lock()
			b.claiming = false
			if !ok {
				if until.After(b.probeAt) {
					b.probeAt = until
				}
				break
			}
			switch b.state {
			case BreakerOpen:
				// The turn is this process's: it probes, even when a call
				// sent before the breaker opened failed meanwhile.
				b.setState(BreakerHalfOpen, now)
				b.probeSeq++
				return admission{b: b, probe: true, seq: b.probeSeq}, nil
			case BreakerClosed:
				return admission{b: b}, nil
			}
		}
	}
	probeAt := b.probeAt
	if !now.Before(probeAt) {
		// The probe was due and is on its way (half-open), or another
		// call of the process is taking its turn: the next probe can be
		// no sooner than that probe's turn, should it fail. A refused
		// call is told that, never a time past, so that whoever defers
		// its job until then (a job engine) does not come back at once
		// and again for as long as the probe takes.
		probeAt = now.Add(b.policy.probeWait(b.failedProbes + 1))
	}
	return admission{}, &BankUnavailableError{Bank: b.bank, Since: b.openedAt, ProbeAt: probeAt}
}

// probeKey is the store key of a bank's probe turn (see claimProbe).
func probeKey(scope string) string { return "client/breaker-probe/" + scope }

// claimProbe takes the bank's probe turn on the client's store for turn
// (the wait after the probe, should it fail): of the replicas on one
// store whose breakers are open, one probes per turn, not each (a failed
// probe of a without-PSU read costs one of the account's calls). It
// reports false, with the turn's end, when
// another replica holds the turn. Without a store, or when the store
// cannot be reached, the process probes on its own: the breaker never
// waits on the store to learn that the bank is back.
//
// The claim is made on the caller's context, within breakerStoreWait:
// it is part of the call, and no wait may outlast the caller's deadline
// (docs/design.md section 2). A claim given up on at the deadline lets
// the call through as the probe, which then ends with the caller's
// error and lets the next call probe (admission.done); a turn the store
// wrote all the same is this process's own to take again.
func (b *bankHealth) claimProbe(ctx context.Context, now time.Time, turn time.Duration) (time.Time, bool) {
	if b.st == nil {
		return time.Time{}, true
	}
	var held time.Time
	ctx, cancel := context.WithTimeout(ctx, b.storeWait)
	defer cancel()
	err := b.st.Update(ctx, probeKey(b.scope), func(old []byte, found bool) ([]byte, time.Duration, error) {
		if found {
			// A turn ending beyond ProbeMax from now is no turn a replica
			// of this policy took (a clock far ahead, a crashed replica's,
			// a garbled value): it is taken over, never waited for. A
			// turn this process holds is its own to take again: its
			// probe sent nothing (admission.done).
			end, owner, _ := strings.Cut(string(old), " ")
			if n, err := strconv.ParseInt(end, 10, 64); err == nil && owner != b.owner && now.Before(time.Unix(0, n)) &&
				!time.Unix(0, n).After(now.Add(b.policy.ProbeMax)) {
				held = time.Unix(0, n)
				return nil, 0, errProbeHeld
			}
		}
		end := now.Add(turn)
		return []byte(strconv.FormatInt(end.UnixNano(), 10) + " " + b.owner), max(turn, time.Second), nil
	})
	if errors.Is(err, errProbeHeld) {
		return held, false
	}
	return time.Time{}, true
}

// errProbeHeld: another replica holds the bank's probe turn.
var errProbeHeld = errors.New("client: another replica probes the bank")

// done ends a call's admission: a probe that sent nothing the breaker
// could judge (a hook refused it, the caller gave up) lets the next one
// through. Only the half-open state this probe opened is its to end: a
// probe whose answer closed the breaker may end after the breaker opened
// again and a later probe went out, which it must not double.
func (a admission) done() {
	if a.b == nil || !a.probe {
		return
	}
	a.b.mu.Lock()
	if a.b.state == BreakerHalfOpen && a.b.probeSeq == a.seq {
		a.b.state = BreakerOpen // probeAt has passed: the next call probes
	}
	a.b.mu.Unlock()
}

// mayRetry reports whether the breaker lets the call send another
// attempt: not once it opened.
func (a admission) mayRetry() bool {
	if a.b == nil || a.b.policy.Off {
		return true
	}
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	return a.b.state == BreakerClosed
}

// breakerReadEvery is how often a closed breaker reads its bank's shared
// state in the client's store: a breaker another replica opened is seen
// within it, at the cost of one read a second, not one a call.
const breakerReadEvery = time.Second

// breakerKey is the store key of a bank's open breaker, for the
// replicas on the store.
func breakerKey(scope string) string { return "client/breaker/" + scope }

// readShared adopts an open breaker another client on the store wrote,
// at most once every breakerReadEvery. A store that cannot be read leaves
// the breaker as this process knows it.
func (b *bankHealth) readShared(ctx context.Context) {
	if b.st == nil {
		return
	}
	now := time.Now().UnixNano()
	last := b.readAt.Load()
	if now-last < int64(breakerReadEvery) || !b.readAt.CompareAndSwap(last, now) {
		return
	}
	b.mu.Lock()
	seq := b.shareSeq
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, b.storeWait)
	raw, err := b.st.Get(ctx, breakerKey(b.scope))
	cancel()
	if err != nil {
		return
	}
	var since, probe int64
	if _, err := fmt.Sscanf(string(raw), "%d %d", &since, &probe); err != nil {
		return
	}
	t := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	// A change of this process's breaker since the read (shareSeq) is
	// newer than what was read: a breaker that just closed is not opened
	// again by the record its close is deleting.
	if b.state == BreakerClosed && b.shareSeq == seq && t.Before(time.Unix(0, probe)) {
		// The next probe is at most ProbeMax away, whatever the writer's
		// clock: a replica's probe time far ahead never holds this one's
		// probing back.
		b.openedAt, b.probeAt = earliest(time.Unix(0, since), t), earliest(time.Unix(0, probe), t.Add(b.policy.ProbeMax))
		b.setState(BreakerOpen, t)
	}
}

// sharedWrite is a change of the breaker for the replicas on the store
// (writeShared): open until probeAt, or closed. seq orders the writes.
type sharedWrite struct {
	seq            uint64
	open           bool
	since, probeAt time.Time
}

// shareLocked returns the write that tells the replicas of the breaker's
// state now, the next in order; b.mu is held. The caller makes it with
// writeShared once b.mu is released: no store round trip is ever made
// under b.mu, which every call takes (admit), so a slow store never
// holds back the calls of a process.
func (b *bankHealth) shareLocked(open bool) *sharedWrite {
	b.shareSeq++
	w := &sharedWrite{seq: b.shareSeq, open: open}
	if open {
		w.since, w.probeAt = b.openedAt, b.probeAt
	}
	return w
}

// writeShared tells the replicas on the store that the breaker is open
// until probeAt (best effort, within breakerStoreWait), or that it
// closed. Writes are made in order: one older than the last written is
// dropped (the breaker's state is the latest write's).
func (b *bankHealth) writeShared(w *sharedWrite) {
	if b.st == nil || w == nil {
		return
	}
	b.shareMu.Lock()
	defer b.shareMu.Unlock()
	if w.seq <= b.shareWritten {
		return
	}
	b.shareWritten = w.seq
	ctx, cancel := b.storeContext(context.Background())
	defer cancel()
	if !w.open {
		_ = b.st.Delete(ctx, breakerKey(b.scope))
		_ = b.st.Delete(ctx, probeKey(b.scope)) // the next outage's first probe is not held back
		return
	}
	v := strconv.FormatInt(w.since.UnixNano(), 10) + " " + strconv.FormatInt(w.probeAt.UnixNano(), 10)
	_ = b.st.Put(ctx, breakerKey(b.scope), []byte(v), max(time.Until(w.probeAt), time.Second)+time.Minute)
}

// breakerStoreWait bounds each of the breaker's reads and writes of the
// client's store (the shared breaker, the probe turn, the downtime
// records): a store slower than this is one the breaker cannot reach,
// and it works on its own, as it does without a store. It never waits
// on a slow or hung database longer than this: no call is held longer
// for it.
const breakerStoreWait = 2 * time.Second

// storeContext is ctx without its cancellation (a write the breaker
// began is not cut short because a caller gave up) and with the
// breakerStoreWait bound (b.storeWait: a test's may be shorter).
func (b *bankHealth) storeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), b.storeWait)
}

// statusText is the status of an attempt for the evidence: the HTTP
// status, or what became of it.
func statusText(k attemptKind, res attemptResult) string {
	switch {
	case res.r != nil && res.err == nil:
		return strconv.Itoa(res.r.status) + " " + http.StatusText(res.r.status)
	case k == kindTimeout:
		return "timeout"
	}
	return "no answer"
}

// StoredBreaker returns what the client's store says of its bank's
// breaker, as every replica on the store sees it: open (since when, and
// when the next probe goes) while some client on the store holds it open,
// else closed. It is what an operator's tool reads (psd2 health); a
// process's own breaker is in [Client.BankHealth]. The times are bounded
// on the client's clock whatever the store holds: since is never later
// than now, and probeAt never later than the breaker policy's ProbeMax
// from now.
func (c *Client) StoredBreaker(ctx context.Context) (state BreakerState, since, probeAt time.Time, err error) {
	raw, err := c.cfg.store.Get(ctx, breakerKey(c.Scope()))
	if errors.Is(err, store.ErrNotStored) {
		return BreakerClosed, time.Time{}, time.Time{}, nil
	}
	if err != nil {
		return BreakerClosed, time.Time{}, time.Time{}, fmt.Errorf("client: reading the breaker: %w", err)
	}
	var s, p int64
	if _, err := fmt.Sscanf(string(raw), "%d %d", &s, &p); err != nil {
		return BreakerClosed, time.Time{}, time.Time{}, fmt.Errorf("client: the stored breaker is unreadable")
	}
	// Bounded as readShared bounds what it adopts: the next probe at
	// most ProbeMax away and an opening not in the future, whatever the
	// writer's clock (or a garbled value) says, so that no reader (a job
	// engine pausing the bank's queue until the probe) waits beyond it.
	now := c.cfg.clock()
	since, probeAt = earliest(time.Unix(0, s), now), earliest(time.Unix(0, p), now.Add(c.bankHealth().policy.ProbeMax))
	return BreakerOpen, since, probeAt, nil
}
