package budget

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tppkit/psd2/client"
)

// ledger is an account's budget as stored: the times of the counted calls
// of each endpoint and the account's claim ([Reservation]). Each
// account's calls, of both its endpoints, are one value, changed with the
// store's atomic Update, so that two replicas can never both take the
// last call, and so that a refresh can take its balances and
// transactions calls in one write ([Budget.Reserve]); the value expires
// when its last call stops counting (span) and its claim has ended.
type ledger struct {
	balances, transactions []time.Time
	// claimBy names who claimed the account (ReserveRequest.Claim), until
	// claimUntil; empty: no claim.
	claimBy    string
	claimUntil time.Time
}

// ledgerJSON is a ledger's stored form, times in Unix nanoseconds. It is
// the form package accounts wrote before the budget moved here.
type ledgerJSON struct {
	B  []int64 `json:"b,omitempty"`
	T  []int64 `json:"t,omitempty"`
	CB string  `json:"cb,omitempty"`
	CU int64   `json:"cu,omitempty"`
}

// calls returns the call list of endpoint e.
func (l *ledger) calls(e Endpoint) *[]time.Time {
	if e.isBalances() {
		return &l.balances
	}
	return &l.transactions
}

// errUnchanged, returned by the fn of update, leaves the ledger as it
// was without a write.
var errUnchanged = errors.New("unchanged")

// update runs fn on the ledger stored under key, atomically, waiting at
// most SettleWait for the store (storeContext). When fn returns
// errUnchanged nothing is written (a refusal costs no durable write) and
// update returns nil.
func (b *Budget) update(ctx context.Context, key string, fn func(l *ledger) error) error {
	ctx, cancel := b.storeContext(ctx)
	defer cancel()
	err := b.st.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		l, err := decode(old, found)
		if err != nil {
			return nil, 0, err
		}
		now := b.now()
		// A far call time is written back bounded even by a refusal
		// (errUnchanged): read again later, it would otherwise be
		// bounded ahead of each reader's clock anew, and hold the
		// endpoint for as long as the value lives.
		bounded := l.bound(b.aheadLimit(now))
		if err := fn(&l); err != nil && !(bounded && errors.Is(err, errUnchanged)) {
			return nil, 0, err
		}
		var last time.Time
		var v ledgerJSON
		for _, c := range []struct {
			in  []time.Time
			out *[]int64
		}{{l.balances, &v.B}, {l.transactions, &v.T}} {
			for _, t := range c.in {
				*c.out = append(*c.out, t.UnixNano())
				if t.Add(b.span()).After(last) {
					last = t.Add(b.span())
				}
			}
		}
		if l.claimBy != "" && l.claimUntil.After(now) {
			v.CB, v.CU = l.claimBy, l.claimUntil.UnixNano()
			if l.claimUntil.After(last) {
				last = l.claimUntil
			}
		}
		if last.IsZero() {
			return nil, 0, nil
		}
		raw, err := json.Marshal(v)
		// The value is needed until its last call stops counting and
		// its claim has ended.
		return raw, max(last.Sub(now), time.Second), err
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	return err
}

// decode reads a stored ledger (an empty one when not found).
func decode(raw []byte, found bool) (ledger, error) {
	if !found {
		return ledger{}, nil
	}
	// A member this version does not know, or a value without any call
	// or claim (never written: an empty ledger is deleted), is another
	// form, a newer version's say: read as this one it would count no
	// call, and a rewrite would drop what it holds.
	var v ledgerJSON
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		return ledger{}, fmt.Errorf("budget value unreadable (a newer version's form?): %w", err)
	}
	if d.More() || len(v.B) == 0 && len(v.T) == 0 && v.CB == "" {
		return ledger{}, errors.New("budget value unreadable: not a ledger of this version (a newer version's form?)")
	}
	// JSON matches member names without regard to case and keeps the
	// last of two equal ones: a value whose members are spelt or repeated
	// otherwise than this version writes them could read as fewer calls
	// than it holds.
	if err := exactMembers(raw); err != nil {
		return ledger{}, fmt.Errorf("budget value unreadable (a newer version's form?): %w", err)
	}
	// A call time before minCallTime is no time this version wrote (Unix
	// nanoseconds): seconds, milliseconds or microseconds read as
	// nanoseconds fall in January 1970, and would count no call.
	for _, n := range slices.Concat(v.B, v.T) {
		if n < minCallTime {
			return ledger{}, fmt.Errorf("budget value unreadable: call time %d is not in Unix nanoseconds (a newer version's form?)", n)
		}
	}
	l := ledger{balances: times(v.B), transactions: times(v.T), claimBy: v.CB}
	if v.CU != 0 {
		l.claimUntil = time.Unix(0, v.CU).UTC()
	}
	return l, nil
}

