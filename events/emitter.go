package events

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/panicvalue"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/store"
)

// Default thresholds, in days before the end.
var (
	DefaultRenewalDays     = []int{14, 7, 3, 1}
	DefaultCertificateDays = []int{30, 14, 7, 1}
)

// rememberFor is how long an Emitter remembers an event it emitted.
const rememberFor = 400 * 24 * time.Hour

// Emitter makes lifecycle events and publishes each to its Sink once:
// it remembers the IDs it published in a store (a store.MemoryStore of
// its own unless [WithStore] gives a shared one), so that a check made
// again, by this replica or another on the same store, publishes nothing
// new. Its methods are safe for concurrent use.
type Emitter struct {
	sink        Sink
	st          store.Store
	now         func() time.Time
	renewal     []int
	certificate []int
	// storeWait bounds each store call (StoreWait; a test's may be
	// shorter).
	storeWait time.Duration

	// mu guards busy: the IDs being published by a call of Emit, each
	// with a channel closed when that call ends, so that a concurrent
	// Emit of the same fact waits for it and finds it published rather
	// than publishing it a second time.
	mu   sync.Mutex
	busy map[string]chan struct{}
}

// StoreWait bounds each of an Emitter's calls of its store, and each
// publication to its Sink (whose context ends after it), whatever the
// caller's context: a slow or hung database, the store's or the outbox's,
// ends a check with an error (nothing remembered: the next check
// publishes again) after it, and never holds the caller for ever, even
// on a context without a deadline (an OnChange subscriber runs on the
// goroutine of the call that changed the breaker). A Handler that
// ignores its context is not stopped: it holds its caller as long as it
// runs. The mark written after a publication does not end with the
// caller's context (the publication happened and must be remembered),
// only with this bound.
const StoreWait = 10 * time.Second

// Option configures an Emitter in [NewEmitter].
type Option func(*Emitter) error

// WithRenewalDays sets the days before a consent's end at which
// [ConsentRenewalDue] comes, one event for each (default 14, 7, 3, 1).
func WithRenewalDays(days ...int) Option {
	return func(e *Emitter) error {
		d, err := thresholds(days)
		e.renewal = d
		return err
	}
}

// WithCertificateDays sets the days before a certificate's expiry at
// which [CertificateExpiring] comes (default 30, 14, 7, 1).
func WithCertificateDays(days ...int) Option {
	return func(e *Emitter) error {
		d, err := thresholds(days)
		e.certificate = d
		return err
	}
}

// WithStore remembers the published events in st, shared by replicas
// (pgstore's Store, for one).
func WithStore(st store.Store) Option {
	return func(e *Emitter) error {
		if st == nil {
			return errors.New("events: nil store")
		}
		e.st = st
		return nil
	}
}

// WithClock makes the Emitter read the time from now.
func WithClock(now func() time.Time) Option {
	return func(e *Emitter) error {
		if now == nil {
			return errors.New("events: nil clock")
		}
		e.now = now
		return nil
	}
}

// thresholds checks and sorts days, largest first.
func thresholds(days []int) ([]int, error) {
	if len(days) == 0 || len(days) > 32 {
		return nil, errors.New("events: give 1 to 32 thresholds")
	}
	d := slices.Clone(days)
	for _, n := range d {
		if n < 0 || n > 3660 {
			return nil, fmt.Errorf("events: threshold %d days is out of range", n)
		}
	}
	slices.Sort(d)
	slices.Reverse(d)
	return slices.Compact(d), nil
}

