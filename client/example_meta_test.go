package client_test

import (
	"context"
	"fmt"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/tpp"
)

// Every typed result carries the response metadata of its answer: the
// X-Request-ID to give the bank's support, the status, the attempts. A
// call without such a result gives it through SaveMeta.
func ExampleAnswer_Meta() {
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
	ctx := context.Background()

	svc, err := tpp.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	contact, err := svc.SetContact(ctx, "operations@tpp.example", client.WithRequestID("support-ticket-1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	m := contact.Meta()
	fmt.Println(m.Operation, m.RequestID, m.StatusCode, m.Attempts)

	sb, err := sandbox.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	var reset client.Meta
	if err := sb.Initialize(ctx, client.SaveMeta(&reset), client.WithRequestID("support-ticket-2")); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reset.Operation, reset.RequestID, reset.StatusCode, reset.Attempts)
	// Output:
	// tpp.SetContact support-ticket-1 200 1
	// sandbox.Initialize support-ticket-2 200 1
}
