package reconcile_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// Example matches a KID payment to the credit booked on the merchant's
// watched account, and finds another payment stalled.
func Example() {
	ctx := context.Background()
	now := time.Date(2026, 4, 1, 9, 0, 0, 0, date.Oslo()) // the Wednesday before Easter
	clock := func() time.Time { return now }
	h := events.Typed(func(_ context.Context, ev events.Event) error {
		switch ev := ev.(type) {
		case events.PaymentSettled:
			fmt.Printf("event: %s settled, %s by %s\n", ev.Payment, ev.Amount, ev.MatchedBy)
		case events.PaymentSettlementStalled:
			fmt.Printf("event: %s stalled, due by %s\n", ev.Payment, ev.Deadline)
		}
		return nil
	})
	st := store.NewMemoryStore() // pgstore or a FileStore, shared by the replicas
	em, err := events.NewEmitter(h, events.WithStore(st), events.WithClock(clock))
	if err != nil {
		log.Fatal(err)
	}
	r, err := reconcile.New(st, reconcile.WithClock(clock), reconcile.WithEmitter(em))
	if err != nil {
		log.Fatal(err)
	}
	// The merchant's account, as txsync's Link keyed it.
	const merchant txsync.AccountKey = "amerchantaccount1"
	if err := r.Watch(ctx, merchant, accounts.Account{IBAN: "NO9386011117947"}); err != nil {
		log.Fatal(err)
	}
	for _, p := range []reconcile.Payment{
		{RequestID: "invoice-1001", KID: "0000010017"},
		{RequestID: "invoice-1002", KID: "0000010025"},
	} {
		p.Created, p.Product, p.Amount, p.CreditorBBAN = now, payments.ProductNorwegianDomestic, money.MustParse("1250.00", "NOK"), "86011117947"
		p.Status, p.StatusAt = payments.StatusACTC, now
		s, err := r.Track(ctx, p)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s, window ends %s\n", s.Payment, s.Settlement, s.Deadline)
	}
	// After Easter, the account's read brings one credit.
	now = time.Date(2026, 4, 8, 7, 0, 0, 0, date.Oslo())
	credit := txsync.Entry{Key: "amerchantaccount1-7", Transaction: &accounts.Transaction{
		Status: accounts.BookingBooked, TransactionID: "T1", BookingDate: date.Date{Year: 2026, Month: 4, Day: 7},
		TransactionAmount: money.MustParse("1250.00", "NOK"), RemittanceInformationUnstructured: "0000010017"}}
	round, err := r.Apply(ctx, &txsync.Delta{Account: merchant, Added: []txsync.Entry{credit}})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range round.Settled {
		fmt.Printf("%s: %s on %s (%s)\n", s.Payment, s.Settlement, s.BookingDate, s.Booking)
	}
	for _, s := range round.Stalled {
		fmt.Printf("%s: %s\n", s.Payment, s.Settlement)
	}
	// Output:
	// invoice-1001: awaiting, window ends 2026-04-07
	// invoice-1002: awaiting, window ends 2026-04-07
	// event: invoice-1001 settled, 1250.00 NOK by kid
	// event: invoice-1002 stalled, due by 2026-04-07
	// invoice-1001: settled on 2026-04-07 (amerchantaccount1-7)
	// invoice-1002: stalled
}
