package main

import "github.com/tppkit/psd2/examples/internal/demo"

// Example_run is `go run ./examples/ndct`: 150.00 NOK from the current
// account to the savings account, executed by the batch.
func Example_run() {
	demo.Example(run)
	// Output:
	// Høyrentekonto holds 100.00 NOK
	// payment created: RCVD, no fee (own accounts)
	// status before SCA: not readable yet (ErrNotYetReadable: true)
	// status after SCA: ACTC (final: false)
	// status after the batch: ACSC (final: true, funds unavailable: false)
	// Høyrentekonto holds 250.00 NOK
}
