package payments_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// ExampleService_CreateNorwegianDomestic creates a domestic payment
// against the emulator, lets the PSU approve it, runs the bank's batch and
// follows the status by the payment's links.
//
// A payment is created for a PSU the bank identified: the PISP first
// sends the PSU through the SCA of GET /v1/user (sca.User) and keeps the
// session of the callback, whose RequestOptions carry PSU-ID, PSU-Context
// and TPP-Session-ID.
func ExampleService_CreateNorwegianDomestic() {
	ctx := context.Background()
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example PISP")
	if err != nil {
		panic(err)
	}
	const redirectURI = "https://tpp.example/callback"
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()),
		client.WithDefaults(client.WithRedirectURI(redirectURI)))
	if err != nil {
		panic(err)
	}
	svc, err := payments.New(c)
	if err != nil {
		panic(err)
	}

	// Identify the PSU: GET /v1/user answers with a scaRedirect; the PSU
	// logs in there (here the emulator does it) and comes back to the
	// redirect URI with the session's ids.
	flow, err := sca.NewFlow(redirectURI)
	if err != nil {
		panic(err)
	}
	pending, start, err := flow.Start("user-42")
	if err != nil {
		panic(err)
	}
	login, _, err := sca.User(ctx, c, start)
	if err != nil {
		panic(err)
	}
	callback, err := bank.Control().Authorize(ctx, login.String(), emulator.CustomerKari)
	if err != nil {
		panic(err)
	}
	session, err := flow.ParseCallback(pending, callback.String())
	if err != nil {
		panic(err)
	}
	call := []client.RequestOption{session.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"})}

	init, err := svc.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
		InstructedAmount:                     money.MustParse("1250.00", "NOK"),
		CreditorName:                         "Ola Eksempel",
		CreditorAccount:                      payments.AccountReference{BBAN: "86011117947", Currency: "NOK"},
		CreditorAddress:                      &payments.Address{Country: "NO"},
		DebtorAccount:                        payments.AccountReference{BBAN: "95312776066", Currency: "NOK"},
		RemittanceInformationStructuredArray: []payments.StructuredReference{payments.KID("79927398713")},
	}, call...)
	if err != nil {
		panic(err)
	}
	fmt.Println("created:", init.TransactionStatus, "fee", init.TransactionFees)

	// The PSU approves at init.SCARedirect(); here the emulator does it.
	if _, err := bank.Control().Authorize(ctx, init.SCARedirect(), emulator.CustomerKari); err != nil {
		panic(err)
	}
	st, err := svc.StatusAt(ctx, init.Links.Href(client.LinkStatus), call...)
	if err != nil {
		panic(err)
	}
	fmt.Println("after SCA:", st.TransactionStatus, "final:", st.TransactionStatus.IsFinal())

	bank.Control().RunBatch()
	st, err = svc.StatusAt(ctx, init.Links.Href(client.LinkStatus), call...)
	if err != nil {
		panic(err)
	}
	fmt.Println("after the batch:", st.TransactionStatus, "final:", st.TransactionStatus.IsFinal())
	// Output:
	// created: RCVD fee 3.00 NOK
	// after SCA: ACTC final: false
	// after the batch: ACSC final: true
}

// ExampleCheckBBAN checks Norwegian account numbers before they are sent.
func ExampleCheckBBAN() {
	fmt.Println(payments.CheckBBAN("86011117947"))
	fmt.Println(payments.CheckBBAN("86011117940"))
	fmt.Println(payments.CheckBBAN("8601 11 17947"))
	// Output:
	// <nil>
	// payments: invalid BBAN: check digit mismatch
	// payments: invalid BBAN: wrong length
}

// ExampleNorwegianDomestic_Validate shows the typed errors of a refused
// payment: one *client.ValidationError per broken rule, naming the field.
func ExampleNorwegianDomestic_Validate() {
	p := &payments.NorwegianDomestic{
		InstructedAmount: money.MustParse("100.00", "NOK"),
		CreditorName:     "Ola Eksempel",
		CreditorAccount:  payments.AccountReference{BBAN: "86011117940", Currency: "NOK"},
		CreditorAddress:  &payments.Address{Country: "NO"},
		DebtorAccount:    payments.AccountReference{BBAN: "95312776066", Currency: "NOK"},
		RemittanceInformationStructuredArray: []payments.StructuredReference{
			payments.KID("79927398714"),
		},
	}
	err := p.Validate(time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC))
	fmt.Println(errors.Is(err, client.ErrValidation))
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ve *client.ValidationError
		if errors.As(e, &ve) {
			fmt.Println(ve.Field)
		}
	}
	// Output:
	// true
	// creditorAccount.bban
	// remittanceInformationStructuredArray[0].reference
}
