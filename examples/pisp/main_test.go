package main

import "github.com/tppkit/psd2/examples/internal/demo"

// Example_run is `go run ./examples/pisp`.
func Example_run() {
	demo.Example(run)
	// Output:
	// PSU identified (PRIVATE context); the TPP now holds its PSU-ID
	// payment created: RCVD, the PSU approves it at the bank
	// callback matched to its payment by TPP-Session-ID
	// final status: ACSC (executed: true)
	// journal: 1 create(s) recorded as created, 0 in doubt
}
