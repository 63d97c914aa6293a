package accounts_test

import (
	"context"
	"errors"
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
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testtpp"
	"github.com/tppkit/psd2/sca"
)

// countingBank is an httptest bank answering balances and transactions
// with the platform documents and counting what it receives.
type countingBank struct {
	srv      *httptest.Server
	balances atomic.Int64
	txs      atomic.Int64
}

func newCountingBank(t *testing.T) *countingBank {
	t.Helper()
	b := &countingBank{}
	bal, page := testdata(t, "balances.json"), testdata(t, "transactions-page2.json")
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/balances"):
			b.balances.Add(1)
			_, _ = w.Write(bal)
		case strings.HasSuffix(r.URL.Path, "/transactions"):
			b.txs.Add(1)
			_, _ = w.Write(page)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(b.srv.Close)
	return b
}

// service returns a Service on the bank with a fresh client.
func (b *countingBank) service(t *testing.T, opts ...accounts.Option) *accounts.Service {
	t.Helper()
	c, err := client.New(b.srv.URL+"/api", testtpp.Credentials(t, "Accounts test TPP"), client.WithHTTPClient(b.srv.Client()))
	require.NoError(t, err)
	return accounts.New(c, opts...)
}

func TestBudgetSlidingWindow(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	clk := testtpp.NewClock(time.Now().UTC().Truncate(time.Second))
	t0 := clk.Now()
	svc := bank.service(t, accounts.WithBudget(accounts.NewBudget(nil, accounts.WithClock(clk.Now))))
	ctx := t.Context()

	steps := []struct {
		at            time.Duration // since t0
		wantRefused   bool
		wantRemaining int // after the call
		wantNext      time.Duration
	}{
		{at: 0, wantRemaining: 3, wantNext: 24 * time.Hour},
		{at: time.Hour, wantRemaining: 2, wantNext: 24 * time.Hour},
		{at: 2 * time.Hour, wantRemaining: 1, wantNext: 24 * time.Hour},
		{at: 3 * time.Hour, wantRemaining: 0, wantNext: 24 * time.Hour},
		{at: 23*time.Hour + 59*time.Minute, wantRefused: true, wantRemaining: 0, wantNext: 24 * time.Hour},
		{at: 24 * time.Hour, wantRemaining: 0, wantNext: 25 * time.Hour},
		{at: 24*time.Hour + 30*time.Minute, wantRefused: true, wantRemaining: 0, wantNext: 25 * time.Hour},
		{at: 27 * time.Hour, wantRemaining: 2, wantNext: 48 * time.Hour},
	}
	sent := 0
	for i, st := range steps {
		clk.Add(t0.Add(st.at).Sub(clk.Now()))
		_, err := svc.Balances(ctx, acc1, psuAbsent()...)
		if st.wantRefused {
			var be *accounts.BudgetExhaustedError
			require.ErrorAs(t, err, &be, "step %d", i)
			assert.Equal(t, t0.Add(st.wantNext), be.RetryAt, "step %d", i)
			assert.Equal(t, 24*time.Hour, be.Window)
		} else {
			require.NoError(t, err, "step %d", i)
			sent++
		}
		a, err := svc.Remaining(ctx, acc1, accounts.EndpointBalances, psuAbsent()...)
		require.NoError(t, err)
		assert.Equal(t, st.wantRemaining, a.Remaining, "step %d", i)
		assert.Equal(t, t0.Add(st.wantNext), a.NextAt, "step %d", i)
		assert.Equal(t, 4, a.Limit)
	}
	assert.Equal(t, int64(sent), bank.balances.Load(), "refused calls never reached the bank")
	assert.Equal(t, 6, sent)

	// Budgets are per account and endpoint.
	for _, tc := range []struct {
		name    string
		account string
		e       accounts.Endpoint
	}{
		{"another account", acc2, accounts.EndpointBalances},
		{"transactions", acc1, accounts.EndpointTransactions},
		{"card balances", acc1, accounts.EndpointCardBalances},
	} {
		a, err := svc.Remaining(ctx, tc.account, tc.e, psuAbsent()...)
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
// call after the first PSU's four is refused before it is sent.
func TestBudgetIsPerAccountNotPerPSU(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	svc := bank.service(t)
	ctx := t.Context()
	for range 2 {
		_, err := svc.Balances(ctx, acc1, psuAbsent()...)
		require.NoError(t, err)
		_, err = svc.Balances(ctx, acc1, otherPSU()...)
		require.NoError(t, err)
	}
	for name, ro := range map[string][]client.RequestOption{"first PSU": psuAbsent(), "second PSU": otherPSU()} {
		a, err := svc.Remaining(ctx, acc1, accounts.EndpointBalances, ro...)
		require.NoError(t, err)
		assert.Equal(t, 0, a.Remaining, name)
		_, err = svc.Balances(ctx, acc1, ro...)
		require.ErrorIs(t, err, accounts.ErrBudgetExhausted, name)
	}
	assert.Equal(t, int64(4), bank.balances.Load(), "the bank received the account's 4 calls, no fifth")

	// Another TPP, or the same account id at another bank, has a budget
	// of its own; a second client of the same TPP and bank shares it.
	other := accounts.BudgetKey{TPP: "PSDNO-FSA-TEST1", Bank: bank.srv.URL + "/api", AccountID: acc1, Endpoint: accounts.EndpointBalances}
	for _, tc := range []struct {
		name string
		edit func(*accounts.BudgetKey)
		want int
	}{
		{"same TPP and bank", func(*accounts.BudgetKey) {}, 0},
		{"another TPP", func(k *accounts.BudgetKey) { k.TPP = "PSDNO-FSA-OTHER" }, 4},
		{"another bank", func(k *accounts.BudgetKey) { k.Bank = "https://psd2.otherbank.example/api" }, 4},
	} {
		k := other
		tc.edit(&k)
		a, err := svc.Budget().Remaining(ctx, k)
		require.NoError(t, err)
		assert.Equal(t, tc.want, a.Remaining, tc.name)
	}
	second := bank.service(t, accounts.WithBudget(svc.Budget()))
	_, err := second.Balances(ctx, acc1, otherPSU()...)
	require.ErrorIs(t, err, accounts.ErrBudgetExhausted, "a renewed certificate of the same TPP shares the budget")
	c, err := client.New(bank.srv.URL+"/api/", testtpp.Credentials(t, "Accounts test TPP"), client.WithHTTPClient(bank.srv.Client()))
	require.NoError(t, err)
	_, err = accounts.New(c, accounts.WithBudget(svc.Budget())).Balances(ctx, acc1, otherPSU()...)
	require.ErrorIs(t, err, accounts.ErrBudgetExhausted, "the base URL with a trailing slash is the same bank")
	assert.Equal(t, int64(4), bank.balances.Load())
}

func TestBudgetCountsOnlyWithoutThePSU(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	svc := bank.service(t, accounts.WithBudget(accounts.NewBudget(nil, accounts.WithLimit(1, time.Hour))))
	ctx := t.Context()
	for range 3 {
		_, err := svc.Balances(ctx, acc1, psuPresent()...)
		require.NoError(t, err)
		_, err = svc.Transactions(ctx, acc1, nil, psuPresent()...)
		require.NoError(t, err)
	}
	a, err := svc.Remaining(ctx, acc1, accounts.EndpointBalances, psuAbsent()...)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Remaining, "calls with PSU-IP-Address do not count")

	_, err = svc.Transactions(ctx, acc1, nil, psuAbsent()...)
	require.NoError(t, err)
	_, err = svc.Transactions(ctx, acc1, nil, psuAbsent()...)
	require.ErrorIs(t, err, accounts.ErrBudgetExhausted)
	// A stored next link counts against the same budget.
	_, err = svc.TransactionsPage(ctx, "/v1/accounts/"+acc1+"/transactions?offset=3", psuAbsent()...)
	require.ErrorIs(t, err, accounts.ErrBudgetExhausted)
	_, err = svc.Balances(ctx, acc2, psuAbsent()...)
	require.NoError(t, err)
	assert.Equal(t, int64(4), bank.txs.Load())
	assert.Equal(t, int64(4), bank.balances.Load())

	// A call refused before sending (an invalid query) takes nothing.
	_, err = svc.Transactions(ctx, acc2, &accounts.TransactionQuery{Limit: -1}, psuAbsent()...)
	require.ErrorIs(t, err, accounts.ErrInvalidQuery)
	a, err = svc.Remaining(ctx, acc2, accounts.EndpointTransactions, psuAbsent()...)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Remaining)

	require.NoError(t, svc.Budget().Reset(ctx, accounts.BudgetKey{}), "resetting an unknown key is fine")
}

