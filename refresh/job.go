package refresh

import (
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/txsync"
)

// Want says what a [Job] reads.
type Want uint8

// What a job can read. The zero Want reads both.
const (
	// Balances reads the account's balances (one call).
	Balances Want = 1 << iota
	// Transactions reads the account's transactions since the job's
	// cursor or date (one call per page).
	Transactions
	// Both reads balances and transactions.
	Both = Balances | Transactions
)

// String returns "balances", "transactions" or "both".
func (w Want) String() string {
	switch w {
	case Balances:
		return "balances"
	case Transactions:
		return "transactions"
	case Both, 0:
		return "both"
	}
	return "Want(" + strconv.Itoa(int(w)) + ")"
}

// Job is the refresh of one account, or card account, of one PSU
// session, without the PSU.
//
// The account id is personal data: no printed form of a Job (String,
// GoString, LogValue, MarshalJSON) shows it.
type Job struct {
	// Session is the PSU's session whose consent covers the account.
	Session *sca.Session
	// AccountID is the account's resource id (one of
	// Session.AccountIDs, or of Session.CardAccountIDs with Card).
	AccountID string
	// Card marks a card account.
	Card bool
	// Want is what to read; zero reads [Both].
	Want Want
	// Since is the oldest booking date of the transactions to read when
	// the cursor has none (zero: the bank's default). Without the PSU
	// the bank gives at most 90 days; an older date is moved up to that.
	Since date.Date
	// Cursor is what the last refresh of the account left
	// ([Result.Cursor]); the zero Cursor for the first one.
	Cursor Cursor
	// Force refreshes the account even when its last refresh is more
	// recent than the spacing ([WithSpacing]), and whether or not another
	// refresh claimed the account for the round. The budget still holds.
	Force bool
	// Claim names this refresh of the account in the round's claim (see
	// "Replicas" in the package documentation): a job engine gives the
	// same Claim when it runs a job again after its worker died, so that
	// the retry may claim the account the dead worker claimed. Empty: a
	// new name for each refresh. It is not personal data, but keep it
	// free of ids all the same.
	Claim string
}

// want returns j's Want with the zero value read as Both.
func (j *Job) want() Want {
	if j.Want == 0 {
		return Both
	}
	return j.Want
}

// String describes the job without its account id or session ids.
func (j Job) String() string {
	kind := "account"
	if j.Card {
		kind = "card account"
	}
	return "refresh.Job{" + kind + "=" + redactedIfSet(j.AccountID) + " want=" + j.want().String() +
		" force=" + strconv.FormatBool(j.Force) + "}"
}

// GoString is String, for %#v.
func (j Job) GoString() string { return j.String() }

// LogValue makes log/slog print the job as String does.
func (j Job) LogValue() slog.Value { return slog.StringValue(j.String()) }

// covered reports whether the job's account is one the session's consent
// covers, as far as the session knows: among its AccountIDs (its
// CardAccountIDs for a card account) when it remembers any account, any
// account when it remembers none. A job for another account would spend a
// call of the budget on the bank's refusal.
func (j Job) covered() bool {
	s := j.Session
	if len(s.AccountIDs) == 0 && len(s.CardAccountIDs) == 0 {
		return true
	}
	if j.Card {
		return slices.Contains(s.CardAccountIDs, j.AccountID)
	}
	return slices.Contains(s.AccountIDs, j.AccountID)
}

// jobView is the JSON form of a Job: the account id [redacted], the
// session in its own redacted form.
type jobView struct {
	Session   *sca.Session `json:"session,omitempty"`
	AccountID string       `json:"accountId,omitempty"`
	Card      bool         `json:"card,omitempty"`
	Want      string       `json:"want"`
	Since     date.Date    `json:"since,omitzero"`
	Cursor    Cursor       `json:"cursor"`
	Force     bool         `json:"force,omitempty"`
}

// MarshalJSON writes the job with its account id [redacted] and its
// session as sca.Session writes it (ids [redacted]), so that a job in a
// logged or returned JSON document leaks no id. It is not a storage form.
func (j Job) MarshalJSON() ([]byte, error) {
	v := jobView{Session: j.Session, Card: j.Card, Want: j.want().String(), Since: j.Since,
		Cursor: j.Cursor, Force: j.Force}
	if j.AccountID != "" {
		v.AccountID = "[redacted]"
	}
	return json.Marshal(v)
}

