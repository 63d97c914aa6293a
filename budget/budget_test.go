package budget_test

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"iter"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// countingBank is an httptest bank answering balances and transactions
// with the platform documents (or status, when set) and counting what it
// receives.
type countingBank struct {
	srv      *httptest.Server
	balances atomic.Int64
	txs      atomic.Int64
	status   atomic.Int64 // 0: 200 with the document
	// unavailable is the number of the next requests answered 503.
	unavailable atomic.Int64
	// limited is the number of the next requests answered 429 (a rate
	// limit that is not the budget, Retry-After: 0); dropped the number of the next requests
	// whose connection is closed once they were read, without an answer.
	limited, dropped atomic.Int64
}

func newCountingBank(t testing.TB) *countingBank {
	t.Helper()
	b := &countingBank{}
	bal, page := testdata(t, "balances.json"), testdata(t, "transactions-page2.json")
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		var doc []byte
		switch {
		case strings.HasSuffix(r.URL.Path, "/balances"):
			b.balances.Add(1)
			doc = bal
		case strings.HasSuffix(r.URL.Path, "/transactions"):
			b.txs.Add(1)
			doc = page
		default:
			w.WriteHeader(http.StatusNotFound)
			return
		}
		if b.dropped.Add(-1) >= 0 {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = conn.Close()
			}
			return
		}
		if b.limited.Add(-1) >= 0 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"SERVICE_BLOCKED"}]}`))
			return
		}
		if b.unavailable.Add(-1) >= 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"SERVICE_UNAVAILABLE"}]}`))
			return
		}
		if st := b.status.Load(); st != 0 {
			w.WriteHeader(int(st))
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"SYSTEM_ERROR"}]}`))
			return
		}
		_, _ = w.Write(doc)
	}))
	t.Cleanup(b.srv.Close)
	return b
}

// client returns a new client of the test TPP on the bank, with its own
// certificate (as after a renewal) and, unless opts give one, its own
// store. Retries are off: every call the bank answers is one request.
func (b *countingBank) client(t testing.TB, opts ...client.Option) *client.Client {
	t.Helper()
	return b.clientAs(t, testtpp.Credentials(t, "Accounts test TPP"), opts...)
}

// clientAs is client with the TPP's credentials creds.
func (b *countingBank) clientAs(t testing.TB, creds *signing.Credentials, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(b.srv.URL+"/api", creds, append([]client.Option{client.WithHTTPClient(b.srv.Client()),
		client.WithRetryPolicy(client.RetryPolicy{})}, opts...)...)
	require.NoError(t, err)
	return c
}

// service returns a Service on a new client of the bank.
func (b *countingBank) service(t testing.TB, opts ...budget.Option) *accounts.Service {
	t.Helper()
	return newService(t, b.client(t), opts...)
}

// tppCredentials returns throwaway credentials of the TPP whose PSD2
// authorisation number (organizationIdentifier) is orgID.
func tppCredentials(t testing.TB, orgID string) *signing.Credentials {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject: pkix.Name{CommonName: "Other TPP", Organization: []string{"Other TPP AS"},
			ExtraNames: []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: orgID}}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	return testtpp.SelfSigned(t, tmpl)
}

func TestBudgetSlidingWindow(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	clk := testtpp.NewClock(time.Now().UTC().Truncate(time.Second))
	t0 := clk.Now()
	svc := newService(t, bank.client(t, client.WithClock(clk.Now))) // the budget moves with the client's clock
	ctx := t.Context()

	// A call counts for 24 hours and the margin for clock differences.
	day := 24*time.Hour + budget.ClockMargin
	steps := []struct {
		at            time.Duration // since t0
		wantRefused   bool
		wantRemaining int // after the call
		wantNext      time.Duration
	}{
		{at: 0, wantRemaining: 3, wantNext: day},
		{at: time.Hour, wantRemaining: 2, wantNext: day},
		{at: 2 * time.Hour, wantRemaining: 1, wantNext: day},
		{at: 3 * time.Hour, wantRemaining: 0, wantNext: day},
		{at: 24 * time.Hour, wantRefused: true, wantRemaining: 0, wantNext: day},
		{at: day - time.Second, wantRefused: true, wantRemaining: 0, wantNext: day},
		{at: day, wantRemaining: 0, wantNext: time.Hour + day},
		{at: 24*time.Hour + 30*time.Minute, wantRefused: true, wantRemaining: 0, wantNext: time.Hour + day},
		{at: 3*time.Hour + day + time.Minute, wantRemaining: 2, wantNext: 2 * day},
	}
	sent := 0
	for i, st := range steps {
		clk.Set(t0.Add(st.at))
		_, err := svc.Balances(ctx, acc1, psuAbsent()...)
		if st.wantRefused {
			var be *budget.ExhaustedError
			require.ErrorAs(t, err, &be, "step %d", i)
			assert.WithinDuration(t, t0.Add(st.wantNext), be.RetryAt, 0, "step %d", i)
			assert.Equal(t, 24*time.Hour, be.Window)
			assert.ErrorIs(t, err, client.ErrNotSent, "step %d: refused before sending", i)
		} else {
			require.NoError(t, err, "step %d", i)
			sent++
		}
		a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
		require.NoError(t, err)
		assert.Equal(t, st.wantRemaining, a.Remaining, "step %d", i)
		assert.WithinDuration(t, t0.Add(st.wantNext), a.NextAt, 0, "step %d", i)
		assert.Equal(t, 4, a.Limit)
	}
	assert.Equal(t, int64(sent), bank.balances.Load(), "refused calls never reached the bank")
	assert.Equal(t, 6, sent)

	// Budgets are per account and endpoint.
	for _, tc := range []struct {
		name    string
		account string
		e       budget.Endpoint
	}{
		{"another account", acc2, budget.Balances},
		{"transactions", acc1, budget.Transactions},
		{"card balances", acc1, budget.CardBalances},
	} {
		a, err := budgetOf(svc).Remaining(ctx, tc.account, tc.e)
		require.NoError(t, err)
		assert.Equal(t, 4, a.Remaining, tc.name)
		assert.True(t, a.NextAt.IsZero(), tc.name)
	}
}

// otherPSU are the options of a call without the PSU present for a second
// PSU who sees the same (corporate) account.
func otherPSU() []client.RequestOption {
	return []client.RequestOption{client.WithTPPSessionID("9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: "7c0e5a1d-2b3c-4d5e-8f90-a1b2c3d4e5f6", CorporateID: "3f1e2d4c-5b6a-4789-8a0b-1c2d3e4f5a6b"})}
}

// The bank counts calls per account (docs/interface.md section 8), so two
// PSUs sharing a corporate account share its 4 calls: the second PSU's
// call after the first PSU's four is refused before it is sent, by every
// Service of the client.
func TestBudgetIsPerAccountNotPerPSU(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	c := bank.client(t)
	svc := newService(t, c)
	ctx := t.Context()
	for range 2 {
		_, err := svc.Balances(ctx, acc1, psuAbsent()...)
		require.NoError(t, err)
		_, err = svc.Balances(ctx, acc1, otherPSU()...)
		require.NoError(t, err)
	}
	a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 0, a.Remaining)
	for name, ro := range map[string][]client.RequestOption{"first PSU": psuAbsent(), "second PSU": otherPSU()} {
		_, err = svc.Balances(ctx, acc1, ro...)
		require.ErrorIs(t, err, budget.ErrExhausted, name)
	}

	// Another Service made on the same client shares the budget.
	again := newService(t, c)
	a, err = budgetOf(again).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 0, a.Remaining)
	_, err = again.Balances(ctx, acc1, otherPSU()...)
	require.ErrorIs(t, err, budget.ErrExhausted, "a second Service of the client")
	assert.Equal(t, int64(4), bank.balances.Load(), "the bank received the account's 4 calls, no fifth")
}

// Clients on one shared store count one budget per TPP and bank: a
// renewed certificate of the same TPP, or the bank's base URL written
// with a trailing slash, shares it; another TPP, another bank, or a
// client with a store of its own does not.
func TestBudgetSharedStore(t *testing.T) {
	t.Parallel()
	bank, otherBank := newCountingBank(t), newCountingBank(t)
	shared := store.NewMemoryStore()
	ctx := t.Context()
	first := newService(t, bank.client(t, client.WithStore(shared)))
	for range 4 {
		_, err := first.Balances(ctx, acc1, psuAbsent()...)
		require.NoError(t, err)
	}

	slash, err := client.New(bank.srv.URL+"/api/", testtpp.Credentials(t, "Accounts test TPP"),
		client.WithHTTPClient(bank.srv.Client()), client.WithStore(shared))
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		c     *client.Client
		left  int
		fresh *countingBank // the bank that gets the call when it is allowed
	}{
		{"same TPP, renewed certificate", bank.client(t, client.WithStore(shared)), 0, nil},
		{"same bank, base URL with a trailing slash", slash, 0, nil},
		{"another TPP", bank.clientAs(t, tppCredentials(t, "PSDNO-FSA-OTHER"), client.WithStore(shared)), 4, bank},
		{"another bank", otherBank.client(t, client.WithStore(shared)), 4, otherBank},
		{"same TPP and bank, a store of its own", bank.client(t), 4, bank},
	} {
		svc := newService(t, tc.c)
		a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.left, a.Remaining, tc.name)
		_, err = svc.Balances(ctx, acc1, psuAbsent()...)
		if tc.left == 0 {
			require.ErrorIs(t, err, budget.ErrExhausted, tc.name)
		} else {
			require.NoError(t, err, tc.name)
		}
	}
	assert.Equal(t, int64(4+2), bank.balances.Load(), "the 4 calls, then another TPP's and the own store's")
	assert.Equal(t, int64(1), otherBank.balances.Load())
}

func TestBudgetCountsOnlyWithoutThePSU(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	svc := bank.service(t, budget.WithLimit(1, time.Hour))
	ctx := t.Context()
	for range 3 {
		_, err := svc.Balances(ctx, acc1, psuPresent()...)
		require.NoError(t, err)
		_, err = svc.Transactions(ctx, acc1, nil, psuPresent()...)
		require.NoError(t, err)
	}
	a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Remaining, "calls with PSU-IP-Address do not count")
	assert.Equal(t, time.Hour, a.Window)
	assert.Equal(t, 1, a.Limit)

	_, err = svc.Transactions(ctx, acc1, nil, psuAbsent()...)
	require.NoError(t, err)
	_, err = svc.Transactions(ctx, acc1, nil, psuAbsent()...)
	require.ErrorIs(t, err, budget.ErrExhausted)
	// A stored next link counts against the same budget.
	_, err = svc.TransactionsAt(ctx, "/v1/accounts/"+acc1+"/transactions?offset=3", psuAbsent()...)
	require.ErrorIs(t, err, budget.ErrExhausted)
	_, err = svc.Balances(ctx, acc2, psuAbsent()...)
	require.NoError(t, err)
	assert.Equal(t, int64(4), bank.txs.Load())
	assert.Equal(t, int64(4), bank.balances.Load())

	// A call refused before sending (an invalid query) takes nothing.
	_, err = svc.Transactions(ctx, acc2, &accounts.TransactionQuery{Limit: -1}, psuAbsent()...)
	require.ErrorIs(t, err, accounts.ErrInvalidQuery)
	a, err = budgetOf(svc).Remaining(ctx, acc2, budget.Transactions)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Remaining)

	// ResetBudget forgets the account's count of one endpoint.
	require.NoError(t, budgetOf(svc).Reset(ctx, acc1, budget.Transactions))
	a, err = budgetOf(svc).Remaining(ctx, acc1, budget.Transactions)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Remaining)
	assert.True(t, a.NextAt.IsZero())
	_, err = svc.TransactionsAt(ctx, "/v1/accounts/"+acc1+"/transactions?offset=3", psuAbsent()...)
	require.NoError(t, err)
	assert.Equal(t, int64(5), bank.txs.Load())
	a, err = budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Remaining, "another endpoint's count is left alone")
	require.NoError(t, budgetOf(svc).Reset(ctx, "enc!!never-called", budget.Balances), "resetting an unknown budget is fine")
}

// A call refused locally or never sent does not spend the budget
// (docs/interface.md section 8 counts the calls the bank receives): a
// closed port, an ended context, a missing required header, an invalid
// option. A call the bank answered is spent, even with an error.
func TestBudgetNotSpentWhenNotSent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + l.Addr().String() + "/api"
	require.NoError(t, l.Close())

	shared := store.NewMemoryStore()
	c, err := client.New(closed, testtpp.Credentials(t, "Accounts test TPP"), client.WithStore(shared),
		client.WithRetryPolicy(client.RetryPolicy{}), client.WithHTTPClient(&http.Client{Timeout: 10 * time.Second}))
	require.NoError(t, err)
	svc := newService(t, c)
	for range budget.DefaultLimit + 2 {
		_, err := svc.Balances(ctx, acc1, psuAbsent()...)
		require.ErrorIs(t, err, client.ErrNotSent)
		assert.NotErrorIs(t, err, budget.ErrExhausted)
	}
	a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit, a.Remaining, "nothing reached a bank on a closed port")
	assert.True(t, a.NextAt.IsZero())

	bank := newCountingBank(t)
	svc = newService(t, bank.client(t))
	ended, cancel := context.WithCancel(ctx)
	cancel()
	for name, call := range map[string]func() error{
		"ended context": func() error { _, err := svc.Balances(ended, acc1, psuAbsent()...); return err },
		"no TPP-Redirect-URI": func() error {
			_, err := svc.Balances(ctx, acc1, client.WithTPPSessionID(sessionID), client.WithPSU(client.PSU{ID: psuID}))
			return err
		},
		"invalid option": func() error {
			_, err := svc.Balances(ctx, acc1, append(psuAbsent(), client.WithPSU(client.PSU{ID: "not-a-uuid"}))...)
			return err
		},
	} {
		err := call()
		require.ErrorIs(t, err, client.ErrNotSent, name)
		a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
		require.NoError(t, err)
		assert.Equal(t, budget.DefaultLimit, a.Remaining, name)
	}
	assert.Zero(t, bank.balances.Load(), "nothing was sent")

	// The bank answered 500: it received the call, and may have counted it.
	bank.status.Store(http.StatusInternalServerError)
	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	var ce *client.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, http.StatusInternalServerError, ce.StatusCode)
	a, err = budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit-1, a.Remaining)
	assert.Equal(t, int64(1), bank.balances.Load())
}

// A counted call without the PSU is never retried blindly: after a 5xx
// or a connection lost once the request was sent, the client ends the
// call with that answer (the round's scheduler tries again), so a blip
// costs one call, whatever the client's retry policy. The call counts:
// the bank may count a call it answered 5xx (docs/interface.md section 8
// counts "calls"; the safe reading).
func TestBudgetBlipCostsOneCall(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := newCountingBank(t)
	retries := client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	svc := newService(t, bank.client(t, retries))

	bank.unavailable.Store(10)
	_, err := svc.Balances(ctx, acc1, psuAbsent()...)
	var ce *client.Error
	require.ErrorAs(t, err, &ce, "the call ends with the bank's own answer")
	assert.Equal(t, http.StatusServiceUnavailable, ce.StatusCode)
	assert.Equal(t, int64(1), bank.balances.Load(), "no retry after a 5xx")
	a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit-1, a.Remaining, "the 5xx counts, once")

	// With the PSU present nothing counts, and the client retries as its
	// policy says.
	bank.unavailable.Store(2)
	_, err = svc.Balances(ctx, acc2, psuPresent()...)
	require.NoError(t, err)
	assert.Equal(t, int64(4), bank.balances.Load(), "1 + 2 answered 503 + the answer")
	a, err = budgetOf(svc).Remaining(ctx, acc2, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit, a.Remaining)
}

// A connection dropped after the request was sent (on a new connection:
// net/http itself resends a GET whose reused connection the server
// closed) leaves no answer: no retry, one call counted.
func TestBudgetLostAnswerCostsOneCall(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := newCountingBank(t)
	retries := client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	svc := newService(t, bank.client(t, retries))
	bank.dropped.Store(10)
	_, err := svc.Transactions(ctx, acc1, &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked}, psuAbsent()...)
	require.Error(t, err)
	assert.NotErrorIs(t, err, client.ErrNotSent)
	assert.Equal(t, int64(1), bank.txs.Load(), "no retry after a lost answer")
	a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Transactions)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit-1, a.Remaining)
}

// After a 429 (the bank asked to slow down) the client retries a counted
// call only when the budget can spare the retry and still keep
// budget.RetryReserve calls for the next round; the retry is reserved
// before it is sent, and the call's hook learns how many requests left.
func TestBudgetRetryKeepsReserve(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := newCountingBank(t)
	retries := client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: time.Second})
	svc := newService(t, bank.client(t, retries))

	// 4 calls: the first attempt and one retry leave 2.
	bank.limited.Store(1)
	_, err := svc.Balances(ctx, acc1, psuAbsent()...)
	require.NoError(t, err)
	assert.Equal(t, int64(2), bank.balances.Load())
	a, err := budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit-2, a.Remaining)

	// 2 left: the first attempt takes one; a retry would leave fewer
	// than the reserve, so the call ends with the 429.
	bank.limited.Store(5)
	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	var ce *client.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, http.StatusTooManyRequests, ce.StatusCode)
	assert.Equal(t, int64(3), bank.balances.Load(), "no retry that would spend the reserve")
	a, err = budgetOf(svc).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.RetryReserve, a.Remaining, "the reserve is left for the next round")
}

// A Reservation counts every request its calls sent, the client's
// retries included (refresh.Result.Calls).
func TestReservationCountsEveryRequest(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := newCountingBank(t)
	retries := client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: time.Second})
	svc := newService(t, bank.client(t, retries))
	rsv, err := budgetOf(svc).Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1})
	require.NoError(t, err)
	bank.limited.Store(1)
	_, err = svc.Balances(ctx, acc1, psuAbsent(rsv.Option())...)
	require.NoError(t, err)
	assert.Equal(t, int64(2), bank.balances.Load())
	assert.Equal(t, 2, rsv.Sent(), "the 429 and the retry")
}

// The bank's 429 ACCESS_EXCEEDED means two things on this platform
// (budget.Budget.RateLimit): with a Retry-After shorter than the window it
// is a rate limit (the wait is as asked, at least a second; the bank is
// paused for a wait of up to a minute, the account's endpoint held until
// a longer one and the clock margin end; the account's budget is not
// spent beyond the wait); without one, or with one of a window or more,
// the account's budget is spent for the window and the margin.
func TestBudgetAccessExceededRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		retryAfter string
		spent      time.Duration // 0: not spent
		wait       time.Duration // the wait, for a rate limit
		bankPause  bool
	}{
		{retryAfter: "5", wait: 5 * time.Second, bankPause: true},
		{retryAfter: "600", wait: 10 * time.Minute, spent: 10*time.Minute + budget.ClockMargin},
		{retryAfter: "0", wait: time.Second, bankPause: true},
		{retryAfter: "", spent: budget.DefaultWindow + budget.ClockMargin},
		{retryAfter: "86400", spent: budget.DefaultWindow + budget.ClockMargin},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tt.retryAfter != "" {
				w.Header().Set("Retry-After", tt.retryAfter)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`))
		}))
		t.Cleanup(srv.Close)
		now := time.Now()
		clock := now
		c, err := client.New(srv.URL+"/api", testtpp.Credentials(t, "Accounts test TPP"), client.WithHTTPClient(srv.Client()),
			client.WithRetryPolicy(client.RetryPolicy{}), client.WithClock(func() time.Time { return clock }))
		require.NoError(t, err)
		svc := newService(t, c)
		_, err = svc.Balances(t.Context(), acc1, psuAbsent()...)
		require.ErrorIs(t, err, client.ErrAccessExceeded, tt.retryAfter)
		b := budgetOf(svc)
		wait, limited := b.RateLimit(err)
		a, rerr := b.Remaining(t.Context(), acc1, budget.Balances)
		require.NoError(t, rerr)
		_, paused, perr := b.PausedUntil(t.Context())
		require.NoError(t, perr)
		assert.Equal(t, tt.wait != 0, limited, tt.retryAfter)
		assert.Equal(t, tt.wait, wait, tt.retryAfter)
		assert.Equal(t, tt.bankPause, paused, "the bank's pause, Retry-After %q", tt.retryAfter)
		if tt.spent == 0 {
			if !tt.bankPause {
				// The account's own wait: its endpoint is held until
				// the Retry-After and the clock margin, in the store.
				assert.Zero(t, a.Remaining, "held until the Retry-After %q", tt.retryAfter)
				assert.WithinDuration(t, now.Add(tt.wait+budget.ClockMargin), a.NextAt, time.Second, "Retry-After %q", tt.retryAfter)
				clock = now.Add(tt.wait + budget.ClockMargin)
				a, rerr = b.Remaining(t.Context(), acc1, budget.Balances)
				require.NoError(t, rerr)
			}
			assert.Equal(t, budget.DefaultLimit-1, a.Remaining, "a rate limit spends no budget beyond its wait, Retry-After %q", tt.retryAfter)
			continue
		}
		assert.Zero(t, a.Remaining, tt.retryAfter)
		assert.WithinDuration(t, now.Add(tt.spent), a.NextAt, time.Second, "Retry-After %q", tt.retryAfter)
	}
}