func TestBudgetStorePersistsAcrossServices(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	dir := filepath.Join(t.TempDir(), "store") // created by NewFileStore with mode 0700
	ctx := t.Context()
	newService := func() *accounts.Service {
		fs, err := sca.NewFileStore(dir)
		require.NoError(t, err)
		// Each Service has its own client and certificate, as after a
		// restart with a renewed certificate of the same TPP.
		return bank.service(t, accounts.WithBudgetStore(accounts.BudgetStoreFromKV(fs, sca.ErrNotFound)))
	}

	first := newService()
	for range 3 {
		_, err := first.Balances(ctx, acc1, psuAbsent()...)
		require.NoError(t, err)
	}

	second := newService()
	a, err := second.Remaining(ctx, acc1, accounts.EndpointBalances, psuAbsent()...)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Remaining, "the counts survived")
	_, err = second.Balances(ctx, acc1, psuAbsent()...)
	require.NoError(t, err)
	_, err = second.Balances(ctx, acc1, psuAbsent()...)
	require.ErrorIs(t, err, accounts.ErrBudgetExhausted)
	_, err = first.Balances(ctx, acc1, psuAbsent()...)
	require.ErrorIs(t, err, accounts.ErrBudgetExhausted, "the first instance sees the second's calls")
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

func TestBudgetConcurrentUse(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	store := accounts.NewMemoryBudgetStore()
	services := []*accounts.Service{
		bank.service(t, accounts.WithBudgetStore(store)),
		bank.service(t, accounts.WithBudgetStore(store)),
	}
	ctx := t.Context()
	const callers = 40
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := services[i%2].Balances(ctx, acc1, psuAbsent()...)
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, accounts.ErrBudgetExhausted):
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