// NewEmitter returns an Emitter publishing to sink.
func NewEmitter(sink Sink, opts ...Option) (*Emitter, error) {
	if sink == nil {
		return nil, errors.New("events: nil Sink")
	}
	e := &Emitter{sink: sink, st: store.NewMemoryStore(), now: time.Now,
		renewal: DefaultRenewalDays, certificate: DefaultCertificateDays, storeWait: StoreWait}
	for _, o := range opts {
		if err := o(e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// Emit publishes ev unless an event with its ID was published before. It
// reports whether it published. Concurrent calls with the same fact
// publish it once: a call waits for another publishing the same ID (at
// most [StoreWait]) and then finds it published. So do replicas on one
// store ([WithStore]): the one that publishes holds a claim in the store
// meanwhile (one more store write per publication, and one more every
// third of the claim's life while a publication lasts), and the others
// wait for its mark, or publish themselves when its publication failed
// or it died (the claim then ends with its TTL, twice StoreWait and a
// second); a replica that waited the claim's life and a StoreWait more
// gives up with an error. A Sink that panics is recovered: Emit
// returns an error wrapping [ErrSinkPanicked] and remembers nothing.
func (e *Emitter) Emit(ctx context.Context, ev Event) (bool, error) {
	env, err := Wrap(ev, e.now())
	if err != nil {
		return false, err
	}
	release, err := e.claim(ctx, env.ID)
	if err != nil {
		return false, err
	}
	defer release()
	key := "events/emitted/" + env.ID
	if published, err := e.emitted(ctx, key); err != nil || published {
		return false, err
	}
	published, unclaim, err := e.claimShared(ctx, env.ID, key)
	if err != nil || published {
		return false, err
	}
	defer unclaim()
	// Another replica may have published it and ended its claim between
	// the look above and this claim.
	if published, err := e.emitted(ctx, key); err != nil || published {
		return false, err
	}
	// Publish first: a crash before the mark publishes again, which the
	// outbox drops by ID; the other order could lose the event. The
	// publication is bounded as the store's calls are: the Sink across
	// replicas is pgstore's outbox, a database that may hang.
	sctx, cancel := context.WithTimeout(ctx, e.storeWait)
	err = publish(sctx, e.sink, env)
	cancel()
	if err != nil {
		return false, fmt.Errorf("events: publishing %s: %w", env.Kind, err)
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.storeWait)
	defer cancel()
	if err := e.st.Put(pctx, key, []byte{1}, rememberFor); err != nil {
		return true, fmt.Errorf("events: store: %w", err)
	}
	return true, nil
}

// emitted reports whether the mark key of a published event is in the
// store.
func (e *Emitter) emitted(ctx context.Context, key string) (bool, error) {
	gctx, cancel := context.WithTimeout(ctx, e.storeWait)
	_, err := e.st.Get(gctx, key)
	cancel()
	if err == nil {
		return true, nil
	} else if !errors.Is(err, store.ErrNotStored) {
		return false, fmt.Errorf("events: store: %w", err)
	}
	return false, nil
}

// errClaimHeld: another replica holds the claim of publishing an event.
var errClaimHeld = errors.New("events: another replica is publishing the event")

// claimPoll is how often an Emit waiting for another replica's
// publication of the same event looks for its mark.
const claimPoll = 25 * time.Millisecond

// claimShared takes, in the Emitter's store, the claim of publishing the
// event id, shared by every replica on that store (claim serves the
// calls of one process): two replicas emitting one fact at the same
// moment would each find it unpublished and each publish it, which a
// Handler sink on each of them sees twice. The claim lives twice a store
// wait and a second, and its holder renews it while it publishes
// (holdClaim), so that the store's TTL ends it only when its holder
// died. While another replica holds it, claimShared waits for
// that replica's mark (mark: published is true) or for the claim to end
// unmarked (a failed publication), then takes it; it gives up with an
// error when ctx ends or after the claim's life and a store wait. It
// returns the function that ends the claim.
func (e *Emitter) claimShared(ctx context.Context, id, mark string) (published bool, release func(), err error) {
	key := "events/publishing/" + id
	life := 2*e.storeWait + time.Second
	token := make([]byte, 16)
	_, _ = rand.Read(token) // crypto/rand's Read never fails
	giveUp := time.NewTimer(life + e.storeWait)
	defer giveUp.Stop()
	for {
		uctx, cancel := context.WithTimeout(ctx, e.storeWait)
		err := e.st.Update(uctx, key, func(_ []byte, found bool) ([]byte, time.Duration, error) {
			if found {
				return nil, 0, errClaimHeld
			}
			return token, life, nil
		})
		cancel()
		if err == nil {
			stop := e.holdClaim(ctx, key, token, life)
			return false, func() {
				stop()
				e.unclaim(ctx, key, token)
			}, nil
		}
		if !errors.Is(err, errClaimHeld) {
			return false, nil, fmt.Errorf("events: store: %w", err)
		}
		select {
		case <-time.After(claimPoll):
		case <-ctx.Done():
			return false, nil, fmt.Errorf("events: waiting for another replica's publication: %w", ctx.Err())
		case <-giveUp.C:
			return false, nil, errors.New("events: another replica's publication of the same event did not end")
		}
		if published, err := e.emitted(ctx, mark); err != nil || published {
			return published, nil, err
		}
	}
}

// holdClaim renews the claim under key, token's, for another life every
// third of its life, until the function it returns is called (which
// returns once the renewals have stopped). A publication may outlast the
// claim's life: a Handler that ignores its context is not stopped, and
// the look for the mark, the publication and the mark each take up to a
// store wait, three of them against a life of two and a second. A claim
// that ended under a publication still under way let a waiting replica
// take it, find no mark and publish the event a second time. A holder
// that died renews nothing, so its claim still ends with its TTL; a
// renewal that finds the claim gone or another replica's stops.
func (e *Emitter) holdClaim(ctx context.Context, key string, token []byte, life time.Duration) func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	rctx := context.WithoutCancel(ctx)
	go func() {
		defer close(stopped)
		tick := time.NewTicker(life / 3)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			uctx, cancel := context.WithTimeout(rctx, e.storeWait)
			err := e.st.Update(uctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
				if !found || !bytes.Equal(old, token) {
					return nil, 0, errClaimHeld
				}
				return token, life, nil
			})
			cancel()
			if errors.Is(err, errClaimHeld) {
				return // lost: renewing it would take another's
			}
			// Another error (the store down) is tried again at the next
			// tick: the claim lives on until then.
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// unclaim ends the claim under key when it is still token's (best
// effort: its TTL ends it otherwise).
func (e *Emitter) unclaim(ctx context.Context, key string, token []byte) {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.storeWait)
	defer cancel()
	_ = e.st.Update(uctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		if !found || !bytes.Equal(old, token) {
			return nil, 0, errClaimHeld
		}
		return nil, 0, nil
	})
}

// claim waits until no other call of Emit is publishing the event id
// and marks it as this call's, returning the function that ends the
// claim. The wait ends with ctx, or after the Emitter's bound on a store
// call (a concurrent publication whose Handler ignores its context).
func (e *Emitter) claim(ctx context.Context, id string) (func(), error) {
	var timer <-chan time.Time
	for {
		e.mu.Lock()
		ch, ok := e.busy[id]
		if !ok {
			if e.busy == nil {
				e.busy = make(map[string]chan struct{})
			}
			ch = make(chan struct{})
			e.busy[id] = ch
			e.mu.Unlock()
			return func() {
				e.mu.Lock()
				delete(e.busy, id)
				e.mu.Unlock()
				close(ch)
			}, nil
		}
		e.mu.Unlock()
		if timer == nil {
			t := time.NewTimer(e.storeWait)
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("events: waiting for a concurrent publication: %w", ctx.Err())
		case <-timer:
			return nil, errors.New("events: a concurrent publication of the same event did not end")
		}
	}
}

// publish hands env to sink, a panic of the sink (a TPP's Handler) made
// an error wrapping [ErrSinkPanicked]: the Emitter's callers include
// goroutines the SDK starts (a breaker's OnChange subscriber), where a
// panic would end the whole process.
func publish(ctx context.Context, sink Sink, env Envelope) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %s", ErrSinkPanicked, panicvalue.Describe(v))
		}
	}()
	return sink.Publish(ctx, env)
}

