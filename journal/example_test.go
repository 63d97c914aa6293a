package journal_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// A journal in a store every replica shares (pgstore in production),
// swept for entries in doubt: each goes to Journal.Resolve with a client of
// the TPP and bank it was journaled with.
func Example() {
	ctx := context.Background()
	j, err := journal.New(store.NewMemoryStore(), journal.WithInFlight(5*time.Minute))
	if err != nil {
		fmt.Println(err)
		return
	}
	n := 0
	for e, err := range j.InDoubt(ctx) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
		_ = e // res, err := j.Resolve(ctx, c, e)
	}
	fmt.Println("in doubt:", n)
	fmt.Println("flushed:", j.Flush(ctx) == nil)
	// Output:
	// in doubt: 0
	// flushed: true
}
