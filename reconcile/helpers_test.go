package reconcile_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// The merchant's watched account: its key and numbers.
const acct txsync.AccountKey = "amerchantaccount1"

const (
	merchantIBAN = "NO9386011117947"
	merchantBBAN = "86011117947"
)

// oslo is a time on a bank date, at 10:00 in Oslo.
func oslo(day string) time.Time {
	d, err := date.Parse(day)
	if err != nil {
		panic(err)
	}
	return d.Time(date.Oslo()).Add(10 * time.Hour)
}

func day(s string) date.Date {
	d, err := date.Parse(s)
	if err != nil {
		panic(err)
	}
	return d
}

func nok(s string) money.Amount { return money.MustParse(s, "NOK") }

// collector keeps the events a handler got.
type collector struct {
	mu  sync.Mutex
	evs []events.Event
	ids []string
}

func (c *collector) handler() events.Handler {
	return func(_ context.Context, e events.Envelope) error {
		ev, err := e.Event()
		if err != nil {
			return err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.evs = append(c.evs, ev)
		c.ids = append(c.ids, e.ID)
		return nil
	}
}

func (c *collector) events() []events.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]events.Event(nil), c.evs...)
}

// fixture is a reconciler on a memory store, watching the merchant's
// account, with a frozen clock and an event collector.
type fixture struct {
	t   *testing.T
	st  store.Store
	clk *testtpp.Clock
	r   *reconcile.Reconciler
	col *collector
	n   int
}

func newFixture(t *testing.T, start string) *fixture {
	t.Helper()
	f := &fixture{t: t, st: store.NewMemoryStore(), clk: testtpp.NewClock(oslo(start)), col: &collector{}}
	f.r = f.reconciler()
	require.NoError(t, f.r.Watch(t.Context(), acct, accounts.Account{IBAN: merchantIBAN, BBAN: merchantBBAN}))
	return f
}

// reconciler returns another Reconciler on the fixture's store, with an
// Emitter remembering what it published in the same store.
func (f *fixture) reconciler() *reconcile.Reconciler {
	em, err := events.NewEmitter(f.col.handler(), events.WithStore(f.st), events.WithClock(f.clk.Now))
	require.NoError(f.t, err)
	r, err := reconcile.New(f.st, reconcile.WithClock(f.clk.Now), reconcile.WithEmitter(em))
	require.NoError(f.t, err)
	return r
}

// at sets the clock to 10:00 of day.
func (f *fixture) at(d string) { f.clk.Set(oslo(d)) }

// pay tracks a payment to the merchant made now, accepted now.
func (f *fixture) pay(id string, amount money.Amount, kid, text string) reconcile.State {
	f.t.Helper()
	f.clk.Add(time.Second) // initiation order
	st, err := f.r.Track(f.t.Context(), reconcile.Payment{RequestID: id, Created: f.clk.Now(),
		Product: payments.ProductNorwegianDomestic, Amount: amount, CreditorBBAN: merchantBBAN, KID: kid, Remittance: text,
		Status: payments.StatusACTC, StatusAt: f.clk.Now()})
	require.NoError(f.t, err)
	return st
}

// credit is a booked entry of the merchant's account.
func credit(key, booked string, amount money.Amount, text string) txsync.Entry {
	return txsync.Entry{Key: txsync.Key(string(acct) + "-" + key), Transaction: &accounts.Transaction{
		Status: accounts.BookingBooked, TransactionID: "id-" + key, BookingDate: day(booked), ValueDate: day(booked),
		TransactionAmount: amount, DebtorName: "Kari Nordmann", DebtorAccount: &accounts.AccountReference{BBAN: "12345678903"},
		RemittanceInformationUnstructured: text}}
}

// apply applies a delta of the merchant's account with entries added.
func (f *fixture) apply(added ...txsync.Entry) *reconcile.Round {
	f.t.Helper()
	f.n++
	r, err := f.r.Apply(f.t.Context(), &txsync.Delta{Account: acct, Added: added})
	require.NoError(f.t, err)
	return r
}

func (f *fixture) state(id string) reconcile.State {
	f.t.Helper()
	st, err := f.r.Payment(f.t.Context(), id)
	require.NoError(f.t, err)
	return st
}

func keys(sts []reconcile.State) []string {
	out := make([]string, len(sts))
	for i, s := range sts {
		out[i] = s.Payment + "=" + string(s.Booking)
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

func newClockAt(d string) *testtpp.Clock { return testtpp.NewClock(oslo(d)) }

// payment is a KID payment of 100.00 NOK to the merchant, accepted.
func payment(id string, created time.Time) reconcile.Payment {
	return reconcile.Payment{RequestID: id, Created: created, Product: payments.ProductNorwegianDomestic, Amount: nok("100.00"),
		CreditorBBAN: merchantBBAN, KID: "5550001112", Status: payments.StatusACTC, StatusAt: created}
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
