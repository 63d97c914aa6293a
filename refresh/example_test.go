package refresh_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// A background refresh of every account of the stored sessions, with a
// cursor per account so that each booked transaction is reported once,
// against the embedded bank sandbox.
func Example() {
	ctx := context.Background()
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Refresh example")
	if err != nil {
		fmt.Println(err)
		return
	}
	// Two PSUs with two accounts each (3 booked transactions in the last
	// days, 1 pending), who completed the SCA of a consent just now.
	now := time.Now()
	history := []emulator.SeedTransaction{
		{BookingDate: now.AddDate(0, 0, -1), Amount: "-389.40", CounterpartyName: "Eksempel Kraft AS"},
		{BookingDate: now.AddDate(0, 0, -2), Amount: "32500.00", CounterpartyName: "Arbeidsgiver AS"},
		{BookingDate: now.AddDate(0, 0, -3), Amount: "-99.90", CounterpartyName: "Strømmetjeneste"},
		{Pending: true, Amount: "-45.00", CounterpartyName: "Kiosk"},
	}
	psu := emulator.SeedCustomer{Consent: &emulator.SeedConsent{},
		Accounts: []emulator.SeedAccount{{Balance: "1200.00", Transactions: history}, {Balance: "50.00", Transactions: history}}}
	seeded, err := bank.Control().Seed(ctx, creds.Certificate, emulator.SeedData{Customers: []emulator.SeedCustomer{psu, psu}})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()),
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	if err != nil {
		fmt.Println(err)
		return
	}
	ais, err := accounts.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}

	// Right after each SCA (here: the seeded ones), remember the
	// session's accounts and store the session.
	sessions := store.NewMemoryStore()
	for i, cu := range seeded.Customers {
		s := &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID,
			Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
		if s, err = refresh.Remember(ctx, ais, s, nil); err != nil {
			fmt.Println(err)
			return
		}
		if err := sca.SaveSession(ctx, sessions, fmt.Sprintf("user-%d", i), s); err != nil {
			fmt.Println(err)
			return
		}
	}

	r, err := refresh.New(ais)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The TPP keeps each account's cursor (here in a map; in a real TPP
	// next to the account's transactions).
	cursors := map[string]refresh.Cursor{}
	round := func() {
		jobs := refresh.JobsFrom(sca.ListSessions(ctx, sessions), func(j *refresh.Job) bool {
			j.Cursor = cursors[j.AccountID()]
			return true
		}, nil)
		counts := map[refresh.Outcome]int{}
		booked, pending := 0, 0
		for res, err := range r.Run(ctx, jobs) {
			if err != nil {
				fmt.Println(err)
				return
			}
			counts[res.Outcome]++
			booked += len(res.Booked)
			pending += len(res.Pending)
			if res.Outcome == refresh.Done {
				cursors[res.Job.AccountID()] = res.Cursor
			}
		}
		fmt.Printf("done %d, waiting %d; %d booked read, %d pending\n",
			counts[refresh.Done], counts[refresh.BudgetExhausted], booked, pending)
	}
	round()
	// At once again: every account was refreshed less than 6 hours ago,
	// so no call is made.
	round()
	// Output:
	// done 4, waiting 0; 12 booked read, 4 pending
	// done 0, waiting 4; 0 booked read, 0 pending
}
