package accounts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// ReserveRequest says what [Service.Reserve] takes from an account's
// without-PSU budget.
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
	Claim      string
	ClaimUntil time.Time
}

// ErrClaimed is matched by the error of [Service.Reserve] when another
// holder claimed the account ([ReserveRequest.Claim]).
var ErrClaimed = errors.New("accounts: the account is claimed by another refresh")

// ClaimedError is the refusal of a reservation whose account another
// holder claimed; Until is when the claim ends. It matches [ErrClaimed].
type ClaimedError struct {
	Until time.Time
}

func (e *ClaimedError) Error() string {
	return "accounts: the account is claimed by another refresh until " + e.Until.UTC().Format(time.RFC3339)
}

// Is makes the error match [ErrClaimed].
func (e *ClaimedError) Is(target error) bool { return target == ErrClaimed }

// Reservation is calls taken ahead from one account's without-PSU budget
// by [Service.Reserve], in one atomic write of the store. Calls made with
// a context that carries it ([WithReservation]) use its calls instead of
// writing each its own; a call beyond them (a next page, a retry) is
// counted with a write of its own, as always.
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
	b       *budget
	key     string
	card    bool
	at      time.Time
	claimed bool

	mu   sync.Mutex
	left [2]int // unused calls: balances, transactions
}

// Reserve takes req's calls from the account's budget, and claims the
// account when req.Claim is set, in one atomic write of the store. It
// takes all of them or none: when an endpoint has fewer calls left than
// asked, it returns a *BudgetExhaustedError for that endpoint (RetryAt:
// when every asked endpoint allows its calls again) and writes nothing;
// when another holder claimed the account, a *ClaimedError.
func (s *Service) Reserve(ctx context.Context, req ReserveRequest) (*Reservation, error) {
	if s == nil || s.c == nil {
		return nil, errNoClient
	}
	if req.AccountID == "" {
		return nil, errEmptyID("accounts.Reserve")
	}
	b := s.budget
	if req.Balances < 0 || req.Transactions < 0 || req.Balances > b.limit || req.Transactions > b.limit {
		return nil, fmt.Errorf("accounts.Reserve: %d balances and %d transactions calls: needs 0 to %d each",
			req.Balances, req.Transactions, b.limit)
	}
	eb, et := EndpointBalances, EndpointTransactions
	if req.Card {
		eb, et = EndpointCardBalances, EndpointCardTransactions
	}
	r := &Reservation{b: b, key: b.key(req.AccountID, et), card: req.Card, at: b.now(),
		claimed: req.Claim != "", left: [2]int{req.Balances, req.Transactions}}
	var refused error
	err := b.update(ctx, r.key, func(l *ledger) error {
		refused = nil // Update may run fn more than once
		if req.Claim != "" && l.claimBy != "" && l.claimBy != req.Claim && r.at.Before(l.claimUntil) {
			refused = &ClaimedError{Until: l.claimUntil}
			return errUnchanged
		}
		var spent *BudgetExhaustedError
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
				spent = &BudgetExhaustedError{Operation: "accounts.Reserve", Endpoint: w.e, Limit: b.limit,
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
		return nil, fmt.Errorf("accounts.Reserve: budget store: %w", err)
	}
	if refused != nil {
		return nil, refused
	}
	return r, nil
}

// index is the slot of endpoint e in left.
func index(e Endpoint) int {
	if isBalances(e) {
		return 0
	}
	return 1
}

// take uses one reserved call of endpoint e of the budget under key, and
// returns its reservation time; false when r (nil included) has none.
func (r *Reservation) take(key string, e Endpoint) (time.Time, bool) {
	if r == nil || key != r.key || isCard(e) != r.card {
		return time.Time{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	i := index(e)
	if r.left[i] == 0 {
		return time.Time{}, false
	}
	r.left[i]--
	return r.at, true
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

// Release gives back the reserved calls not used, and with unclaim the
// reservation's claim of the account (so that another refresh may take
// the account in this round, after a failure), in one write; it writes
// nothing when there is nothing to give back. The calls used stay
// counted. It is safe to call more than once.
func (r *Reservation) Release(ctx context.Context, unclaim bool) error {
	if r == nil {
		return nil
	}
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
	eb, et := EndpointBalances, EndpointTransactions
	if r.card {
		eb, et = EndpointCardBalances, EndpointCardTransactions
	}
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
		return fmt.Errorf("accounts: budget store: %w", err)
	}
	return nil
}

// reservationKey is the context key of a Reservation.
type reservationKey struct{}

// WithReservation returns ctx carrying r: the calls of r's account made
// with it use r's reserved calls first.
func WithReservation(ctx context.Context, r *Reservation) context.Context {
	return context.WithValue(ctx, reservationKey{}, r)
}

// reservationFrom returns the Reservation in ctx, nil when none.
func reservationFrom(ctx context.Context) *Reservation {
	r, _ := ctx.Value(reservationKey{}).(*Reservation)
	return r
}

// AccountKey names an account (or card account) without its id: the last
// element of the store key of its budget, a hash of the id that the store
// already holds. A job engine names the account by it in its own tables
// (which must not hold the account id) and finds the id again among a
// session's account ids.
func (s *Service) AccountKey(accountID string, card bool) string {
	if s == nil || s.c == nil {
		return ""
	}
	e := EndpointBalances
	if card {
		e = EndpointCardBalances
	}
	k := s.budget.key(accountID, e)
	return k[strings.LastIndexByte(k, '/')+1:]
}