func redactedIfSet(s string) string {
	if s == "" {
		return `""`
	}
	return "[redacted]"
}

// Cursor is what the refresh of an account leaves for the next one: when
// it ran and which booked transactions it saw last. Keep it with the
// account (it encodes to JSON) and put it in the account's next [Job].
//
// The bank lists booked transactions by booking date, and a booked
// transaction keeps its transactionId (docs/interface.md section 2.9).
// A refresh asks for transactions from a few days before the cursor's
// Date on (lookbackDays: a bank may book an entry under an earlier
// business day) and reports as new those whose ids are not in Seen; so a
// transaction is reported once, whatever order the bank lists them in and
// whatever date it is booked under within those days. An entry without an
// id cannot be told apart: it is reported when it is booked on the
// cursor's Date or later.
type Cursor struct {
	// RefreshedAt is when the account was last refreshed completely
	// ([Done]); zero: never. The spacing of [WithSpacing] counts from it.
	RefreshedAt time.Time `json:"refreshedAt,omitzero"`
	// Date is the booking date of the newest booked transaction seen.
	Date date.Date `json:"date,omitzero"`
	// From is the first booking date Seen covers, a few days before
	// Date; zero in a cursor of an earlier version of this package,
	// whose Seen covers Date only.
	From date.Date `json:"from,omitzero"`
	// Seen are the ids of the booked transactions seen from From to Date.
	Seen []string `json:"seen,omitempty"`
}

// lookbackDays is how many days before the cursor's Date a refresh reads
// again. ASSUMPTION (the safe option; docs/interface.md does not say how
// late an entry may be booked under an earlier date): a bank books some
// entries under an earlier business day, a batch run after a weekend
// under the Friday, so a refresh that asked only from the newest date it
// saw would never see them. Five days cover a long weekend with a holiday
// on either side; an entry booked later than that under an older date is
// still missed.
const lookbackDays = 5

// windowStart is the first booking date of the window of a cursor whose
// newest date is d.
func windowStart(d date.Date) date.Date {
	if d.IsZero() {
		return d
	}
	return date.Of(d.Time(time.UTC).AddDate(0, 0, -lookbackDays))
}

// advance returns the cursor after the booked entries (date, id) read
// from queried on (the query's first booking date, zero for none; see
// Refresher.transactions). The new window starts lookbackDays before the
// newest date, but not before what the read covered (queried, or the
// oldest entry read when the bank sent older ones): entries older than
// the read were not seen, and must not be reported as new by the next
// read (a job that asked for transactions since a date).
func (c Cursor) advance(dates []date.Date, ids []string, queried date.Date) Cursor {
	if len(dates) == 0 {
		c.Seen = slices.Clone(c.Seen)
		return c
	}
	next := Cursor{RefreshedAt: c.RefreshedAt, Date: c.Date}
	for _, d := range dates {
		if next.Date.Before(d) {
			next.Date = d
		}
	}
	next.From = windowStart(next.Date)
	// What the read covered starts at the query's first date, or at the
	// oldest entry it brought when the bank sent older ones anyway.
	covered := queried
	for _, d := range dates {
		if !covered.IsZero() && !d.IsZero() && d.Before(covered) {
			covered = d
		}
	}
	if next.From.Before(covered) {
		next.From = covered
	}
	// The read covered the new window (it starts at or before it), so its
	// ids are the window's; an earlier version's cursor adds those of its
	// Date.
	if c.From.IsZero() && !c.Date.Before(next.From) {
		next.Seen = slices.Clone(c.Seen)
	}
	for i, d := range dates {
		if !d.IsZero() && !d.Before(next.From) && ids[i] != "" && !slices.Contains(next.Seen, ids[i]) {
			next.Seen = append(next.Seen, ids[i])
		}
	}
	return next
}