// minCallTime is the earliest call time a stored ledger can hold, in
// Unix nanoseconds: 2000-01-01 UTC, before any call this SDK counted and
// after every time in seconds, milliseconds or microseconds of this
// century read as nanoseconds.
const minCallTime = 946684800 * int64(time.Second)

// ledgerMembers are the member names of ledgerJSON, as written.
var ledgerMembers = []string{"b", "t", "cb", "cu"}

// exactMembers checks that raw, a JSON object, names each of its
// members as ledgerJSON writes it, at most once.
func exactMembers(raw []byte) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("not an object")
	}
	var seen []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		if !slices.Contains(ledgerMembers, name) || slices.Contains(seen, name) {
			return fmt.Errorf("member %q unknown or repeated", name)
		}
		seen = append(seen, name)
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// bound reads every call time of l later than limit as made at limit.
// This SDK writes no call time ahead of its clock (exhaustedAt included);
// a far later one (a garbled value, a replica's clock off by more than a
// window) would hold the account's endpoint for as long. The callers
// give a window and the margin ahead of the reader's clock (aheadLimit):
// an endpoint is then held at most two of them, never for ever, once the
// bounded times are written back (update writes them even on a
// refusal), and a replica whose clock lags by less than a window never
// moves another's call times earlier when it writes the ledger back. It
// reports whether it bounded any.
func (l *ledger) bound(limit time.Time) bool {
	bounded := false
	for _, calls := range [][]time.Time{l.balances, l.transactions} {
		for i, t := range calls {
			if t.After(limit) {
				calls[i], bounded = limit, true
			}
		}
	}
	return bounded
}

// aheadLimit is the latest call time a ledger read at now holds (bound):
// a window and the margin ahead.
func (b *Budget) aheadLimit(now time.Time) time.Time { return now.Add(b.span()) }

// times turns Unix nanoseconds into times.
func times(nanos []int64) []time.Time {
	out := make([]time.Time, len(nanos))
	for i, n := range nanos {
		out[i] = time.Unix(0, n).UTC()
	}
	return out
}

// prune drops the calls that no longer count and sorts the rest. A call
// at t counts while now-t < window + ClockMargin.
func (b *Budget) prune(calls []time.Time, now time.Time) []time.Time {
	kept := make([]time.Time, 0, len(calls)+1)
	for _, t := range calls {
		if now.Sub(t) < b.span() {
			kept = append(kept, t)
		}
	}
	slices.SortFunc(kept, time.Time.Compare)
	return kept
}

func (b *Budget) allowance(calls []time.Time) Allowance {
	a := Allowance{Remaining: max(b.limit-len(calls), 0), Limit: b.limit, Window: b.window}
	if len(calls) > 0 {
		// With more calls than the limit (a shared store, a lowered
		// limit), one call is allowed again when all but limit-1 left.
		i := max(len(calls)-b.limit, 0)
		a.NextAt = calls[i].Add(b.span())
	}
	return a
}

// reserve records a call of endpoint e now, or returns an
// *ExhaustedError when the budget is spent. The returned time identifies
// the reservation; the operation's observer learns the calls left
// (client.NoteBudgetLeft).
func (b *Budget) reserve(ctx context.Context, op string, key string, e Endpoint) (time.Time, error) {
	return b.reserveKeeping(ctx, op, key, e, 0)
}