// daysLeft is the whole days from now to end, rounded up. end.Sub
// saturates at about 292 years, so the rounding must not add to d: a far
// end (a NotAfter of 9999-12-31) would overflow to a negative count.
func daysLeft(now, end time.Time) int {
	d := end.Sub(now)
	days := d / (24 * time.Hour)
	if d%(24*time.Hour) > 0 {
		days++
	}
	return int(days)
}

// crossed returns the smallest threshold at or above left, false when
// left is above every one. Only that one is emitted: a check made after
// a long pause does not send the larger ones too.
func crossed(ths []int, left int) (int, bool) {
	for i := len(ths) - 1; i >= 0; i-- {
		if left <= ths[i] {
			return ths[i], true
		}
	}
	return 0, false
}

// Consent checks a consent that ends at ends, named by the TPP's
// reference ref: [ConsentExpired] once it has ended, [ConsentRenewalDue]
// when a threshold is crossed. Call it from a periodic job for every
// live consent (the refresh job, for one). Each consent under ref (each
// end) gets its own events.
func (e *Emitter) Consent(ctx context.Context, ref string, ends time.Time) error {
	if ref == "" || ends.IsZero() {
		return errors.New("events: Consent needs a reference and an end")
	}
	now := e.now()
	if !ends.After(now) {
		_, err := e.Emit(ctx, ConsentExpired{Consent: ref, Ends: ends.UTC()})
		return err
	}
	left := daysLeft(now, ends)
	th, ok := crossed(e.renewal, left)
	if !ok {
		return nil
	}
	_, err := e.Emit(ctx, ConsentRenewalDue{Consent: ref, Ends: ends.UTC(), DaysLeft: left, Threshold: th})
	return err
}

