package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// Clients given one Health share each bank's circuit breaker. After five
// requests in a row answered 5xx it opens: the next call fails fast with
// ErrBankUnavailable, which is also ErrNotSent (nothing left, no budget
// spent), and the bank's health says so.
func ExampleWithHealth() {
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example TPP")
	if err != nil {
		fmt.Println(err)
		return
	}
	bank.Control().Outage(emulator.OutageUnavailable, time.Minute) // 503 to every request
	health := client.NewHealth()
	health.OnChange(func(ch client.BreakerChange) {
		fmt.Printf("breaker %s -> %s after %d failed requests\n", ch.From, ch.To, ch.Downtime.Failures)
	})
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()), client.WithHealth(health),
		client.WithRetryPolicy(client.RetryPolicy{}), client.WithDefaults(client.WithRedirectURI("https://tpp.example/cb")))
	if err != nil {
		fmt.Println(err)
		return
	}
	get := client.Operation{Method: http.MethodGet, Path: "/v1/accounts"}
	for range 5 {
		_, _ = c.Do(context.Background(), get, nil)
	}
	_, err = c.Do(context.Background(), get, nil)
	fmt.Println(errors.Is(err, client.ErrBankUnavailable), errors.Is(err, client.ErrNotSent))
	h := health.Banks()[0]
	fmt.Println(h.State, h.Requests, h.Status5xx)
	// Output:
	// breaker closed -> open after 5 failed requests
	// true true
	// open 5 5
}
