package refresh

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/backoff"
	"github.com/tppkit/psd2/internal/panicvalue"
	"github.com/tppkit/psd2/txsync"
)

// historyDays is how far back a query without the PSU reaches: the bank
// gives 90 days (docs/interface.md section 8,
// accounts.HistoryDaysWithoutPSU); one day less leaves room for the
// bank's time zone, as txsync's reach.
const historyDays = txsync.MaxOverlap

// maxEntries bounds the entries one job reads, whatever the budget (each
// page is a call of it, 4 a day by default): a bank whose next links
// never end cannot fill a worker's memory. 64 pages of the 500 entries a
// page holds at most. A read that reaches it ends the job with
// ErrReadTooLarge.
const maxEntries = 64 * 500

// Refresh runs one job now, on the caller's goroutine, and returns its
// result: the per-account step of [Refresher.Run], and of a job engine
// that distributes the jobs itself (the pgstore module's riverrefresh).
//
// It only orchestrates. The job was checked when it was made ([NewJob]).
// The budget (package budget) takes the job's calls, balances and the
// first page of transactions, in one write of the store, all or none,
// with the account's claim for the round, before the first is sent
// (budget.Budget.Reserve); every further call (a next page, a retry) is
// reserved before it is sent, and no call goes out during the bank's
// pause for longer than [WithMaxWait] (see "Slowing down" in the package
// documentation). The pages are read through the accounts iterator
// (accounts.Service.TransactionsIter), and what is new among them is the
// transaction sync's to say ([WithSync]). The transactions query starts
// at the sync's first date ([txsync.Syncer.ResourceFrom]); before the
// sync's first read, and without a sync, at [Job.Since], and without a
// sync never before lookbackDays (5) days before the last refresh
// ([Cursor.RefreshedAt]), so that a refresh reads about one page; never
// before the 90 days the bank gives without the PSU. A nil Refresher
// returns a [Refused] result.
func (r *Refresher) Refresh(ctx context.Context, j Job) Result {
	if r == nil {
		return Result{Job: j, Cursor: j.Cursor, Outcome: Refused, Err: errNilRefresher}
	}
	started := r.now()
	res, rsv, q := r.start(ctx, j, started)
	if rsv != nil {
		a, want, reserved := j.acct, j.want(), rsv.Option()
		var err error
		var e budget.Endpoint // the endpoint of the last call
		cut := false
		if want&Balances != 0 {
			var rep *accounts.BalanceReport
			if a.card {
				e = budget.CardBalances
				rep, err = r.svc.CardBalances(ctx, a.id, a.ro, reserved)
			} else {
				e = budget.Balances
				rep, err = r.svc.Balances(ctx, a.id, a.ro, reserved)
			}
			if err == nil {
				res.Balances = rep.Balances
			}
		}
		if err == nil && q != nil {
			// The pages: the iterator follows the next links (each a call
			// reserved before it is sent) and gives each pending list once.
			// A pending list the platform repeats on a later page, changed
			// between the reads, is gathered once (txsync.PendingPages).
			if a.card {
				e = budget.CardTransactions
				var pend txsync.CardPendingPages
				for tr, terr := range r.svc.CardTransactionsIter(ctx, a.id, q, a.ro, reserved) {
					if err = terr; err != nil {
						break
					}
					if tr.Status == accounts.BookingPending {
						pend.Add(tr)
					} else {
						pend.EndList()
						res.CardBooked = append(res.CardBooked, *tr)
					}
					if cut = len(res.CardBooked)+pend.Len() >= maxEntries; cut {
						break
					}
				}
				res.CardPending = pend.Entries()
			} else {
				e = budget.Transactions
				var pend txsync.PendingPages
				for tr, terr := range r.svc.TransactionsIter(ctx, a.id, q, a.ro, reserved) {
					if err = terr; err != nil {
						break
					}
					switch tr.Status {
					case accounts.BookingPending:
						pend.Add(tr)
					case accounts.BookingBooked:
						pend.EndList()
						res.Booked = append(res.Booked, *tr)
					}
					if cut = len(res.Booked)+pend.Len() >= maxEntries; cut {
						break
					}
				}
				res.Pending = pend.Entries()
			}
		}
		if err == nil && cut {
			// The entries past the cut were never read: a list without
			// them is no refresh (and the sync would not see them).
			err = fmt.Errorf("%w: more than %d", ErrReadTooLarge, maxEntries)
		}
		res = r.finish(ctx, res, rsv, q, e, cut, err, started)
	}
	r.reportRound(ctx, &j, started, &res)
	return res
}

