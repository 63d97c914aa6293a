// Package journal records every create whose outcome could be unknown
// (a payment, a signing basket) in a shared [store.Store] before it is
// sent, and what became of it after, so that a TPP that crashed, or got
// [client.ErrOutcomeUnknown], settles it with [Journal.Resolve] without
// ever creating a second one (docs/design.md section 8).
//
// The journal knows URLs and recorded bodies, not products or baskets:
// a service hands [Journal.Hook] its client and a [Create] that says
// which member of the bank's answer names the created resource and how
// the bank refuses a second, identical create. [Journal.Resolve] then
// reads {url}/{id}/status when the id is known, or sends the recorded
// body again (never with allowLogicalDuplicate) and reads the bank's
// answer. Package payments (payments.WithJournal, payments.Service.Resolve)
// and package basket (basket.WithJournal) use it.
//
// # Usage
//
//	j, err := journal.New(st, journal.WithClient(c))
//	pis, err := payments.New(c, payments.WithJournal(j))
//	...
//	for e, err := range j.InDoubt(ctx) {
//		if err != nil { ... }
//		res, err := pis.Resolve(ctx, e) // or j.Resolve(ctx, c, e)
//	}
//
// Options read journal.With…: [WithInFlight], [WithRetention],
// [WithClient], [WithWritersStopped].
//
// The store keys keep the prefixes of the journal's first home, package
// payments ("payments/journal/", "payments/journal-open/",
// "payments/journal-created/"), so that entries written before the move
// are read and resolved as they are.
package journal
