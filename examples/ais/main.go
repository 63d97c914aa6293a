// Command ais is an account information service (AISP) in one function:
// a bank-offered consent with SCA, then the accounts, their balances and
// the last 30 days of booked transactions through the lazy iterator.
//
// It runs against the embedded bank sandbox (package sandbox/emulator),
// where the sandbox customer 13039319955 approves the SCA in-process; a
// real TPP sends the PSU's browser to the link instead and parses the
// callback on its redirect URI (see examples/webapp).
//
//	go run ./examples/ais
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// main runs the example against the sandbox and prints each step.
func main() {
	demo.Main("ais", run)
}

func run(ctx context.Context, out io.Writer) error {
	// The bank: an in-process sandbox, and a client for a throwaway TPP it
	// trusts.
	bank, c, err := demo.Start("AIS example")
	if err != nil {
		return err
	}
	defer bank.Close()
	ais, err := accounts.New(c)
	if err != nil {
		return err
	}

	// 1. Start SCA: the Flow gives a TPP-Session-ID and a redirect URI with
	// an unguessable state; the bank-offered consent answers with the link
	// to send the PSU to. (Against the emulator nothing listens at the
	// redirect URI: Controls.Authorize returns the callback URL instead.)
	flow, err := sca.NewFlow(demo.RedirectURI)
	if err != nil {
		return err
	}
	pending, scaOpts, err := flow.Start("user-42")
	if err != nil {
		return err
	}
	consent, err := ais.StartConsent(ctx, scaOpts)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "consent started; the PSU is sent to the bank's SCA page")

	// 2. The PSU approves at the bank (here: in-process, as customer
	// 13039319955) and the browser comes back to the redirect URI.
	callback, err := bank.Control().Authorize(ctx, consent.SCARedirect(), emulator.CustomerKari)
	if err != nil {
		return err
	}
	session, err := flow.ParseCallback(pending, callback.String())
	var failed *sca.CallbackError
	if errors.As(err, &failed) {
		return fmt.Errorf("the PSU cancelled or SCA failed: %s", failed.Code)
	}
	if err != nil {
		return err // forged, replayed, expired or malformed callback
	}
	fmt.Fprintf(out, "SCA complete in %s context; the session holds for %s\n",
		session.Context, session.SCAExpiresAt().Sub(session.SCAAt))

	// 3. Every later call carries the session (PSU-ID, TPP-Session-ID), the
	// PSU's IP address while the PSU is present, and the redirect URI.
	opts := client.Combine(
		session.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}),
		client.WithRedirectURI(flow.RedirectURI()),
	)
	list, err := ais.List(ctx, &accounts.ListOptions{WithBalance: true}, opts)
	if errors.Is(err, client.ErrSCARequired) {
		return errors.New("the bank wants a new SCA: start again")
	}
	if err != nil {
		return err
	}
	since := date.Of(time.Now().AddDate(0, 0, -30))
	for _, a := range list {
		fmt.Fprintf(out, "\n%s (%s, %s)\n", a.Name, a.Product, a.Currency)
		report, err := ais.Balances(ctx, a.ResourceID, opts)
		if err != nil {
			return err
		}
		if b, ok := report.Find(accounts.BalanceInterimAvailable); ok {
			fmt.Fprintf(out, "  available  %s\n", b.BalanceAmount)
		} else if b, ok := report.Find(accounts.BalanceClosingBooked); ok {
			fmt.Fprintf(out, "  booked     %s\n", b.BalanceAmount)
		}

		// The iterator fetches page after page as the loop asks for more.
		q := &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked, DateFrom: since}
		n := 0
		for tx, err := range ais.TransactionsIter(ctx, a.ResourceID, q, opts) {
			if err != nil {
				return err
			}
			if n < 3 {
				fmt.Fprintf(out, "  %s  %12s  %s\n", tx.BookingDate, tx.TransactionAmount.Text(), counterparty(tx))
			}
			n++
		}
		fmt.Fprintf(out, "  %d booked transactions in the last 30 days\n", n)
	}
	return nil
}

// counterparty names the other side of a transaction.
func counterparty(tx *accounts.Transaction) string {
	switch {
	case tx.TransactionAmount.Value.IsNegative() && tx.CreditorName != "":
		return tx.CreditorName
	case tx.DebtorName != "":
		return tx.DebtorName
	case tx.RemittanceInformationUnstructured != "":
		return tx.RemittanceInformationUnstructured
	}
	return "-"
}