func TestBudgetStorePersistsAcrossServices(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	dir := filepath.Join(t.TempDir(), "store") // created by NewFileStore with mode 0700
	ctx := t.Context()
	newService := func() *accounts.Service {
		fs, err := store.NewFileStore(dir)
		require.NoError(t, err)
		// Each Service has its own client, certificate and store value, as
		// after a restart with a renewed certificate of the same TPP.
		return newService(t, bank.client(t, client.WithStore(fs)))
	}

	first := newService()
	for range 3 {
		_, err := first.Balances(ctx, acc1, psuAbsent()...)
		require.NoError(t, err)
	}

	second := newService()
	a, err := budgetOf(second).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Remaining, "the counts survived")
	_, err = second.Balances(ctx, acc1, psuAbsent()...)
	require.NoError(t, err)
	_, err = second.Balances(ctx, acc1, psuAbsent()...)
	require.ErrorIs(t, err, budget.ErrExhausted)
	_, err = first.Balances(ctx, acc1, psuAbsent()...)
	require.ErrorIs(t, err, budget.ErrExhausted, "the first instance sees the second's calls")
	assert.Equal(t, int64(4), bank.balances.Load())

	// Nothing personal is written in clear.
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		assert.NotContains(t, path, psuID)
		assert.NotContains(t, path, acc1)
		if !d.IsDir() {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.NotContains(t, string(b), psuID)
			assert.NotContains(t, string(b), acc1)
		}
		return nil
	})
	require.NoError(t, err)
}