// Certificate checks a certificate of role ("signing", "qwac"):
// [CertificateExpiring] when a threshold is crossed, also once it has
// expired (0 days left).
func (e *Emitter) Certificate(ctx context.Context, role string, cert *x509.Certificate) error {
	if cert == nil || role == "" {
		return errors.New("events: Certificate needs a role and a certificate")
	}
	left := max(daysLeft(e.now(), cert.NotAfter), 0)
	th, ok := crossed(e.certificate, left)
	if !ok {
		return nil
	}
	_, err := e.Emit(ctx, CertificateExpiring{Role: role, NotAfter: cert.NotAfter.UTC(), DaysLeft: left, Threshold: th})
	return err
}

// ConsentError turns the error of a call made under a consent into its
// event, if it has one:
//   - CONSENT_EXPIRED: [ConsentExpired];
//   - CONSENT_INVALID or CONSENT_UNKNOWN: [ConsentRevoked];
//   - a demand for SCA ([client.ErrSCARequired]) to a call without the
//     PSU present: [ReconnectRequired].
//
// The consent is named by the TPP's reference ref and by its end ends
// (sca.Session.ConsentExpiresAt): a later consent under the same
// reference ends at another time, so its events are not taken for the
// first one's. It reports whether err had an event; other errors have
// none. An error with an event and no reference or end is refused.
func (e *Emitter) ConsentError(ctx context.Context, ref string, ends time.Time, psuPresent bool, err error) (bool, error) {
	if err == nil {
		return false, nil
	}
	var ev Event
	switch {
	case errors.Is(err, client.ErrConsentExpired):
		ev = ConsentExpired{Consent: ref, Ends: ends.UTC()}
	case errors.Is(err, client.ErrConsentInvalid):
		ev = ConsentRevoked{Consent: ref, Ends: ends.UTC(), Code: client.CodeConsentInvalid}
	case errors.Is(err, client.ErrConsentUnknown):
		ev = ConsentRevoked{Consent: ref, Ends: ends.UTC(), Code: client.CodeConsentUnknown}
	case errors.Is(err, client.ErrSCARequired) && !psuPresent:
		ev = ReconnectRequired{Consent: ref, Ends: ends.UTC(), Day: e.now().UTC().Format(time.DateOnly)}
	default:
		return false, nil
	}
	if ref == "" || ends.IsZero() {
		return true, errors.New("events: ConsentError needs the consent's reference and end")
	}
	_, perr := e.Emit(ctx, ev)
	return true, perr
}

// PaymentError turns the error of a payment create whose X-Request-ID is
// ref into its event, if it has one: [client.ErrOutcomeUnknown] gives
// [PaymentOutcomeUnknown]. It reports whether err had an event; other
// errors have none.
func (e *Emitter) PaymentError(ctx context.Context, ref string, err error) (bool, error) {
	var ou *client.OutcomeUnknownError
	if err == nil || !errors.As(err, &ou) {
		return false, nil
	}
	if ref == "" {
		return true, errors.New("events: PaymentError needs the payment's reference")
	}
	_, perr := e.Emit(ctx, PaymentOutcomeUnknown{Payment: ref, Operation: ou.Operation})
	return true, perr
}

// PaymentStatus reports a payment's status as last seen (from) and now
// (to): [PaymentStatusChanged] when they differ. A status outside the
// interface's list (payments.TransactionStatus.IsKnown) is the bank's
// own text: the event says OTHER in its place, so that no
// bank text reaches a payload, and a change from one such status to
// another is no change. A change without the payment's reference ref is
// refused: its event would name no payment.
func (e *Emitter) PaymentStatus(ctx context.Context, ref, from, to string) error {
	from, to = safeStatus(from), safeStatus(to)
	if from == to || to == "" {
		return nil
	}
	if ref == "" {
		return errors.New("events: PaymentStatus needs the payment's reference")
	}
	_, err := e.Emit(ctx, PaymentStatusChanged{Payment: ref, From: from, To: to})
	return err
}

// safeStatus returns status when it is one of the interface's
// transaction statuses (payments.TransactionStatus.IsKnown), and "OTHER"
// for anything else a bank sent in its place, as client.SafeCode does
// for a tppMessage code: the form of a status an event carries. The
// empty status stays empty.
func safeStatus(status string) string {
	if status == "" || payments.TransactionStatus(status).IsKnown() {
		return status
	}
	return "OTHER"
}

