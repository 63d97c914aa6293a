package basket_test

import (
	"context"
	"fmt"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
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
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()))
	if err != nil {
		panic(err)
	}
	pay, baskets := payments.New(c), basket.New(c)

	// The PSU is present; the redirect URI gets the PSU back after SCA.
	session := []client.RequestOption{
		client.WithTPPSessionID("3c1d8f8e-6f0a-4a7c-9d2b-1f1b2c3d4e5f"),
		client.WithRedirectURI("https://tpp.example/callback?state=order-17"),
		client.WithPSU(client.PSU{IPAddress: "192.0.2.10"}),
	}
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

	// A basket needs PSU-ID too (docs/interface.md section 4.1): the id the bank gave
	// this PSU after an earlier SCA.
	psu := client.WithPSU(client.PSU{ID: "6b1f5d2c-0a51-4f4e-9d55-0d5b8a3c7e11", IPAddress: "192.0.2.10"})
	b, err := baskets.Create(ctx, ids, append(session, psu)...)
	if err != nil {
		panic(err)
	}
	fmt.Println("created:", b.TransactionStatus, len(b.PaymentIDs), "payments")

	// Send the PSU to b.ScaRedirect(); the emulator approves in-process.
	if _, err := bank.Authorize(ctx, b.ScaRedirect(), emulator.CustomerKari); err != nil {
		panic(err)
	}
	st, err := baskets.Status(ctx, b.BasketID)
	if err != nil {
		panic(err)
	}
	fmt.Println("after SCA:", st.TransactionStatus)

	bank.RunBatch()
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
