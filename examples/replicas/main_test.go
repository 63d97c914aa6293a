package main

import "github.com/tppkit/psd2/examples/internal/demo"

// Example_run is `go run ./examples/replicas`.
func Example_run() {
	demo.Example(run)
	// Output:
	// two replicas of one TPP, sharing a file store
	//
	// 1. a callback started on one replica, completed on the other
	//    replica A started the SCA and saved the pending SCA
	//    the callback reached replica B, which completed it (PRIVATE PSU)
	//    the same callback replayed on replica A: refused, a pending SCA is taken once
	//    replica A uses the session replica B stored
	//
	// 2. the without-PSU budget is shared
	//    balances read 4 times without the PSU: twice by replica A, twice by replica B
	//    a 5th call on replica A: refused before sending (4 calls in 24 hours spent); allowed again in 24 hours
	//    replica B sees 0 calls left
	//
	// 3. a payment whose outcome is unknown, resolved by the other replica
	//    replica A sent a payment; the connection dropped before the answer: outcome unknown
	//    replica A goes down; replica B looks in the journal
	//    replica B finds it in doubt; Resolve sends nothing yet: the bank may still be working on it (journal.ErrInFlight)
	//    replica A stays down; replica B's operator, who knows it and that the bank is done with the payment, resolves it (journal.WithWritersStopped)
	//    entry 1 in doubt (payments.CreateNorwegianDomestic, outcome unknown): resolved as "duplicate"
	//    the bank refused the same payment as a logical duplicate: the first one exists
	//    the bank holds 1 payment
}
