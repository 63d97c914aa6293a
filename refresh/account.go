package refresh

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/txsync"
)

// historyDays is how far back a query without the PSU reaches: the bank
// gives 90 days (docs/interface.md section 8); one day less leaves room
// for the bank's time zone.
const historyDays = 89

// maxPages bounds the pages one job reads, whatever the budget: a bank
// whose next links go round in circles cannot keep a worker.
const maxPages = 64

// Refresh runs one job now, on the caller's goroutine, and returns its
// result: the per-account step of [Refresher.Run], for a job engine that
// distributes the jobs itself (the pgstore module's riverrefresh). It
// sends nothing the budget does not allow: the job's calls (balances and
// the first page of transactions) are reserved in one write of the
// store, all or none, before the first is sent
// (accounts.Service.Reserve), with the account's claim for the round;
// every further call (a next page, a retry) is reserved before it is
// sent. It waits out the bank's pause (see "Slowing down" in the package
// documentation) up to [WithMaxWait]. A nil Refresher returns a
// [Refused] result.
func (r *Refresher) Refresh(ctx context.Context, j Job) Result {
	if r == nil {
		return Result{Job: j, Cursor: j.Cursor, Outcome: Refused, Err: errNilRefresher}
	}
	return r.refreshOne(ctx, j)
}

// refreshOne is Refresh on a Refresher, reporting the round
// ([WithRounds]).
func (r *Refresher) refreshOne(ctx context.Context, j Job) Result {
	started := r.now()
	res := r.refreshJob(ctx, j, started)
	r.reportRound(ctx, &j, started, &res)
	return res
}

// refreshJob runs job j, started at now.
func (r *Refresher) refreshJob(ctx context.Context, j Job, now time.Time) Result {
	res := Result{Job: j, Cursor: j.Cursor}
	if j.Session == nil || j.AccountID == "" || j.want()&^Both != 0 {
		return r.fail(ctx, res, fmt.Errorf("%w: no session, no account id or an unknown Want", ErrInvalidJob))
	}
	if err := j.Session.Validate(); err != nil {
		return r.fail(ctx, res, err)
	}
	if !j.covered() {
		return r.fail(ctx, res, fmt.Errorf("%w: the session's consent does not cover the account", ErrInvalidJob))
	}
	if end := j.Session.ConsentExpiresAt(); !end.IsZero() && !now.Before(end) {
		return r.fail(ctx, res, ErrConsentEnded)
	}
	if due := j.Cursor.RefreshedAt.Add(r.spacing); !j.Force && r.spacing > 0 && !j.Cursor.RefreshedAt.IsZero() && now.Before(due) {
		res.Outcome, res.RetryAt, res.Deferred, res.Err = BudgetExhausted, due, true, ErrNotDue
		return res
	}
	var err error
	if at, err := r.waitPause(ctx); err != nil {
		return r.paused(ctx, res, at, err)
	}
	now = r.now()

	want := j.want()
	// The sync's first date is read before anything is reserved: an
	// account the sync cannot follow (never linked, its state unreadable)
	// spends no call.
	var syncFrom date.Date
	if r.sync != nil && want&Transactions != 0 {
		if syncFrom, err = r.sync.ResourceFrom(ctx, j.AccountID); err != nil {
			return r.fail(ctx, res, err)
		}
	}
	// The job's calls, balances and the first page of transactions, are
	// reserved in one write, with the account's claim for the round: all
	// of them or none, so that a job never spends one endpoint's call for
	// nothing when the other's budget is spent, and no other replica
	// refreshes the account in this round.
	req := budget.ReserveRequest{AccountID: j.AccountID, Card: j.Card}
	if want&Balances != 0 {
		req.Balances = 1
	}
	if want&Transactions != 0 {
		req.Transactions = 1
	}
	if r.spacing > 0 && !j.Force {
		req.Claim, req.ClaimUntil = j.Claim, now.Add(r.spacing)
		if req.Claim == "" {
			req.Claim = rand.Text()
		}
	}
	rsv, err := r.budget.Reserve(ctx, req)
	var claimed *budget.ClaimedError
	switch {
	case errors.As(err, &claimed):
		res.Outcome, res.RetryAt, res.Deferred, res.Err = BudgetExhausted, claimed.Until, true, err
		return res
	case err != nil:
		return r.fail(ctx, res, err)
	}
	res = r.call(ctx, j, res, now, syncFrom, rsv.Option())
	// Best effort: a failed write only leaves the calls counted until
	// they expire, and the account claimed until the claim ends.
	_ = rsv.Release(context.WithoutCancel(ctx), res.Outcome != Done)
	return res
}

