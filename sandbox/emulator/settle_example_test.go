package emulator_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// ExampleControls_SetSettlement pays a merchant's sandbox account by KID
// through the SDK, has the merchant's bank deduct a fee, and reads the
// credit the batch booked: the amount less the fee, with the KID.
func ExampleControls_SetSettlement() {
	ctx := context.Background()
	s := emulator.NewServer()
	defer s.Close()
	creds, err := s.NewTPP("Example PISP")
	if err != nil {
		panic(err)
	}
	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()),
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	if err != nil {
		panic(err)
	}
	consent := &emulator.SeedConsent{At: s.Control().Now().Add(-time.Minute)}
	res, err := s.Control().Seed(ctx, creds.Certificate, emulator.SeedData{Customers: []emulator.SeedCustomer{
		{Accounts: []emulator.SeedAccount{{Balance: "5000.00"}}, Consent: consent},
		{Accounts: []emulator.SeedAccount{{Balance: "0.00"}}, Consent: consent},
	}})
	if err != nil {
		panic(err)
	}
	payer, merchant := res.Customers[0], res.Customers[1]
	opts := func(cu emulator.SeededCustomer) client.RequestOption {
		sess := &sca.Session{PSUID: cu.Session.PSUID, TPPSessionID: cu.Session.TPPSessionID, Context: client.PSUContext(cu.Session.Context), SCAAt: cu.Session.SCAAt}
		return sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.1"})
	}

	pis, err := payments.New(c)
	if err != nil {
		panic(err)
	}
	init, err := pis.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
		InstructedAmount: money.MustParse("1250.00", "NOK"), CreditorName: "Eksempel Handel AS",
		CreditorAccount: payments.AccountReference{BBAN: merchant.Accounts[0].BBAN, Currency: "NOK"}, CreditorAddress: &payments.Address{Country: "NO"},
		DebtorAccount:                        payments.AccountReference{BBAN: payer.Accounts[0].BBAN, Currency: "NOK"},
		RemittanceInformationStructuredArray: []payments.StructuredReference{payments.KID("1234567897")},
	}, opts(payer))
	if err != nil {
		panic(err)
	}
	if _, err := s.Control().Authorize(ctx, init.SCARedirect(), payer.Number); err != nil {
		panic(err)
	}
	if err := s.Control().SetSettlement(init.PaymentID, emulator.Settlement{Fee: money.MustParse("5.00", "NOK")}); err != nil {
		panic(err)
	}
	s.Control().RunBatch()

	ais, err := accounts.New(c)
	if err != nil {
		panic(err)
	}
	page, err := ais.Transactions(ctx, merchant.Accounts[0].ID, &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked}, opts(merchant))
	if err != nil {
		panic(err)
	}
	for _, t := range page.Booked {
		fmt.Println(t.TransactionAmount, string(t.RemittanceInformationStructured), t.ProprietaryBankTransactionCode)
	}
	// Output:
	// 1245.00 NOK "1234567897" R_230
}
