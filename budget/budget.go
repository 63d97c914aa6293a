package budget

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/storebound"
	"github.com/tppkit/psd2/store"
)

// Limits of docs/interface.md section 8 for calls without the PSU present.
const (
	// DefaultLimit is the number of calls per account and endpoint
	// allowed in DefaultWindow without the PSU present.
	DefaultLimit = 4
	// DefaultWindow is the rolling window of the budget.
	DefaultWindow = 24 * time.Hour
)

// ClockMargin is the safety margin for clock differences that the budget
// adds to its window wherever it judges whether a call still counts: a
// call made at t counts until t + window + ClockMargin, on the clock of
// the client that judges (client.WithClock, else the system clock), and
// the store keeps it that long. Each replica writes the time of its calls
// and judges the others' by its own clock, so without the margin a
// replica whose clock runs Δ ahead of the one that made a call would take
// it as gone Δ early and send one call more than the bank allows in its
// window. The margin covers the differences between the clocks of the
// replicas on one store, plus the time a call takes from its reservation
// to the bank; the bank's own clock does not enter, as the bank measures
// its window on its clock alone. The default budget thus allows 4 calls
// in every 24 hours and 5 minutes.
const ClockMargin = 5 * time.Minute

// Endpoint names an operation that counts against the budget. The bank
// counts each endpoint of an account on its own (docs/interface.md
// section 8 lists balances and transactions separately): 4 balances calls
// and 4 transactions calls per 24 hours. Transaction details count within
// the transactions calls (see accounts.Service.TransactionDetails).
type Endpoint string

// Counted endpoints.
const (
	Balances         Endpoint = "balances"
	Transactions     Endpoint = "transactions"
	CardBalances     Endpoint = "card-balances"
	CardTransactions Endpoint = "card-transactions"
)

// card reports whether e is an endpoint of a card account.
func (e Endpoint) card() bool { return e == CardBalances || e == CardTransactions }

// isBalances reports whether e counts in the balances list of a ledger
// (the others count in its transactions list).
func (e Endpoint) isBalances() bool { return e == Balances || e == CardBalances }

// endpoints returns the balances and transactions endpoints of an account,
// or of a card account.
func endpoints(card bool) (balances, transactions Endpoint) {
	if card {
		return CardBalances, CardTransactions
	}
	return Balances, Transactions
}

// Budget is the without-PSU call budget of one client ([client.Client]):
// per TPP, bank and account, the times of the balances and transactions
// calls made without the PSU present (no PSU-IP-Address,
// docs/interface.md section 5.14) in the last 24 hours, which it refuses
// beyond the limit of 4 (docs/interface.md section 8) before they are
// sent; the reservations a background refresh takes ahead; and the bank's
// request to slow down (a 429 with Retry-After). The rules are in the
// package documentation.
//
// A client has one Budget ([Of]), with one limit ([New]), whatever the
// number of services made on it. Its state is in the client's store
// (client.WithStore): every client on one shared store counts the same
// calls. A Budget is safe for concurrent use.
type Budget struct {
	c     *client.Client
	st    store.Store
	scope string // client.Client.Scope
	now   func() time.Time
	// pauseNow is the system clock, on which the bank's pause is kept
	// (time.Now; a test's may be another replica's).
	pauseNow func() time.Time
	limit    int
	window   time.Duration
	pause    pause
	// storeWait bounds each store call (SettleWait; a test's may be
	// shorter).
	storeWait time.Duration
	// retried holds the retries reserved by each counted call under way
	// (*retryCalls), by its *client.Call, which the client hands to the
	// call's hook and to its BeforeRetry alike; the hook's end removes
	// the call's.
	retried sync.Map

	// Settling writes still under way after their call returned
	// (settleWithin, Flush).
	writes storebound.Writes
}

// Option configures a [Budget] in [New]; an invalid one makes New fail.
type Option func(*Budget) error

// WithLimit replaces the limit of 4 calls in 24 hours ([DefaultLimit],
// [DefaultWindow]) for a bank whose limit differs. calls must be at least
// 1 and window at least a second.
func WithLimit(calls int, window time.Duration) Option {
	return func(b *Budget) error {
		if calls < 1 || window < time.Second {
			return fmt.Errorf("budget: WithLimit(%d, %v): needs at least 1 call in at least 1s", calls, window)
		}
		b.limit, b.window = calls, window
		return nil
	}
}

// partKey is the key of the client's Budget among its parts
// (client.Client.Part).
type partKey struct{}

// New returns the budget of c with the limit opts give (the default of 4
// calls in 24 hours without options), made now when c has none yet: the
// one every service of c counts against. A client has one budget and one
// limit: New returns an error matching [ErrOtherLimit] when c's budget
// already has another limit, because New with other options or a service
// ([Of]) made it first, so call New before making the client's services.
// It refuses a nil client and an invalid option.
func New(c *client.Client, opts ...Option) (*Budget, error) {
	if c == nil {
		return nil, errors.New("budget: New needs a client")
	}
	b := newBudget(c)
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(b); err != nil {
			return nil, err
		}
	}
	got := c.Part(partKey{}, func() any { return b }).(*Budget)
	if got.limit != b.limit || got.window != b.window {
		return nil, fmt.Errorf("%w: %d calls in %s, not %d in %s", ErrOtherLimit, got.limit, got.window, b.limit, b.window)
	}
	return got, nil
}