// start checks what running job j at now needs that its making could not
// (its Want, the consent's end, the spacing), works out its transactions
// query, and takes its calls from the budget with the account's claim for
// the round. Without a reservation, res is the job's result: it ended
// without a call.
func (r *Refresher) start(ctx context.Context, j Job, now time.Time) (res Result, rsv *budget.Reservation, q *accounts.TransactionQuery) {
	res = Result{Job: j, Cursor: j.Cursor}
	a, want := j.acct, j.want()
	switch {
	case a == nil:
		return r.fail(ctx, res, fmt.Errorf("%w: not made with NewJob", ErrInvalidJob), ""), nil, nil
	case want&^Both != 0:
		return r.fail(ctx, res, fmt.Errorf("%w: unknown Want %d", ErrInvalidJob, j.Want), ""), nil, nil
	case a.end().IsZero():
		// sca.Session.ConsentValid: a session without a consent (its SCA
		// granted none) or without an SCA time has none to read on.
		return r.fail(ctx, res, fmt.Errorf("%w: the session has no known consent", ErrConsentEnded), ""), nil, nil
	case !now.Before(a.end()):
		return r.fail(ctx, res, ErrConsentEnded, ""), nil, nil
	}
	// A cursor later than now (beyond the budget's margin for clock
	// differences) is no last refresh: a clock that jumped ahead wrote
	// it, and deferring from it would put the account off for as long.
	// The budget's ledger and the round's claim still guard the spend.
	last := j.Cursor.RefreshedAt
	if last.After(now.Add(budget.ClockMargin)) {
		last = time.Time{}
	}
	if due := last.Add(r.spacing); !j.Force && r.spacing > 0 && !last.IsZero() && now.Before(due) {
		res.Outcome, res.RetryAt, res.Deferred, res.Err = BudgetExhausted, due, true, ErrNotDue
		return res, nil, nil
	}
	req := budget.ReserveRequest{AccountID: a.id, Card: a.card, MaxWait: r.maxWait}
	if want&Balances != 0 {
		req.Balances = 1
	}
	if want&Transactions != 0 {
		req.Transactions = 1
		// The sync's first date is read before anything is reserved: an
		// account the sync cannot follow (never linked, its state
		// unreadable) spends no call.
		var syncFrom date.Date
		if r.sync != nil {
			var err error
			if syncFrom, err = r.sync.ResourceFrom(ctx, a.id); err != nil {
				return r.fail(ctx, res, err, ""), nil, nil
			}
		}
		q = &accounts.TransactionQuery{BookingStatus: accounts.BookingBoth, DateFrom: r.from(&j, syncFrom, now)}
	}
	if r.spacing > 0 && !j.Force {
		// The round's claim lasts the spacing, at most budget.MaxClaim
		// (which the budget refuses to exceed) less budget.ClockMargin,
		// so that the client's clock moved back meanwhile (a learned
		// offset) never makes it exceed: a longer spacing is still kept
		// by the cursor (Deferred).
		req.Claim, req.ClaimUntil = j.Claim, now.Add(min(r.spacing, budget.MaxClaim-budget.ClockMargin))
		if req.Claim == "" {
			req.Claim = rand.Text()
		}
	}
	rsv, err := r.budget.Reserve(ctx, req)
	var claimed *budget.ClaimedError
	switch {
	case errors.As(err, &claimed):
		res.Outcome, res.RetryAt, res.Deferred, res.Err = BudgetExhausted, claimed.Until, true, err
		return res, nil, nil
	case err != nil:
		return r.fail(ctx, res, err, ""), nil, nil
	}
	return res, rsv, q
}

// finish ends res, whose calls were made with rsv and ended with err (the
// last of endpoint e): the transactions read (with query q, cut short at
// maxEntries when cut) applied to the sync, the outcome, and the calls not
// used, and after a failure the account's claim, given back.
func (r *Refresher) finish(ctx context.Context, res Result, rsv *budget.Reservation, q *accounts.TransactionQuery, e budget.Endpoint, cut bool, err error, now time.Time) Result {
	res.Calls = rsv.Sent()
	if err == nil && r.sync != nil && q != nil && !cut {
		if a := res.Job.acct; a.card {
			res.Sync, err = r.sync.ApplyCardResource(ctx, a.id, txsync.CardRead{From: q.DateFrom, Booked: res.CardBooked, Pending: res.CardPending})
		} else {
			res.Sync, err = r.sync.ApplyResource(ctx, a.id, txsync.Read{From: q.DateFrom, Booked: res.Booked, Pending: res.Pending})
		}
		if err == nil && r.onDelta != nil {
			err = r.deliverDelta(ctx, res.Sync)
		}
		e = ""
	}
	if err != nil {
		res = r.fail(ctx, res, err, e)
	} else {
		res.Outcome = Done
		res.Cursor.RefreshedAt = now
	}
	// Best effort: a failed write only leaves the calls counted until
	// they expire, and the account claimed until the claim ends.
	// Release writes even when ctx has ended, within budget.SettleWait.
	_ = rsv.Release(ctx, res.Outcome != Done)
	return res
}

