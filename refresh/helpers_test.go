package refresh_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testtpp"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
)

// bank is an emulator with seeded customers and an SDK client on it, all
// on one settable clock.
type bank struct {
	srv    *emulator.Server
	clock  *testtpp.Clock
	creds  *signing.Credentials
	client *client.Client
	svc    *accounts.Service
	seeded emulator.SeedResult
}

// fastRetries keeps the client's retries of 5xx short in tests.
var fastRetries = client.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRetryAfter: time.Second}

// newBank starts an emulator on a clock at now, seeds data for a new TPP
// and returns a client for that TPP (with opts after the defaults).
func newBank(t testing.TB, data emulator.SeedData, opts ...client.Option) *bank {
	t.Helper()
	clock := testtpp.NewClock(time.Now())
	srv := emulator.NewServer(emulator.WithTPPKey(testtpp.Key(t)), emulator.WithClock(clock.Now),
		emulator.WithLimits(emulator.Limits{Customers: 100_000, Accounts: 100_000, Agreements: 100_000,
			Transactions: 2_000_000, Sessions: 100_000}))
	t.Cleanup(srv.Close)
	creds, err := srv.NewTPP("Refresh test")
	require.NoError(t, err)
	seeded, err := srv.Seed(t.Context(), creds.Certificate, data)
	require.NoError(t, err)
	opts = append([]client.Option{client.WithHTTPClient(srv.Client()), client.WithClock(clock.Now),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithRetryPolicy(fastRetries)}, opts...)
	c, err := client.New(srv.URL, creds, opts...)
	require.NoError(t, err)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	return &bank{srv: srv, clock: clock, creds: creds, client: c, svc: svc, seeded: seeded}
}

// refresher returns a Refresher on b's service and clock.
func (b *bank) refresher(t testing.TB, opts ...refresh.Option) *refresh.Refresher {
	t.Helper()
	r, err := refresh.New(b.svc, opts...)
	require.NoError(t, err)
	return r
}

// sessionOf is the SDK session of a seeded customer's consent.
func sessionOf(cu emulator.SeededCustomer) *sca.Session {
	return &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID,
		Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
}

// remembered is the session of a seeded customer with its seeded account
// ids, as Remember would have made it.
func remembered(t testing.TB, cu emulator.SeededCustomer) *sca.Session {
	t.Helper()
	var ids, cards []string
	for _, a := range cu.Accounts {
		ids = append(ids, a.ID)
	}
	for _, c := range cu.CardAccounts {
		cards = append(cards, c.ID)
	}
	s, err := sessionOf(cu).WithAccounts(ids, cards)
	require.NoError(t, err)
	return s
}

// seed is customers private customers with accounts accounts each
// (booked transactions on each of the days before at, and 2 pending),
// cards card accounts each, and a consent given at at.
func seed(customers, accts, cards, booked int, at time.Time) emulator.SeedData {
	txs := make([]emulator.SeedTransaction, 0, booked+2)
	for i := range booked {
		txs = append(txs, emulator.SeedTransaction{BookingDate: at.AddDate(0, 0, -1-i), Amount: "-" + strconv.Itoa(10+i) + ".00",
			CounterpartyName: "Eksempel Kraft AS", Remittance: "Faktura " + strconv.Itoa(i)})
	}
	txs = append(txs, emulator.SeedTransaction{Pending: true, Amount: "-99.00", BookingDate: at},
		emulator.SeedTransaction{Pending: true, Amount: "-15.00", BookingDate: at})
	cardTxs := []emulator.SeedCardTransaction{{TransactionDate: at.AddDate(0, 0, -2), Amount: "-120.00", Details: "Kiwi"},
		{TransactionDate: at.AddDate(0, 0, -1), Amount: "-45.00", Details: "Narvesen"},
		{Pending: true, TransactionDate: at, Amount: "-30.00", Details: "Rema"}}
	consent := &emulator.SeedConsent{At: at}
	out := make([]emulator.SeedCustomer, customers)
	for i := range out {
		a := make([]emulator.SeedAccount, accts)
		for j := range a {
			a[j] = emulator.SeedAccount{Balance: "1000.00", Transactions: txs}
		}
		c := make([]emulator.SeedCardAccount, cards)
		for j := range c {
			c[j] = emulator.SeedCardAccount{Balance: "-165.00", CreditLimit: "20000.00", Transactions: cardTxs}
		}
		out[i] = emulator.SeedCustomer{Accounts: a, CardAccounts: c, Consent: consent}
	}
	return emulator.SeedData{Customers: out}
}

// jobsOf yields a job per account of the seeded customers (cards too).
func jobsOf(t testing.TB, b *bank) []refresh.Job {
	t.Helper()
	var jobs []refresh.Job
	for _, cu := range b.seeded.Customers {
		s := remembered(t, cu)
		for _, id := range s.AccountIDs {
			jobs = append(jobs, refresh.Job{Session: s, AccountID: id})
		}
		for _, id := range s.CardAccountIDs {
			jobs = append(jobs, refresh.Job{Session: s, AccountID: id, Card: true})
		}
	}
	return jobs
}

// collect runs jobs and returns the results (failing on a run error).
func collect(t testing.TB, r *refresh.Refresher, jobs []refresh.Job) []refresh.Result {
	t.Helper()
	var out []refresh.Result
	for res, err := range r.Run(t.Context(), slices.Values(jobs)) {
		require.NoError(t, err)
		out = append(out, res)
	}
	require.Len(t, out, len(jobs))
	return out
}