// Many goroutines, through two Services of one client and a Service of
// a second client on the same store, are granted the account's 4 calls
// between them, and the bank receives exactly those.
func TestBudgetConcurrentUse(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	shared := store.NewMemoryStore()
	c := bank.client(t, client.WithStore(shared))
	services := []*accounts.Service{
		newService(t, c),
		newService(t, c),
		newService(t, bank.client(t, client.WithStore(shared))),
	}
	ctx := t.Context()
	const callers = 42
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := services[i%len(services)].Balances(ctx, acc1, psuAbsent()...)
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, budget.ErrExhausted):
				refused.Add(1)
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(4), ok.Load())
	assert.Equal(t, int64(callers-4), refused.Load())
	assert.Equal(t, int64(4), bank.balances.Load())
}

// brokenStore is a store whose every value is undecodable, or whose
// Update fails with err when set; it counts the values written.
type brokenStore struct {
	store.Store
	err  error
	puts atomic.Int64
}

func (s *brokenStore) Get(context.Context, string) ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	return []byte("{not json"), nil
}

func (s *brokenStore) Update(_ context.Context, _ string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	if s.err != nil {
		return s.err
	}
	if _, _, err := fn([]byte("{not json"), true); err != nil {
		return err
	}
	s.puts.Add(1)
	return nil
}

