package accounts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// Limits of docs/interface.md section 8 for calls without the PSU present.
const (
	// DefaultBudgetLimit is the number of calls per account and endpoint
	// allowed in DefaultBudgetWindow without the PSU present.
	DefaultBudgetLimit = 4
	// DefaultBudgetWindow is the rolling window of the budget.
	DefaultBudgetWindow = 24 * time.Hour
)

// BudgetClockMargin is the safety margin for clock differences that the
// budget adds to its window wherever it judges whether a call still
// counts: a call made at t counts until t + window + BudgetClockMargin,
// on the clock of the client that judges (client.WithClock, else the
// system clock), and the store keeps it that long. Each replica writes
// the time of its calls and judges the others' by its own clock, so
// without the margin a replica whose clock runs Δ ahead of the one that
// made a call would take it as gone Δ early and send one call more than
// the bank allows in its window. The margin covers the differences
// between the clocks of the replicas on one store, plus the time a call
// takes from its reservation to the bank; the bank's own clock does not
// enter, as the bank measures its window on its clock alone. The default
// budget thus allows 4 calls in every 24 hours and 5 minutes.
const BudgetClockMargin = 5 * time.Minute

// Endpoint names an operation that counts against the budget. The bank
// counts each endpoint of an account on its own (docs/interface.md
// section 8 lists balances and transactions separately): 4 balances calls and 4
// transactions calls per 24 hours. Transaction details count within the
// transactions calls (the ASSUMPTION on [Service.TransactionDetails]).
type Endpoint string

// Counted endpoints.
const (
	EndpointBalances         Endpoint = "balances"
	EndpointTransactions     Endpoint = "transactions"
	EndpointCardBalances     Endpoint = "card-balances"
	EndpointCardTransactions Endpoint = "card-transactions"
)

// budget keeps, per TPP, bank and account, the times of the calls made
// without the PSU present (no PSU-IP-Address, docs/interface.md section
// 5.14) in the last 24 hours for each [Endpoint], and refuses a call
// that would exceed the limit of 4 (docs/interface.md section 8) before it
// is sent. The rules are in the package documentation ("The without-PSU
// budget").
//
// Its state is in the client's store (client.WithStore): every Service
// made on one client, and every client on one shared store, counts the
// same calls. Each account's calls, of both its endpoints, are one value
// (a [ledger]), changed with the store's atomic Update, so that two
// replicas can never both take the last call, and so that a refresh can
// take its balances and transactions calls in one write
// ([Service.Reserve]); the value expires when its last call stops
// counting (span) and its claim has ended.
type budget struct {
	st     store.Store
	scope  string // client.Client.Scope
	now    func() time.Time
	limit  int
	window time.Duration
}

// isCard reports whether e is an endpoint of a card account.
func isCard(e Endpoint) bool {
	return e == EndpointCardBalances || e == EndpointCardTransactions
}

// isBalances reports whether e counts in the balances list of a ledger
// (the others count in its transactions list).
func isBalances(e Endpoint) bool {
	return e == EndpointBalances || e == EndpointCardBalances
}

// key is the store key of the budget of accountID, an account or (for a
// card endpoint e) a card account: a hash, so that no account id is
// written in clear. Both endpoints of the account share it.
func (b *budget) key(accountID string, e Endpoint) string {
	kind := "account"
	if isCard(e) {
		kind = "card"
	}
	h := sha256.New()
	for _, part := range []string{kind, accountID} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return "accounts/budget/" + b.scope + "/" + hex.EncodeToString(h.Sum(nil)[:20])
}

// span is how long a call counts after it was made: the window and the
// margin for clock differences between replicas ([BudgetClockMargin]).
func (b *budget) span() time.Duration {
	return b.window + BudgetClockMargin
}

// ledger is an account's budget as stored: the times of the counted calls
// of each endpoint and the account's claim ([Reservation]).
type ledger struct {
	balances, transactions []time.Time
	// claimBy names who claimed the account (ReserveRequest.Claim), until
	// claimUntil; empty: no claim.
	claimBy    string
	claimUntil time.Time
}

// ledgerJSON is a ledger's stored form, times in Unix nanoseconds.
type ledgerJSON struct {
	B  []int64 `json:"b,omitempty"`
	T  []int64 `json:"t,omitempty"`
	CB string  `json:"cb,omitempty"`
	CU int64   `json:"cu,omitempty"`
}

// calls returns the call list of endpoint e.
func (l *ledger) calls(e Endpoint) *[]time.Time {
	if isBalances(e) {
		return &l.balances
	}
	return &l.transactions
}

// errUnchanged, returned by the fn of update, leaves the ledger as it
// was without a write.
var errUnchanged = errors.New("unchanged")

