// Command sync keeps an AISP's transaction ledger true through a month of
// a bank's surprises, with package txsync: each day the bank (the
// embedded sandbox, package sandbox/emulator, with the production
// platform's known issues) books card purchases under new ids and other
// amounts, drops reservations, lists identical twins, gives booked
// entries new ids, and halfway the PSU's new consent lists the accounts
// under new resource ids. Each round prints the sync's added, changed and
// removed entries, and the month ends with the ledger scored against the
// bank's list, next to the ledger a "new booked" cursor gives (what
// package refresh kept before txsync).
// The sandbox's clock is simulated, so the month takes a moment.
//
//	go run ./examples/sync
package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/internal/testkit/syncscript"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

func main() {
	demo.Main("sync", run)
}

func run(ctx context.Context, out io.Writer) error {
	w, err := syncscript.Start(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	// The sync's state lives in the SDK's store: give every replica the
	// same one (a file store on a shared disk, the PostgreSQL store).
	s, err := txsync.New(store.NewMemoryStore(), txsync.WithClock(w.Clock.Now))
	if err != nil {
		return err
	}
	names := map[txsync.AccountKey]string{}
	round := func(r syncscript.Round) {
		fmt.Fprintf(out, "day %d\n", r.Day)
		for _, e := range r.Events {
			fmt.Fprintf(out, "  bank: %s\n", e)
		}
		if r.Linked != nil {
			for i, a := range r.Linked.Accounts {
				if names[a.Key] == "" {
					names[a.Key] = fmt.Sprintf("account %d", i+1)
				}
				fmt.Fprintf(out, "  linked %s: new=%t\n", names[a.Key], a.New)
			}
			for _, k := range r.Linked.Gone {
				fmt.Fprintf(out, "  %s is no longer listed\n", names[k])
			}
		}
		for _, d := range r.Deltas {
			for _, e := range d.Added {
				fmt.Fprintf(out, "  %s added   %s\n", names[d.Account], syncscript.FactOf(e.Transaction))
			}
			for _, c := range d.Changed {
				fmt.Fprintf(out, "  %s changed %s (%s; was %s %s)\n", names[d.Account], syncscript.FactOf(c.Transaction),
					c.What, c.Previous.Status, c.Previous.Amount)
			}
			for _, r := range d.Removed {
				fmt.Fprintf(out, "  %s removed %s %s %s (%s)\n", names[d.Account], r.Previous.Status, r.Previous.Amount,
					r.Previous.Text, r.Reason)
			}
		}
	}
	res, err := syncscript.Month(ctx, w, s, round)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\n%d rounds; ledgers against the bank's list:\n", res.Rounds)
	fmt.Fprintf(out, "  %-30s duplicates %3d  missed %3d  false changes %3d\n", "txsync", res.Sync.Duplicates, res.Sync.Missed, res.Sync.FalseChanges)
	fmt.Fprintf(out, "  %-30s duplicates %3d  missed %3d\n", "new-booked cursor", res.Cursor.Duplicates, res.Cursor.Missed)
	fmt.Fprintf(out, "  %-30s duplicates %3d  missed %3d\n", "new-booked cursor, carried over", res.CursorCarried.Duplicates, res.CursorCarried.Missed)
	fmt.Fprintf(out, "sync state: at most %d bytes per account\n", res.StateBytes)
	return nil
}