func TestBudgetStoreErrorsStopTheCall(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	diskFull := errors.New("disk full")
	for name, st := range map[string]*brokenStore{
		"undecodable value": {Store: store.NewMemoryStore()},
		"failing update":    {Store: store.NewMemoryStore(), err: diskFull},
	} {
		svc := newService(t, bank.client(t, client.WithStore(st)))
		_, err := svc.Balances(t.Context(), acc1, psuAbsent()...)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "budget store", name)
		assert.ErrorIs(t, err, client.ErrNotSent, name)
		if st.err != nil {
			assert.ErrorIs(t, err, diskFull, name)
		}
		assert.Zero(t, st.puts.Load(), name)
		_, err = budgetOf(svc).Remaining(t.Context(), acc1, budget.Balances)
		assert.Error(t, err, name)

		// With the PSU present the budget is not consulted.
		_, err = svc.Balances(t.Context(), acc1, psuPresent()...)
		require.NoError(t, err, name)
	}
	assert.Equal(t, int64(2), bank.balances.Load(), "only the calls with the PSU present were sent")
}

// keys collects the keys of st under prefix.
func keys(t *testing.T, seq iter.Seq2[string, error]) []string {
	t.Helper()
	var out []string
	for k, err := range seq {
		require.NoError(t, err)
		out = append(out, k)
	}
	return out
}

