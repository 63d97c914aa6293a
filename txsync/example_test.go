package txsync_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

func mustDate(s string) date.Date {
	d, err := date.Parse(s)
	if err != nil {
		panic(err)
	}
	return d
}

// Two reads of an account: between them the bank booked a pending card
// purchase under a new id for another amount, gave a booked entry a new
// id, and dropped a reservation. The TPP's ledger, kept by the sync's
// keys, follows without a duplicate.
func Example() {
	ctx := context.Background()
	s, err := txsync.New(store.NewMemoryStore()) // the SDK's shared store in production
	if err != nil {
		fmt.Println(err)
		return
	}
	// Right after the SCA: the consent's accounts, for the TPP's user.
	linked, err := s.Link(ctx, "user-42", []accounts.Account{{ResourceID: "enc!!abc", IBAN: "NO9386011117947"}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	acct := linked.Accounts[0].Key
	ledger := map[txsync.Key]string{}
	show := func(d *txsync.Delta) {
		for _, e := range d.Added {
			ledger[e.Key] = e.Transaction.RemittanceInformationUnstructured
			fmt.Printf("  added   %-8s %s %s\n", e.Transaction.Status, e.Transaction.TransactionAmount, ledger[e.Key])
		}
		for _, c := range d.Changed {
			fmt.Printf("  changed %s: %s %s -> %s %s\n", c.What, c.Previous.Status, c.Previous.Amount,
				c.Transaction.Status, c.Transaction.TransactionAmount.Text())
		}
		for _, r := range d.Removed {
			fmt.Printf("  removed %s (%s)\n", ledger[r.Key], r.Reason)
			delete(ledger, r.Key)
		}
	}
	entry := func(st accounts.BookingStatus, id, date, amount, text string) accounts.Transaction {
		return accounts.Transaction{Status: st, TransactionID: id, BookingDate: mustDate(date),
			TransactionAmount: money.MustParse(amount, "NOK"), CreditorName: text, RemittanceInformationUnstructured: text}
	}

	fmt.Println("read 1:")
	d, err := s.Apply(ctx, acct, txsync.Read{
		Booked:  []accounts.Transaction{entry(accounts.BookingBooked, "1001", "2026-03-09", "-389.40", "Fjordkraft")},
		Pending: []accounts.Transaction{entry(accounts.BookingPending, "", "2026-03-10", "-300.00", "Circle K"), entry(accounts.BookingPending, "", "2026-03-10", "-990.00", "Hotell")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	show(d)

	fmt.Println("read 2:")
	from, _ := s.From(ctx, acct) // the next query's dateFrom
	d, err = s.Apply(ctx, acct, txsync.Read{From: from, Booked: []accounts.Transaction{
		entry(accounts.BookingBooked, "2002", "2026-03-11", "-287.40", "Circle K"),
		entry(accounts.BookingBooked, "1999", "2026-03-09", "-389.40", "Fjordkraft"), // a new id: no change
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	show(d)
	fmt.Println("ledger entries:", len(ledger))
	// Output:
	// read 1:
	//   added   booked   -389.40 NOK Fjordkraft
	//   added   pending  -300.00 NOK Circle K
	//   added   pending  -990.00 NOK Hotell
	// read 2:
	//   changed booked+amount+dates: pending -300.00 -> booked -287.40
	//   removed Hotell (pending vanished)
	// ledger entries: 2
}

// A new consent lists the accounts under new resource ids: Link gives
// each the key it had, so its state and entry keys carry over, and
// reports the account the new consent left out.
func ExampleSyncer_Link() {
	ctx := context.Background()
	s, err := txsync.New(store.NewMemoryStore())
	if err != nil {
		fmt.Println(err)
		return
	}
	first, err := s.Link(ctx, "user-42", []accounts.Account{
		{ResourceID: "enc!!old1", IBAN: "NO9386011117947"},
		{ResourceID: "enc!!old2", BBAN: "12345678903"},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	again, err := s.Link(ctx, "user-42", []accounts.Account{{ResourceID: "enc!!new1", IBAN: "NO93 8601 1117 947"}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("same key:", again.Accounts[0].Key == first.Accounts[0].Key, "new:", again.Accounts[0].New)
	fmt.Println("no longer listed:", len(again.Gone), again.Gone[0] == first.Accounts[1].Key)
	key, _ := s.KeyOf(ctx, "enc!!new1")
	fmt.Println("resource id maps to it:", key == first.Accounts[0].Key)
	// Output:
	// same key: true new: false
	// no longer listed: 1 true
	// resource id maps to it: true
}

// The first read of an account asks for as many days as the TPP wants
// shown (Plaid's days_requested); later reads ask for the overlap window.
// An entry booked in the future is reported with an anomaly, and does not
// move the window.
func ExampleWithFirstReadDays() {
	ctx := context.Background()
	// The SDK's clock (time.Now in production), frozen for the example.
	now := func() time.Time { return time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC) }
	s, err := txsync.New(store.NewMemoryStore(), txsync.WithFirstReadDays(30), txsync.WithClock(now))
	if err != nil {
		fmt.Println(err)
		return
	}
	linked, err := s.Link(ctx, "user-42", []accounts.Account{{ResourceID: "enc!!abc", IBAN: "NO9386011117947"}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	acct := linked.Accounts[0].Key
	from, _ := s.From(ctx, acct) // what Sync sends as dateFrom
	fmt.Println("first read from:", from)

	entry := func(id, date, amount string) accounts.Transaction {
		return accounts.Transaction{Status: accounts.BookingBooked, TransactionID: id, BookingDate: mustDate(date),
			TransactionAmount: money.MustParse(amount, "NOK"), CreditorName: "Butikk"}
	}
	d, err := s.Apply(ctx, acct, txsync.Read{From: from, Booked: []accounts.Transaction{
		entry("1", "2026-02-20", "-120.00"), entry("2", "2026-03-09", "-49.00"), entry("3", "2027-03-09", "-10.00"),
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("added:", len(d.Added))
	for _, a := range d.Anomalies {
		fmt.Println("anomaly:", a.Kind, a.Date)
	}
	from, _ = s.From(ctx, acct)
	fmt.Println("next read from:", from)
	// Output:
	// first read from: 2026-02-08
	// added: 3
	// anomaly: booked in the future 2027-03-09
	// next read from: 2026-03-06
}
