// Command sepa initiates a SEPA credit transfer in euro from a Norwegian
// account: create the payment with an end-to-end id, send the PSU to SCA,
// follow the status, and find the debit, converted to NOK, on the account.
//
// It runs against the embedded bank sandbox (package sandbox/emulator),
// where the sandbox customer 13039319955 approves in-process.
//
//	go run ./examples/sepa
package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// main runs the example against the sandbox and prints each step.
func main() {
	demo.Main("sepa", run)
}

// present is the PSU's request data; payment creation needs PSU-IP-Address
// (docs/interface.md section 4.1). 192.0.2.10 is a documentation address.
var present = &client.PSU{IPAddress: "192.0.2.10"}

// creditorIBAN is an account at a German bank (the IBAN of the ISO 13616
// examples). The sandbox assumes accounts of other banks exist.
const creditorIBAN = "DE89370400440532013000"

func run(ctx context.Context, out io.Writer) error {
	// The bank: an in-process sandbox, and a client for a throwaway TPP it
	// trusts.
	bank, c, err := demo.Start("SEPA example")
	if err != nil {
		return err
	}
	defer bank.Close()
	flow, err := sca.NewFlow(demo.RedirectURI)
	if err != nil {
		return err
	}

	// The PSU's accounts, read with an account information consent (a PISP
	// without AIS asks the PSU for the debtor account instead).
	session, own, err := demo.Consent(ctx, bank, c, flow, present)
	if err != nil {
		return err
	}
	from := own[0]
	ais, err := accounts.New(c)
	if err != nil {
		return err
	}
	opts := session.RequestOptions(present)
	before, err := demo.Balance(ctx, ais, from, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s holds %s\n", from.Name, before)

	// 1. Create the payment: IBANs on both sides, the amount in euro.
	// Every create is journaled before it is sent (here in memory; a
	// TPP keeps its journal in its durable, shared store), so that one
	// whose outcome is unknown is resolved from the journal
	// (journal.Journal.Resolve, psd2 journal resolve), never sent again.
	jr, err := journal.New(store.NewMemoryStore(), journal.WithClient(c))
	if err != nil {
		return err
	}
	pis, err := payments.New(c, payments.WithJournal(jr))
	if err != nil {
		return err
	}
	pending, scaOpts, err := flow.Start("user-42", sca.Renew(session))
	if err != nil {
		return err
	}
	init, err := pis.CreateSEPA(ctx, &payments.SEPA{
		EndToEndIdentification:            "INV-2026-0042",
		InstructedAmount:                  money.MustParse("25.00", "EUR"),
		CreditorName:                      "Beispiel GmbH",
		CreditorAccount:                   payments.AccountReference{IBAN: creditorIBAN, Currency: "EUR"},
		CreditorAddress:                   &payments.Address{City: "Berlin", Country: "DE"},
		DebtorAccount:                     payments.AccountReference{IBAN: from.IBAN, Currency: from.Currency},
		RemittanceInformationUnstructured: "Invoice 2026-0042",
	}, session.RequestOptions(present), scaOpts)
	var invalid *client.ValidationError
	switch {
	case errors.As(err, &invalid):
		return fmt.Errorf("fix %s: %s (nothing was sent)", invalid.Field, invalid.Reason)
	case errors.Is(err, client.ErrOutcomeUnknown):
		// Never send it again blindly: the bank may hold the payment.
		// The journal holds it in doubt until it is resolved.
		return fmt.Errorf("outcome unknown, resolve it from the journal: %w", err)
	case err != nil:
		return err
	}
	fee := "no fee"
	if init.TransactionFees != nil {
		fee = "fee " + init.TransactionFees.String()
	}
	fmt.Fprintf(out, "payment created: %s, %s\n", init.TransactionStatus, fee)

	// 2. SCA: the PSU approves at the bank and comes back.
	callback, err := bank.Control().Authorize(ctx, init.SCARedirect(), emulator.CustomerKari)
	if err != nil {
		return err
	}
	if session, err = flow.ParseCallback(pending, callback.String()); err != nil {
		return err
	}
	opts = session.RequestOptions(present)

	// 3. Follow the status with the link the bank gave.
	st, err := pis.StatusAt(ctx, init.Links.Href(client.LinkStatus), opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "status after SCA: %s\n", st.TransactionStatus)
	bank.Control().RunBatch()
	st, err = pis.Status(ctx, init.Ref(), opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "status after the batch: %s (final: %t)\n", st.TransactionStatus, st.TransactionStatus.IsFinal())
	if st.TransactionStatus != payments.StatusACSC {
		return fmt.Errorf("payment not executed: %s", st.TransactionStatus)
	}

	// 4. The debit, in the account's currency.
	after, err := demo.Balance(ctx, ais, from, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s holds %s (%s less)\n", from.Name, after,
		money.Amount{Value: before.Value.Sub(after.Value), Currency: after.Currency}.Text())
	q := &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked, Limit: 1}
	for tx, err := range ais.TransactionsIter(ctx, from.ResourceID, q, opts) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "newest booked transaction: %s %s %s\n", tx.BookingDate, tx.TransactionAmount, tx.CreditorName)
		break
	}
	return nil
}
