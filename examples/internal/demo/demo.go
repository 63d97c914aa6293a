package demo

import (
	"context"
	"errors"
	"fmt"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// RedirectURI is the TPP's callback address in the examples. Against the
// emulator nothing listens there: [emulator.Controls.Authorize] returns the
// callback URL instead.
const RedirectURI = "https://tpp.example/callback"

// Start starts the embedded bank sandbox, issues a throwaway TPP
// certificate for tppName that the sandbox trusts, and returns the sandbox
// and a client for that TPP, which sends [RedirectURI] as TPP-Redirect-URI
// on every call (client.WithDefaults). The caller closes the sandbox.
func Start(tppName string) (*emulator.Server, *client.Client, error) {
	bank := emulator.NewServer()
	creds, err := bank.NewTPP(tppName)
	if err != nil {
		bank.Close()
		return nil, nil, err
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()),
		client.WithDefaults(client.WithRedirectURI(RedirectURI)))
	if err != nil {
		bank.Close()
		return nil, nil, err
	}
	return bank, c, nil
}

// Consent has sandbox customer 13039319955 ([emulator.CustomerKari]) grant
// account access: it starts a bank-offered consent on flow, approves its
// SCA with the emulator's Authorize, and returns the session and the PSU's
// accounts, read with psu's request data. It fails unless the PSU has at
// least two accounts.
func Consent(ctx context.Context, bank *emulator.Server, c *client.Client, flow *sca.Flow, psu *client.PSU) (*sca.Session, []accounts.Account, error) {
	ais, err := accounts.New(c)
	if err != nil {
		return nil, nil, err
	}
	pending, scaOpts, err := flow.Start("user-42")
	if err != nil {
		return nil, nil, err
	}
	consent, err := ais.StartConsent(ctx, scaOpts)
	if err != nil {
		return nil, nil, err
	}
	callback, err := bank.Control().Authorize(ctx, consent.SCARedirect(), emulator.CustomerKari)
	if err != nil {
		return nil, nil, err
	}
	session, err := flow.ParseCallback(pending, callback.String())
	if err != nil {
		return nil, nil, err
	}
	list, err := ais.List(ctx, nil, session.RequestOptions(psu))
	if err != nil {
		return nil, nil, err
	}
	if len(list) < 2 {
		return nil, nil, fmt.Errorf("the PSU has %d accounts, want 2", len(list))
	}
	return session, list, nil
}

// Balance returns the account's booked balance (closingBooked).
func Balance(ctx context.Context, ais *accounts.Service, a accounts.Account, opts client.RequestOption) (money.Amount, error) {
	report, err := ais.Balances(ctx, a.ResourceID, opts)
	if err != nil {
		return money.Amount{}, err
	}
	b, ok := report.Find(accounts.BalanceClosingBooked)
	if !ok {
		return money.Amount{}, errors.New("no closingBooked balance")
	}
	return b.BalanceAmount, nil
}
