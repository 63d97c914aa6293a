// Command pisp is a payment initiation service without account access:
// GET /v1/user identifies the PSU with an SCA, the payment is created
// with the PSU-ID that SCA returned, the PSU approves it in a second SCA,
// the callback finds its payment through the TPP-Session-ID, and
// payments.Service.Wait follows it to a final status. Every create goes
// through a journal (payments.WithJournal), so that a create whose outcome
// is unknown is resolved, never sent blindly again. It runs against the
// embedded emulator.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/internal/browser"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

func main() {
	demo.Main("pisp", run)
}

// present is the PSU's request data while the PSU is at the TPP's site
// (192.0.2.10 is a documentation address).
var present = &client.PSU{IPAddress: "192.0.2.10"}

// shopper is the TPP's key for its user.
const shopper = "shopper-7"

// paymentOf is the store key under which the TPP keeps the payment an SCA
// (its TPP-Session-ID) authorises.
func paymentOf(tppSessionID string) string { return "example/payment-of/" + tppSessionID }

func run(ctx context.Context, out io.Writer) error {
	bank, c, err := demo.Start("PISP example")
	if err != nil {
		return err
	}
	defer bank.Close()
	debtor, err := sandboxAccount(ctx, c)
	if err != nil {
		return err
	}

	// The TPP's state: sessions, pending SCAs and its own records, in one
	// store (a shared one when the TPP runs several instances).
	st := store.NewMemoryStore()
	flow, err := sca.NewFlow(demo.RedirectURI)
	if err != nil {
		return err
	}
	mgr, err := sca.NewManager(flow, st)
	if err != nil {
		return err
	}

	// 1. GET /v1/user: the SCA identifies the PSU (docs/interface.md
	// section 5.10). Its callback carries the psu-id a payment needs.
	call, err := mgr.Begin(ctx, shopper, present)
	if err != nil {
		return err
	}
	redirect, needed, err := sca.User(ctx, c, call.Options)
	if err != nil {
		return err
	}
	if !needed {
		return errors.New("expected an SCA for a PSU the TPP does not know yet")
	}
	if _, _, err := call.Redirect(ctx, redirect); err != nil { // saves the pending SCA
		return err
	}
	callback, err := bank.Control().Authorize(ctx, redirect.String(), emulator.CustomerKari)
	if err != nil {
		return err
	}
	session, err := browser.Callback(ctx, mgr, shopper, callback.String())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "PSU identified (%s context); the TPP now holds its PSU-ID\n", session.Context)

	// 2. The payment, created in a new SCA session: its TPP-Session-ID
	// will come back on the callback, so the TPP records which payment it
	// authorises.
	// The journal records each create in the store before it is sent
	// and its outcome after it, so that one whose outcome is unknown (a
	// crash, a connection cut mid-answer) is found and resolved later.
	jr, err := journal.New(st, journal.WithClient(c))
	if err != nil {
		return err
	}
	pis, err := payments.New(c, payments.WithJournal(jr), payments.WithPolling(20*time.Millisecond, 100*time.Millisecond))
	if err != nil {
		return err
	}
	call, err = mgr.Begin(ctx, shopper, present)
	if err != nil {
		return err
	}
	init, err := pis.CreateNorwegianDomestic(ctx, &payments.NorwegianDomestic{
		InstructedAmount:                  money.MustParse("249.00", "NOK"),
		CreditorName:                      "Nettbutikken AS",
		CreditorAccount:                   payments.AccountReference{BBAN: "86011117947", Currency: "NOK"},
		CreditorAddress:                   &payments.Address{Street: "Storgata", BuildingNumber: "1", PostalCode: "0155", City: "Oslo", Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: debtor, Currency: "NOK"},
		RemittanceInformationUnstructured: "Order 2026-118",
	}, call.Options)
	if errors.Is(err, client.ErrOutcomeUnknown) {
		// The journal holds it in doubt: jr.Resolve (or psd2 journal
		// resolve) finds out whether the bank has it; never send it again.
		return fmt.Errorf("outcome unknown, resolve it from the journal (never resend blindly): %w", err)
	}
	if err != nil {
		return err
	}
	record, err := json.Marshal(init.Ref()) // what the TPP keeps about a payment waiting for its SCA
	if err != nil {
		return err
	}
	if err := st.Put(ctx, paymentOf(call.Pending.TPPSessionID), record, 24*time.Hour); err != nil {
		return err
	}
	link, ok, err := call.Redirect(ctx, init)
	if err != nil || !ok {
		return fmt.Errorf("no SCA link for the payment: %v", err)
	}
	fmt.Fprintf(out, "payment created: %s, the PSU approves it at the bank\n", init.TransactionStatus)

	// 3. The PSU comes back to the redirect URI, where a web app mounts
	// Manager.HandlerFor. The callback's TPP-Session-ID finds the payment.
	callback, err = bank.Control().Authorize(ctx, link.String(), emulator.CustomerKari)
	if err != nil {
		return err
	}
	session, err = browser.Callback(ctx, mgr, shopper, callback.String())
	if err != nil {
		return err
	}
	raw, err := st.Take(ctx, paymentOf(session.TPPSessionID))
	if err != nil {
		return fmt.Errorf("no payment waits for this SCA: %w", err)
	}
	var p payments.Ref
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	fmt.Fprintln(out, "callback matched to its payment by TPP-Session-ID")

	// 4. Wait for a final status; the bank's batch executes the payment
	// a moment later.
	go func() {
		time.Sleep(100 * time.Millisecond)
		bank.Control().RunBatch()
	}()
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	final, err := pis.Wait(waitCtx, p, session.RequestOptions(present))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "final status: %s (executed: %t)\n", final.TransactionStatus, final.TransactionStatus.IsExecuted())

	// 5. What a TPP checks after a crash or at start: the creates whose
	// outcome is unknown. An entry it cannot read is an error, not "none".
	created, inDoubt := 0, 0
	for e, err := range jr.Entries(ctx) {
		if err != nil {
			return err
		}
		if e.Outcome == journal.OutcomeCreated {
			created++
		}
	}
	for _, err := range jr.InDoubt(ctx) {
		if err != nil {
			return err
		}
		inDoubt++
	}
	fmt.Fprintf(out, "journal: %d create(s) recorded as created, %d in doubt\n", created, inDoubt)
	return nil
}

// sandboxAccount gives the sandbox's private customer a fresh account to
// pay from and returns its BBAN, which a PISP's user types in.
func sandboxAccount(ctx context.Context, c *client.Client) (string, error) {
	sbx, err := sandbox.New(c)
	if err != nil {
		return "", err
	}
	a, err := sbx.CreateAccount(ctx, &sandbox.NewAccount{CustomerNumber: emulator.CustomerKari, Currency: "NOK",
		Name: "Handlekonto", Balance: "5000.00"})
	if err != nil {
		return "", err
	}
	return a.BBAN, nil
}
