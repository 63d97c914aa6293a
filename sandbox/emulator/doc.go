// Package emulator is an in-process bank sandbox for tests: an HTTPS server
// on the loopback interface that speaks the interface of SERVICE.md with the
// paths and shapes of the platform, and checks every request as the bank
// does.
package emulator
