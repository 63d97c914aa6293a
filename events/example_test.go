package events_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/tppkit/psd2/events"
)

// Example delivers lifecycle events to a handler in one process.
func Example() {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	h := events.Typed(func(_ context.Context, ev events.Event) error {
		switch ev := ev.(type) {
		case events.ConsentRenewalDue:
			fmt.Printf("renew %s: %d days left\n", ev.Consent, ev.DaysLeft)
		case events.PaymentStatusChanged:
			fmt.Printf("payment %s: %s -> %s\n", ev.Payment, ev.From, ev.To)
		}
		return nil
	})
	em, err := events.NewEmitter(h, events.WithRenewalDays(7, 1), events.WithClock(func() time.Time { return now }))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	// A daily job checks every live consent by the TPP's own reference.
	_ = em.Consent(ctx, "customer-42/consent-1", now.Add(5*24*time.Hour))
	_ = em.Consent(ctx, "customer-42/consent-1", now.Add(5*24*time.Hour)) // once per threshold
	_ = em.PaymentStatus(ctx, "9b1f6c1e-2a4d-4e7b-8c3a-5f0d2e6b9a71", "ACTC", "ACSC")
	// Output:
	// renew customer-42/consent-1: 5 days left
	// payment 9b1f6c1e-2a4d-4e7b-8c3a-5f0d2e6b9a71: ACTC -> ACSC
}
