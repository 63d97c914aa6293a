package budget_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// The without-PSU budget: 4 balances calls per account in 24 hours while
// the PSU is not present. The fifth is refused before it is sent, with the
// time the next call is allowed. The budget belongs to the client: every
// Service made on it (and every client on the same shared store) counts
// the same calls. A background refresh reserves its calls ahead, in one
// write, and hands the reservation to its calls as a request option.
func Example() {
	ctx := context.Background()
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example TPP")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()),
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The client's budget, with the platform's limit; budget.New before
	// the services for another one.
	b := budget.Of(c)
	ais, err := accounts.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}

	// Once, with the PSU present: consent and the list of accounts.
	flow, err := sca.NewFlow("https://tpp.example/callback")
	if err != nil {
		fmt.Println(err)
		return
	}
	pending, scaOpts, err := flow.Start("user-42")
	if err != nil {
		fmt.Println(err)
		return
	}
	consent, err := ais.StartConsent(ctx, scaOpts)
	if err != nil {
		fmt.Println(err)
		return
	}
	callback, err := bank.Control().Authorize(ctx, consent.SCARedirect(), emulator.CustomerKari)
	if err != nil {
		fmt.Println(err)
		return
	}
	session, err := flow.ParseCallback(pending, callback.String())
	if err != nil {
		fmt.Println(err)
		return
	}
	list, err := ais.List(ctx, nil, session.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	account := list[0].ResourceID

	// Later, in the background: no PSU-IP-Address, so the calls count.
	background := session.RequestOptions(nil)
	for i := 1; i <= 5; i++ {
		_, err := ais.Balances(ctx, account, background)
		var spent *budget.ExhaustedError
		switch {
		case errors.As(err, &spent):
			fmt.Printf("call %d: refused before sending (sent: %v): %d calls in %s, the next one at RetryAt\n",
				i, !errors.Is(err, client.ErrNotSent), spent.Limit, spent.Window)
		case err != nil:
			fmt.Println(err)
			return
		default:
			left, _ := budgetOf(ais).Remaining(ctx, account, budget.Balances)
			fmt.Printf("call %d: sent, %d left\n", i, left.Remaining)
		}
	}

	// A second Service on the same client shares the budget.
	other, err := accounts.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = other.Balances(ctx, account, background)
	fmt.Println("another Service of the client:", errors.Is(err, budget.ErrExhausted))

	// A refresh of the transactions: one call reserved in one write,
	// used by the call that carries the reservation's option.
	rsv, err := b.Reserve(ctx, budget.ReserveRequest{AccountID: account, Transactions: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := ais.Transactions(ctx, account, nil, background, rsv.Option()); err != nil {
		fmt.Println(err)
		return
	}
	_, left := rsv.Left()
	fmt.Printf("reserved transactions call used: %d left, %d sent\n", left, rsv.Sent())
	if err := rsv.Release(ctx, false); err != nil {
		fmt.Println(err)
		return
	}
	a, _ := b.Remaining(ctx, account, budget.Transactions)
	fmt.Println("transactions calls left:", a.Remaining)
	// Output:
	// call 1: sent, 3 left
	// call 2: sent, 2 left
	// call 3: sent, 1 left
	// call 4: sent, 0 left
	// call 5: refused before sending (sent: false): 4 calls in 24h0m0s, the next one at RetryAt
	// another Service of the client: true
	// reserved transactions call used: 0 left, 1 sent
	// transactions calls left: 3
}