// fail ends res with the outcome of err, the error of a call of endpoint
// e (empty: no call): the time to come back, and a log line after a 429
// with Retry-After, which paused the bank.
func (r *Refresher) fail(ctx context.Context, res Result, err error, e budget.Endpoint) Result {
	v := classify(err)
	if wait, ok := r.budget.RateLimit(err); ok && v.budget == nil && v.outcome == BudgetExhausted {
		// 429 ACCESS_EXCEEDED with a Retry-After shorter than the
		// budget's window: a rate limit (budget.Budget.RateLimit), not a
		// spent budget; the job waits as asked (and, for a wait of the
		// account's own, as long as the budget then says, below).
		v.outcome, v.rateLimit, v.retryAfter, v.hasRetry = Transient, true, wait, true
	}
	res.Outcome, res.Err, res.Cursor = v.outcome, err, res.Job.Cursor
	now := r.now()
	if a := res.Job.acct; a != nil && e != "" && v.outcome == ReconnectNeeded {
		// The bank said the consent has ended: the session's other jobs
		// spend no call on it.
		a.learn(err, now)
	}
	switch {
	case v.budget != nil:
		res.RetryAt = v.budget.RetryAt
	case v.paused != nil:
		// The pause is on the system clock; RetryAt on the client's.
		res.RetryAt = now.Add(time.Until(v.paused.Until))
	case v.down != nil:
		// The bank's circuit breaker is open: nothing was sent, and the
		// bank may answer again from its next probe (the client's
		// clock, as RetryAt).
		res.RetryAt = v.down.ProbeAt
		if res.RetryAt.Before(now) {
			res.RetryAt = now
		}
	case v.outcome == BudgetExhausted && e != "":
		// The bank's 429: the budget marked the account spent, until the
		// answer's Retry-After or for a window, which says when the next
		// call is allowed; a Retry-After can only make it later.
		res.RetryAt = now.Add(budget.DefaultWindow + budget.ClockMargin)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), budget.SettleWait)
		if a, err := r.budget.Remaining(rctx, res.Job.AccountID(), e); err == nil && !a.NextAt.IsZero() {
			res.RetryAt = a.NextAt
		}
		cancel()
		if v.hasRetry && now.Add(v.retryAfter).After(res.RetryAt) {
			res.RetryAt = now.Add(v.retryAfter)
		}
	case v.hasRetry:
		res.RetryAt = now.Add(v.retryAfter)
		if v.rateLimit && e != "" && errors.Is(err, client.ErrAccessExceeded) {
			// A rate limit of the account's own (longer than the bank's
			// pause) spent the account's endpoint in the budget until the
			// Retry-After and the clock margin: the job comes back when
			// the budget allows the call, not earlier for a refusal.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), budget.SettleWait)
			if a, err := r.budget.Remaining(rctx, res.Job.AccountID(), e); err == nil && a.Remaining == 0 && a.NextAt.After(res.RetryAt) {
				res.RetryAt = a.NextAt
			}
			cancel()
		}
		if v.rateLimit {
			// The budget paused the bank when the answer came.
			r.log.LogAttrs(ctx, slog.LevelWarn, "refresh paused: the bank answered 429 with Retry-After",
				slog.Duration("wait", v.retryAfter))
		}
	}
	return res
}

// from is the first booking date of job j's transactions query at now:
// the sync's first date when it has one (syncFrom, zero without a sync
// or before its first read), else j.Since, without a sync not before
// lookbackDays before the last refresh; never older than the bank gives
// without the PSU; zero (the bank's default) when nothing says.
func (r *Refresher) from(j *Job, syncFrom date.Date, now time.Time) date.Date {
	var none date.Date
	d := syncFrom
	if d == none {
		d = j.Since
		last := j.Cursor.RefreshedAt
		if last.After(now) {
			last = now // a cursor from a clock ahead: read from today
		}
		if r.sync == nil && !last.IsZero() {
			if start := date.Of(last.UTC().AddDate(0, 0, -lookbackDays)); d == none || d.Before(start) {
				d = start
			}
		}
	}
	if d == none {
		return d
	}
	if floor := date.Of(now.UTC().AddDate(0, 0, -historyDays)); d.Before(floor) {
		d = floor
	}
	return d
}

// callDeltaHook calls the WithDeltaHook function fn with d, its panic
// made an error wrapping ErrHookPanicked: fn runs on a Run worker, a
// goroutine the Refresher owns, where a panic would end the process.
func callDeltaHook(ctx context.Context, fn func(context.Context, *txsync.Delta) error, d *txsync.Delta) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %s", ErrHookPanicked, panicvalue.Describe(v))
		}
	}()
	return fn(ctx, d)
}

// deliverDelta gives d to the WithDeltaHook function, up to
// DeltaHookAttempts times (the delta is not read again once txsync has
// it), a short wait between attempts.
func (r *Refresher) deliverDelta(ctx context.Context, d *txsync.Delta) error {
	var err error
	for attempt := range DeltaHookAttempts {
		if attempt > 0 && !backoff.Sleep(ctx, time.Duration(attempt)*100*time.Millisecond) {
			return fmt.Errorf("refresh: delta hook: %w", err)
		}
		if err = callDeltaHook(ctx, r.onDelta, d); err == nil {
			return nil
		}
	}
	return fmt.Errorf("refresh: delta hook: %w", err)
}
