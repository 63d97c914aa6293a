// Package frames measures the call depth of the SDK: how many stack
// frames lie between a service method (payments.Service.Status,
// accounts.Service.Balances) and the HTTP transport, counted from inside
// a RoundTripper. It holds only tests; no package imports it.
package frames
