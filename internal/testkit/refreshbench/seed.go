package refreshbench

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// Limits are emulator caps (emulator.WithLimits) that hold 100,000
// accounts (Seed's, 10 transactions each, beside the server's default
// ones) and their customers, sessions and transactions.
var Limits = emulator.Limits{Customers: 200_000, Accounts: 200_000, Agreements: 200_000,
	Transactions: 3_000_000, Sessions: 200_000}

// SessionOf is the SDK session of a seeded customer's consent.
func SessionOf(cu emulator.SeededCustomer) *sca.Session {
	return &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID,
		Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
}

// Remembered is the session of a seeded customer with its seeded account
// ids, as Remember would have made it.
func Remembered(t testing.TB, cu emulator.SeededCustomer) *sca.Session {
	t.Helper()
	var ids, cards []string
	for _, a := range cu.Accounts {
		ids = append(ids, a.ID)
	}
	for _, c := range cu.CardAccounts {
		cards = append(cards, c.ID)
	}
	s, err := SessionOf(cu).WithAccounts(ids, cards)
	require.NoError(t, err)
	return s
}

// AccountJobs are the jobs of the accounts (not the card accounts) s
// remembers, made as refresh.JobsFrom makes them.
func AccountJobs(t testing.TB, s *sca.Session) []refresh.Job {
	t.Helper()
	var jobs []refresh.Job
	for j := range refresh.JobsFrom(func(yield func(*sca.Session, error) bool) { yield(s, nil) },
		func(j *refresh.Job) bool { return !j.Card() }, func(err error) { t.Fatal(err) }) {
		jobs = append(jobs, j)
	}
	return jobs
}

// Seed is customers private customers with accts accounts each
// (booked transactions on each of the days before at, and 2 pending),
// cards card accounts each, and a consent given at at.
func Seed(customers, accts, cards, booked int, at time.Time) emulator.SeedData {
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
