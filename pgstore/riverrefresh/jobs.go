package riverrefresh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/panicvalue"
	"github.com/tppkit/psd2/pgstore/internal/pgretry"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// Args are a refresh job's arguments, as River stores them: the bank, the
// session by the key it is stored under (sca.SaveSession), the account
// by budget.Key (a hash of its id, the key of its budget in the store)
// and the round. No account id, IBAN, BBAN, PSU-ID
// or TPP-Session-ID is written. A job is unique per account and round
// (all its fields).
//
// The session's key is written as the TPP chose it, and River's tables
// and River UI show it to whoever operates the queues: key sessions by an
// opaque id (a user id, a random id), never by an e-mail address, a name
// or a national identity number.
type Args struct {
	Bank    string `json:"bank" river:"unique"`
	Session string `json:"session" river:"unique"`
	Account string `json:"account" river:"unique"`
	Card    bool   `json:"card,omitempty" river:"unique"`
	Round   int64  `json:"round" river:"unique"`

	// undecodable: River's stored arguments did not decode as Args.
	undecodable bool
	// retryAt is the earliest time, on the system clock, at which River
	// may run the job again after its attempt failed: when the bank
	// said (a Retry-After on a failure), else zero (River's backoff).
	// Work sets it, NextRetry reads it; it is never stored.
	retryAt time.Time
}

// Kind is River's kind of a refresh job.
func (Args) Kind() string { return "psd2_refresh" }

// UnmarshalJSON decodes a job's arguments as River stores them. Arguments
// that do not decode as Args (not an object, a field of another type)
// give an Args the engine ends for good (River's JobCancel, a "discarded"
// Event), since no run of the job could decode them; left to River, a
// decoding error is retried 25 times.
func (a *Args) UnmarshalJSON(b []byte) error {
	type plain Args // Args without this method
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		*a = Args{undecodable: true}
		return nil
	}
	*a = Args(v)
	return nil
}

// ScheduleArgs are the arguments of the periodic job that enqueues a
// bank's round.
type ScheduleArgs struct {
	Bank string `json:"bank"`

	// undecodable: River's stored arguments did not decode as
	// ScheduleArgs.
	undecodable bool
}

// Kind is River's kind of a schedule job.
func (ScheduleArgs) Kind() string { return "psd2_refresh_schedule" }

// UnmarshalJSON decodes a schedule job's arguments as River stores them.
// Arguments that do not decode give a ScheduleArgs the scheduler ends
// for good (River's JobCancel), as Args does.
func (a *ScheduleArgs) UnmarshalJSON(b []byte) error {
	type plain ScheduleArgs // ScheduleArgs without this method
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		*a = ScheduleArgs{undecodable: true}
		return nil
	}
	*a = ScheduleArgs(v)
	return nil
}

// scheduleWorker enqueues a bank's current round.
type scheduleWorker struct {
	river.WorkerDefaults[ScheduleArgs]
	e *Engine
}

// Timeout is the engine's ScheduleEvery, not its JobTimeout (which
// bounds one account's refresh): enqueuing a round of many thousand
// accounts takes seconds, and the next period enqueues again anyway.
func (w *scheduleWorker) Timeout(*river.Job[ScheduleArgs]) time.Duration {
	return w.e.cfg.ScheduleEvery
}

// Work enqueues the bank's round (Engine.Enqueue). A job that can never
// succeed ends at once, for good, through River's JobCancel (never
// retried): its arguments do not decode, or its bank is not one of the
// engine's (a bank removed from Config.Banks while its job waited; the
// engines that have it insert its next job). Its error names the bank
// only when it is a bank name.
func (w *scheduleWorker) Work(ctx context.Context, job *river.Job[ScheduleArgs]) (err error) {
	defer w.e.recoverJob(ctx, "schedule", job.Args.Bank, &err)
	a := job.Args
	if a.undecodable {
		return river.JobCancel(errors.New("riverrefresh: the schedule job's arguments do not decode"))
	}
	if _, ok := w.e.banks[a.Bank]; !ok {
		name := ""
		if bankName.MatchString(a.Bank) {
			name = a.Bank // else a text the engine never wrote: not repeated
		}
		return river.JobCancel(fmt.Errorf("riverrefresh: schedule: bank %q is not one of the engine's", name))
	}
	_, err = w.e.Enqueue(ctx, a.Bank)
	return err
}

// insertBatch is how many jobs Enqueue inserts at once (one River
// InsertMany, one transaction): 500 jobs of about 150 bytes of arguments
// each, a round of 100,000 accounts in 200 statements.
const insertBatch = 500

