package budget

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tppkit/psd2/client"
)

// ReserveRequest says what [Budget.Reserve] takes from an account's
// budget.
type ReserveRequest struct {
	// AccountID is the account, or with Card the card account.
	AccountID string
	Card      bool
	// Balances and Transactions are the calls to take of each endpoint
	// (0 to the limit).
	Balances, Transactions int
	// Claim, when not empty, claims the account for its holder until
	// ClaimUntil, in the same write: a reservation with another Claim
	// before then is refused with a *ClaimedError ([ErrClaimed]); one with
	// the same Claim (the same job tried again after a crash) is not. A
	// refresher names one refresh of an account per round with it, so
	// that replicas on one store refresh each account once per round.
	// ClaimUntil is at most [MaxClaim] after the budget's now: a later
	// one is refused with a *ClaimTooLongError ([ErrClaimTooLong])
	// before anything is written.
	Claim      string
	ClaimUntil time.Time
	// MaxWait is how long Reserve, and then each call made with the
	// reservation, waits for the end of the bank's pause
	// ([Budget.PausedUntil]) before it goes on: a pause that ends later
	// refuses them with a *PausedError ([ErrPaused]) before anything is
	// written or sent. Zero refuses them during any pause. A background
	// refresh so never calls the bank while it asks to slow down, even
	// when the pause began in the middle of the refresh.
	MaxWait time.Duration
}

// MaxClaim is the longest a reservation may claim an account
// ([ReserveRequest.ClaimUntil] after the budget's now): a claim holds
// the account for one refresh round, and a round is at most the spacing
// between refreshes, a few hours under the interface's limit of 4 calls
// in 24 hours. A week leaves room for a bank with a longer window
// ([WithLimit]); a claim for longer, a caller's mistake or a computed
// value gone wrong, would keep every other holder from the account for
// as long, and is refused.
const MaxClaim = 7 * 24 * time.Hour

// Reservation is calls taken ahead from one account's budget by
// [Budget.Reserve], in one atomic write of the store. Calls made with its
// request option ([Reservation.Option]) use its calls instead of writing
// each its own; a call beyond them (a next page, a retry) is counted with
// a write of its own, as always.
//
// A reserved call counts as made from the moment it is reserved: no
// replica can spend it, so the budget is never over-spent, across
// replicas or across a crash between the reservation and the call. A
// reserved call that is not used is given back by [Reservation.Release]
// (one more write, only when something is left); a reservation whose
// holder crashed before releasing keeps its unused calls counted until
// they expire by the window rule (24 hours and the clock margin after
// the reservation), like calls made.
type Reservation struct {
	b       *Budget
	key     string
	card    bool
	at      time.Time
	claimed bool
	maxWait time.Duration
	opt     client.RequestOption

	mu   sync.Mutex
	left [2]int // unused calls: balances, transactions
	sent int    // requests of the calls made with opt that may have left
	// heldUntil is, per endpoint, the end of the bank's rate limit of
	// the account (hold): until then its unused calls serve no call.
	heldUntil [2]time.Time
}

// reservationKey is the key of a Reservation among a call's values
// (client.WithValue).
type reservationKey struct{}