// reserveKeeping is reserve that also refuses, with an *ExhaustedError,
// when the call would leave fewer than keep calls of the window (a
// retry, which keeps RetryReserve for the next round).
func (b *Budget) reserveKeeping(ctx context.Context, op string, key string, e Endpoint, keep int) (time.Time, error) {
	now := b.now()
	var refused *ExhaustedError
	left := 0
	err := b.update(ctx, key, func(l *ledger) error {
		refused = nil // Update may run fn more than once
		calls := l.calls(e)
		*calls = b.prune(*calls, now)
		if len(*calls)+keep >= b.limit {
			refused = &ExhaustedError{Operation: op, Endpoint: e, Limit: b.limit,
				Window: b.window, RetryAt: b.allowance(*calls).NextAt}
			return errUnchanged
		}
		left = b.limit - len(*calls) - 1
		*calls = append(*calls, now)
		return nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: budget store: %w", op, err)
	}
	if refused != nil {
		return time.Time{}, refused
	}
	client.NoteBudgetLeft(ctx, left)
	return now, nil
}

// release removes the reservations of endpoint e made at ts (one each)
// for requests that were not sent, in one write.
// A release cannot undo the bank's "spent": exhaust counts the limit
// beside every reservation (see there).
func (b *Budget) release(ctx context.Context, key string, e Endpoint, ts ...time.Time) error {
	return b.update(ctx, key, func(l *ledger) error {
		calls := l.calls(e)
		for _, t := range ts {
			if i := slices.IndexFunc(*calls, t.Equal); i >= 0 {
				*calls = slices.Delete(*calls, i, i+1)
			}
		}
		return nil
	})
}

// exhaust marks the budget of endpoint e as spent after the bank answered
// 429 ACCESS_EXCEEDED to a call: the bank counted calls the SDK did not
// see (a replica on another store, calls made before the store existed).
// ASSUMPTION (the safe option, docs/interface.md section 8 gives no reset
// time): the missing calls are taken to have been made at t, the time of
// the refused call, so the SDK refuses further calls until the window
// (and the margin) has passed since t instead of earning more 429s; when
// the bank's answer says when to come back (Retry-After), t is set so
// that they are allowed again then and ClockMargin later (exhaustedAt).
//
// The limit's calls at t are counted beside every call the ledger holds,
// not in place of them: some of those may be reservations of calls that
// were never sent, whose release, from another call on a goroutine of its
// own, can land after this write. Giving them back then leaves the
// limit's calls at t, and the bank's "spent" stands. (A ledger of an
// earlier release counts the same entries, and refuses as well.)
func (b *Budget) exhaust(ctx context.Context, key string, e Endpoint, t time.Time) error {
	return b.update(ctx, key, func(l *ledger) error {
		calls := l.calls(e)
		*calls = b.prune(*calls, b.now())
		n := 0
		for _, c := range *calls {
			if c.Equal(t) {
				n++
			}
		}
		for ; n < b.limit; n++ {
			*calls = append(*calls, t)
		}
		return nil
	})
}

// SettleWait bounds each of the budget's calls of its store: a store
// slower than SettleWait (a slow or hung database) is given up on, so
// that no call or job waits on the store for ever, whatever its context.
//
// The reservation a call without the PSU takes before it is sent, a
// retry's, [Budget.Reserve]'s, and the budget's reads (the bank's pause,
// [Budget.Remaining], [Budget.Recorded]) run on the caller's context and
// wait at most SettleWait, or less when the context ends sooner: a
// reservation given up on refuses its call (nothing is sent, and a
// reservation the store reports unwritten is not counted; one it wrote
// all the same stays counted until it expires: the SDK is then stricter,
// never more lenient). The bound is the store call's own: a call's
// deadline, and what is computed from it, stay the caller's.
//
// The writes that settle a call or a job after it ended (a call not sent
// given back, a bank's refusal recorded, the bank's pause,
// [Reservation.Release]) run even when the caller's context has ended,
// so that what was spent is counted right, and wait at most SettleWait:
// a write given up on is lost, as any failed best-effort write.
const SettleWait = 10 * time.Second

// storeContext is ctx bounded by the budget's store wait (SettleWait; a
// test's may be shorter): the context of each of its store calls.
func (b *Budget) storeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, b.storeWait)
}

// settleContext is ctx without its end and with the store wait's bound:
// the context of a write that settles a call or a job after it ended.
func (b *Budget) settleContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return b.storeContext(context.WithoutCancel(ctx))
}

// settleWithin makes the store writes write, which settle a call after
// its answer, on settleContext (without the call's cancellation, within
// the store's bound) and on a goroutine of their own; it waits for them
// as long as ctx, the caller's, lasts. The caller's deadline thus bounds
// the call whatever the store does, and a write not over by then goes on
// within its bound: until it lands, the calls it gives back stay counted
// (the strict side). Flush waits for it.
func (b *Budget) settleWithin(ctx context.Context, write func(context.Context)) {
	sctx, cancel := b.settleContext(ctx)
	done := b.writes.Track()
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer done()
		defer cancel()
		write(sctx)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
	}
}

// Flush waits until every write that settles a call and was still under
// way when its call returned (the caller's deadline came first: a call
// not sent given back, the bank's refusal or pause recorded) is over,
// each within [SettleWait], or ctx ends (its error then). Call it before
// a process exits, as the journal's Flush, so that the bank's pause or
// refusal is not lost with the process and its next start does not call
// the bank again within it. A nil Budget has nothing to wait for.
func (b *Budget) Flush(ctx context.Context) error {
	if b == nil {
		return nil
	}
	if err := b.writes.Wait(ctx); err != nil {
		return fmt.Errorf("budget: flush: %w", err)
	}
	return nil
}
