// Package frames measures the call depth of the SDK: how many stack
// frames lie between a service method (payments.Service.Status,
// accounts.Service.Balances) or a refresh job (refresh.Refresher.Refresh)
// and the HTTP transport, counted from inside a RoundTripper. It holds
// only tests; no package imports it.
//
// testdata/trip.py follows the refresh job of TestRefreshFrames under gdb
// and counts its stays, the visits to the SDK's packages along the whole
// trip, not only the path to the transport; its header says how to run
// it and what it counts.
package frames