// call makes the calls of job j, with the option of their reservation,
// into res; syncFrom is the sync's first date (see [WithSync]).
func (r *Refresher) call(ctx context.Context, j Job, res Result, now time.Time, syncFrom date.Date, reserved client.RequestOption) Result {
	want := j.want()
	ro := client.Combine(j.Session.RequestOptions(nil), reserved)
	balances, transactions := budget.Balances, budget.Transactions
	if j.Card {
		balances, transactions = budget.CardBalances, budget.CardTransactions
	}
	if want&Balances != 0 {
		var rep *accounts.BalanceReport
		var err error
		if at, err := r.waitPause(ctx); err != nil {
			return r.paused(ctx, res, at, err)
		}
		if j.Card {
			rep, err = r.svc.CardBalances(ctx, j.AccountID, ro)
		} else {
			rep, err = r.svc.Balances(ctx, j.AccountID, ro)
		}
		if sent(err) {
			res.Calls++
		}
		if err != nil {
			return r.failCall(ctx, res, err, balances)
		}
		res.Balances = rep.Balances
	}
	if want&Transactions != 0 {
		var err error
		if at, err := r.waitPause(ctx); err != nil {
			return r.paused(ctx, res, at, err)
		}
		if j.Card {
			err = r.cardTransactions(ctx, j, &res, ro, now, syncFrom)
		} else {
			err = r.transactions(ctx, j, &res, ro, now, syncFrom)
		}
		if err != nil {
			return r.failCall(ctx, res, err, transactions)
		}
	}
	res.Outcome = Done
	res.Cursor.RefreshedAt = now
	return res
}

// paused ends res after a wait for the bank's pause that failed: at is
// when the pause ends (with ErrPaused), zero when ctx ended.
func (r *Refresher) paused(ctx context.Context, res Result, at time.Time, err error) Result {
	if at.IsZero() {
		return r.fail(ctx, res, err)
	}
	res.Outcome, res.RetryAt, res.Err, res.Cursor = Transient, at, err, res.Job.Cursor
	return res
}

// fail ends res with err's outcome.
func (r *Refresher) fail(ctx context.Context, res Result, err error) Result {
	return r.failCall(ctx, res, err, "")
}

// failCall ends res with the outcome of err, the error of a call of
// endpoint e (empty: no call): the time to come back, and a pause of
// every worker after a 429 with Retry-After.
func (r *Refresher) failCall(ctx context.Context, res Result, err error, e budget.Endpoint) Result {
	v := classify(err)
	res.Outcome, res.Err, res.Cursor = v.outcome, err, res.Job.Cursor
	now := r.now()
	switch {
	case v.budget != nil:
		res.RetryAt = v.budget.RetryAt
	case v.outcome == BudgetExhausted && e != "":
		// The bank's 429: the client marked the budget spent, until the
		// answer's Retry-After or for a window, which says when the
		// next call is allowed; a Retry-After can only make it later.
		res.RetryAt = now.Add(budget.DefaultWindow + budget.ClockMargin)
		if a, err := r.budget.Remaining(context.WithoutCancel(ctx), res.Job.AccountID, e); err == nil && !a.NextAt.IsZero() {
			res.RetryAt = a.NextAt
		}
		if v.hasRetry && now.Add(v.retryAfter).After(res.RetryAt) {
			res.RetryAt = now.Add(v.retryAfter)
		}
	case v.hasRetry:
		res.RetryAt = now.Add(v.retryAfter)
		if v.rateLimit {
			// The accounts.Service paused the bank when the answer came.
			r.log.LogAttrs(ctx, slog.LevelWarn, "refresh paused: the bank answered 429 with Retry-After",
				slog.Duration("wait", v.retryAfter))
		}
	}
	return res
}

