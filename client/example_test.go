package client_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// A client for one bank, with the per-call options every call needs set
// once. A call that lacks a header the interface requires fails before
// anything is sent, naming the option that sets it.
func ExampleNew() {
	bank := emulator.NewServer() // the in-process bank; use the bank's base URL in production
	defer bank.Close()
	creds, err := bank.NewTPP("Example TPP") // in production: signing.LoadPEM or signing.LoadPKCS12
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.New(bank.URL, creds,
		client.WithHTTPClient(bank.Client()),
		client.WithDefaults(
			client.WithRedirectURI("https://tpp.example/callback"),
			client.WithBrandLoggingInformation("Example TPP"),
		))
	if err != nil {
		fmt.Println(err) // an invalid option, an expired certificate, a key that does not match
		return
	}

	pis, err := payments.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = pis.CreateNorwegianDomestic(context.Background(), &payments.NorwegianDomestic{
		InstructedAmount: money.MustParse("100.00", "NOK"),
		CreditorName:     "Kari Nordmann",
		CreditorAccount:  payments.AccountReference{BBAN: "86011117947"},
		DebtorAccount:    payments.AccountReference{BBAN: "12345678903"},
	}) // no PSU headers
	var missing *client.ValidationError
	if errors.As(err, &missing) {
		fmt.Println("not sent:", errors.Is(err, client.ErrNotSent))
		fmt.Println("missing:", missing.Field)
	}
	// Output:
	// not sent: true
	// missing: PSU-ID
}

// What a failed payment call means, and what to do about it.
func ExampleOutcomeUnknownError() {
	handle := func(err error) string {
		var unknown *client.OutcomeUnknownError
		switch {
		case err == nil:
			return "created"
		case errors.Is(err, client.ErrNotSent):
			return "nothing reached the bank: safe to send again"
		case errors.As(err, &unknown):
			// The bank may hold the payment. Never send it again blindly:
			// keep unknown.RequestID, then read the status if the payment
			// id is known, or resolve it with the payments journal, which
			// lets the bank's logical-duplicate check decide.
			return "outcome unknown: reconcile request " + unknown.RequestID
		case errors.Is(err, client.ErrValidation):
			return "refused before sending: fix the input"
		default:
			return "refused by the bank: " + err.Error()
		}
	}
	fmt.Println(handle(&client.OutcomeUnknownError{Operation: "payments.CreateSEPA", RequestID: "order-17", Err: errors.New("connection reset")}))
	fmt.Println(handle(&client.NotSentError{Operation: "payments.CreateSEPA", Err: errors.New("connection refused")}))
	// Output:
	// outcome unknown: reconcile request order-17
	// nothing reached the bank: safe to send again
}

// Two spellings of one bank's base URL are one bank: one without-PSU
// budget and one payments journal. A bank reached through another URL (a
// proxy) is named with WithBank on every client that reaches it. A
// certificate of another organisation is refused: a client belongs to one
// TPP.
func ExampleWithBank() {
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example TPP")
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := client.New("https://psd2.bank.example/api", creds)
	b, _ := client.New("https://PSD2.bank.example.:443//api/", creds)
	fmt.Println("one bank:", a.Scope() == b.Scope())

	direct, _ := client.New("https://psd2.bank.example/api", creds, client.WithBank("example-bank"))
	proxied, _ := client.New("https://proxy.tpp.example/bank", creds, client.WithBank("example-bank"))
	fmt.Println("named bank:", direct.Scope() == proxied.Scope())

	other, err := bank.NewTPP("Another TPP")
	if err != nil {
		fmt.Println(err)
		return
	}
	err = a.SetCredentials(other)
	fmt.Println("another TPP refused:", errors.Is(err, client.ErrOtherTPP))
	// Output:
	// one bank: true
	// named bank: true
	// another TPP refused: true
}
