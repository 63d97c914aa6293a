// Package journal records every create whose outcome could be unknown
// (a payment, a signing basket) in a shared [store.Store] before it is
// sent, and what became of it after, so that a TPP that crashed, or got
// [client.ErrOutcomeUnknown], settles it with [Journal.Resolve] without
// ever creating a second one (docs/design.md section 8).
//
// # What a create records
//
// The journal knows URLs and recorded bodies, not products or the
// resources they create. The service that makes a create describes it:
// it hands [Journal.Hook] its client, and a [Create] that says which
// member of the bank's answer names the created resource and how the
// bank refuses a second, identical create; the entry's Operation is the
// service's name for the call. [Journal.Resolve] then reads
// {path}/{id}/status when the id is known, or sends the recorded body
// again (never with allowLogicalDuplicate) and reads the bank's answer.
// Package payments (payments.WithJournal) and package basket
// (basket.WithJournal) attach the hook; whoever resolves calls
// [Journal.Resolve] with a client of the same TPP and bank, and decodes
// the Answer of a resend that created the resource into its own type.
//
// # Usage
//
//	j, err := journal.New(st, journal.WithClient(c))
//	if err != nil {
//		return err
//	}
//	pis, err := payments.New(c, payments.WithJournal(j))
//	// pis creates payments; after a crash, or client.ErrOutcomeUnknown:
//	for e, err := range j.InDoubt(ctx) {
//		if err != nil {
//			return err
//		}
//		res, err := j.Resolve(ctx, c, e)
//		if err != nil {
//			return err // the entry stays in doubt: resolve it later
//		}
//		if res.Kind == journal.ResolvedCreated {
//			var init payments.Initiation
//			if err := json.Unmarshal(res.Answer, &init); err != nil {
//				return err
//			}
//			// send the PSU to init.SCARedirect(): the payment awaits approval
//		}
//	}
//
// Options read journal.With…: [WithInFlight], [WithRetention],
// [WithClient], [WithWritersStopped].
//
// # People and resolvers
//
// An operator settles an entry the SDK cannot settle with
// [Journal.SettleByPerson]. A Resolve claims the entry before it sends
// its create again, and a settlement is refused while the claim lives
// ([ErrClaimed]), so that no settlement is made while a resend may be
// creating the resource; a person's settlement is never replaced by a
// resolution ([ErrConflict]). The entry's Trail keeps what was replaced
// or refused.
//
// # Store keys
//
// Entries are kept under "journal/entry/", a marker per entry that may
// be in doubt under "journal/open/", and a created id the entry could
// not take at once under "journal/created/", each followed by the
// escaped X-Request-ID. Versions before these keys wrote under the
// prefixes of the journal's first home ("payments/journal/",
// "payments/journal-open/", "payments/journal-created/"): those entries
// are still found ([Journal.Entry]), listed ([Journal.Entries],
// [Journal.InDoubt]), settled and resolved where they are, and leave
// with their retention.
//
// # Lost entries
//
// An open marker whose entry is missing (deleted, or lost with the
// store's data, while its create was not settled) is the only trace of a
// payment that may exist. The journal never removes it of its own:
// [Journal.Lost] yields it, [Journal.Entry] answers [ErrLost] for it, and
// [Journal.SettleByPerson] records a person's settlement of it (an entry
// with Lost set) and then removes it.
package journal
