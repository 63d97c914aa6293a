// Command basket signs several payments with one SCA in a signing basket
// (docs/interface.md section 2.7, 4.1) and shows that a basket is not atomic: each
// payment has its own status, read separately.
//
// It runs against the embedded bank sandbox (package sandbox/emulator),
// where the sandbox customer 13039319955 approves in-process. Her savings
// account holds only 100.00 NOK, so the first payment, 500.00 NOK from it,
// waits for funds (ACCP) until the other two have filled it up.
//
//	go run ./examples/basket
package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/basket"
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
	demo.Main("basket", run)
}

// present is the PSU's request data; payment creation needs PSU-IP-Address
// (docs/interface.md section 4.1). 192.0.2.10 is a documentation address.
var present = &client.PSU{IPAddress: "192.0.2.10"}

func run(ctx context.Context, out io.Writer) error {
	// The bank: an in-process sandbox, and a client for a throwaway TPP it
	// trusts.
	bank, c, err := demo.Start("Basket example")
	if err != nil {
		return err
	}
	defer bank.Close()
	flow, err := sca.NewFlow(demo.RedirectURI)
	if err != nil {
		return err
	}

	// The PSU's accounts, read with an account information consent.
	session, own, err := demo.Consent(ctx, bank, c, flow, present)
	if err != nil {
		return err
	}
	current, savings := own[0], own[1]
	opts := session.RequestOptions(present)

	// 1. Create the payments. Each answer carries its own scaRedirect; the
	// TPP keeps the ids and lets the PSU sign them together instead.
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
	transfer := func(from, to accounts.Account, amount, message string) *payments.NorwegianDomestic {
		return &payments.NorwegianDomestic{
			InstructedAmount:                  money.MustParse(amount, "NOK"),
			CreditorName:                      "Kari Nordmann",
			CreditorAccount:                   payments.AccountReference{BBAN: to.BBAN, Currency: "NOK"},
			CreditorAddress:                   &payments.Address{Country: "NO"},
			DebtorAccount:                     payments.AccountReference{BBAN: from.BBAN, Currency: "NOK"},
			RemittanceInformationUnstructured: message,
		}
	}
	var ids []string
	for _, p := range []*payments.NorwegianDomestic{
		transfer(savings, current, "500.00", "Tilbake til brukskonto"),
		transfer(current, savings, "200.00", "Sparing 1"),
		transfer(current, savings, "300.00", "Sparing 2"),
	} {
		init, err := pis.CreateNorwegianDomestic(ctx, p, opts)
		if err != nil {
			return err
		}
		ids = append(ids, init.PaymentID)
		fmt.Fprintf(out, "payment %d: %s from %s, %s\n", len(ids), p.InstructedAmount, fromName(p, own), init.TransactionStatus)
	}

	// 2. One basket, one SCA (at most 10 payments; validated before
	// sending).
	pending, scaOpts, err := flow.Start("user-42", sca.Renew(session))
	if err != nil {
		return err
	}
	baskets, err := basket.New(c, basket.WithJournal(jr))
	if err != nil {
		return err
	}
	b, err := baskets.Create(ctx, ids, session.RequestOptions(present), scaOpts)
	var bankErr *client.Error
	if errors.As(err, &bankErr) && bankErr.HasCode(client.CodeReferenceMixInvalid) {
		return errors.New("bulk and periodic payments cannot go in a basket")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "basket of %d payments: %s\n", len(ids), b.TransactionStatus)
	callback, err := bank.Control().Authorize(ctx, b.SCARedirect(), emulator.CustomerKari)
	if err != nil {
		return err
	}
	if session, err = flow.ParseCallback(pending, callback.String()); err != nil {
		return err
	}
	opts = session.RequestOptions(present)
	st, err := baskets.Status(ctx, b.BasketID, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "after one SCA the basket is %s\n", st.TransactionStatus)

	// 3. The batch runs the payments in order; the basket's status does not
	// say how each fared, so read them one by one.
	refs := basket.Refs(payments.ProductNorwegianDomestic, ids...)
	for run := 1; run <= 2; run++ {
		bank.Control().RunBatch()
		statuses, err := baskets.PaymentStatuses(ctx, refs, opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "after batch run %d:\n", run)
		for i, s := range statuses {
			if s.Err != nil {
				return s.Err
			}
			note := ""
			if s.Status.FundsUnavailable() {
				note = " (waiting for funds; the next batch tries again)"
			}
			fmt.Fprintf(out, "  payment %d: %s%s\n", i+1, s.Status.TransactionStatus, note)
		}
	}
	return nil
}

func fromName(p *payments.NorwegianDomestic, own []accounts.Account) string {
	for _, a := range own {
		if a.BBAN == p.DebtorAccount.BBAN {
			return a.Name
		}
	}
	return "?"
}