// Reserve takes req's calls from the account's budget, and claims the
// account when req.Claim is set, in one atomic write of the store. It
// takes all of them or none: when an endpoint has fewer calls left than
// asked, it returns an *ExhaustedError for that endpoint (RetryAt: when
// every asked endpoint allows its calls again) and writes nothing; when
// another holder claimed the account, a *ClaimedError; for a claim longer
// than [MaxClaim], a *ClaimTooLongError without a write. During the bank's
// pause it waits up to req.MaxWait for its end, and otherwise returns a
// *PausedError without a write.
func (b *Budget) Reserve(ctx context.Context, req ReserveRequest) (*Reservation, error) {
	if b == nil {
		return nil, errNoBudget
	}
	if req.AccountID == "" {
		return nil, errors.New("budget.Reserve: empty account id")
	}
	if req.Balances < 0 || req.Transactions < 0 || req.Balances > b.limit || req.Transactions > b.limit {
		return nil, fmt.Errorf("budget.Reserve: %d balances and %d transactions calls: needs 0 to %d each",
			req.Balances, req.Transactions, b.limit)
	}
	if req.MaxWait < 0 {
		return nil, fmt.Errorf("budget.Reserve: negative MaxWait %v", req.MaxWait)
	}
	if req.Claim != "" && req.ClaimUntil.Sub(b.now()) > MaxClaim {
		return nil, &ClaimTooLongError{Until: req.ClaimUntil, Max: MaxClaim}
	}
	if err := b.waitPause(ctx, req.MaxWait); err != nil {
		return nil, err
	}
	eb, et := endpoints(req.Card)
	r := &Reservation{b: b, key: b.key(req.AccountID, req.Card), card: req.Card, at: b.now(),
		claimed: req.Claim != "", maxWait: req.MaxWait, left: [2]int{req.Balances, req.Transactions}}
	r.opt = client.WithValue(reservationKey{}, r)
	var refused error
	err := b.update(ctx, r.key, func(l *ledger) error {
		refused = nil // Update may run fn more than once
		if req.Claim != "" && l.claimBy != "" && l.claimBy != req.Claim && r.at.Before(l.claimUntil) {
			refused = &ClaimedError{Until: l.claimUntil}
			return errUnchanged
		}
		var spent *ExhaustedError
		for _, w := range []struct {
			e Endpoint
			n int
		}{{eb, req.Balances}, {et, req.Transactions}} {
			calls := l.calls(w.e)
			*calls = b.prune(*calls, r.at)
			if w.n == 0 || len(*calls)+w.n <= b.limit {
				continue
			}
			// One call is allowed again at NextAt; n calls when the n-th
			// oldest stops counting.
			next := (*calls)[len(*calls)+w.n-b.limit-1].Add(b.span())
			if spent == nil || next.After(spent.RetryAt) {
				spent = &ExhaustedError{Operation: "budget.Reserve", Endpoint: w.e, Limit: b.limit,
					Window: b.window, RetryAt: next}
			}
		}
		if spent != nil {
			refused = spent
			return errUnchanged
		}
		for range req.Balances {
			*l.calls(eb) = append(*l.calls(eb), r.at)
		}
		for range req.Transactions {
			*l.calls(et) = append(*l.calls(et), r.at)
		}
		if req.Claim != "" {
			l.claimBy, l.claimUntil = req.Claim, req.ClaimUntil
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("budget.Reserve: store: %w", err)
	}
	if refused != nil {
		return nil, refused
	}
	return r, nil
}

// Option returns the request option that makes a call use r: give it to
// each call of r's account (accounts.Service.Balances, Transactions, the
// next pages). The calls of r's account made with it take r's reserved
// calls first. It is one value, made with r: handing it to every call
// costs nothing. A nil r gives an option that does nothing.
func (r *Reservation) Option() client.RequestOption {
	if r == nil {
		return client.Combine()
	}
	return r.opt
}

// slot is the slot of endpoint e in left.
func slot(e Endpoint) int {
	if e.isBalances() {
		return 0
	}
	return 1
}

// take uses one reserved call of endpoint e of the budget under key, and
// returns its reservation time; false when r (nil included) has none, or
// holds none it may use at now (hold).
func (r *Reservation) take(key string, e Endpoint, now time.Time) (time.Time, bool) {
	if r == nil || key != r.key || e.card() != r.card {
		return time.Time{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slot(e)
	if r.left[i] == 0 || now.Before(r.heldUntil[i]) {
		return time.Time{}, false
	}
	r.left[i]--
	return r.at, true
}

// spend drops r's unused calls of endpoint e of the budget under key:
// the bank answered that the endpoint's budget is spent (exhaust), so
// they are spent with it and [Reservation.Release] keeps them counted.
func (r *Reservation) spend(key string, e Endpoint) {
	if r == nil || key != r.key || e.card() != r.card {
		return
	}
	r.mu.Lock()
	r.left[slot(e)] = 0
	r.mu.Unlock()
}

// hold keeps r's unused calls of endpoint e of the budget under key from
// serving a call before until: the bank answered a rate limit of the
// account's own (a 429 ACCESS_EXCEEDED with a Retry-After longer than the
// bank's pause), which the ledger holds until then. A call made with r in
// the meantime takes a call of its own, which the ledger refuses; the
// unused calls stay r's, and [Reservation.Release] gives them back.
func (r *Reservation) hold(key string, e Endpoint, until time.Time) {
	if r == nil || key != r.key || e.card() != r.card {
		return
	}
	r.mu.Lock()
	if i := slot(e); until.After(r.heldUntil[i]) {
		r.heldUntil[i] = until
	}
	r.mu.Unlock()
}

// noteSent counts the requests of a call made with r's option that the
// client reported may have left (its retries included).
func (r *Reservation) noteSent(res client.Result) {
	if r == nil || res.Attempts == 0 {
		return
	}
	r.mu.Lock()
	r.sent += res.Attempts
	r.mu.Unlock()
}

// Left returns the reserved calls not used yet, of balances and of
// transactions.
func (r *Reservation) Left() (balances, transactions int) {
	if r == nil {
		return 0, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.left[0], r.left[1]
}

// Sent returns the number of requests of the counted calls (balances,
// transactions and their pages) made with r's option that the client
// reported may have left, the reserved ones and those beyond alike, and
// each retry of the client too: what the bank may have counted.
func (r *Reservation) Sent() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sent
}

// Release gives back the reserved calls not used, and with unclaim the
// reservation's claim of the account (so that another refresh may take
// the account in this round, after a failure), in one write; it writes
// nothing when there is nothing to give back. The calls used stay
// counted. It is safe to call more than once. It is a job's last step:
// it writes even when ctx has ended (a job that timed out gives back its
// calls too), and waits at most [SettleWait] for the store.
func (r *Reservation) Release(ctx context.Context, unclaim bool) error {
	if r == nil {
		return nil
	}
	ctx, cancel := r.b.settleContext(ctx)
	defer cancel()
	r.mu.Lock()
	left := r.left
	r.left = [2]int{}
	unclaim = unclaim && r.claimed
	if unclaim {
		r.claimed = false
	}
	r.mu.Unlock()
	if left == [2]int{} && !unclaim {
		return nil
	}
	eb, et := endpoints(r.card)
	err := r.b.update(ctx, r.key, func(l *ledger) error {
		for _, w := range []struct {
			e Endpoint
			n int
		}{{eb, left[0]}, {et, left[1]}} {
			calls := l.calls(w.e)
			for range w.n {
				if i := slices.IndexFunc(*calls, r.at.Equal); i >= 0 {
					*calls = slices.Delete(*calls, i, i+1)
				}
			}
		}
		if unclaim {
			l.claimBy, l.claimUntil = "", time.Time{}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("budget: store: %w", err)
	}
	return nil
}
