package basket_test

import (
	"context"
	"fmt"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// ExampleService_Create creates two domestic payments, puts them in a
// signing basket, lets the PSU approve both with one SCA (here in-process
// on the emulator), runs the bank's batch and reads each payment's own
// status, since a basket is not atomic.
func ExampleService_Create() {
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
	pay, err := payments.New(c)
	if err != nil {
		panic(err)
	}
	baskets, err := basket.New(c)
	if err != nil {
		panic(err)
	}

	// Payments and baskets are created for a PSU the bank identified:
	// the SCA of GET /v1/user gives the session (PSU-ID, PSU-Context,
	// TPP-Session-ID). Here the emulator logs the PSU in.
	flow, err := sca.NewFlow(redirectURI)
	if err != nil {
		panic(err)
	}
	pending, start, err := flow.Start("user-17")
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
	psu, err := flow.ParseCallback(pending, callback.String())
	if err != nil {
		panic(err)
	}
	// The PSU is present: its IP address goes with every call.
	session := []client.RequestOption{psu.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"})}
	var ids []string
	for _, amount := range []string{"120.00", "340.50"} {
		init, err := pay.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
			InstructedAmount:                  money.MustParse(amount, "NOK"),
			CreditorName:                      "Ola Eksempel",
			CreditorAccount:                   payments.AccountReference{BBAN: "91026527436", Currency: "NOK"},
			CreditorAddress:                   &payments.Address{Country: "NO"},
			DebtorAccount:                     payments.AccountReference{BBAN: "95312776066", Currency: "NOK"},
			RemittanceInformationUnstructured: "Order 17",
		}, session...)
		if err != nil {
			panic(err)
		}
		ids = append(ids, init.PaymentID)
	}

	// The basket carries the same session headers (docs/interface.md
	// section 4.1).
	b, err := baskets.Create(ctx, ids, session...)
	if err != nil {
		panic(err)
	}
	fmt.Println("created:", b.TransactionStatus, len(b.PaymentIDs), "payments")

	// Send the PSU to b.SCARedirect(); the emulator approves in-process.
	if _, err := bank.Control().Authorize(ctx, b.SCARedirect(), emulator.CustomerKari); err != nil {
		panic(err)
	}
	st, err := baskets.Status(ctx, b.BasketID)
	if err != nil {
		panic(err)
	}
	fmt.Println("after SCA:", st.TransactionStatus)

	bank.Control().RunBatch()
	statuses, err := baskets.PaymentStatuses(ctx, basket.Refs(payments.ProductNorwegianDomestic, ids...))
	if err != nil {
		panic(err)
	}
	for i, s := range statuses {
		if s.Err != nil {
			panic(s.Err)
		}
		fmt.Println("payment", i+1, s.Status.TransactionStatus)
	}
	// Output:
	// created: RCVD 2 payments
	// after SCA: ACTC
	// payment 1 ACSC
	// payment 2 ACSC
}
