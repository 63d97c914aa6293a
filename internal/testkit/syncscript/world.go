// Package syncscript is the scripted month of package txsync's tests,
// benchmark and example (examples/sync): an emulator account whose bank
// changes transaction ids, books pending entries under other ids and
// amounts, drops pending entries, lists twins and, halfway, gives the
// accounts new resource ids under a new consent. The script keeps the
// bank's true list, so a TPP's ledger can be scored against it.
package syncscript

import (
	"context"
	"crypto/x509"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// Days is the length of the month; ReconsentDay the day the PSU gives a
// new consent, before that day's read.
const (
	Days         = 30
	ReconsentDay = 15
)

// RoundEvery is the time between two rounds: a day and a quarter of an
// hour, so that a round's calls never meet the previous day's in the
// without-PSU budget's 24-hour window.
const RoundEvery = 24*time.Hour + 15*time.Minute

// Clock is a settable clock for the emulator and the client.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *Clock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Fact is what a person sees of an entry: a TPP's ledger and the bank's
// list are compared by it.
type Fact struct {
	Pending             bool
	Date                date.Date
	Amount, Party, Text string
}

// String is the entry as the example prints it.
func (f Fact) String() string {
	s := "booked"
	if f.Pending {
		s = "pending"
	}
	return fmt.Sprintf("%-7s %s %10s %-16s %s", s, f.Date, f.Amount, f.Party, f.Text)
}

// FactOf is the fact of an entry as the bank sent it.
func FactOf(t *accounts.Transaction) Fact {
	party := t.CreditorName
	if party == "" {
		party = t.DebtorName
	}
	return Fact{Pending: t.Status == accounts.BookingPending, Date: t.BookingDate,
		Amount: t.TransactionAmount.Text(), Party: party, Text: t.RemittanceInformationUnstructured}
}

// entry is a transaction at the bank as the script made it.
type entry struct {
	ref  string // the emulator's reference
	fact Fact
}

// World is the bank, the TPP's client on it and the script's state.
type World struct {
	Srv   *emulator.Server
	Svc   *accounts.Service
	Clock *Clock
	// Owner is the TPP's id of the PSU.
	Owner string
	// Customer holds the current resource ids; Session the current
	// consent's session.
	Customer emulator.SeededCustomer
	Session  *sca.Session
	// Day is the day of the last round (0: the day of the first consent).
	Day int

	cert  *x509.Certificate
	start time.Time
	bank  [][]*entry // per account: the bank's list
}

// Start starts the emulator with the production platform's known issues
// (the unfiltered pending list), seeds a PSU with two accounts and a card
// account and their history, and gives the TPP a consent at day 0. The
// month's script plays on the accounts.
func Start(ctx context.Context) (*World, error) {
	start := time.Now().UTC().Truncate(time.Hour)
	w := &World{Clock: &Clock{now: start}, Owner: "user-42", start: start}
	w.Srv = emulator.NewServer(emulator.WithClock(w.Clock.Now), emulator.WithKnownIssues(true))
	creds, err := w.Srv.NewTPP("Sync example")
	if err != nil {
		w.Close()
		return nil, err
	}
	w.cert = creds.Certificate
	c, err := client.New(w.Srv.URL, creds, client.WithHTTPClient(w.Srv.Client()), client.WithClock(w.Clock.Now),
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	if err == nil {
		w.Svc, err = accounts.New(c)
	}
	if err != nil {
		w.Close()
		return nil, err
	}
	var hist, quiet []emulator.SeedTransaction
	for i := 1; i <= 10; i++ {
		hist = append(hist, emulator.SeedTransaction{BookingDate: start.AddDate(0, 0, -i), Amount: "-" + strconv.Itoa(200+i) + ".00",
			CounterpartyName: "Coop", Remittance: "Coop d-" + strconv.Itoa(i)})
	}
	hist = append(hist, emulator.SeedTransaction{Pending: true, BookingDate: start, Amount: "-77.00", CounterpartyName: "Shell", Remittance: "Shell d0"})
	quiet = append(quiet, emulator.SeedTransaction{BookingDate: start.AddDate(0, 0, -2), Amount: "500.00", CounterpartyName: "Ola", Remittance: "Tilbake"})
	seeded, err := w.Srv.Control().Seed(ctx, w.cert, emulator.SeedData{Customers: []emulator.SeedCustomer{{
		Accounts: []emulator.SeedAccount{{Balance: "10000.00", Transactions: hist}, {Balance: "500.00", Transactions: quiet}},
		CardAccounts: []emulator.SeedCardAccount{{Balance: "-165.00", Transactions: []emulator.SeedCardTransaction{
			{TransactionDate: start.AddDate(0, 0, -2), Amount: "-120.00", Details: "Kiwi"},
			{TransactionDate: start.AddDate(0, 0, -1), Amount: "-45.00", Details: "Narvesen"},
			{Pending: true, TransactionDate: start, Amount: "-30.00", Details: "Rema"}}}},
		Consent: &emulator.SeedConsent{At: start},
	}}})
	if err != nil {
		w.Close()
		return nil, err
	}
	w.Customer = seeded.Customers[0]
	w.bank = make([][]*entry, len(w.Customer.Accounts))
	// The seeded entries: their references are not known, so the script
	// never changes them (the month's own entries carry every case).
	for i, txs := range [][]emulator.SeedTransaction{hist, quiet} {
		for _, t := range txs {
			w.bank[i] = append(w.bank[i], &entry{fact: factOfSeed(t)})
		}
	}
	return w, w.newSession()
}

// Wait moves the clock on by d.
func (w *World) Wait(d time.Duration) { w.Clock.set(w.Clock.Now().Add(d)) }

// Cert is the TPP's certificate (for the emulator's scenario controls).
func (w *World) Cert() *x509.Certificate { return w.cert }

// Renew takes the customer's ids and session after a re-consent
// (emulator.Controls.Reconsent).
func (w *World) Renew(cu emulator.SeededCustomer) error {
	w.Customer = cu
	return w.newSession()
}

// Close stops the emulator.
func (w *World) Close() { w.Srv.Close() }

func (w *World) newSession() error {
	cu := w.Customer
	s := &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID,
		Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
	ids, cards := cu.SessionAccounts("")
	var err error
	w.Session, err = s.WithAccounts(ids, cards)
	return err
}

// AccountIDs are the current resource ids of the PSU's accounts.
func (w *World) AccountIDs() []string {
	ids, _ := w.Customer.SessionAccounts("")
	return ids
}

// List lists the PSU's accounts under the current consent, as a TPP does
// right after the SCA.
func (w *World) List(ctx context.Context) ([]accounts.Account, error) {
	return w.Svc.List(ctx, nil, w.Session.RequestOptions(nil))
}

// Truth is the bank's list of account i: every entry it holds, booked and
// pending.
func (w *World) Truth(i int) []Fact {
	out := make([]Fact, len(w.bank[i]))
	for j, e := range w.bank[i] {
		out[j] = e.fact
	}
	return out
}

func (w *World) date(day int) date.Date { return date.Of(w.start.AddDate(0, 0, day)) }

func factOfSeed(t emulator.SeedTransaction) Fact {
	return Fact{Pending: t.Pending, Date: date.Of(t.BookingDate), Amount: t.Amount, Party: t.CounterpartyName, Text: t.Remittance}
}
