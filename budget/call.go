package budget

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tppkit/psd2/client"
)

// AccountOf names the account a call of a counted operation reads, from
// the call as the client resolved it (for a link, its URL); an error
// refuses the call before it is sent.
type AccountOf func(*client.Call) (string, error)

// Account is the AccountOf of a call on accountID.
func Account(accountID string) AccountOf {
	return func(*client.Call) (string, error) { return accountID, nil }
}

// Counted returns op as a call of endpoint e, of the account accountOf
// names, that counts against the budget; it sets op's Hook and
// BeforeRetry (and replaces any op had). Package accounts declares its
// balances and transactions calls with it. The client then runs the
// budget around the call:
//
//   - without the PSU present (no PSU-IP-Address on the resolved call),
//     one call is reserved before anything is sent, and the call is
//     refused with an [*ExhaustedError] when the budget is spent; a call
//     made with a [Reservation]'s option ([Reservation.Option]) uses one
//     of its calls instead, with no write, and is first held during the
//     bank's pause as the reservation says ([ReserveRequest.MaxWait]);
//   - the reservation is given back when the client reports that nothing
//     was sent, and the budget is marked spent when the bank answered 429
//     ACCESS_EXCEEDED;
//   - before a retry of an attempt that may have reached the bank, one
//     more call is reserved (the retry is not sent when the budget is
//     spent), after the bank's pause, if one runs;
//   - a 429 with Retry-After pauses the bank ([Budget.PausedUntil]),
//     with the PSU present or not.
//
// A nil Budget leaves op as it is.
func (b *Budget) Counted(op client.Operation, e Endpoint, accountOf AccountOf) client.Operation {
	if b == nil {
		return op
	}
	op.Hook, op.BeforeRetry = b.hook(op.Name, e, accountOf), b.retryHook(op.Name, e, accountOf)
	return op
}

// psuPresent reports whether call is made with the PSU present: it
// carries a PSU-IP-Address (docs/interface.md section 5.14) that is not
// blank. HTTP drops the blanks around a header value, so a value of
// blanks reaches the bank as an empty header: no PSU present, a call
// the bank counts.
func psuPresent(call *client.Call) bool {
	return strings.Trim(call.Header.Get("PSU-IP-Address"), " \t") != ""
}

// hook is the client hook of a counted call of endpoint e (see Counted).
func (b *Budget) hook(op string, e Endpoint, accountOf AccountOf) client.Hook {
	return func(ctx context.Context, call *client.Call) (func(client.Result), error) {
		accountID, err := accountOf(call)
		if err != nil {
			return nil, err
		}
		rsv, _ := call.Value(reservationKey{}).(*Reservation)
		if psuPresent(call) {
			return func(r client.Result) {
				rsv.noteSent(r)
				b.pauseAfter(ctx, r.Err)
			}, nil
		}
		if rsv != nil {
			if err := b.waitPause(ctx, rsv.maxWait); err != nil {
				return nil, err
			}
		}
		key := b.key(accountID, e.card())
		// A call with a reservation (Budget.Reserve) was counted when the
		// reservation was written: no write now.
		at, ok := rsv.take(key, e, b.now())
		if !ok {
			if at, err = b.reserve(ctx, op, key, e); err != nil {
				return nil, err
			}
		}
		rt := &retryCalls{}
		b.retried.Store(call, rt)
		return func(r client.Result) {
			b.retried.Delete(call)
			// What this process knows is settled at once, before the
			// caller is back; the store's writes after it (settleWithin).
			rsv.noteSent(r)
			// The retries reserved but never sent (the breaker opened, or
			// the caller gave up, while the call waited; the retry's
			// request never left) are given back: a call counts exactly
			// when the client reports it may have been sent.
			unused := rt.unused(r)
			if !r.Sent {
				unused = append(unused, at)
			}
			spent := r.Sent && bankAccessExceeded(r.Err) && !b.isRateLimit(r.Err)
			if spent {
				// The bank says the endpoint is spent: the reservation's
				// unused calls of it are spent too, and must not be
				// given back by Release, which would undo the fill.
				rsv.spend(key, e)
			}
			// The bank's rate limit of this account, too long to pause
			// the whole bank: held in the ledger until its end, as a
			// spent budget is, so that no replica, and no process
			// started since, calls the endpoint before the bank said.
			// The fill stops counting at the Retry-After: after it, only
			// the calls made count.
			held := r.Sent && b.accountRateLimit(r.Err)
			var heldFrom time.Time
			if held {
				// The reservation's unused calls of the endpoint wait as
				// long: they are counted already, and would otherwise
				// go out without the ledger's say (take).
				heldFrom = b.exhaustedAt(r.Err, at)
				rsv.hold(key, e, heldFrom.Add(b.span()))
			}
			b.pauseAfter(ctx, r.Err)
			if len(unused) == 0 && !spent && !held {
				return
			}
			// Best effort: a failed write only makes the SDK stricter.
			b.settleWithin(ctx, func(ctx context.Context) {
				if len(unused) > 0 {
					_ = b.release(ctx, key, e, unused...)
				}
				switch {
				case held:
					_ = b.exhaust(ctx, key, e, heldFrom)
				case spent:
					_ = b.exhaust(ctx, key, e, b.exhaustedAt(r.Err, at))
				}
			})
		}, nil
	}
}