// Of returns the budget of c: the one [New] made, or one with the default
// limit made now. Services that count calls (package accounts) take it
// from their client, so that all of them count one budget. It returns nil
// for a nil client.
func Of(c *client.Client) *Budget {
	if c == nil {
		return nil
	}
	return c.Part(partKey{}, func() any { return newBudget(c) }).(*Budget)
}

// newBudget is a budget of c with the default limit, on c's store, scope
// and clock.
func newBudget(c *client.Client) *Budget {
	return &Budget{c: c, st: c.Store(), scope: c.Scope(), now: c.Now, pauseNow: time.Now, limit: DefaultLimit, window: DefaultWindow,
		storeWait: SettleWait}
}

// Client returns the client whose budget b is.
func (b *Budget) Client() *client.Client {
	if b == nil {
		return nil
	}
	return b.c
}

// Now returns the time on the clock the budget counts on: its client's
// ([client.Client.Now]). A job engine schedules by it, so that its times
// and the budget's RetryAt are on one clock.
func (b *Budget) Now() time.Time {
	if b == nil {
		return time.Now()
	}
	return b.now()
}

// Limit returns the calls allowed per account and endpoint in window.
func (b *Budget) Limit() (calls int, window time.Duration) {
	if b == nil {
		return DefaultLimit, DefaultWindow
	}
	return b.limit, b.window
}

// keyPrefix starts the store key of every ledger: the prefix of the
// budget's first home, package accounts, kept so that the counts stored
// before the move are read as they are.
const keyPrefix = "accounts/budget/"

// key is the store key of the budget of accountID, an account or (card)
// a card account: a hash, so that no account id is written in clear. Both
// endpoints of the account share it.
func (b *Budget) key(accountID string, card bool) string {
	return keyPrefix + b.scope + "/" + accountHash(accountID, card)
}

// accountHash is the last element of an account's key.
func accountHash(accountID string, card bool) string {
	kind := "account"
	if card {
		kind = "card"
	}
	h := sha256.New()
	for _, part := range []string{kind, accountID} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil)[:20])
}

// Key names an account (or card account) without its id: the last
// element of the store key of its budget, a hash of the id that the store
// already holds. A job engine names the account by it in its own tables
// (which must not hold the account id) and finds the id again among a
// session's account ids. It is the same for every client, scope and
// limit.
func Key(accountID string, card bool) string {
	return accountHash(accountID, card)
}

// span is how long a call counts after it was made: the window and the
// margin for clock differences between replicas ([ClockMargin]).
func (b *Budget) span() time.Duration {
	return b.window + ClockMargin
}

// Allowance is what is left of one budget.
type Allowance struct {
	// Remaining is the number of calls still allowed now.
	Remaining int
	// Limit and Window are the budget's limit, 4 calls in 24 hours.
	Limit  int
	Window time.Duration
	// NextAt is when the oldest counted call stops counting (one more
	// call becomes allowed): Window and [ClockMargin] after it was
	// made. It is zero when no call is counted.
	NextAt time.Time
}

// Remaining reports what is left of the budget of endpoint e of an
// account (or card account, with CardBalances and CardTransactions) over
// the last 24 hours. The budget is the account's at this bank for this
// TPP, shared by every PSU who can see the account and by every client on
// the store. It only reads the store: a refresher that asks before every
// call costs no write.
func (b *Budget) Remaining(ctx context.Context, accountID string, e Endpoint) (Allowance, error) {
	if b == nil {
		return Allowance{}, errNoBudget
	}
	if accountID == "" {
		return Allowance{}, errors.New("budget.Remaining: empty account id")
	}
	ctx, cancel := b.storeContext(ctx)
	defer cancel()
	raw, err := b.st.Get(ctx, b.key(accountID, e.card()))
	found := err == nil
	if err != nil && !errors.Is(err, store.ErrNotStored) {
		return Allowance{}, fmt.Errorf("budget: store: %w", err)
	}
	l, err := decode(raw, found)
	if err != nil {
		return Allowance{}, fmt.Errorf("budget: store: %w", err)
	}
	now := b.now()
	l.bound(b.aheadLimit(now))
	return b.allowance(b.prune(*l.calls(e), now)), nil
}

// Reset forgets every call counted for endpoint e of an account, for
// example when the TPP knows the bank reset its count.
func (b *Budget) Reset(ctx context.Context, accountID string, e Endpoint) error {
	if b == nil {
		return errNoBudget
	}
	err := b.update(ctx, b.key(accountID, e.card()), func(l *ledger) error {
		*l.calls(e) = nil
		return nil
	})
	if err != nil {
		return fmt.Errorf("budget: store: %w", err)
	}
	return nil
}