// brokenKV holds one undecodable value.
type brokenKV struct{ puts atomic.Int64 }

func (*brokenKV) Get(context.Context, string) ([]byte, error) { return []byte("{not json"), nil }
func (k *brokenKV) Put(context.Context, string, []byte) error {
	k.puts.Add(1)
	return nil
}
func (*brokenKV) Delete(context.Context, string) error { return nil }

func TestBudgetStoreErrorsStopTheCall(t *testing.T) {
	t.Parallel()
	bank := newCountingBank(t)
	kv := &brokenKV{}
	svc := bank.service(t, accounts.WithBudgetStore(accounts.BudgetStoreFromKV(kv, sca.ErrNotFound)))
	_, err := svc.Balances(t.Context(), acc1, psuAbsent()...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "budget store")
	assert.Equal(t, int64(0), bank.balances.Load(), "not sent when the budget cannot be read")
	assert.Equal(t, int64(0), kv.puts.Load())

	err = accounts.BudgetStoreFromKV(nil, nil).Update(t.Context(), "k", func(c []time.Time) ([]time.Time, error) { return c, nil })
	assert.Error(t, err)
}

func TestMemoryBudgetStore(t *testing.T) {
	t.Parallel()
	var s accounts.MemoryBudgetStore // the zero value is ready
	ctx := t.Context()
	now := time.Now()
	require.NoError(t, s.Update(ctx, "k", func(c []time.Time) ([]time.Time, error) {
		assert.Empty(t, c)
		return append(c, now), nil
	}))
	require.NoError(t, s.Update(ctx, "k", func(c []time.Time) ([]time.Time, error) {
		assert.Equal(t, []time.Time{now}, c)
		return nil, nil
	}))
	boom := errors.New("boom")
	assert.ErrorIs(t, s.Update(ctx, "k", func(c []time.Time) ([]time.Time, error) {
		assert.Empty(t, c, "an empty result deleted the key")
		return []time.Time{now}, boom
	}), boom)
	require.NoError(t, s.Update(ctx, "k", func(c []time.Time) ([]time.Time, error) {
		assert.Empty(t, c, "nothing stored on error")
		return c, nil
	}))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, s.Update(cancelled, "k", func(c []time.Time) ([]time.Time, error) { return c, nil }), context.Canceled)
}

func TestBudgetKeyHidesItsParts(t *testing.T) {
	t.Parallel()
	k := accounts.BudgetKey{TPP: "PSDNO-FSA-TEST1", Bank: "https://psd2.bank.example/api", AccountID: acc1, Endpoint: accounts.EndpointBalances}
	s := k.String()
	assert.True(t, strings.HasPrefix(s, "accounts/budget/"))
	assert.Len(t, s, len("accounts/budget/")+64)
	assert.NotContains(t, s, acc1)
	other := k
	other.Endpoint = accounts.EndpointTransactions
	assert.NotEqual(t, s, other.String())
	// Parts are length-prefixed: moving text between parts changes the key.
	a := accounts.BudgetKey{TPP: "ab", Bank: "c"}
	b := accounts.BudgetKey{TPP: "a", Bank: "bc"}
	assert.NotEqual(t, a.String(), b.String())
}