// Enqueue enqueues the current round of bank: one job per account and
// card account that the bank's stored sessions remember, but those whose
// consent has ended. A stored session that does not decode or is not
// valid (sca.ErrUndecodableSession, sca.ErrInvalidSession) gives no job,
// and the sessions after it go on; their number is logged at Warn
// through Config.Logger, without their keys. A job already enqueued for
// the account in this round (by any engine, in one of River's unique
// states: all but cancelled and discarded) is not enqueued again. It returns the number of jobs
// inserted.
//
// The jobs are inserted in batches of 500 (River's InsertMany, unique by
// their arguments: two engines enqueuing the same round at once insert
// each job once). The jobs the round already has are read first, in one
// query, and left out of the batches: River's unique insert would skip
// them too, but only by rewriting each one's row (its ON CONFLICT DO
// UPDATE), which for a round of 100,000 accounts enqueued again every
// ScheduleEvery took half a minute and locked the rows of running jobs.
func (e *Engine) Enqueue(ctx context.Context, name string) (int, error) {
	b, ok := e.banks[name]
	if !ok {
		return 0, fmt.Errorf("riverrefresh: unknown bank %q", name)
	}
	now := b.budget.Now()
	round := e.Round(now)
	have, err := e.enqueued(ctx, name, round)
	if err != nil {
		return 0, fmt.Errorf("riverrefresh: enqueue: %w", err)
	}
	opts := &river.InsertOpts{Queue: queueOf(name), UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: uniqueStates}}
	var batch []river.InsertManyParams
	inserted := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		// A batch whose statements never all reached the server (a dead
		// idle connection after a restart) is inserted again at once:
		// the jobs are unique by their arguments, so a batch inserted
		// twice inserts each job once (pgretry.Idempotent).
		var res []*rivertype.JobInsertResult
		err := pgretry.Idempotent(ctx, e.cfg.Pool, func() (err error) {
			res, err = e.client.InsertMany(ctx, batch)
			return err
		})
		if err != nil {
			return fmt.Errorf("riverrefresh: enqueue: %w", err)
		}
		for _, r := range res {
			if !r.UniqueSkippedAsDuplicate {
				inserted++
			}
		}
		batch = batch[:0]
		return nil
	}
	unreadable := 0
	for s, err := range sca.ListSessions(ctx, b.Sessions) {
		if errors.Is(err, sca.ErrUndecodableSession) || errors.Is(err, sca.ErrInvalidSession) {
			// No run can read it: the PSU must consent again. The
			// sessions after it go on.
			unreadable++
			continue
		}
		if err != nil {
			return inserted, fmt.Errorf("riverrefresh: sessions: %w", err)
		}
		if end := s.ConsentExpiresAt(); !end.IsZero() && !now.Before(end) {
			continue
		}
		for _, a := range []struct {
			ids  []string
			card bool
		}{{s.AccountIDs, false}, {s.CardAccountIDs, true}} {
			for _, id := range a.ids {
				args := Args{Bank: name, Session: s.Key, Account: budget.Key(id, a.card), Card: a.card, Round: round}
				if _, ok := have[jobKey{args.Session, args.Account, args.Card}]; ok {
					continue
				}
				batch = append(batch, river.InsertManyParams{Args: args, InsertOpts: opts})
				if len(batch) == insertBatch {
					if err := flush(); err != nil {
						return inserted, err
					}
				}
			}
		}
	}
	if unreadable > 0 {
		e.cfg.Logger.WarnContext(ctx, "riverrefresh: stored sessions that do not decode or are not valid were left out of the round: their PSUs must consent again",
			slog.String("bank", name), slog.Int("sessions", unreadable))
	}
	return inserted, flush()
}

// jobKey is what makes a refresh job of a bank and round unique: its
// session key, account key and card flag.
type jobKey struct {
	session, account string
	card             bool
}