// from is the first booking date a job's transactions query asks for:
// the later of the start of its cursor's window (lookbackDays before its
// Date) and Since, not older than the bank gives without the PSU; zero
// when neither is set.
func from(j *Job, now time.Time) date.Date {
	d, start := j.Since, windowStart(j.Cursor.Date)
	if d.IsZero() || d.Before(start) {
		d = start
	}
	if floor := date.Of(now.UTC().AddDate(0, 0, -historyDays)); !d.IsZero() && d.Before(floor) {
		d = floor
	}
	return d
}

// syncedFrom is the first booking date of a query from q (see from) with
// the sync's syncFrom ([txsync.Syncer.ResourceFrom], zero without a sync
// or before its first read): the earlier of the two, so that the read
// covers the sync's overlap window too, not older than the bank gives
// without the PSU. A zero q (the bank's default) stays zero.
func syncedFrom(q, syncFrom date.Date, now time.Time) date.Date {
	if q.IsZero() || syncFrom.IsZero() || !syncFrom.Before(q) {
		return q
	}
	if floor := date.Of(now.UTC().AddDate(0, 0, -historyDays)); syncFrom.Before(floor) {
		return floor
	}
	return syncFrom
}

// transactions reads the new transactions of an account into res and
// advances res.Cursor; with a sync ([WithSync]) it applies the read to
// the sync into res.Sync.
func (r *Refresher) transactions(ctx context.Context, j Job, res *Result, ro client.RequestOption, now time.Time, syncFrom date.Date) error {
	q := &accounts.TransactionQuery{BookingStatus: accounts.BookingBoth, DateFrom: syncedFrom(from(&j, now), syncFrom, now)}
	first := func() (pageOf[accounts.Transaction], error) {
		p, err := r.svc.Transactions(ctx, j.AccountID, q, ro)
		return accountPage(p), err
	}
	next := func(href string) (pageOf[accounts.Transaction], error) {
		if _, err := r.waitPause(ctx); err != nil {
			return pageOf[accounts.Transaction]{}, err
		}
		p, err := r.svc.NextTransactions(ctx, j.AccountID, href, ro)
		return accountPage(p), err
	}
	booked, pending, calls, cut, err := readPages(first, next)
	res.Calls += calls
	if r.sync != nil && err == nil && !cut {
		// Before keepNew, which compacts booked in place: the sync
		// compares every entry read, not only the new ones.
		res.Sync, err = r.sync.ApplyResource(ctx, j.AccountID, txsync.Read{From: q.DateFrom, Booked: booked, Pending: pending})
	}
	dates, ids := make([]date.Date, len(booked)), make([]string, len(booked))
	for i := range booked {
		dates[i], ids[i] = booked[i].BookingDate, booked[i].TransactionID
	}
	res.Booked = keepNew(booked, j.Cursor, dates, ids)
	res.Pending = pending
	if err == nil {
		res.Cursor = j.Cursor.advance(dates, ids, q.DateFrom)
	}
	return err
}

