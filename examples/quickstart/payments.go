package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sca"
)

// payments initiates a Norwegian domestic payment and follows it to its
// final status, a SEPA payment, and a signing basket of two payments.
// They move money between the PSU's own two accounts (found with
// accounts.List), so nothing leaves the sandbox customer.
func (w *walk) payments(ctx context.Context) error {
	pis, err := payments.New(w.c, payments.WithJournal(w.journal))
	if err != nil {
		return err
	}
	if err := w.domestic(ctx, pis); err != nil {
		return err
	}
	if err := w.sepa(ctx, pis); err != nil {
		return err
	}
	return w.basket(ctx, pis)
}

// from and to are the debtor and creditor accounts of the payments.
func (w *walk) from() accounts.Account { return w.accounts[0] }
func (w *walk) to() accounts.Account   { return w.accounts[1] }

// ndct is the domestic payment of the walk-through; the bank-error step
// sends it again.
func (w *walk) ndct(amount, message string) *payments.NorwegianDomestic {
	return &payments.NorwegianDomestic{
		InstructedAmount:                  money.MustParse(amount, "NOK"),
		CreditorName:                      "Kari Nordmann",
		CreditorAccount:                   payments.AccountReference{BBAN: w.to().BBAN, Currency: w.to().Currency},
		CreditorAddress:                   &payments.Address{Street: "Storgata", BuildingNumber: "12", PostalCode: "0155", City: "Oslo", Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: w.from().BBAN, Currency: w.from().Currency},
		RemittanceInformationUnstructured: message,
	}
}

// domesticMessage is the remittance of the walk-through's domestic
// payment, which the bank-error step sends again as a logical duplicate.
func (w *walk) domesticMessage() string { return "Quickstart savings " + w.run }

// initiate creates a payment in the private PSU's session (step name) and
// has the PSU approve it (step "SCA: name"). It returns the payment id.
func (w *walk) initiate(ctx context.Context, name string, create func(client.RequestOption) (*payments.Initiation, error)) (string, error) {
	var id string
	var link sca.Redirect
	if err := w.r.step(name, func() (string, error) {
		call, err := w.sessions.Prepare(ctx, privateKey, present)
		if err != nil {
			return "", err
		}
		init, err := create(call.Options)
		if err != nil {
			return "", err
		}
		id = init.PaymentID
		var ok bool
		link, ok, err = call.Redirect(ctx, init)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", errors.New("the answer carries no scaRedirect link")
		}
		fee := "no fee"
		if init.TransactionFees != nil {
			fee = "fee " + init.TransactionFees.String()
		}
		return fmt.Sprintf("%s, %s, SCA link received", init.TransactionStatus, fee), nil
	}); err != nil {
		return "", err
	}
	return id, w.approve(ctx, name, privateKey, link, w.customer)
}

// status reads a payment's status as step name and checks it with ok.
func (w *walk) status(ctx context.Context, name string, pis *payments.Service, product payments.Product, id string, ok func(payments.TransactionStatus) bool) error {
	return w.r.step(name, func() (string, error) {
		opts, err := w.call(ctx, privateKey)
		if err != nil {
			return "", err
		}
		st, err := pis.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: product, ID: id}, opts)
		if err != nil {
			return "", err
		}
		if !ok(st.TransactionStatus) {
			return "", fmt.Errorf("unexpected status %s", st.TransactionStatus)
		}
		return describe(st), nil
	})
}

func describe(st *payments.StatusResponse) string {
	d := string(st.TransactionStatus)
	switch {
	case st.TransactionStatus.IsRejected():
		d += ", rejected"
	case st.TransactionStatus.IsCancelled():
		d += ", cancelled"
	case st.FundsUnavailable():
		d += ", accepted but waiting for funds"
	case st.TransactionStatus.IsFinal():
		d += ", final"
	case st.TransactionStatus.IsAccepted():
		d += ", accepted, not final yet"
	}
	return d
}

