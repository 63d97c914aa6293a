package accounts

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash/maphash"
	"iter"
	"net/url"
	"strings"

	"github.com/tppkit/psd2/client"
)

// TransactionsIter returns an iterator over an account's transactions:
// each page's booked entries, then its pending ones, following the pages'
// next links.
//
// The iterator is lazy: nothing is sent until the loop starts, one page is
// held in memory at a time, and break stops fetching. An error (including
// a *budget.ExhaustedError) is yielded once, with a nil transaction, and
// ends the loop. Next links are followed only when they are transactions
// links of the same account on the bank's base URL (a link to another
// host gives [client.ErrForeignHost], another path [ErrUnexpectedLink]);
// a next link already followed (or the page's self link), however spelt
// (absolute or relative, its parameters in another order), ends the loop
// quietly, as nothing new can be read from it, and a next link past
// [MaxPages] pages ends it with [ErrTooManyPages]. A page whose list of
// entries (or whose transactions object) is not what the interface sends
// ends it with [ErrUnreadableList] before any of its entries: yielded as
// none, they would read as an account without them. A yielded *Transaction points into the current page:
// keep a copy (*tr), not the pointer, so that earlier pages can be freed.
//
// Known issue (docs/interface.md section 8): with BookingBoth (the default) or
// BookingPending, the production platform sends all pending entries on
// every page, unfiltered by DateFrom, DateTo and Limit. When a page's
// pending list is exactly the list already yielded, the iterator skips it,
// so each pending entry is yielded once; pending entries outside the
// requested dates may still appear.
//
// Without the PSU present every page counts against the account's budget
// of 4 transactions calls per 24 hours: an iteration over more pages than
// the budget allows ends with budget.ErrExhausted.
func (s *Service) TransactionsIter(ctx context.Context, accountID string, q *TransactionQuery, ro ...client.RequestOption) iter.Seq2[*Transaction, error] {
	first := func() (pageView[Transaction], error) {
		p, err := s.Transactions(ctx, accountID, q, ro...)
		return transactionsView(p), err
	}
	next := func(href string) (pageView[Transaction], error) {
		p, err := s.transactionsAt(ctx, "accounts.TransactionsIter", href, accountID, nil, ro)
		return transactionsView(p), err
	}
	return follow(first, next, s.pageKey(), firstHref(accountsCollection, accountID, q))
}

// CardTransactionsIter is [Service.TransactionsIter] for a card account's
// transactions.
func (s *Service) CardTransactionsIter(ctx context.Context, cardAccountID string, q *TransactionQuery, ro ...client.RequestOption) iter.Seq2[*CardTransaction, error] {
	first := func() (pageView[CardTransaction], error) {
		p, err := s.CardTransactions(ctx, cardAccountID, q, ro...)
		return cardTransactionsView(p), err
	}
	next := func(href string) (pageView[CardTransaction], error) {
		p, err := s.cardTransactionsAt(ctx, "accounts.CardTransactionsIter", href, cardAccountID, nil, ro)
		return cardTransactionsView(p), err
	}
	return follow(first, next, s.pageKey(), firstHref(cardAccountsCollection, cardAccountID, q))
}

// pageView is what the iterator needs of a page.
type pageView[T any] struct {
	booked, pending []T
	pendingSum      [sha256.Size]byte
	self, next      string
	// unreadable names the member holding the page's entries that is
	// not what the interface sends ("" when every one is readable).
	unreadable string
}

func transactionsView(p *TransactionsPage) pageView[Transaction] {
	if p == nil {
		return pageView[Transaction]{}
	}
	return pageView[Transaction]{booked: p.Booked, pending: p.Pending, pendingSum: p.pendingSum,
		self: p.Links.Href(client.LinkSelf), next: p.Next(),
		unreadable: unreadableList(p.Extra, p.ReportExtra, "transactions", "booked", "pending", "information")}
}

func cardTransactionsView(p *CardTransactionsPage) pageView[CardTransaction] {
	if p == nil {
		return pageView[CardTransaction]{}
	}
	return pageView[CardTransaction]{booked: p.Booked, pending: p.Pending, pendingSum: p.pendingSum,
		self: p.Links.Href(client.LinkSelf), next: p.Next(),
		unreadable: unreadableList(p.Extra, p.ReportExtra, "cardTransactions", "booked", "pending")}
}

