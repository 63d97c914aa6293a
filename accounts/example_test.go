package accounts_test

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// ExampleService_TransactionsIter reads an account's whole booked history
// from the emulator, ten entries per page: the bank-offered consent, the
// PSU's SCA (done in-process here; a real PSU follows the scaRedirect in
// a browser), the callback's psu-id, and a loop over the iterator, which
// follows the pages' next links as the loop goes.
func ExampleService_TransactionsIter() {
	ctx := context.Background()
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example AISP")
	if err != nil {
		panic(err)
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()))
	if err != nil {
		panic(err)
	}
	svc, err := accounts.New(c)
	if err != nil {
		panic(err)
	}

	const redirectURI = "https://tpp.example/callback"
	sessionID := uuid.NewString()
	consent, err := svc.StartConsent(ctx, client.WithRedirectURI(redirectURI), client.WithTPPSessionID(sessionID))
	if err != nil {
		panic(err)
	}
	callback, err := bank.Control().Authorize(ctx, consent.SCARedirect(), emulator.CustomerKari)
	if err != nil {
		panic(err)
	}
	session := []client.RequestOption{
		client.WithPSU(client.PSU{ID: callback.Query().Get("psu-id"), IPAddress: "192.0.2.10"}),
		client.WithTPPSessionID(callback.Query().Get("tpp-session-id")),
		client.WithRedirectURI(redirectURI),
	}

	accs, err := svc.List(ctx, nil, session...)
	if err != nil {
		panic(err)
	}
	q := &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked, Limit: 10}
	n, sum := 0, decimal.Zero
	for tr, err := range svc.TransactionsIter(ctx, accs[0].ResourceID, q, session...) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		if n == 0 {
			fmt.Println("newest:", tr.BookingDate.IsZero(), tr.TransactionAmount, tr.RemittanceInformationUnstructured)
		}
		n++
		sum = sum.Add(tr.TransactionAmount.Value)
	}
	fmt.Printf("%s: %d booked entries, sum %s\n", accs[0].Name, n, money.Amount{Value: sum, Currency: "NOK"})
	// Output:
	// newest: false -389.40 NOK MATBUTIKKEN STORGATA 12 TESTBY
	// Brukskonto: 30 booked entries, sum 109270.50 NOK
}