func (w *walk) domestic(ctx context.Context, pis *payments.Service) error {
	id, err := w.initiate(ctx, "NDCT payment", func(opts client.RequestOption) (*payments.Initiation, error) {
		return pis.CreateNorwegianDomestic(ctx, w.ndct("150.00", w.domesticMessage()), opts)
	})
	if err != nil {
		return err
	}
	if err := w.status(ctx, "NDCT status", pis, payments.ProductNorwegianDomestic, id, payments.TransactionStatus.IsAccepted); err != nil {
		return err
	}
	return w.r.step("batch and final status", func() (string, error) {
		batch := w.bank.runBatch(ctx)
		if batch != nil && !errors.Is(batch, errSkipped) {
			return "", batch
		}
		opts, err := w.call(ctx, privateKey)
		if err != nil {
			return "", err
		}
		st, err := pis.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: id}, opts)
		if err != nil {
			return "", err
		}
		if errors.Is(batch, errSkipped) {
			return describe(st) + "; the bank's batch runs on its own schedule", errSkipped
		}
		if err := checkExecuted(st); err != nil {
			return "", err
		}
		return "batch ran; " + describe(st), nil
	})
}

// checkExecuted refuses a payment the batch did not execute: only an
// executed one (ACSC, ACCC) paid. A rejected (RJCT) or cancelled (CANC)
// payment is final too, but paid nothing; a pending one is not done.
func checkExecuted(st *payments.StatusResponse) error {
	if !st.TransactionStatus.IsExecuted() {
		return fmt.Errorf("after the batch the payment is %s, not executed", describe(st))
	}
	return nil
}

func (w *walk) sepa(ctx context.Context, pis *payments.Service) error {
	id, err := w.initiate(ctx, "SEPA payment", func(opts client.RequestOption) (*payments.Initiation, error) {
		return pis.CreateSEPA(ctx, &payments.SEPA{
			EndToEndIdentification:            "QUICKSTART-SEPA-" + w.run,
			InstructedAmount:                  money.MustParse("25.00", "EUR"),
			CreditorName:                      "Kari Nordmann",
			CreditorAccount:                   payments.AccountReference{IBAN: w.to().IBAN, Currency: "EUR"},
			DebtorAccount:                     payments.AccountReference{IBAN: w.from().IBAN, Currency: w.from().Currency},
			RemittanceInformationUnstructured: "Quickstart SEPA " + w.run,
		}, opts)
	})
	if err != nil {
		return err
	}
	return w.status(ctx, "SEPA status", pis, payments.ProductSEPA, id, payments.TransactionStatus.IsAccepted)
}

// basket creates two payments without approving them one by one, puts
// them in a signing basket and approves both with one SCA.
func (w *walk) basket(ctx context.Context, pis *payments.Service) error {
	var ids []string
	if err := w.r.step("basket payments", func() (string, error) {
		opts, err := w.call(ctx, privateKey)
		if err != nil {
			return "", err
		}
		for i, amount := range []string{"40.00", "60.00"} {
			init, err := pis.CreateNorwegianDomestic(ctx, w.ndct(amount, fmt.Sprintf("Quickstart basket %d %s", i+1, w.run)), opts)
			if err != nil {
				return "", err
			}
			ids = append(ids, init.PaymentID)
		}
		return fmt.Sprintf("%d payments created, to be signed together", len(ids)), nil
	}); err != nil {
		return err
	}
	baskets, err := basket.New(w.c, basket.WithJournal(w.journal))
	if err != nil {
		return err
	}
	var basketID string
	var link sca.Redirect
	if err := w.r.step("signing basket", func() (string, error) {
		call, err := w.sessions.Prepare(ctx, privateKey, present)
		if err != nil {
			return "", err
		}
		b, err := baskets.Create(ctx, ids, call.Options)
		if err != nil {
			return "", err
		}
		basketID = b.BasketID
		var ok bool
		link, ok, err = call.Redirect(ctx, b)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", errors.New("the basket carries no scaRedirect link")
		}
		return fmt.Sprintf("%s, %d payments, one SCA link", b.TransactionStatus, len(ids)), nil
	}); err != nil {
		return err
	}
	if err := w.approve(ctx, "signing basket", privateKey, link, w.customer); err != nil {
		return err
	}
	return w.r.step("basket status", func() (string, error) {
		opts, err := w.call(ctx, privateKey)
		if err != nil {
			return "", err
		}
		st, err := baskets.Status(ctx, basketID, opts)
		if err != nil {
			return "", err
		}
		each, err := baskets.PaymentStatuses(ctx, basket.Refs(payments.ProductNorwegianDomestic, ids...), opts)
		if err != nil {
			return "", err
		}
		parts := make([]string, 0, len(each))
		for _, p := range each {
			if p.Err != nil {
				return "", p.Err
			}
			if !p.Status.TransactionStatus.IsAccepted() {
				return "", fmt.Errorf("a payment of the basket is %s", p.Status.TransactionStatus)
			}
			parts = append(parts, string(p.Status.TransactionStatus))
		}
		if st.TransactionStatus != payments.StatusACTC {
			return "", fmt.Errorf("basket is %s, want ACTC", st.TransactionStatus)
		}
		return fmt.Sprintf("basket %s; its payments %s", st.TransactionStatus, strings.Join(parts, ", ")), nil
	})
}