// unreadableList returns the name of the member of a page that holds its
// entries but could not be read as the interface sends it, "" when there
// is none: the report object (named report) among the page's extra
// members, or one of its lists among the report's. Decoding keeps such a
// member in Extra or ReportExtra and leaves the field empty, so that one
// odd member never fails a whole answer; but an iteration that yielded
// the page's entries as none would tell its reader that the account has
// none (txsync would report every entry it tracks removed).
func unreadableList(extra, reportExtra Extra, report string, lists ...string) string {
	if _, ok := extra.Get(report); ok {
		return report
	}
	for _, name := range lists {
		if _, ok := reportExtra.Get(name); ok {
			return report + "." + name
		}
	}
	return ""
}

// MaxPages bounds the pages one iteration ([Service.TransactionsIter],
// [Service.CardTransactionsIter]) reads: with the PSU present no budget
// bounds them, and a bank whose next links never repeat would otherwise
// be asked for pages without end. 10,000 pages hold millions of entries,
// more than any account's history; the page past it ends the loop with
// [ErrTooManyPages], unsent.
const MaxPages = 10_000

// pageKey returns the function that gives the page a self or next link
// names, as the loop check of follow compares links: its path, unescaped,
// under the base URL's path (a relative href is placed under it, as the
// client places it) and its query with the parameters in sorted order.
// The bank may spell one page in several ways (absolute or relative, its
// parameters in another order), and a link back to a page already read,
// compared as written, would be read again: its entries yielded twice and,
// without the PSU, one of the account's 4 calls a day spent. A link that
// does not parse, or names another host, is its own key.
func (s *Service) pageKey() func(string) string {
	basePath, baseHost := "", ""
	if b, err := url.Parse(s.c.BaseURL()); err == nil {
		basePath, baseHost = strings.TrimRight(b.Path, "/"), b.Host
	}
	return func(href string) string {
		u, err := url.Parse(href)
		if err != nil || u.Host != "" && !strings.EqualFold(u.Host, baseHost) {
			// Unread, or on another host, which the client refuses
			// with its own error: never taken for a page read.
			return href
		}
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			return href
		}
		p := u.Path
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		if basePath != "" && !strings.HasPrefix(p, basePath+"/") {
			p = basePath + p
		}
		return p + "?" + q.Encode()
	}
}

// firstHref is the href of the first page's call of the account id of
// collection with query q, as a link of the bank would name it, or ""
// when q is refused (the call is not sent). A page need not carry a self
// link, and a next link back to the first page is a loop too.
func firstHref(collection, id string, q *TransactionQuery) string {
	v, err := q.values()
	if err != nil {
		return ""
	}
	u := url.URL{Path: collection + id + transactionsSuffix, RawQuery: v.Encode()}
	return u.String()
}

// follow yields the entries of the first page and of the pages its next
// links lead to, at most MaxPages. It keeps one page and a 64-bit hash of
// every link seen (the first page's, firstHref, included), compared as
// key gives them.
func follow[T any](first func() (pageView[T], error), next func(string) (pageView[T], error), key func(string) string, firstHref string) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		seed := maphash.MakeSeed()
		seen := map[uint64]struct{}{}
		mark := func(href string) {
			if href != "" {
				seen[maphash.String(seed, key(href))] = struct{}{}
			}
		}
		var lastPending [sha256.Size]byte
		pages := 0 // pages read before page
		mark(firstHref)
		page, err := first()
		for {
			if err == nil && page.unreadable != "" {
				// Before any of the page's entries: a reader keeps none
				// of a page it cannot read whole.
				err = fmt.Errorf("%w: %s", ErrUnreadableList, page.unreadable)
			}
			if err != nil {
				yield(nil, err)
				return
			}
			mark(page.self)
			for i := range page.booked {
				if !yield(&page.booked[i], nil) {
					return
				}
			}
			if len(page.pending) > 0 && page.pendingSum != lastPending {
				lastPending = page.pendingSum
				for i := range page.pending {
					if !yield(&page.pending[i], nil) {
						return
					}
				}
			}
			href := page.next
			if href == "" {
				return
			}
			if _, dup := seen[maphash.String(seed, key(href))]; dup {
				return
			}
			if pages++; pages >= MaxPages {
				yield(nil, ErrTooManyPages)
				return
			}
			mark(href)
			page = pageView[T]{} // release the page before fetching the next
			page, err = next(href)
		}
	}
}
