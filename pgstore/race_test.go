package pgstore_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
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
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// counting serves the emulator and counts, per account, the balances
// requests it received and the 429 answers it gave.
type counting struct {
	mu       sync.Mutex
	received map[string]int
	refused  atomic.Int64 // 429 ACCESS_EXCEEDED answers
	next     http.Handler
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/api/v1/accounts/")
	id, isBalances := strings.CutSuffix(rest, "/balances")
	if !ok || !isBalances {
		c.next.ServeHTTP(w, r)
		return
	}
	c.mu.Lock()
	c.received[id]++
	c.mu.Unlock()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	c.next.ServeHTTP(sw, r)
	if sw.status == http.StatusTooManyRequests {
		c.refused.Add(1)
	}
}

// raceResult is what a budget race measured.
type raceResult struct {
	accounts   int
	received   int   // balances requests the bank received
	overspent  int   // requests beyond 4 on an account, summed
	bank429    int64 // the bank's 429 answers
	sdkRefused int64 // calls the SDK refused locally (budget spent)
	elapsed    time.Duration
}

// budgetRace seeds nAccounts accounts whose PSUs gave consent two hours
// ago (so calls without the PSU count against 4 a day), and lets nClients
// clients, each on a Store of its own over one schema (replicas), call
// Balances without the PSU on every account, all in the same order, at
// once. The budget lives in the shared store (client.WithStore).
func budgetRace(tb testing.TB, nClients, nAccounts int) raceResult {
	tb.Helper()
	ctx := tb.Context()
	emu := emulator.NewServer()
	tb.Cleanup(emu.Close)
	creds, err := emu.NewTPP("Budget race")
	require.NoError(tb, err)
	customers := make([]emulator.SeedCustomer, nAccounts)
	for i := range customers {
		customers[i] = emulator.SeedCustomer{Accounts: []emulator.SeedAccount{{Balance: "100.00"}},
			Consent: &emulator.SeedConsent{At: time.Now().Add(-2 * time.Hour)}}
	}
	seeded, err := emu.Control().Seed(ctx, creds.Certificate, emulator.SeedData{Customers: customers})
	require.NoError(tb, err)
	type target struct {
		account string
		ro      client.RequestOption
	}
	targets := make([]target, nAccounts)
	for i, cu := range seeded.Customers {
		s := &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID,
			Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
		targets[i] = target{account: cu.Accounts[0].ID, ro: s.RequestOptions(nil)} // nil: the PSU is not present
	}

	bank := &counting{received: map[string]int{}, next: emu.Handler()}
	front := httptest.NewServer(bank)
	tb.Cleanup(front.Close)
	schema := pgtest.Schema(tb)
	services := make([]*accounts.Service, nClients)
	for i := range services {
		st := newStore(tb, schema, 2)
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
		c, err := client.New(front.URL+"/api", creds, client.WithHTTPClient(hc), client.WithStore(st),
			client.WithDefaults(client.WithRedirectURI("https://tpp.example/cb")))
		require.NoError(tb, err)
		if services[i], err = accounts.New(c); err != nil {
			require.NoError(tb, err)
		}
	}

	var (
		res   raceResult
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	res.accounts = nAccounts
	var refused atomic.Int64
	for _, svc := range services {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for _, tg := range targets {
				_, err := svc.Balances(ctx, tg.account, tg.ro)
				switch {
				case err == nil:
				case errors.Is(err, budget.ErrExhausted):
					refused.Add(1)
				case errors.Is(err, client.ErrAccessExceeded):
					// the bank's 429: counted by the bank's side
				default:
					tb.Errorf("Balances: %v", err)
					return
				}
			}
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	res.elapsed = time.Since(began)
	res.sdkRefused = refused.Load()
	res.bank429 = bank.refused.Load()
	bank.mu.Lock()
	defer bank.mu.Unlock()
	for _, n := range bank.received {
		res.received += n
		res.overspent += max(n-budget.DefaultLimit, 0)
	}
	return res
}

// Replicas sharing the budget in PostgreSQL never over-spend it: 16
// clients race for the 4 calls of each of 100 accounts, and the bank
// receives exactly 4 per account and answers no 429.
func TestBudgetRaceAgainstTheBank(t *testing.T) {
	t.Parallel()
	const clients, accts = 16, 100
	r := budgetRace(t, clients, accts)
	assert.Zero(t, r.overspent, "requests beyond the budget, as counted by the bank")
	assert.Zero(t, r.bank429, "the bank's 429 answers")
	assert.Equal(t, accts*budget.DefaultLimit, r.received, "every allowed call was made")
	assert.Equal(t, int64(accts*(clients-budget.DefaultLimit)), r.sdkRefused, "the rest refused locally")
}

// BenchmarkBudgetRace: 16 clients on 1,000 accounts. It reports the
// calls the bank received beyond the budget (0 expected), its 429
// answers, and the calls per second.
func BenchmarkBudgetRace(b *testing.B) {
	for range b.N {
		r := budgetRace(b, 16, 1000)
		b.ReportMetric(float64(r.overspent), "overspent-calls")
		b.ReportMetric(float64(r.bank429), "bank-429s")
		b.ReportMetric(float64(r.received), "bank-calls")
		b.ReportMetric(float64(r.sdkRefused), "refused-locally")
		b.ReportMetric(float64(r.received+int(r.sdkRefused))/r.elapsed.Seconds(), "attempts/s")
	}
}
