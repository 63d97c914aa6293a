// Package faultmatrix holds only a test: every call that creates something
// at the bank (payments of every kind, signing baskets, starts of
// authorisation), sent through the SDK to the emulator behind
// internal/testkit/faultnet over HTTP/1.1 and HTTP/2, crossed with every network
// and gateway fault. It counts what the bank created and checks the class
// of error the caller got: never a duplicate, ErrOutcomeUnknown wherever
// the request may have been acted on, ErrNotSent wherever nothing left.
package faultmatrix