// enqueued returns the keys of the refresh jobs of bank and round that
// River holds in one of the engine's unique states (uniqueStates: every
// state, cancelled and discarded included, so that an account has one
// job per round whatever its end), read in one query through River's
// index of the arguments (GIN, for @>). It holds the round's keys in
// memory, some 100 bytes per account: 10 MB for 100,000 accounts. No
// cast of an argument can fail: arguments the engine did not write give
// keys no account of the round has.
func (e *Engine) enqueued(ctx context.Context, bank string, round int64) (map[jobKey]struct{}, error) {
	var states []string
	for _, st := range uniqueStates {
		states = append(states, string(st))
	}
	table := pgx.Identifier{"river_job"}
	if e.cfg.Schema != "" {
		table = pgx.Identifier{e.cfg.Schema, "river_job"}
	}
	match, err := json.Marshal(struct {
		Bank  string `json:"bank"`
		Round int64  `json:"round"`
	}{bank, round})
	if err != nil {
		return nil, err
	}
	// A query that met a dead connection (after a restart or a failover)
	// runs again at once on another (pgretry.Statement).
	var have map[jobKey]struct{}
	err = pgretry.Statement(ctx, e.cfg.Pool, func() error {
		rows, err := e.cfg.Pool.Query(ctx, "SELECT coalesce(args->>'session', ''), coalesce(args->>'account', ''), coalesce(args->'card' = 'true'::jsonb, false) FROM "+
			table.Sanitize()+" WHERE kind = $1 AND args @> $2::jsonb AND state::text = ANY($3)", Args{}.Kind(), string(match), states)
		if err != nil {
			return err
		}
		have = map[jobKey]struct{}{}
		var k jobKey
		_, err = pgx.ForEachRow(rows, []any{&k.session, &k.account, &k.card}, func() error {
			have[k] = struct{}{}
			return nil
		})
		return err
	})
	return have, err
}

// refreshWorker runs refresh jobs.
type refreshWorker struct {
	river.WorkerDefaults[Args]
	e *Engine
}

// Timeout is the engine's JobTimeout.
func (w *refreshWorker) Timeout(*river.Job[Args]) time.Duration { return w.e.cfg.JobTimeout }