// update runs fn on the ledger stored under key, atomically. When fn
// returns errUnchanged nothing is written (a refusal costs no durable
// write) and update returns nil.
func (b *budget) update(ctx context.Context, key string, fn func(l *ledger) error) error {
	err := b.st.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		l, err := b.decode(old, found)
		if err != nil {
			return nil, 0, err
		}
		if err := fn(&l); err != nil {
			return nil, 0, err
		}
		now := b.now()
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
func (b *budget) decode(raw []byte, found bool) (ledger, error) {
	if !found {
		return ledger{}, nil
	}
	var v ledgerJSON
	if err := json.Unmarshal(raw, &v); err != nil {
		return ledger{}, fmt.Errorf("budget value unreadable: %w", err)
	}
	l := ledger{balances: times(v.B), transactions: times(v.T), claimBy: v.CB}
	if v.CU != 0 {
		l.claimUntil = time.Unix(0, v.CU).UTC()
	}
	return l, nil
}

// times turns Unix nanoseconds into times.
func times(nanos []int64) []time.Time {
	out := make([]time.Time, len(nanos))
	for i, n := range nanos {
		out[i] = time.Unix(0, n).UTC()
	}
	return out
}

// Allowance is what is left of one budget.
type Allowance struct {
	// Remaining is the number of calls still allowed now.
	Remaining int
	// Limit and Window are the budget's limit, 4 calls in 24 hours.
	Limit  int
	Window time.Duration
	// NextAt is when the oldest counted call stops counting (one more
	// call becomes allowed): Window and [BudgetClockMargin] after it was
	// made. It is zero when no call is counted.
	NextAt time.Time
}

// remaining reports what is left of the budget of endpoint e. It only
// reads the store: a refresher that asks before every call costs no
// write.
func (b *budget) remaining(ctx context.Context, key string, e Endpoint) (Allowance, error) {
	raw, err := b.st.Get(ctx, key)
	found := err == nil
	if err != nil && !errors.Is(err, store.ErrNotStored) {
		return Allowance{}, fmt.Errorf("accounts: budget store: %w", err)
	}
	l, err := b.decode(raw, found)
	if err != nil {
		return Allowance{}, fmt.Errorf("accounts: budget store: %w", err)
	}
	return b.allowance(b.prune(*l.calls(e), b.now())), nil
}

// reserve records a call of endpoint e now, or returns a
// *BudgetExhaustedError when the budget is spent. The returned time
// identifies the reservation; the operation's observer learns the calls
// left (client.NoteBudgetLeft).
func (b *budget) reserve(ctx context.Context, op string, key string, e Endpoint) (time.Time, error) {
	now := b.now()
	var refused *BudgetExhaustedError
	left := 0
	err := b.update(ctx, key, func(l *ledger) error {
		refused = nil // Update may run fn more than once
		calls := l.calls(e)
		*calls = b.prune(*calls, now)
		if len(*calls) >= b.limit {
			refused = &BudgetExhaustedError{Operation: op, Endpoint: e, Limit: b.limit,
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

// release removes a reservation of endpoint e made at t for a call that
// was not sent.
func (b *budget) release(ctx context.Context, key string, e Endpoint, t time.Time) error {
	return b.update(ctx, key, func(l *ledger) error {
		calls := l.calls(e)
		if i := slices.IndexFunc(*calls, t.Equal); i >= 0 {
			*calls = slices.Delete(*calls, i, i+1)
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
// that they are allowed again then (exhaustedAt).
func (b *budget) exhaust(ctx context.Context, key string, e Endpoint, t time.Time) error {
	return b.update(ctx, key, func(l *ledger) error {
		calls := l.calls(e)
		*calls = b.prune(*calls, b.now())
		for len(*calls) < b.limit {
			*calls = append(*calls, t)
		}
		return nil
	})
}

// prune drops the calls that no longer count and sorts the rest. A call
// at t counts while now-t < window + BudgetClockMargin.
func (b *budget) prune(calls []time.Time, now time.Time) []time.Time {
	kept := make([]time.Time, 0, len(calls)+1)
	for _, t := range calls {
		if now.Sub(t) < b.span() {
			kept = append(kept, t)
		}
	}
	slices.SortFunc(kept, time.Time.Compare)
	return kept
}

func (b *budget) allowance(calls []time.Time) Allowance {
	a := Allowance{Remaining: max(b.limit-len(calls), 0), Limit: b.limit, Window: b.window}
	if len(calls) > 0 {
		// With more calls than the limit (a shared store, a lowered
		// limit), one call is allowed again when all but limit-1 left.
		i := max(len(calls)-b.limit, 0)
		a.NextAt = calls[i].Add(b.span())
	}
	return a
}

// hook is the client hook of a counted call of endpoint e. Without the
// PSU present (no PSU-IP-Address on the resolved call) it reserves one
// call before anything is sent, refusing the call when the budget is
// spent; afterwards it gives the reservation back when the client reports
// that nothing was sent, and marks the budget spent when the bank
// answered 429 ACCESS_EXCEEDED. accountOf names the account; for a link
// it reads the resolved URL and may refuse it.
func (b *budget) hook(op string, e Endpoint, accountOf func(*client.Call) (string, error)) client.Hook {
	return func(ctx context.Context, call *client.Call) (func(client.Result), error) {
		accountID, err := accountOf(call)
		if err != nil {
			return nil, err
		}
		if call.Header.Get("PSU-IP-Address") != "" {
			return func(r client.Result) { b.pauseAfter(r.Err) }, nil
		}
		key := b.key(accountID, e)
		// A call of a Reservation in ctx (Service.Reserve) was counted
		// when the reservation was written: no write now.
		at, ok := reservationFrom(ctx).take(key, e)
		if !ok {
			if at, err = b.reserve(ctx, op, key, e); err != nil {
				return nil, err
			}
		}
		return func(r client.Result) {
			b.pauseAfter(r.Err)
			// Best effort: a failed write only makes the SDK stricter.
			switch {
			case !r.Sent:
				_ = b.release(context.WithoutCancel(ctx), key, e, at)
			case bankAccessExceeded(r.Err):
				_ = b.exhaust(context.WithoutCancel(ctx), key, e, b.exhaustedAt(r.Err, at))
			}
		}, nil
	}
}

// exhaustedAt is the time exhaust takes the bank's uncounted calls to
// have been made at, for a call made at t that the bank refused with err:
// t, so that the next call is allowed a window (and the margin) later;
// but when the answer says when to come back (Retry-After, in seconds or
// as an HTTP date measured against the answer's Date), so that the next
// call is allowed then on this client's clock. A replica whose clock
// runs ahead of this one's may then try up to its difference early, and
// meet one more 429: the bank's refusal, not a call over its limit.
func (b *budget) exhaustedAt(err error, t time.Time) time.Time {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return t
	}
	wait, ok := ce.RetryAfter(b.now())
	if !ok {
		return t
	}
	return b.now().Add(min(max(wait, minExhaustedWait), b.span()) - b.span())
}

// minExhaustedWait is the shortest wait the budget takes from a 429
// ACCESS_EXCEEDED's Retry-After. ASSUMPTION (the safe option): an answer
// that says the budget is spent but to come back at once, or within
// seconds, means a minute, so that a job scheduled at the time the SDK
// reports does not meet the same refusal in a loop.
const minExhaustedWait = time.Minute

// retryHook is the client's BeforeRetry of a counted call of endpoint e:
// without the PSU present, every attempt that may have reached the bank
// is a call the bank may count (docs/interface.md section 8 counts calls,
// not the SDK's operations), so a retry after such an attempt reserves one
// more call first, and is not sent when the budget is spent (the call
// then ends with the attempt's own answer or error). ASSUMPTION (the safe
// option): the bank counts a call it answered with 5xx or 429, or never
// answered, as it counts one it answered.
func (b *budget) retryHook(op string, e Endpoint, accountOf func(*client.Call) (string, error)) func(context.Context, *client.Call) error {
	return func(ctx context.Context, call *client.Call) error {
		if call.Header.Get("PSU-IP-Address") != "" {
			b.pauseFrom(call)
			return nil
		}
		if err := b.pauseBeforeRetry(ctx, call); err != nil {
			return err
		}
		accountID, err := accountOf(call)
		if err != nil {
			return err
		}
		_, err = b.reserve(ctx, op, b.key(accountID, e), e)
		return err
	}
}

// bankAccessExceeded reports whether err is the bank's own 429
// ACCESS_EXCEEDED (not the SDK's refusal).
func bankAccessExceeded(err error) bool {
	var ce *client.Error
	return errors.As(err, &ce) && ce.Is(client.ErrAccessExceeded)
}

// Remaining reports what is left of the without-PSU budget of endpoint e
// of an account (or card account, with EndpointCardBalances and
// EndpointCardTransactions) over the last 24 hours. The budget is the
// account's at this bank for this TPP, shared by every PSU who can see the
// account and by every Service on the client's store. Transaction
// details count against [EndpointTransactions].
func (s *Service) Remaining(ctx context.Context, accountID string, e Endpoint) (Allowance, error) {
	if s == nil || s.c == nil {
		return Allowance{}, errNoClient
	}
	if accountID == "" {
		return Allowance{}, errEmptyID("accounts.Remaining")
	}
	return s.budget.remaining(ctx, s.budget.key(accountID, e), e)
}

// ResetBudget forgets every call counted for endpoint e of an account,
// for example when the TPP knows the bank reset its count.
func (s *Service) ResetBudget(ctx context.Context, accountID string, e Endpoint) error {
	if s == nil || s.c == nil {
		return errNoClient
	}
	err := s.budget.update(ctx, s.budget.key(accountID, e), func(l *ledger) error {
		*l.calls(e) = nil
		return nil
	})
	if err != nil {
		return fmt.Errorf("accounts: budget store: %w", err)
	}
	return nil
}
