package accounts

import (
	"errors"
	"strconv"
	"testing"
)

// A bank whose next links never repeat is asked for MaxPages pages, no
// more: the next link past them ends the loop with ErrTooManyPages.
func TestFollowStopsAtMaxPages(t *testing.T) {
	t.Parallel()
	asked := 0
	page := func(n int) pageView[Transaction] {
		return pageView[Transaction]{booked: []Transaction{{TransactionID: "t" + strconv.Itoa(n)}},
			next: "/v1/accounts/a/transactions?page=" + strconv.Itoa(n+1)}
	}
	first := func() (pageView[Transaction], error) { asked++; return page(0), nil }
	next := func(href string) (pageView[Transaction], error) {
		asked++
		p := page(asked)
		if asked > MaxPages+5 {
			p.next = "" // the test's bank ends somewhere, past the bound
		}
		return p, nil
	}
	entries := 0
	var last error
	for tr, err := range follow(first, next, func(h string) string { return h }, "") {
		if err != nil {
			last = err
			continue
		}
		if tr != nil {
			entries++
		}
	}
	if !errors.Is(last, ErrTooManyPages) {
		t.Fatalf("the loop ended with %v, want ErrTooManyPages", last)
	}
	if asked != MaxPages || entries != MaxPages {
		t.Fatalf("asked for %d pages and yielded %d entries, want %d of each", asked, entries, MaxPages)
	}
}