// typedErrors shows the two kinds of error a TPP handles: a request the
// SDK refuses before sending (*client.ValidationError), and the bank's
// refusal (*client.Error with the tppMessages).
func (w *walk) typedErrors(ctx context.Context) error {
	pis, err := payments.New(w.c, payments.WithJournal(w.journal))
	if err != nil {
		return err
	}
	if err := w.r.step("validation error", func() (string, error) {
		p := w.ndct("150.00", "Quickstart typo")
		p.CreditorAccount.BBAN = typo(w.to().BBAN) // a wrong MOD-11 check digit
		before := w.r.rec.count()
		opts, err := w.call(ctx, privateKey)
		if err != nil {
			return "", err
		}
		_, err = pis.CreateNorwegianDomestic(ctx, p, opts)
		var invalid *client.ValidationError
		switch {
		case err == nil:
			return "", errors.New("a payment to a mistyped account number was accepted")
		case !errors.As(err, &invalid) || !errors.Is(err, client.ErrValidation):
			return "", fmt.Errorf("want a *client.ValidationError, got %w", err)
		case w.r.rec.count() != before:
			return "", errors.New("the invalid payment was sent")
		}
		return fmt.Sprintf("nothing sent: *client.ValidationError %s: %s", invalid.Field, invalid.Reason), nil
	}); err != nil {
		return err
	}
	return w.r.step("bank error", func() (string, error) {
		// The same payment again, without payments.AllowLogicalDuplicate:
		// the bank refuses a logical duplicate, so nothing is paid twice.
		opts, err := w.call(ctx, privateKey)
		if err != nil {
			return "", err
		}
		_, err = pis.CreateNorwegianDomestic(ctx, w.ndct("150.00", w.domesticMessage()), opts)
		var bankErr *client.Error
		switch {
		case err == nil:
			return "", errors.New("the bank accepted a logical duplicate")
		case errors.Is(err, client.ErrOutcomeUnknown):
			return "", fmt.Errorf("outcome unknown, reconcile before anything else: %w", err)
		case !errors.As(err, &bankErr):
			return "", fmt.Errorf("want a *client.Error, got %w", err)
		case !bankErr.HasCode(client.CodePaymentFailed):
			return "", fmt.Errorf("want %s, got %w", client.CodePaymentFailed, err)
		}
		return fmt.Sprintf("*client.Error %d %s: logical duplicate refused, nothing paid twice", bankErr.StatusCode, client.CodePaymentFailed), nil
	})
}

// typo changes the last digit of an account number.
func typo(bban string) string {
	if bban == "" {
		return "0"
	}
	last := bban[len(bban)-1]
	return bban[:len(bban)-1] + string('0'+(last-'0'+1)%10)
}

// journaled reads the journal after the walk-through: every create it
// recorded, by outcome, and the creates in doubt, which a TPP resolves
// (journal.Journal.Resolve, or psd2 journal resolve) before anything
// else. An entry it cannot read fails the step: it is not "none".
func (w *walk) journaled(ctx context.Context) error {
	return w.r.step("journal", func() (string, error) {
		by := map[journal.Outcome]int{}
		for e, err := range w.journal.Entries(ctx) {
			if err != nil {
				return "", err
			}
			by[e.Outcome]++
		}
		inDoubt := 0
		for _, err := range w.journal.InDoubt(ctx) {
			if err != nil {
				return "", err
			}
			inDoubt++
		}
		if inDoubt > 0 {
			return "", fmt.Errorf("%d create(s) in doubt: resolve them before anything else", inDoubt)
		}
		return fmt.Sprintf("%d create(s) recorded: %d created, %d refused by the bank; none in doubt",
			by[journal.OutcomeCreated]+by[journal.OutcomeRefused]+by[journal.OutcomeNotSent]+by[journal.OutcomeUnknown],
			by[journal.OutcomeCreated], by[journal.OutcomeRefused]), nil
	})
}
