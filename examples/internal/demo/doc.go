// Package demo is the setup the runnable examples share, so that each
// example's main.go shows only what it is about.
//
// # The bank
//
// [Start] starts the embedded bank sandbox (package sandbox/emulator) and a
// client for a throwaway TPP it trusts. [Consent] has sandbox customer
// 13039319955 grant account access through the emulator's Authorize and
// returns the session and her accounts; [Balance] reads an account's booked
// balance. Against the emulator nothing listens at [RedirectURI]: the
// emulator returns the callback URL instead of sending a browser to it.
//
// # Running an example
//
// Each example is a function run(ctx, out) that prints its steps to out.
// [Main] is its main function; [Example] runs it in an Example test, whose
// // Output: block then shows either the output or the error; [Run] runs it
// in a test and returns what it printed.
package demo
