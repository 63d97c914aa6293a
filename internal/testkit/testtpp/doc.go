// Package testtpp is the shared scaffolding of the SDK's service tests:
// throwaway TPP credentials, a settable clock, a client on httpmock and a
// client on a running sandbox emulator.
//
// It is imported only by _test.go files; no package of the SDK itself
// depends on it.
//
//   - [Key] and [Credentials]: one throwaway RSA key per test binary and
//     self-signed TPP certificates for it.
//   - [Clock]: a time source tests move by hand, shared by
//     [emulator.WithClock] and [client.WithClock].
//   - [MockClient]: a [client.Client] on [BaseURL] whose requests
//     jarcoal/httpmock answers.
//   - [Server], [NewClient] and [Emulator]: a [emulator.Server] for one
//     test and clients of TPPs registered on it.
//   - [CountingClient]: a client on a stub bank that counts the requests
//     reaching it, for tests of what is refused before sending.
package testtpp
