package tpp_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/tpp"
)

// ExampleService_SetContact registers the TPP's contact address at the
// bank (here the emulator) and reads it back. The tppId in the path is
// the organizationIdentifier of the signing certificate.
func ExampleService_SetContact() {
	ctx := context.Background()
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example AISP")
	if err != nil {
		panic(err)
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()),
		// Every call but the sandbox's carries the TPP's redirect URI.
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	if err != nil {
		panic(err)
	}
	svc, err := tpp.New(c)
	if err != nil {
		panic(err)
	}

	_, err = svc.Contact(ctx)
	fmt.Println("before:", errors.Is(err, tpp.ErrNotRegistered))

	if _, err := svc.SetContact(ctx, "psd2-operations@tpp.example"); err != nil {
		panic(err)
	}
	contact, err := svc.Contact(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("registered:", contact.Email)

	_, err = svc.SetContact(ctx, "Ops <ops@tpp.example>")
	fmt.Println("refused before sending:", errors.Is(err, client.ErrValidation))
	// Output:
	// before: true
	// registered: psd2-operations@tpp.example
	// refused before sending: true
}