// The budget's keys in the client's store are under the TPP's and bank's
// scope, one per account (both endpoints in one value, so that a refresh
// reserves them in one write), and name no account; its values hold call
// times only.
func TestBudgetKeysHideTheAccount(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	shared := store.NewMemoryStore()
	ctx := t.Context()
	c := bank.client(t, client.WithStore(shared))
	svc := newService(t, c)
	_, err := svc.Balances(ctx, acc1, psuAbsent()...)
	require.NoError(t, err)
	_, err = svc.Transactions(ctx, acc1, nil, psuAbsent()...)
	require.NoError(t, err)
	_, err = svc.Balances(ctx, acc1, psuPresent()...) // not counted
	require.NoError(t, err)

	mine := keys(t, shared.Keys(ctx, "accounts/budget/"))
	require.Len(t, mine, 1, "one key per account")
	for _, k := range mine {
		assert.True(t, strings.HasPrefix(k, "accounts/budget/"+c.Scope()+"/"), k)
		assert.NotContains(t, k, acc1)
		v, err := shared.Get(ctx, k)
		require.NoError(t, err)
		assert.NotContains(t, string(v), acc1)
		assert.NotContains(t, string(v), psuID)
	}

	// Another TPP on the same store writes under a scope of its own.
	other := bank.clientAs(t, tppCredentials(t, "PSDNO-FSA-OTHER"), client.WithStore(shared))
	require.NotEqual(t, c.Scope(), other.Scope())
	_, err = newService(t, other).Balances(ctx, acc1, psuAbsent()...)
	require.NoError(t, err)
	assert.Len(t, keys(t, shared.Keys(ctx, "accounts/budget/"+other.Scope()+"/")), 1)
	assert.Len(t, keys(t, shared.Keys(ctx, "accounts/budget/"+c.Scope()+"/")), 1)
}

