package refresh

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
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
	// Transactions reads the account's transactions from the sync's
	// first date, or the job's (one call per page; see
	// [Refresher.Refresh]).
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
// session, without the PSU. Make it with [NewJob], or take it from
// [JobsFrom]: the session and the account are checked once, when the job
// is made, and the job keeps what its calls need (the session's request
// options, the consent's end), so that running it visits package sca no
// more. A Job made otherwise (the zero Job) ends [Refused] with
// [ErrInvalidJob], without a call. Its other fields say what to read and
// may be set at any time before it runs.
//
// The account id is personal data: no printed form of a Job (String,
// GoString, LogValue, MarshalJSON) shows it.
type Job struct {
	acct *target // set by NewJob and JobsFrom

	// Want is what to read; zero reads [Both].
	Want Want
	// Since is the oldest booking date of the transactions to read when
	// nothing else says where to start (see [Refresher.Refresh]; zero:
	// the bank's default). Without the PSU the bank gives at most 90
	// days; an older date is moved up to that.
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

// target is a Job's account, checked when the job was made.
type target struct {
	*holder
	id   string
	card bool
}

// holder is what the jobs of one session share, worked out once when
// they are made: the session, its request options (without the PSU) and
// its consent's end.
type holder struct {
	session    *sca.Session
	ro         client.RequestOption
	consentEnd time.Time
	// learned is the consent's end as a job of the session learned it
	// from the bank (sca.Session.LearnConsentEnd: 401 CONSENT_EXPIRED,
	// 403 CONSENT_UNKNOWN), before consentEnd: one consent covers all the
	// session's accounts, so its other jobs end without a call.
	learned atomic.Pointer[time.Time]
}

// end returns the end of the consent of h's session as far as its jobs
// know: the session's own, or the earlier end a job learned from the
// bank; zero when neither is known.
func (h *holder) end() time.Time {
	if at := h.learned.Load(); at != nil {
		return *at
	}
	return h.consentEnd
}

// learn records the end of the consent that err, the bank's answer to a
// call of h's session at now, shows (sca.Session.LearnConsentEnd).
func (h *holder) learn(err error, now time.Time) {
	if s, ok := h.session.LearnConsentEnd(err, now); ok {
		end := s.ConsentExpiresAt()
		for {
			old := h.learned.Load()
			if old != nil && !end.Before(*old) {
				return
			}
			if h.learned.CompareAndSwap(old, &end) {
				return
			}
		}
	}
}

// newHolder checks s once for all its jobs.
func newHolder(s *sca.Session) (*holder, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &holder{session: s, ro: s.RequestOptions(nil), consentEnd: s.ConsentExpiresAt()}, nil
}

// job returns the job of account id (card: a card account) of h's
// session; an account the session's consent does not cover, as far as
// the session knows, gives ErrInvalidJob.
func (h *holder) job(id string, card bool) (Job, error) {
	if id == "" {
		return Job{}, fmt.Errorf("%w: no account id", ErrInvalidJob)
	}
	if !covered(h.session, id, card) {
		return Job{}, fmt.Errorf("%w: the session's consent does not cover the account", ErrInvalidJob)
	}
	return Job{acct: &target{holder: h, id: id, card: card}}, nil
}

// NewJob returns the job of account accountID (card: a card account) of
// session s, checked once: s must be a valid session (sca.Session.Validate;
// its error matches sca.ErrInvalidSession) and the account one its consent
// covers as far as s knows (among s.AccountIDs, or s.CardAccountIDs for a
// card account, when it remembers any account), else the error matches
// [ErrInvalidJob]: a job for another account would spend a call of the
// budget on the bank's refusal. A job engine makes its jobs with it from
// what it stored (the pgstore module's riverrefresh, from a River job);
// [JobsFrom] makes those of stored sessions.
func NewJob(s *sca.Session, accountID string, card bool) (Job, error) {
	h, err := newHolder(s)
	if err != nil {
		return Job{}, err
	}
	return h.job(accountID, card)
}

// Session returns the job's session (nil for a Job not made with
// NewJob or JobsFrom).
func (j Job) Session() *sca.Session {
	if j.acct == nil {
		return nil
	}
	return j.acct.session
}

// AccountID returns the job's account (or card account) id.
func (j Job) AccountID() string {
	if j.acct == nil {
		return ""
	}
	return j.acct.id
}

// Card reports whether the job's account is a card account.
func (j Job) Card() bool { return j.acct != nil && j.acct.card }

// want returns j's Want with the zero value read as Both.
func (j *Job) want() Want {
	if j.Want == 0 {
		return Both
	}
	return j.Want
}

// covered reports whether account id (card: a card account) is one the
// session's consent covers, as far as the session knows: among its
// AccountIDs (its CardAccountIDs for a card account) when it remembers
// any account, any account when it remembers none.
func covered(s *sca.Session, id string, card bool) bool {
	if len(s.AccountIDs) == 0 && len(s.CardAccountIDs) == 0 {
		return true
	}
	if card {
		return slices.Contains(s.CardAccountIDs, id)
	}
	return slices.Contains(s.AccountIDs, id)
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

// Cursor is what the refresh of an account leaves for the next one: when
// it last ran completely, which is all the spacing of the day's calls
// needs ([WithSpacing]). Keep it with the account (it encodes to JSON) and
// put it in the account's next [Job]. What is new among the transactions
// read is the transaction sync's to say ([WithSync], [Result.Sync]), not
// the cursor's: a cursor of an earlier version of this package, which
// also held the ids of the booked transactions it saw, decodes into this
// one, and those ids are dropped.
type Cursor struct {
	// RefreshedAt is when the account was last refreshed completely
	// ([Done]); zero: never. The spacing of [WithSpacing] counts from it.
	RefreshedAt time.Time `json:"refreshedAt,omitzero"`
}

// lookbackDays is how many days before the last refresh a job without a
// transaction sync reads again. ASSUMPTION (the safe option;
// docs/interface.md does not say how late an entry may be booked under an
// earlier date): a bank books some entries under an earlier business day,
// a batch run after a weekend under the Friday, so a read that asked only
// from the day of the last refresh would never see them. Five days cover
// a long weekend with a holiday on either side, and stay one page of the
// bank, one call of the budget.
const lookbackDays = 5

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
	// as 404 for an account that is gone), the job is invalid, or its
	// read held more entries than a job reads ([ErrReadTooLarge]). Trying
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
// job's own. What is new since the last read is in Sync, with
// [WithSync]: the transaction sync alone says it.
type Result struct {
	// Job is the job the result is for.
	Job Job
	// Outcome is how the job ended.
	Outcome Outcome
	// Balances are the account's balances (Want included Balances).
	Balances []accounts.Balance
	// Booked are the booked transactions read, from the query's first
	// booking date on, as the bank listed them (an entry may have been
	// read before: Sync says which are new); Pending is the account's
	// whole pending list. For a card account, CardBooked and CardPending
	// hold them instead.
	Booked, Pending         []accounts.Transaction
	CardBooked, CardPending []accounts.CardTransaction
	// Sync is what the read changed in the transaction sync of
	// [WithSync]: the added, changed and removed entries under the sync's
	// keys, every entry read compared. Nil without WithSync, when no
	// transactions were read, and when the read failed or was cut short;
	// its entries are copies.
	Sync *txsync.Delta
	// Cursor is the cursor to give the account's next job.
	Cursor Cursor
	// RetryAt is when to try again: with BudgetExhausted, when the
	// budget (or the spacing) allows the next call; with Transient, when
	// the bank said (Retry-After), when the bank's pause ends
	// ([ErrPaused]), or, while the bank's circuit breaker is open
	// (client.ErrBankUnavailable), its next probe; else zero.
	RetryAt time.Time
	// Deferred is set with BudgetExhausted when the job was not sent
	// because the account was refreshed less than the spacing ago.
	Deferred bool
	// Calls is the number of requests of the job that may have reached
	// the bank, the client's retries included (budget.Reservation.Sent):
	// the calls the bank may have counted.
	Calls int
	// Err is the error behind any outcome but Done (nil with Done): the
	// bank's *client.Error, a *budget.ExhaustedError, a
	// *budget.PausedError ([ErrPaused]), a transport error, [ErrNotDue],
	// [ErrConsentEnded], [ErrInvalidJob], ...
	Err error
}

// syncView is the JSON form of a Result's Sync: its counts.
type syncView struct {
	Added   int `json:"added"`
	Changed int `json:"changed"`
	Removed int `json:"removed"`
}

// balanceView is the JSON form of a balance in a Result: its facts, as
// the balance's printed form shows them (accounts.Balance.String), not
// the bank's document, whose members the SDK does not know (Extra) and
// last committed entry's reference are bank texts: the names of the
// former, the latter [redacted].
type balanceView struct {
	BalanceAmount            *amountView `json:"balanceAmount,omitempty"`
	BalanceType              string      `json:"balanceType,omitempty"`
	CreditLimitIncluded      *bool       `json:"creditLimitIncluded,omitempty"`
	ReferenceDate            date.Date   `json:"referenceDate,omitzero"`
	LastChangeDateTime       string      `json:"lastChangeDateTime,omitempty"`
	LastCommittedTransaction string      `json:"lastCommittedTransaction,omitempty"`
	Extra                    []string    `json:"extra,omitempty"`
}

// amountView is an amount in a balanceView: its text and currency.
type amountView struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// resultView is the JSON form of a Result.
type resultView struct {
	Job      Job           `json:"job"`
	Outcome  string        `json:"outcome"`
	Balances []balanceView `json:"balances,omitempty"`
	// The entries as counts: an entry's document names the account
	// (its IBAN as debtorAccount), counterparties and their accounts.
	Booked   int       `json:"booked,omitempty"`
	Pending  int       `json:"pending,omitempty"`
	Sync     *syncView `json:"sync,omitempty"`
	Cursor   Cursor    `json:"cursor"`
	RetryAt  time.Time `json:"retryAt,omitzero"`
	Deferred bool      `json:"deferred,omitempty"`
	Calls    int       `json:"calls"`
	Status   int       `json:"status,omitempty"`
	Code     string    `json:"code,omitempty"`
	Err      string    `json:"error,omitempty"`
}

// Errors of a [Result] that the package itself decides, before any call
// (ErrReadTooLarge: after the calls).
var (
	// ErrConsentEnded: the session's consent ended
	// (sca.Session.ConsentExpiresAt is past, or is zero: the session has
	// no known consent, sca.Session.ConsentValid, or a job of the same
	// session, from [JobsFrom], met the bank's 401 CONSENT_EXPIRED or 403
	// CONSENT_UNKNOWN: sca.Session.LearnConsentEnd); the outcome is
	// [ReconnectNeeded] and nothing was sent.
	ErrConsentEnded = errors.New("refresh: the session's consent has ended")
	// ErrInvalidJob: the job was not made with [NewJob] (or
	// [JobsFrom]), has an unknown Want, or is for an account its
	// session's consent does not cover (one of the session's AccountIDs,
	// or CardAccountIDs for a card account, when it remembers any);
	// NewJob returns it, and a Result of such a job is [Refused] with
	// nothing sent.
	ErrInvalidJob = errors.New("refresh: invalid job")
	// ErrNotDue: the account was refreshed less than the spacing ago
	// ([WithSpacing]); the outcome is [BudgetExhausted] with
	// [Result.Deferred], and nothing was sent.
	ErrNotDue = errors.New("refresh: the account was refreshed less than the spacing ago")
	// ErrHookPanicked: the [WithDeltaHook] function panicked (the panic
	// is recovered; the error's text gives a runtime error's message or
	// the panic value's type, never the value, which may hold an account
	// id, as a Result's JSON shows this error's text); the outcome is
	// [Transient], as for a hook that returned an error, the delta kept
	// in [Result.Sync]. A job that panicked anywhere else in a Run's
	// worker ends [Transient] with it too, the panic also logged.
	ErrHookPanicked = errors.New("refresh: hook panicked")
	// ErrPaused: the bank asked to slow down (429 with Retry-After) for
	// longer than [WithMaxWait]; the outcome is [Transient], RetryAt is
	// when the pause ends, and nothing more was sent. It is
	// budget.ErrPaused: the error is a *budget.PausedError.
	ErrPaused = budget.ErrPaused
	// ErrReadTooLarge: the transactions' pages held more entries than one
	// job reads (64 pages of the 500 entries a page holds: a bank whose
	// next links never end, or an account too large for a round). The
	// read was cut short and is not applied to the sync ([WithSync]); the
	// outcome is [Refused], the cursor is kept, and Booked and Pending
	// hold what was read.
	ErrReadTooLarge = errors.New("refresh: the transactions read hold more entries than one job reads")
)
