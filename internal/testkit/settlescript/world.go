// Package settlescript is the scripted world of package reconcile's
// tests, benchmark and example (examples/reconcile): a merchant's account
// at a bank that books the credits of the payments a TPP initiated to it
// (on time, late, with a fee deducted, returned, or never), credits from
// elsewhere (some of the payments' amounts), twins, and a re-consent of
// the account halfway. The account is read through a real txsync.Syncer,
// whose deltas the reconciler applies, and the script keeps the truth (which
// booking is whose) so that the reconciler can be scored against it.
//
// It plays the bank in memory, not over the emulator, which another
// piece of work is restructuring: see the package reconcile docs for what
// the emulator is to play.
package settlescript

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// Clock is a settable clock shared by the world, the sync and the
// reconciler.
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

// Set sets the clock.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Merchant's account, as the bank lists it.
const (
	MerchantIBAN = "NO9386011117947"
	MerchantBBAN = "86011117947"
	// Owner is the TPP's id of the merchant (txsync.Syncer.Link).
	Owner = "merchant-1"
)

// At returns the time hour:00 in Oslo on day.
func At(day date.Date, hour int) time.Time {
	return day.Time(date.Oslo()).Add(time.Duration(hour) * time.Hour)
}

// World is the bank's list of the merchant's account, the TPP's sync of
// it, and the clock.
type World struct {
	Clock  *Clock
	Store  store.Store
	Syncer *txsync.Syncer
	// Key is the account's key, Account the account as listed under the
	// current consent.
	Key     txsync.AccountKey
	Account accounts.Account

	entries []bankEntry
	seq     int
	// byKey is the transaction id of every entry the sync reported,
	// by its key.
	byKey map[txsync.Key]string
}

// NewWorld starts the world on day start at 08:00: an empty account,
// linked to a sync on st.
func NewWorld(ctx context.Context, st store.Store, start date.Date) (*World, error) {
	w := &World{Clock: &Clock{now: At(start, 8)}, Store: st, byKey: map[txsync.Key]string{}}
	sy, err := txsync.New(st, txsync.WithClock(w.Clock.Now))
	if err != nil {
		return nil, err
	}
	w.Syncer = sy
	if err := w.Reconsent(ctx, "enc!!merchant-consent-1"); err != nil {
		return nil, err
	}
	return w, nil
}

// Reconsent lists the account under a new resource id, as a new consent
// does, and links it (txsync.Syncer.Link): the key carries over.
func (w *World) Reconsent(ctx context.Context, resourceID string) error {
	w.Account = accounts.Account{ResourceID: resourceID, IBAN: MerchantIBAN, BBAN: MerchantBBAN, Currency: "NOK", Name: "Eksempel Handel AS"}
	linked, err := w.Syncer.Link(ctx, Owner, []accounts.Account{w.Account}, nil)
	if err != nil {
		return err
	}
	if w.Key != "" && linked.Accounts[0].Key != w.Key {
		return fmt.Errorf("settlescript: the re-consent gave the account a new key")
	}
	w.Key = linked.Accounts[0].Key
	return nil
}

// Entry is what the bank books: a credit (positive) or debit of the
// merchant's account.
type Entry struct {
	Day    date.Date
	Amount money.Amount
	// Debtor is the payer's name; Text the remittance text; EndToEndID
	// the end-to-end id the bank passes on.
	Debtor, Text, EndToEndID string
	// Pending lists it as pending until Day, booked from then on.
	Pending bool
}

// Book adds e to the bank's list, and returns its transaction id.
func (w *World) Book(e Entry) string {
	w.seq++
	id := "T" + strconv.Itoa(100000+w.seq)
	t := accounts.Transaction{Status: accounts.BookingBooked, TransactionID: id, BookingDate: e.Day, ValueDate: e.Day,
		TransactionAmount: e.Amount, RemittanceInformationUnstructured: e.Text,
		RemittanceInformationUnstructuredArray: []string{e.Text}, EndToEndID: e.EndToEndID,
		CreditorAccount: &accounts.AccountReference{IBAN: MerchantIBAN, BBAN: MerchantBBAN}, ProprietaryBankTransactionCode: "R_230"}
	if e.Amount.Value.IsPositive() {
		t.DebtorName = e.Debtor
		h := fnv.New32a()
		_, _ = h.Write([]byte(e.Debtor))
		t.DebtorAccount = &accounts.AccountReference{BBAN: "1234" + strconv.Itoa(1000000+int(h.Sum32()%9000000))}
	} else {
		t.CreditorName, t.DebtorName = e.Debtor, ""
		t.ProprietaryBankTransactionCode = "R_203"
	}
	if e.Text == "" {
		t.RemittanceInformationUnstructuredArray = nil
	}
	be := bankEntry{t: t}
	if e.Pending {
		be.pendingFrom = date.Of(e.Day.Time(nil).AddDate(0, 0, -1))
	}
	w.entries = append(w.entries, be)
	return id
}

// Read is one round of the TPP: the account read at the clock's time
// (booked entries dated up to today, from the sync's window on; pending
// entries not yet booked) and applied to the sync.
func (w *World) Read(ctx context.Context) (*txsync.Delta, error) {
	from, err := w.Syncer.From(ctx, w.Key)
	if err != nil {
		return nil, err
	}
	today := date.Of(w.Clock.Now().In(date.Oslo()))
	r := txsync.Read{From: from}
	for _, e := range w.entries {
		t := e.t
		switch {
		case !today.Before(t.BookingDate):
			if !t.BookingDate.Before(from) {
				r.Booked = append(r.Booked, t)
			}
		case !e.pendingFrom.IsZero() && !today.Before(e.pendingFrom):
			t.Status, t.TransactionID, t.BookingDate, t.ValueDate = accounts.BookingPending, "", e.pendingFrom, date.Date{}
			r.Pending = append(r.Pending, t)
		}
	}
	d, err := w.Syncer.Apply(ctx, w.Key, r)
	if err != nil {
		return nil, err
	}
	for _, e := range d.Added {
		w.byKey[e.Key] = e.Transaction.TransactionID
	}
	for _, c := range d.Changed {
		w.byKey[c.Key] = c.Transaction.TransactionID
	}
	return d, nil
}

// bankEntry is an entry of the bank's list: booked on its booking date,
// listed as pending from pendingFrom (when set) until then.
type bankEntry struct {
	t           accounts.Transaction
	pendingFrom date.Date
}

// TransactionID returns the bank's id of the entry the sync reported
// under key, "" for a key it never reported.
func (w *World) TransactionID(key txsync.Key) string { return w.byKey[key] }

// StateBytes returns the size of the reconciler's state of the account.
func (w *World) StateBytes(ctx context.Context) (int, error) {
	b, err := w.Store.Get(ctx, "reconcile/account/"+string(w.Key))
	return len(b), err
}
