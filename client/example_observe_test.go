package client_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// attemptPrinter is an observer told when each attempt starts as well as
// when it ends (a client.AttemptStarter): what a tracer needs to run a
// span live with each attempt.
type attemptPrinter struct{}

func (attemptPrinter) StartOperation(ctx context.Context, op client.OperationStart) context.Context {
	fmt.Println(op.Operation, op.Method, op.Route)
	return ctx
}

func (attemptPrinter) StartAttempt(ctx context.Context, a client.AttemptStart) context.Context {
	fmt.Println("  attempt", a.Attempt, "starts")
	return ctx // a tracer returns the context of the attempt's span
}

func (attemptPrinter) ObserveAttempt(_ context.Context, a client.AttemptEvent) {
	fmt.Println("  attempt", a.Attempt, "ended:", a.StatusCode, a.Outcome, a.Codes, "retry:", a.Retry)
}

func (attemptPrinter) EndOperation(_ context.Context, e client.OperationEvent) {
	fmt.Println(e.Outcome, "after", e.Attempts, "attempts")
}

// An observer that implements StartAttempt sees each attempt start and
// end: here a payment's status read, which the bank first answers 503,
// then refuses (no such payment).
func ExampleAttemptStarter() {
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example TPP")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()), client.WithObserver(attemptPrinter{}),
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/callback")))
	if err != nil {
		fmt.Println(err)
		return
	}
	bank.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Method: "GET", PathPrefix: "/v1/payments/", Count: 1})
	_, err = c.Do(context.Background(), client.Operation{Name: "payments.Status", Method: "GET",
		Path: "/v1/payments/norwegian-domestic-credit-transfers/no-such-payment/status"}, nil)
	var ce *client.Error
	fmt.Println("refused:", errors.As(err, &ce) && ce.StatusCode == 404)
	// Output:
	// payments.Status GET /v1/payments/norwegian-domestic-credit-transfers/{id}/status
	//   attempt 1 starts
	//   attempt 1 ended: 503 failed [SYSTEM_ERROR] retry: true
	//   attempt 2 starts
	//   attempt 2 ended: 404 refused [RESOURCE_UNKNOWN] retry: false
	// refused after 2 attempts
	// refused: true
}