// NextRetry is when River runs a failed job again: River's backoff, but
// no sooner than the bank said (the Retry-After of a 5xx, say, that
// Work kept): each try of a job is a call of the account's budget, and
// one before the bank's time would spend it on the same refusal.
func (w *refreshWorker) NextRetry(job *river.Job[Args]) time.Time {
	if job.Args.retryAt.IsZero() {
		return time.Time{} // River's backoff
	}
	return latest(job.Args.retryAt, (&river.DefaultClientRetryPolicy{}).NextRetry(job.JobRow))
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Work refreshes the job's account with the bank's Refresher
// (refresh.Refresher.Refresh, the step of refresh.Refresher.Run), hands
// the result to Config.Handle and maps its outcome onto River.
//
// A job that can never succeed ends at once, for good, through River's
// JobCancel (never retried): its arguments do not decode, its bank is not
// one of the engine's, its session key is not a valid store key, or its
// account cannot make a refresh.Job (refresh.ErrInvalidJob) (each a
// "discarded" Event), or its session or account is gone, or its stored
// session does not decode or is not valid (the PSU must consent again: a
// "cancelled" Event). The refresh.Job is made once, here, with
// refresh.NewJob. A panic of the job (Config.Prepare's, Config.Handle's,
// a store's) fails the attempt, which River retries, with an error that
// gives none of the panic's value but a runtime error's message
// (recoverJob).
func (w *refreshWorker) Work(ctx context.Context, job *river.Job[Args]) (err error) {
	defer w.e.recoverJob(ctx, "refresh", job.Args.Bank, &err)
	e, a := w.e, job.Args
	if a.undecodable {
		return e.discard(job, "", errors.New("riverrefresh: the job's arguments do not decode"))
	}
	b, ok := e.banks[a.Bank]
	if !ok {
		name := ""
		if bankName.MatchString(a.Bank) {
			name = a.Bank // else a text the engine never wrote: not repeated
		}
		return e.discard(job, name, fmt.Errorf("riverrefresh: bank %q is not one of the engine's", name))
	}
	j, err := e.job(ctx, b, job)
	if err != nil {
		switch {
		case errors.Is(err, errGone), errors.Is(err, sca.ErrInvalidSession), errors.Is(err, sca.ErrUndecodableSession):
			// The session or the account is gone, or the stored session
			// is unusable: the PSU must consent again.
			e.event(Event{Bank: b.name, Kind: "cancelled", Outcome: refresh.ReconnectNeeded, JobID: job.ID})
			if !errors.Is(err, errGone) {
				err = errors.New("riverrefresh: the stored session is invalid")
			}
			return river.JobCancel(err)
		case errors.Is(err, refresh.ErrInvalidJob):
			return e.discard(job, b.name, errors.New("riverrefresh: the job's account makes no refresh job"))
		case errors.Is(err, store.ErrInvalidKey):
			return e.discard(job, b.name, errors.New("riverrefresh: the job's session key is not a valid store key"))
		}
		return err
	}
	if e.cfg.Prepare != nil {
		if err := e.cfg.Prepare(ctx, b.name, &j); err != nil {
			return &prepareError{err: err}
		}
	}
	res := b.r.Refresh(ctx, j)
	if e.cfg.Handle != nil {
		e.cfg.Handle(ctx, b.name, res)
	}
	return e.outcome(ctx, b, job, &res)
}

// recoverJob, deferred by a worker's Work, turns a panic of the job (of
// the TPP's code it calls: Config.Prepare, Config.Handle, a store, a
// hook) into the attempt's error, which River records and retries as it
// would the panic, and logs it at Error through Config.Logger. Of the
// panic's value both give a runtime error's message or the value's type
// only (panicvalue.Describe): left to River, the value itself (%v) went
// into the job's errors in River's table and into River's log, and the
// TPP's code may panic with an account id, a PSU's or a session in it.
// bank is logged only when it is a bank name.
func (e *Engine) recoverJob(ctx context.Context, kind, bank string, err *error) {
	v := recover()
	if v == nil {
		return
	}
	if !bankName.MatchString(bank) {
		bank = ""
	}
	if e.cfg.Logger != nil {
		e.cfg.Logger.LogAttrs(ctx, slog.LevelError, "riverrefresh: a "+kind+" job panicked",
			slog.String("bank", bank), slog.String("panic", panicvalue.Describe(v)), slog.String("stack", string(debug.Stack())))
	}
	*err = fmt.Errorf("riverrefresh: the %s job panicked: %s", kind, panicvalue.Describe(v))
}

// discard ends a job that can never succeed for good (River's JobCancel:
// not retried) and tells Config.Event ("discarded", bank "" when it is
// not known).
func (e *Engine) discard(job *river.Job[Args], bank string, reason error) error {
	e.event(Event{Bank: bank, Kind: "discarded", Outcome: refresh.Refused, JobID: job.ID})
	return river.JobCancel(reason)
}

// prepareError is the failure of Config.Prepare as River records it in
// the job's errors and logs it: its text says Prepare failed and gives
// the error's type, or the context's error when the error is one (a
// deadline passed, the job was cancelled), never the error's own text,
// which is the TPP's and may name the account or the PSU ("cursor of
// <account id>: ..."). Unwrap gives the error itself, so that a Prepare
// that returns River's JobSnooze or JobCancel still snoozes or cancels
// the job.
type prepareError struct{ err error }

func (e *prepareError) Error() string {
	what := fmt.Sprintf("an error of type %T", e.err)
	switch {
	case errors.Is(e.err, context.DeadlineExceeded):
		what = context.DeadlineExceeded.Error()
	case errors.Is(e.err, context.Canceled):
		what = context.Canceled.Error()
	}
	return "riverrefresh: prepare failed: " + what + " (its text is left out: it may name an account or a PSU)"
}

func (e *prepareError) Unwrap() error { return e.err }

// errGone: a job's session or account is no longer stored.
var errGone = errors.New("riverrefresh: the session or the account is no longer stored")

// job makes the refresh.Job of a River job, once (refresh.NewJob): the
// session loaded by its key, the account found among its ids by its key
// (budget.Key). Its errors match errGone, sca.ErrInvalidSession,
// sca.ErrUndecodableSession, refresh.ErrInvalidJob or
// store.ErrInvalidKey when no run of the job could make it, else the
// store failed.
func (e *Engine) job(ctx context.Context, b *bank, job *river.Job[Args]) (refresh.Job, error) {
	a := job.Args
	s, err := sca.LoadSession(ctx, b.Sessions, a.Session)
	if errors.Is(err, store.ErrNotStored) {
		return refresh.Job{}, errGone
	}
	if err != nil {
		return refresh.Job{}, fmt.Errorf("riverrefresh: session: %w", err)
	}
	ids := s.AccountIDs
	if a.Card {
		ids = s.CardAccountIDs
	}
	for _, id := range ids {
		if budget.Key(id, a.Card) != a.Account {
			continue
		}
		j, err := refresh.NewJob(s, id, a.Card)
		if err != nil {
			return refresh.Job{}, fmt.Errorf("riverrefresh: %w", err)
		}
		// The claim names the River job: a run of it after its worker
		// died may take the round its claim holds.
		j.Claim = "river/" + strconv.FormatInt(job.ID, 10)
		return j, nil
	}
	return refresh.Job{}, errGone
}

// outcome maps a result onto River: done completes, budget exhausted
// snoozes until the next call is allowed, reconnect needed and refused
// end the job for good (River's JobCancel; the Event says which), a
// pause asked by the bank (the budget's, budget.Budget.PausedUntil)
// pauses the bank's queue and snoozes the job until its end, another
// transient failure is retried with River's backoff. The error River
// records names the outcome and the bank's status and code only
// (bankCode: one of the interface's codes, or OTHER). Its times are on
// the budget's clock (budget.Budget.Now), as the result's RetryAt.
func (e *Engine) outcome(ctx context.Context, b *bank, job *river.Job[Args], res *refresh.Result) error {
	status, code := bankCode(res.Err)
	reason := fmt.Errorf("refresh: %s (status %d, code %q)", res.Outcome, status, code)
	now := b.budget.Now()
	// The bank asked to slow down (a 429 with Retry-After, to this job or
	// another call of the client, retried by the client or not): every
	// engine stops taking the bank's jobs until then.
	e.observePause(ctx, b, res.Outcome == refresh.Done)
	switch res.Outcome {
	case refresh.Done:
		return nil
	case refresh.BudgetExhausted:
		if errors.Is(res.Err, refresh.ErrNotDue) && !res.Job.Cursor.RefreshedAt.Before(e.roundStart(job.Args.Round)) {
			// The account was refreshed in this round already: by this
			// job, run again after its worker died between the result and
			// River's record of it (the cursor Prepare gave says so).
			return nil
		}
		return snooze(res.RetryAt.Sub(now))
	case refresh.ReconnectNeeded:
		e.event(Event{Bank: b.name, Kind: "cancelled", Outcome: res.Outcome, Status: status, Code: code, JobID: job.ID})
		return river.JobCancel(reason)
	case refresh.Refused:
		// No retry can change the bank's refusal: ended for good.
		e.event(Event{Bank: b.name, Kind: "discarded", Outcome: res.Outcome, Status: status, Code: code, JobID: job.ID})
		return river.JobCancel(reason)
	}
	var down *client.BankUnavailableError
	if errors.As(res.Err, &down) {
		// The bank's circuit breaker is open: nothing was sent or spent.
		// The queue is paused until its next probe (observePause); the
		// job waits as long, without using an attempt.
		return snooze(min(down.ProbeAt.Sub(now), client.RetryAfterCap))
	}
	if !res.RetryAt.IsZero() && (status == http.StatusTooManyRequests || errors.Is(res.Err, refresh.ErrPaused)) {
		// The queue is paused until the pause ends (observePause); the
		// job waits as long.
		return snooze(min(res.RetryAt.Sub(now), client.RetryAfterCap))
	}
	if !res.RetryAt.IsZero() {
		// A failure the bank said when to try again after (a 5xx with
		// Retry-After): an attempt, retried no sooner (NextRetry), on
		// the system clock, within the bound of every snooze.
		job.Args.retryAt = time.Now().Add(min(max(res.RetryAt.Sub(now), 0), maxSnooze))
	}
	return reason
}

// maxSnooze bounds every snooze: the longest wait the SDK gives a job,
// a bank's Retry-After (client.RetryAfterCap) or the budget's window
// (budget.DefaultWindow, 24 hours, and budget.ClockMargin), with
// room to spare. A job snoozed for less than it needed runs early, meets
// the same wait and is snoozed again: no call is made.
const maxSnooze = client.RetryAfterCap + time.Hour

// snooze is River's snooze of a job for d, at least a second and at most
// maxSnooze.
func snooze(d time.Duration) error {
	return river.JobSnooze(min(max(d, time.Second), maxSnooze))
}

// bankCode returns the HTTP status and first error code of the bank's
// answer in err, if any. The code is one of the interface's codes or
// "OTHER" (client.SafeCode): a bank's code field can hold any text, a
// person's national identity number included, and the code is written
// into River's job records and Events.
func bankCode(err error) (int, string) {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return 0, ""
	}
	code := ""
	if len(ce.Messages) > 0 {
		code = client.SafeCode(ce.Messages[0].Code)
	}
	return ce.StatusCode, code
}

// event tells Config.Event. A panic of it is recovered and logged at
// Error through Config.Logger: event runs on River's workers and on the
// engine's resume loop, a goroutine of its own, where a panic would end
// the process.
func (e *Engine) event(ev Event) {
	if e.cfg.Event == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil && e.cfg.Logger != nil {
			e.cfg.Logger.LogAttrs(context.Background(), slog.LevelError, "riverrefresh: Config.Event panicked",
				slog.String("bank", ev.Bank), slog.String("kind", ev.Kind),
				slog.String("panic", panicvalue.Describe(v)), slog.String("stack", string(debug.Stack())))
		}
	}()
	e.cfg.Event(ev)
}
