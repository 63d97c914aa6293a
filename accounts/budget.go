package accounts

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/tppkit/psd2/client"
)

// Limits of docs/interface.md section 8 for calls without the PSU present.
const (
	// DefaultBudgetLimit is the number of calls per account and endpoint
	// allowed in DefaultBudgetWindow without the PSU present.
	DefaultBudgetLimit = 4
	// DefaultBudgetWindow is the rolling window of the budget.
	DefaultBudgetWindow = 24 * time.Hour
)

// Endpoint names an operation that counts against the budget. The bank
// counts each endpoint of an account on its own (docs/interface.md
// section 8 lists balances and transactions separately): 4 balances calls and 4
// transactions calls per 24 hours.
type Endpoint string

// Counted endpoints.
const (
	EndpointBalances         Endpoint = "balances"
	EndpointTransactions     Endpoint = "transactions"
	EndpointCardBalances     Endpoint = "card-balances"
	EndpointCardTransactions Endpoint = "card-transactions"
)

// Budget keeps, per bank, TPP, account and [Endpoint] ([BudgetKey]), the
// times of the calls made without the PSU present (no PSU-IP-Address,
// docs/interface.md section 5.14) in the last 24 hours, and refuses a call
// that would exceed the limit of 4 (docs/interface.md section 8) before it
// is sent.
//
// The budget is the account's, not the PSU's: the bank counts the calls
// on an account whoever they are made for, so two PSUs sharing a
// corporate account share its 4 calls. The PSU-ID is not part of the key.
//
// What counts: Balances, Transactions and TransactionsPage (every page),
// and their card equivalents CardBalances, CardTransactions and
// CardTransactionsPage. docs/interface.md section 8 names only accounts; card accounts
// count as well because PSD2 (RTS article 36(5)) limits access without
// the PSU for every payment account, and counting them can only make the
// SDK refuse early, never earn a 429. Listing accounts, single account
// reads and agreements do not count; calls with PSU-IP-Address never
// count.
//
// A call is recorded when it is sent, whatever the answer (a 429 or a
// transport error after sending counts too); a call refused locally (an
// invalid option, a foreign link, the spent budget) is not. When the bank
// itself answers 429 ACCESS_EXCEEDED, the budget is taken as spent from
// that call on (see exhaust). The client may retry a call on transport
// errors and 5xx answers; such retries are not counted again.
//
// The times are kept in a [BudgetStore]: in memory by default, or the
// caller's store so that they survive restarts and are shared between
// instances. A Budget is safe for concurrent use.
type Budget struct {
	store  BudgetStore
	now    func() time.Time
	limit  int
	window time.Duration
}

// BudgetOption configures a [Budget] in [NewBudget]. A nil or invalid
// argument keeps the default.
type BudgetOption func(*Budget)

// WithClock sets the Budget's time source (tests move it).
func WithClock(now func() time.Time) BudgetOption {
	return func(b *Budget) {
		if now != nil {
			b.now = now
		}
	}
}

// WithLimit replaces the limit of 4 calls in 24 hours, for a bank whose
// limit differs. Values below 1 keep the default.
func WithLimit(calls int, window time.Duration) BudgetOption {
	return func(b *Budget) {
		if calls > 0 && window > 0 {
			b.limit, b.window = calls, window
		}
	}
}

// NewBudget returns a Budget keeping its call times in store (a new
// in-memory store when store is nil).
func NewBudget(store BudgetStore, opts ...BudgetOption) *Budget {
	if store == nil {
		store = NewMemoryBudgetStore()
	}
	b := &Budget{store: store, now: time.Now, limit: DefaultBudgetLimit, window: DefaultBudgetWindow}
	for _, o := range opts {
		if o != nil {
			o(b)
		}
	}
	return b
}

// BudgetKey identifies one budget: a bank, a TPP, an account and an
// endpoint. It has no PSU: the bank counts calls per account
// (docs/interface.md section 8), whichever PSU they are made for.
type BudgetKey struct {
	// TPP identifies the TPP; a [Service] uses the organizationIdentifier
	// of the signing certificate's subject.
	TPP string
	// Bank identifies the bank; a [Service] uses its client's base URL
	// (see [Service.Remaining]).
	Bank string
	// AccountID is the account's (or card account's) resource id.
	AccountID string
	// Endpoint is the counted endpoint.
	Endpoint Endpoint
}