// isNew reports whether the booked entry (date, id) is one the cursor has
// not seen.
func (c Cursor) isNew(date date.Date, id string) bool {
	switch {
	case c.Date.IsZero() || date.IsZero():
		return true
	case id == "":
		return !date.Before(c.Date)
	case c.From.IsZero():
		// An earlier version's cursor: everything before its Date was
		// reported, and Seen holds the ids of Date.
		if date.Before(c.Date) {
			return false
		}
		return date != c.Date || !slices.Contains(c.Seen, id)
	case date.Before(c.From):
		return false
	}
	return !slices.Contains(c.Seen, id)
}

// Outcome is how a [Job] ended: exactly one per [Result].
type Outcome uint8

// Outcomes.
const (
	// Done: everything the job asked for was read.
	Done Outcome = iota + 1
	// BudgetExhausted: the account's without-PSU budget (4 calls in 24
	// hours, docs/interface.md section 8) does not allow the job now, or
	// the account was refreshed less than the spacing ago
	// ([Result.Deferred]). No call was spent that the budget did not
	// allow. [Result.RetryAt] is when the next call is allowed.
	BudgetExhausted
	// ReconnectNeeded: the consent expired or was revoked, or the bank
	// asks for SCA: the PSU must go through SCA again (and the accounts be
	// remembered again) before the account can be refreshed.
	ReconnectNeeded
	// Transient: the bank or the network failed (5xx, a timeout, a
	// connection that could not be made), after the client's own retries,
	// or the bank asked to slow down (429 with Retry-After). Try again
	// later; [Result.RetryAt] is set when the bank said when.
	Transient
	// Refused: the bank refused the call for another reason (a 4xx such
	// as 404 for an account that is gone), or the job is invalid. Trying
	// again unchanged will not help.
	Refused
)

// numOutcomes is the number of outcomes, for counting.
const numOutcomes = int(Refused) + 1

var outcomeNames = [numOutcomes]string{"", "done", "budget exhausted", "reconnect needed", "transient", "refused"}