// gateStore holds the first Update it sees, and every later Update of
// that key, until open is closed; Updates of other keys go through.
type gateStore struct {
	store.Store
	mu            sync.Mutex
	gated         string
	entered, open chan struct{}
}

func (g *gateStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	g.mu.Lock()
	if g.gated == "" {
		g.gated = key
		close(g.entered)
	}
	wait := key == g.gated
	g.mu.Unlock()
	if wait {
		select {
		case <-g.open:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g.Store.Update(ctx, key, fn)
}

// While the budget of one account is being updated (its store is slow:
// an fsync, a database round trip), a call on another account's budget
// goes through without waiting: neither the client nor the Service holds
// a lock across the store.
func TestBudgetDoesNotSerialiseAccounts(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	gate := &gateStore{Store: store.NewMemoryStore(), entered: make(chan struct{}), open: make(chan struct{})}
	svc := newService(t, bank.client(t, client.WithStore(gate)))
	ctx := t.Context()

	doneA := make(chan error, 1)
	go func() {
		_, err := svc.Balances(ctx, acc1, psuAbsent()...)
		doneA <- err
	}()
	<-gate.entered
	doneB := make(chan error, 1)
	go func() {
		_, err := svc.Balances(ctx, acc2, psuAbsent()...)
		doneB <- err
	}()
	select {
	case err := <-doneB:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the call on account 2 waited for account 1's budget")
	}
	assert.Equal(t, int64(1), bank.balances.Load(), "account 1's call is still held")
	close(gate.open)
	require.NoError(t, <-doneA)
	for _, id := range []string{acc1, acc2} {
		a, err := budgetOf(svc).Remaining(ctx, id, budget.Balances)
		require.NoError(t, err)
		assert.Equal(t, 3, a.Remaining)
	}
}

// New refuses a nil client and an invalid limit; a nil Budget (a
// Service made without New) refuses every call and every question.
func TestNewRefusesNilClientAndBadLimit(t *testing.T) {
	t.Parallel()
	b, err := budget.New(nil)
	require.Error(t, err)
	assert.Nil(t, b)
	assert.Nil(t, budget.Of(nil))

	bank := newCountingBank(t)
	c := bank.client(t)
	for name, opt := range map[string]budget.Option{
		"no calls":          budget.WithLimit(0, 24*time.Hour),
		"negative calls":    budget.WithLimit(-1, 24*time.Hour),
		"window under 1s":   budget.WithLimit(4, 500*time.Millisecond),
		"no window":         budget.WithLimit(4, 0),
		"negative window":   budget.WithLimit(4, -time.Hour),
		"both out of range": budget.WithLimit(0, 0),
	} {
		b, err := budget.New(c, opt)
		assert.Error(t, err, name)
		assert.Nil(t, b, name)
	}
	b, err = budget.New(c, nil, budget.WithLimit(1, time.Second))
	require.NoError(t, err)
	a, err := b.Remaining(t.Context(), acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.Allowance{Remaining: 1, Limit: 1, Window: time.Second}, a)

	var zero accounts.Service
	_, err = zero.Balances(t.Context(), acc1, psuAbsent()...)
	assert.Error(t, err)
	var none *budget.Budget
	_, err = none.Remaining(t.Context(), acc1, budget.Balances)
	assert.Error(t, err)
	assert.Error(t, none.Reset(t.Context(), acc1, budget.Balances))
	_, err = none.Reserve(t.Context(), budget.ReserveRequest{AccountID: acc1, Balances: 1})
	assert.Error(t, err)
	_, _, err = none.PausedUntil(t.Context())
	assert.Error(t, err)
	_, err = b.Remaining(t.Context(), "", budget.Balances)
	assert.Error(t, err, "no account")
	assert.Zero(t, bank.balances.Load())
}

// A client has one budget with one limit, whatever the number of
// services: every Service of the client counts against the limit New
// gave, and New with another limit once the client has its budget is
// refused (ErrOtherLimit) instead of making a second count. Before the
// budget moved to its own package, two accounts.Service of one client
// could each have a limit of its own.
func TestOneLimitPerClient(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	c := bank.client(t)
	b, err := budget.New(c, budget.WithLimit(2, 24*time.Hour))
	require.NoError(t, err)
	assert.Same(t, b, budget.Of(c))
	again, err := budget.New(c, budget.WithLimit(2, 24*time.Hour))
	require.NoError(t, err)
	assert.Same(t, b, again, "the same limit: the same budget")
	_, err = budget.New(c)
	require.ErrorIs(t, err, budget.ErrOtherLimit)
	_, err = budget.New(c, budget.WithLimit(3, 24*time.Hour))
	require.ErrorIs(t, err, budget.ErrOtherLimit)

	one, err := accounts.New(c)
	require.NoError(t, err)
	two, err := accounts.New(c)
	require.NoError(t, err)
	_, err = one.Balances(t.Context(), acc1, psuAbsent()...)
	require.NoError(t, err)
	_, err = two.Balances(t.Context(), acc1, psuAbsent()...)
	require.NoError(t, err)
	_, err = two.Balances(t.Context(), acc1, psuAbsent()...)
	require.ErrorIs(t, err, budget.ErrExhausted, "the two services share the limit of 2")
	_, err = one.Balances(t.Context(), acc1, psuAbsent()...)
	require.ErrorIs(t, err, budget.ErrExhausted)
	assert.EqualValues(t, 2, bank.balances.Load())

	// A client whose services came first has the default limit.
	d := bank.client(t)
	_, err = accounts.New(d)
	require.NoError(t, err)
	_, err = budget.New(d, budget.WithLimit(2, 24*time.Hour))
	require.ErrorIs(t, err, budget.ErrOtherLimit)
	calls, window := budget.Of(d).Limit()
	assert.Equal(t, budget.DefaultLimit, calls)
	assert.Equal(t, budget.DefaultWindow, window)
}

// NextTransactions follows a next link of the account's own pages only:
// a link naming another account is refused before anything is sent, and
// spends no budget.
func TestNextTransactionsStaysOnTheAccount(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := newCountingBank(t)
	svc := bank.service(t)
	link := func(id string) string { return bank.srv.URL + "/api/v1/accounts/" + id + "/transactions?page=2" }

	_, err := svc.NextTransactions(ctx, acc1, link(acc2), psuAbsent()...)
	require.ErrorIs(t, err, accounts.ErrUnexpectedLink)
	require.ErrorIs(t, err, client.ErrNotSent)
	assert.Zero(t, bank.txs.Load())
	a, err := budgetOf(svc).Remaining(ctx, acc2, budget.Transactions)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit, a.Remaining)

	_, err = svc.NextTransactions(ctx, acc1, link(acc1), psuAbsent()...)
	require.NoError(t, err)
	assert.Equal(t, int64(1), bank.txs.Load())
	_, err = svc.NextTransactions(ctx, "", link(acc1))
	require.ErrorIs(t, err, accounts.ErrInvalidQuery)
	_, err = svc.NextCardTransactions(ctx, acc1, bank.srv.URL+"/api/v1/card-accounts/"+acc2+"/transactions", psuAbsent()...)
	require.ErrorIs(t, err, accounts.ErrUnexpectedLink)
}

// A stored ledger in another form (a member this version does not know,
// no call and no claim, trailing data) is unreadable, never read as a
// ledger that counts no call: read so, it would let the client call over
// the bank's budget, and psd2 budget would say "next call allowed: now".
func TestLedgerOfAnotherFormUnreadable(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{`{"v":2,"calls":{"balances":[1,2,3,4]}}`, `{}`, `{"b":[1]} {"b":[2]}`, `{"b":[1],"x":1}`} {
		assert.Error(t, budget.Decode([]byte(raw)), raw)
	}
	for _, raw := range []string{`{"b":[1770000000000000000]}`, `{"t":[1770000000000000000],"cb":"r1","cu":1770000000000000000}`} {
		assert.NoError(t, budget.Decode([]byte(raw)), raw)
	}
}