// InDoubt publishes [PaymentInDoubt] for every entry of j in doubt, for
// example at start-up after a crash, and for every payment in doubt
// whose entry is lost, only its open marker left (journal.Journal.Lost:
// its Operation is unknown, ""). An entry the journal cannot read
// (journal.ErrEntryUnreadable) is published too, its Operation unknown,
// and the others after it are; InDoubt then returns the first such
// error with the count. It returns how many it found.
func (e *Emitter) InDoubt(ctx context.Context, j *journal.Journal) (int, error) {
	n := 0
	var unread error
	for entry, err := range j.InDoubt(ctx) {
		if ue, ok := errors.AsType[*journal.UnreadableEntryError](err); ok {
			n++
			unread = cmp.Or(unread, err)
			if _, err := e.Emit(ctx, PaymentInDoubt{Payment: ue.RequestID}); err != nil {
				return n, err
			}
			continue
		}
		if err != nil {
			return n, err
		}
		n++
		if _, err := e.Emit(ctx, PaymentInDoubt{Payment: entry.RequestID, Operation: entry.Operation}); err != nil {
			return n, err
		}
	}
	for lost, err := range j.Lost(ctx) {
		if err != nil {
			return n, err
		}
		n++
		if _, err := e.Emit(ctx, PaymentInDoubt{Payment: lost.RequestID}); err != nil {
			return n, err
		}
	}
	return n, unread
}

// Downtimes publishes, from the downtime records of c's bank on c's store
// (client.Client.Downtimes) that start from from on, [BankUnavailable]
// for each outage and [BankAvailable] for each that ended, those not
// published before (by [Emitter.Breaker] or an earlier Downtimes: one
// event of each per unavailability). Breaker publishes at the moment the
// breaker changes, once: a publication that failed then (the sink or the
// store down, a crash between the change and its event) is published by
// the next Downtimes. Call it at start-up and periodically (every few
// minutes; a day back, say), beside the OnChange subscription. It returns
// how many records it read; an error ends it (the events of the records
// read before it were published).
func (e *Emitter) Downtimes(ctx context.Context, c *client.Client, from time.Time) (int, error) {
	if c == nil {
		return 0, errors.New("events: Downtimes needs a client")
	}
	downs, err := c.Downtimes(ctx, from, e.now())
	if err != nil {
		return 0, fmt.Errorf("events: %w", err)
	}
	scope := c.Scope()
	for i, d := range downs {
		open := d
		open.End = time.Time{} // the record as it was when the breaker opened
		if _, err := e.Emit(ctx, BankUnavailable{Scope: scope, Downtime: open}); err != nil {
			return i, err
		}
		if d.End.IsZero() {
			continue
		}
		if _, err := e.Emit(ctx, BankAvailable{Scope: scope, Downtime: d}); err != nil {
			return i, err
		}
	}
	return len(downs), nil
}

// Breaker publishes a change of a bank's circuit breaker as
// [BankUnavailable] (it opened) or [BankAvailable] (it closed); other
// changes (a probe under way) publish nothing. A closing publishes the
// outage's BankUnavailable first when it was not published (its
// publication failed when the breaker opened), so that the bank's
// events come in order. Subscribe it with
// client.Health.OnChange, from a goroutine of its own if the sink is
// slow:
//
//	h.OnChange(func(ch client.BreakerChange) { _ = em.Breaker(context.Background(), ch) })
func (e *Emitter) Breaker(ctx context.Context, ch client.BreakerChange) error {
	var ev Event
	switch {
	case ch.To == client.BreakerOpen && ch.From == client.BreakerClosed:
		ev = BankUnavailable{Scope: ch.Scope, Downtime: ch.Downtime}
	case ch.To == client.BreakerClosed:
		// The opening first, so that a Key's last event is never the
		// unavailability of a bank that answers again: one whose
		// publication failed when the breaker opened would otherwise
		// come after this one, from the next Downtimes. Published
		// before, it is the same ID and publishes nothing.
		if open := ch.Downtime; !open.Start.IsZero() {
			open.End = time.Time{}
			if _, err := e.Emit(ctx, BankUnavailable{Scope: ch.Scope, Downtime: open}); err != nil {
				return err
			}
		}
		ev = BankAvailable{Scope: ch.Scope, Downtime: ch.Downtime}
	default:
		return nil
	}
	_, err := e.Emit(ctx, ev)
	return err
}