// String returns the outcome's name ("done", "budget exhausted", ...).
func (o Outcome) String() string {
	if int(o) < numOutcomes && o != 0 {
		return outcomeNames[o]
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// Result is the refresh of one account, yielded by [Refresher.Run] as
// soon as it ends. Its printed forms (String, GoString, LogValue,
// MarshalJSON) show no account id, PSU-ID or session id.
//
// Balances and transactions are set as far as they were read, whatever
// the outcome. Cursor advances only with [Done]; otherwise it is the
// job's own, so the next refresh reads again what this one may have
// missed (use TransactionID to recognise a booked entry read twice).
type Result struct {
	// Job is the job the result is for.
	Job Job
	// Outcome is how the job ended.
	Outcome Outcome
	// Balances are the account's balances (Want included Balances).
	Balances []accounts.Balance
	// Booked are the booked transactions new since the job's cursor (or
	// Since), as the bank listed them; Pending is the account's whole
	// pending list, which replaces the one read before (pending entries
	// have no stable id). For a card account, CardBooked and CardPending
	// hold them instead.
	Booked, Pending         []accounts.Transaction
	CardBooked, CardPending []accounts.CardTransaction
	// Sync is what the read changed in the transaction sync of
	// [WithSync]: the added, changed and removed entries under the sync's
	// keys, every booked entry read compared (not only those new since
	// the cursor). Nil without WithSync, when no transactions were read,
	// and when the read failed or was cut short; its entries are copies.
	Sync *txsync.Delta
	// Cursor is the cursor to give the account's next job.
	Cursor Cursor
	// RetryAt is when to try again: with BudgetExhausted, when the
	// budget (or the spacing) allows the next call; with Transient, when
	// the bank said (Retry-After), else zero.
	RetryAt time.Time
	// Deferred is set with BudgetExhausted when the job was not sent
	// because the account was refreshed less than the spacing ago.
	Deferred bool
	// Calls is the number of calls sent to the bank for the job.
	Calls int
	// Err is the error behind any outcome but Done (nil with Done): the
	// bank's *client.Error, an *budget.ExhaustedError, a
	// transport error, [ErrNotDue], [ErrPaused], [ErrConsentEnded],
	// [ErrInvalidJob], ...
	Err error
}

// String describes the result without ids: the outcome, the counts and
// the retry time.
func (r Result) String() string {
	s := "refresh.Result{" + r.Outcome.String() + " calls=" + strconv.Itoa(r.Calls) +
		" balances=" + strconv.Itoa(len(r.Balances)) +
		" booked=" + strconv.Itoa(len(r.Booked)+len(r.CardBooked)) +
		" pending=" + strconv.Itoa(len(r.Pending)+len(r.CardPending))
	if r.Sync != nil {
		s += " added=" + strconv.Itoa(len(r.Sync.Added)) + " changed=" + strconv.Itoa(len(r.Sync.Changed)) +
			" removed=" + strconv.Itoa(len(r.Sync.Removed))
	}
	if !r.RetryAt.IsZero() {
		s += " retryAt=" + r.RetryAt.UTC().Format(time.RFC3339)
	}
	if r.Deferred {
		s += " deferred"
	}
	return s + "}"
}

// GoString is String, for %#v.
func (r Result) GoString() string { return r.String() }

// LogValue makes log/slog print the result as String does.
func (r Result) LogValue() slog.Value { return slog.StringValue(r.String()) }

// resultView is the JSON form of a Result.
type resultView struct {
	Job         Job                        `json:"job"`
	Outcome     string                     `json:"outcome"`
	Balances    []accounts.Balance         `json:"balances,omitempty"`
	Booked      []accounts.Transaction     `json:"booked,omitempty"`
	Pending     []accounts.Transaction     `json:"pending,omitempty"`
	CardBooked  []accounts.CardTransaction `json:"cardBooked,omitempty"`
	CardPending []accounts.CardTransaction `json:"cardPending,omitempty"`
	Sync        *txsync.Delta              `json:"sync,omitempty"`
	Cursor      Cursor                     `json:"cursor"`
	RetryAt     time.Time                  `json:"retryAt,omitzero"`
	Deferred    bool                       `json:"deferred,omitempty"`
	Calls       int                        `json:"calls"`
	Status      int                        `json:"status,omitempty"`
	Code        string                     `json:"code,omitempty"`
	Err         string                     `json:"error,omitempty"`
}

// MarshalJSON writes the result with its job as [Job.MarshalJSON] does
// and its error as the bank's HTTP status and code (or, for an error
// that is not the bank's answer, its message), never the bank's texts,
// links or headers: no JSON form of a Result shows an account id, PSU-ID
// or session id.
func (r Result) MarshalJSON() ([]byte, error) {
	v := resultView{Job: r.Job, Outcome: r.Outcome.String(), Balances: r.Balances, Booked: r.Booked,
		Pending: r.Pending, CardBooked: r.CardBooked, CardPending: r.CardPending, Sync: r.Sync, Cursor: r.Cursor,
		RetryAt: r.RetryAt, Deferred: r.Deferred, Calls: r.Calls}
	if r.Err != nil {
		if v.Status, v.Code = errorCode(r.Err); v.Status == 0 {
			v.Err = r.Err.Error()
		}
	}
	return json.Marshal(v)
}

// Errors of a [Result] that the package itself decides, before any call.
var (
	// ErrConsentEnded: the session's consent ended
	// (sca.Session.ConsentExpiresAt is past); the outcome is
	// [ReconnectNeeded] and nothing was sent.
	ErrConsentEnded = errors.New("refresh: the session's consent has ended")
	// ErrInvalidJob: the job has no session or no account id, an
	// unknown Want, or an account its session's consent does not cover
	// (one of the session's AccountIDs, or CardAccountIDs for a card
	// account, when it remembers any); the outcome is [Refused] and
	// nothing was sent.
	ErrInvalidJob = errors.New("refresh: invalid job")
	// ErrNotDue: the account was refreshed less than the spacing ago
	// ([WithSpacing]); the outcome is [BudgetExhausted] with
	// [Result.Deferred], and nothing was sent.
	ErrNotDue = errors.New("refresh: the account was refreshed less than the spacing ago")
	// ErrPaused: the bank asked to slow down (429 with Retry-After) for
	// longer than [WithMaxWait]; the outcome is [Transient], RetryAt is
	// when the pause ends, and nothing was sent.
	ErrPaused = errors.New("refresh: paused at the bank's request")
)