// exhaustedAt is the time exhaust takes the bank's uncounted calls to
// have been made at, for a call made at t that the bank refused with err:
// t, so that the next call is allowed a window (and the margin) later;
// but when the answer says when to come back (Retry-After, in seconds or
// as an HTTP date measured against the answer's Date), so that the next
// call is allowed then and [ClockMargin] later on this client's clock,
// a window at most: the margin is kept on the strict side, as for every
// call counted, so that a replica whose clock runs ahead of this one's by
// less than the margin does not call before the bank's time either.
func (b *Budget) exhaustedAt(err error, t time.Time) time.Time {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return t
	}
	wait, ok := ce.RetryAfter(b.now())
	if !ok {
		return t
	}
	return b.now().Add(min(max(wait, minExhaustedWait), b.window) - b.window)
}

// minExhaustedWait is the shortest wait the budget takes from a 429
// ACCESS_EXCEEDED's Retry-After. ASSUMPTION (the safe option): an answer
// that says the budget is spent but to come back at once, or within
// seconds, means a minute, so that a job scheduled at the time the SDK
// reports does not meet the same refusal in a loop.
const minExhaustedWait = time.Minute

// RetryReserve is the number of calls of an account's endpoint that a
// retry within a call never takes: they stay for the next round. The
// client retries a counted call without the PSU only after a 429 (the
// bank asked to slow down), and only when, once the retry is counted,
// the endpoint still has RetryReserve calls left in its window; otherwise
// the call ends with the 429 and its scheduler (River's backoff, or the
// refresher's next pass) tries again. With the default limit of 4 a
// refresh round's call and one retry leave at least one call for the
// next round. ASSUMPTION (the safe option): a retry the budget can spare
// is worth a call only when the bank said to come back; a round that
// keeps one call back can still run later in the day.
const RetryReserve = 1

// errNoBlindRetry refuses the client's retry of a counted call without
// the PSU after a 5xx, a timeout or a connection lost after sending: the
// call ends with that attempt's answer or error, and the round's
// scheduler tries again later. The client does not return it.
var errNoBlindRetry = errors.New("budget: a counted call is not retried after a 5xx or no answer; its scheduler tries again")

// retryHook is the client's BeforeRetry of a counted call of endpoint e,
// without the PSU present, after an attempt that may have reached the
// bank. Every such attempt is a call the bank may count
// (docs/interface.md section 8 counts calls, not the SDK's operations),
// so a counted call is never retried blindly within one call:
//
//   - after a 5xx, a timeout or a connection lost after sending, it is
//     not retried at all: the call ends with that attempt's answer or
//     error, and the round's scheduler (River's backoff, the refresher's
//     next pass) tries again, so that one blip costs at most one call;
//   - after a 429 (the bank asked to slow down, and the client waits
//     its Retry-After), it is retried once the pause has ended, and only
//     when the budget can spare one more call and still keep
//     [RetryReserve] for the next round; that call is reserved before the
//     retry is sent.
//
// ASSUMPTION (the safe option, docs/interface.md section 8 counts
// "calls"): the bank counts a call it answered with 5xx or 429, or never
// answered, as it counts one it answered; such a call stays counted.
func (b *Budget) retryHook(op string, e Endpoint, accountOf AccountOf) func(context.Context, *client.Call) error {
	return func(ctx context.Context, call *client.Call) error {
		if psuPresent(call) {
			b.pauseFrom(ctx, call)
			return nil
		}
		if call.RetryStatus != http.StatusTooManyRequests {
			return errNoBlindRetry
		}
		if err := b.pauseBeforeRetry(ctx, call); err != nil {
			return err
		}
		accountID, err := accountOf(call)
		if err != nil {
			return err
		}
		at, err := b.reserveKeeping(ctx, op, b.key(accountID, e.card()), e, RetryReserve)
		if err != nil {
			return err
		}
		if rt, ok := b.retried.Load(call); ok {
			rt.(*retryCalls).add(at)
		}
		return nil
	}
}

// retryCalls are the calls a counted call reserved for its retries
// (retryHook), by their times, until its hook settles them: the client
// may decide a retry, have the budget reserve it, and then not send it
// (the bank's breaker opened, or the caller gave up, during the wait
// before it; its request never left).
type retryCalls struct {
	mu sync.Mutex
	at []time.Time
}

// add records a retry reserved at t.
func (rt *retryCalls) add(t time.Time) {
	rt.mu.Lock()
	rt.at = append(rt.at, t)
	rt.mu.Unlock()
}

// unused returns the times of the reserved retries that r, the call's
// result, says were never sent, the latest ones: the call's first
// request and each reserved retry are one request each, and r.Attempts
// counts those that may have left (a retry of a request that never left
// is sent on the same reservation). A clock-skew retry, which reserves
// nothing, can only make it give back less: the SDK is then stricter.
func (rt *retryCalls) unused(r client.Result) []time.Time {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	n := len(rt.at)
	if r.Sent {
		n = min(n, 1+len(rt.at)-r.Attempts)
	}
	if n <= 0 {
		return nil
	}
	return slices.Clone(rt.at[len(rt.at)-n:])
}

// bankAccessExceeded reports whether err is the bank's own 429
// ACCESS_EXCEEDED (not the SDK's refusal).
func bankAccessExceeded(err error) bool {
	var ce *client.Error
	return errors.As(err, &ce) && ce.Is(client.ErrAccessExceeded)
}

// isRateLimit reports whether err is a 429 that [Budget.RateLimit] reads
// as a rate limit: the account's budget is then not marked spent (a long
// one holds the account's endpoint until its end: accountRateLimit).
func (b *Budget) isRateLimit(err error) bool {
	_, ok := b.RateLimit(err)
	return ok
}