// keepNew returns the entries of booked the cursor has not seen (entry i
// has dates[i] and ids[i]), in order, in booked's own array (an entry is
// a large struct: no copy is made); nil when none is new.
func keepNew[T any](booked []T, c Cursor, dates []date.Date, ids []string) []T {
	kept := booked[:0]
	for i := range booked {
		if c.isNew(dates[i], ids[i]) {
			kept = append(kept, booked[i])
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// cardTransactions is transactions for a card account.
func (r *Refresher) cardTransactions(ctx context.Context, j Job, res *Result, ro client.RequestOption, now time.Time, syncFrom date.Date) error {
	q := &accounts.TransactionQuery{BookingStatus: accounts.BookingBoth, DateFrom: syncedFrom(from(&j, now), syncFrom, now)}
	first := func() (pageOf[accounts.CardTransaction], error) {
		p, err := r.svc.CardTransactions(ctx, j.AccountID, q, ro)
		return cardPage(p), err
	}
	next := func(href string) (pageOf[accounts.CardTransaction], error) {
		if _, err := r.waitPause(ctx); err != nil {
			return pageOf[accounts.CardTransaction]{}, err
		}
		p, err := r.svc.NextCardTransactions(ctx, j.AccountID, href, ro)
		return cardPage(p), err
	}
	booked, pending, calls, cut, err := readPages(first, next)
	res.Calls += calls
	if r.sync != nil && err == nil && !cut {
		res.Sync, err = r.sync.ApplyCardResource(ctx, j.AccountID, txsync.CardRead{From: q.DateFrom, Booked: booked, Pending: pending})
	}
	dates, ids := make([]date.Date, len(booked)), make([]string, len(booked))
	for i := range booked {
		dates[i], ids[i] = booked[i].BookingDate, booked[i].CardTransactionID
		if dates[i].IsZero() {
			dates[i] = booked[i].TransactionDate
		}
	}
	res.CardBooked = keepNew(booked, j.Cursor, dates, ids)
	res.CardPending = pending
	if err == nil {
		res.Cursor = j.Cursor.advance(dates, ids, q.DateFrom)
	}
	return err
}

// pageOf is what readPages needs of a transactions page.
type pageOf[T any] struct {
	booked, pending []T
	next            string
}

func accountPage(p *accounts.TransactionsPage) pageOf[accounts.Transaction] {
	if p == nil {
		return pageOf[accounts.Transaction]{}
	}
	return pageOf[accounts.Transaction]{booked: p.Booked, pending: p.Pending, next: p.Next()}
}

func cardPage(p *accounts.CardTransactionsPage) pageOf[accounts.CardTransaction] {
	if p == nil {
		return pageOf[accounts.CardTransaction]{}
	}
	return pageOf[accounts.CardTransaction]{booked: p.Booked, pending: p.Pending, next: p.Next()}
}

// readPages reads the first page and the pages its next links lead to,
// each a call counted in the budget (refused before sending when the
// budget is spent). It returns the booked entries of every page and the
// pending entries once: a bank with the known issue of docs/interface.md
// section 8 repeats the whole pending list on every page, and a page
// whose pending list is the previous page's adds nothing. cut is set
// when it stopped at maxPages with a next link left: the read is not the
// bank's whole list.
func readPages[T any](first func() (pageOf[T], error), next func(string) (pageOf[T], error)) (booked, pending []T, calls int, cut bool, err error) {
	page, err := first()
	seen := map[string]bool{}
	var lastPending []byte
	for n := 1; ; n++ {
		if sent(err) {
			calls++
		}
		if err != nil {
			return booked, pending, calls, false, err
		}
		if booked == nil {
			booked = page.booked // the page is not used again: no copy
		} else {
			booked = append(booked, page.booked...)
		}
		if n == 1 {
			pending = page.pending
		} else if len(page.pending) > 0 {
			if lastPending == nil {
				lastPending, _ = json.Marshal(pending)
			}
			b, _ := json.Marshal(page.pending)
			if !bytes.Equal(b, lastPending) {
				pending = append(pending, page.pending...)
				lastPending = b
			}
		}
		if page.next == "" || seen[page.next] {
			return booked, pending, calls, false, nil
		}
		if n >= maxPages {
			return booked, pending, calls, true, nil
		}
		seen[page.next] = true
		href := page.next
		page, err = next(href)
	}
}