// String returns the store key of k: "accounts/budget/" and a hex SHA-256
// of its length-prefixed parts, so that no account id is written in clear.
func (k BudgetKey) String() string {
	h := sha256.New()
	for _, part := range []string{k.TPP, k.Bank, string(k.Endpoint), k.AccountID} {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return "accounts/budget/" + hex.EncodeToString(h.Sum(nil))
}

// Allowance is what is left of one budget.
type Allowance struct {
	// Remaining is the number of calls still allowed now.
	Remaining int
	// Limit and Window are the budget's limit, 4 calls in 24 hours.
	Limit  int
	Window time.Duration
	// NextAt is when the oldest counted call leaves the window (one more
	// call becomes allowed); zero when no call is counted.
	NextAt time.Time
}

// Remaining reports what is left of the budget k.
func (b *Budget) Remaining(ctx context.Context, k BudgetKey) (Allowance, error) {
	now := b.now()
	var a Allowance
	err := b.store.Update(ctx, k.String(), func(calls []time.Time) ([]time.Time, error) {
		calls = b.prune(calls, now)
		a = b.allowance(calls)
		return calls, nil
	})
	if err != nil {
		return Allowance{}, fmt.Errorf("accounts: budget store: %w", err)
	}
	return a, nil
}

// Reset forgets every call counted for k, for example after the PSU was
// present again and a new consent was given.
func (b *Budget) Reset(ctx context.Context, k BudgetKey) error {
	err := b.store.Update(ctx, k.String(), func([]time.Time) ([]time.Time, error) { return nil, nil })
	if err != nil {
		return fmt.Errorf("accounts: budget store: %w", err)
	}
	return nil
}

// reserve records a call for k now, or returns a *BudgetExhaustedError
// when the budget is spent. The returned time identifies the reservation
// for release.
func (b *Budget) reserve(ctx context.Context, op string, k BudgetKey) (time.Time, error) {
	now := b.now()
	var refused *BudgetExhaustedError
	err := b.store.Update(ctx, k.String(), func(calls []time.Time) ([]time.Time, error) {
		calls = b.prune(calls, now)
		if len(calls) >= b.limit {
			refused = &BudgetExhaustedError{Operation: op, Endpoint: k.Endpoint, Limit: b.limit,
				Window: b.window, RetryAt: b.allowance(calls).NextAt}
			return calls, nil
		}
		return append(calls, now), nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: budget store: %w", op, err)
	}
	if refused != nil {
		return time.Time{}, refused
	}
	return now, nil
}

// release removes a reservation made at t for a call that was not sent.
func (b *Budget) release(ctx context.Context, k BudgetKey, t time.Time) error {
	return b.store.Update(ctx, k.String(), func(calls []time.Time) ([]time.Time, error) {
		if i := slices.IndexFunc(calls, t.Equal); i >= 0 {
			calls = slices.Delete(calls, i, i+1)
		}
		return calls, nil
	})
}

// prune drops the calls that left the window and sorts the rest. A call
// at t counts while now-t < window.
func (b *Budget) prune(calls []time.Time, now time.Time) []time.Time {
	kept := make([]time.Time, 0, len(calls)+1)
	for _, t := range calls {
		if now.Sub(t) < b.window {
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
		a.NextAt = calls[i].Add(b.window)
	}
	return a
}

// counted runs send as a call of endpoint e on accountID: without the PSU
// present (no PSU-IP-Address in ro) it reserves one call of the budget
// first and refuses the call when the budget is spent.
func (s *Service) counted(ctx context.Context, op string, e Endpoint, accountID string, ro []client.RequestOption, send func() error) error {
	if s == nil || s.c == nil {
		return errNoClient
	}
	h, err := client.Headers(ro...)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if h.Get("PSU-IP-Address") != "" {
		return send()
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	k := s.budgetKey(accountID, e)
	at, err := s.budget.reserve(ctx, op, k)
	if err != nil {
		return err
	}
	err = send()
	switch {
	case err == nil:
	case !sent(err):
		// Best effort: a failed release only makes the SDK stricter.
		_ = s.budget.release(context.WithoutCancel(ctx), k, at)
	case bankAccessExceeded(err):
		// Best effort, as above.
		_ = s.budget.exhaust(context.WithoutCancel(ctx), k, at)
	}
	return err
}

// bankAccessExceeded reports whether err is the bank's own 429
// ACCESS_EXCEEDED (not the SDK's refusal).
func bankAccessExceeded(err error) bool {
	var ce *client.Error
	return errors.As(err, &ce) && ce.Is(client.ErrAccessExceeded)
}

// exhaust marks the budget k as spent after the bank answered 429
// ACCESS_EXCEEDED to a call made at t: the bank counted calls the SDK did
// not see (another instance with its own store, calls made before the
// store existed). ASSUMPTION (the safe option, docs/interface.md section
// 8 gives no reset time): the missing calls are taken to have been made at t, so the
// SDK refuses further calls until the window has passed since t instead
// of earning more 429s.
func (b *Budget) exhaust(ctx context.Context, k BudgetKey, t time.Time) error {
	return b.store.Update(ctx, k.String(), func(calls []time.Time) ([]time.Time, error) {
		calls = b.prune(calls, b.now())
		for len(calls) < b.limit {
			calls = append(calls, t)
		}
		return calls, nil
	})
}

// sent reports whether a call that failed with err may have reached the
// bank. Only errors raised before sending say it did not.
func sent(err error) bool {
	var ce *client.Error
	switch {
	case errors.As(err, &ce):
		return true
	case errors.Is(err, client.ErrForeignHost), errors.Is(err, ErrUnexpectedLink), errors.Is(err, ErrInvalidQuery):
		return false
	}
	return true
}

// Remaining reports what is left of the without-PSU budget of endpoint e
// of an account (or card account, with EndpointCardBalances and
// EndpointCardTransactions) over the last 24 hours. The budget is the
// account's at this bank for this TPP, shared by every PSU who can see the
// account ([BudgetKey]); ro is only checked for validity (the PSU it names
// does not change the answer).
func (s *Service) Remaining(ctx context.Context, accountID string, e Endpoint, ro ...client.RequestOption) (Allowance, error) {
	if s == nil || s.c == nil {
		return Allowance{}, errNoClient
	}
	if _, err := client.Headers(ro...); err != nil {
		return Allowance{}, fmt.Errorf("accounts.Remaining: %w", err)
	}
	return s.budget.Remaining(ctx, s.budgetKey(accountID, e))
}

// budgetKey is the key of the budget of endpoint e of accountID: this
// client's bank and TPP, never the PSU.
func (s *Service) budgetKey(accountID string, e Endpoint) BudgetKey {
	return BudgetKey{TPP: s.tppID(), Bank: bankID(s.c.BaseURL()), AccountID: accountID, Endpoint: e}
}

// bankID identifies the bank of a base URL for budget keys: the URL with
// scheme and host in lower case, without user info, query, fragment or
// trailing slash. ASSUMPTION (the spec names no bank identifier): one
// base URL is one bank; banks that share one base URL (one host serving
// several banks) then share one budget per account id, which can only
// make the SDK refuse early.
func bankID(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.User, u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = nil, "", "", "", false
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = strings.TrimRight(u.RawPath, "/")
	return u.String()
}

// oidOrganizationIdentifier is the X.520 organizationIdentifier that holds
// the TPP's PSD2 authorisation number in an eIDAS certificate.
const oidOrganizationIdentifier = "2.5.4.97"

// tppID identifies the TPP for budget keys: the organizationIdentifier of
// the signing certificate's subject (stable across certificate renewals),
// else the whole subject.
func (s *Service) tppID() string {
	creds := s.c.Credentials()
	if creds == nil || creds.Certificate == nil {
		return ""
	}
	for _, n := range creds.Certificate.Subject.Names {
		if n.Type.String() == oidOrganizationIdentifier {
			if v, ok := n.Value.(string); ok && v != "" {
				return v
			}
		}
	}
	return creds.Certificate.Subject.String()
}
