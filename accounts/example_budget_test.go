package accounts_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// The without-PSU budget: 4 balances calls per account in 24 hours while
// the PSU is not present. The fifth is refused before it is sent, with the
// time the next call is allowed. The budget belongs to the client: every
// Service made on it (and every client on the same shared store) counts
// the same calls.
func ExampleService_Remaining() {
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
		var spent *accounts.BudgetExhaustedError
		switch {
		case errors.As(err, &spent):
			fmt.Printf("call %d: refused before sending (sent: %v): %d calls in %s, the next one at RetryAt\n",
				i, !errors.Is(err, client.ErrNotSent), spent.Limit, spent.Window)
		case err != nil:
			fmt.Println(err)
			return
		default:
			left, _ := ais.Remaining(ctx, account, accounts.EndpointBalances)
			fmt.Printf("call %d: sent, %d left\n", i, left.Remaining)
		}
	}

	// A second Service on the same client shares the budget.
	other, err := accounts.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	left, _ := other.Remaining(ctx, account, accounts.EndpointBalances)
	fmt.Println("left for another Service of the client:", left.Remaining)
	// Output:
	// call 1: sent, 3 left
	// call 2: sent, 2 left
	// call 3: sent, 1 left
	// call 4: sent, 0 left
	// call 5: refused before sending (sent: false): 4 calls in 24h0m0s, the next one at RetryAt
	// left for another Service of the client: 0
}
