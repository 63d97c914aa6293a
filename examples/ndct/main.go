// Command ndct initiates a Norwegian domestic credit transfer (NDCT) as a
// PISP: create the payment, send the PSU to SCA, read the status, and see
// it executed by the bank's batch.
//
// It runs against the embedded bank sandbox (package sandbox/emulator):
// the sandbox customer 13039319955 approves in-process, and the payment
// moves 150.00 NOK from her current account to her savings account, whose
// balance the example reads before and after.
//
//	go run ./examples/ndct
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
	demo.Main("ndct", run)
}

// present is the PSU's request data; payment creation needs PSU-IP-Address
// (docs/interface.md section 4.1). 192.0.2.10 is a documentation address.
var present = &client.PSU{IPAddress: "192.0.2.10"}

func run(ctx context.Context, out io.Writer) error {
	// The bank: an in-process sandbox, and a client for a throwaway TPP it
	// trusts.
	bank, c, err := demo.Start("NDCT example")
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
	from, to := own[0], own[1]
	ais, err := accounts.New(c)
	if err != nil {
		return err
	}
	opts := session.RequestOptions(present)
	before, err := demo.Balance(ctx, ais, to, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s holds %s\n", to.Name, before)

	// 1. Create the payment. It is validated before it is signed: amounts
	// with the currency's minor units, MOD-11 account numbers, lengths.
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
	init, err := pis.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
		InstructedAmount:                  money.MustParse("150.00", "NOK"),
		CreditorName:                      "Kari Nordmann",
		CreditorAccount:                   payments.AccountReference{BBAN: to.BBAN, Currency: "NOK"},
		CreditorAddress:                   &payments.Address{Street: "Storgata", BuildingNumber: "12", PostalCode: "0155", City: "Oslo", Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: from.BBAN, Currency: "NOK"},
		RemittanceInformationUnstructured: "Sparing november",
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
	fee := "no fee (own accounts)"
	if init.TransactionFees != nil {
		fee = "fee " + init.TransactionFees.String()
	}
	fmt.Fprintf(out, "payment created: %s, %s\n", init.TransactionStatus, fee)

	// Known issue (docs/interface.md section 4.2): an NDCT's status cannot
	// be read before the PSU approved it; the bank's 404 matches
	// payments.ErrNotYetReadable (the payment is not gone).
	_, err = pis.Status(ctx, init.Ref(), opts)
	fmt.Fprintf(out, "status before SCA: not readable yet (ErrNotYetReadable: %t)\n", errors.Is(err, payments.ErrNotYetReadable))

	// 2. SCA: the PSU approves at the bank and comes back.
	callback, err := bank.Control().Authorize(ctx, init.SCARedirect(), emulator.CustomerKari)
	if err != nil {
		return err
	}
	if session, err = flow.ParseCallback(pending, callback.String()); err != nil {
		return err
	}
	opts = session.RequestOptions(present)

	// 3. Follow the status: ACTC after SCA; the batch executes it.
	st, err := pis.Status(ctx, init.Ref(), opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "status after SCA: %s (final: %t)\n", st.TransactionStatus, st.TransactionStatus.IsFinal())
	bank.Control().RunBatch()
	st, err = pis.Status(ctx, init.Ref(), opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "status after the batch: %s (final: %t, funds unavailable: %t)\n",
		st.TransactionStatus, st.TransactionStatus.IsFinal(), st.FundsUnavailable())
	if st.TransactionStatus != payments.StatusACSC {
		return fmt.Errorf("payment not executed: %s", st.TransactionStatus)
	}

	after, err := demo.Balance(ctx, ais, to, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s holds %s\n", to.Name, after)
	return nil
}
