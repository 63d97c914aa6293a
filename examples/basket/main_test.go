package main

import "github.com/tppkit/psd2/examples/internal/demo"

// Example_run is `go run ./examples/basket`: three payments, one SCA, and
// a payment that waits for funds until a later batch run.
func Example_run() {
	demo.Example(run)
	// Output:
	// payment 1: 500.00 NOK from Høyrentekonto, RCVD
	// payment 2: 200.00 NOK from Brukskonto, RCVD
	// payment 3: 300.00 NOK from Brukskonto, RCVD
	// basket of 3 payments: RCVD
	// after one SCA the basket is ACTC
	// after batch run 1:
	//   payment 1: ACCP (waiting for funds; the next batch tries again)
	//   payment 2: ACSC
	//   payment 3: ACSC
	// after batch run 2:
	//   payment 1: ACSC
	//   payment 2: ACSC
	//   payment 3: ACSC
}
