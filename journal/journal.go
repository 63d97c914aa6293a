package journal

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/storebound"
	"github.com/tppkit/psd2/store"
)

// Defaults of a [Journal].
const (
	// DefaultInFlight is how long after its intent an entry without an
	// outcome is taken to be still on its way ([Journal.InDoubt] skips
	// it), at the least: an entry stays in flight until the longest its
	// create can run ([client.Client.LongestCall], or its context's
	// deadline when sooner) and the recording of its outcome are over,
	// however short this is, so that a replica never resolves a create
	// another replica is still sending.
	DefaultInFlight = 2 * time.Minute
	// DefaultRetention is how long an entry whose outcome is settled
	// (created, refused, not sent, or resolved) stays in the journal.
	// Entries in doubt are kept until they are resolved.
	DefaultRetention = 90 * 24 * time.Hour
	// outcomeTries bounds the attempts to record an outcome.
	outcomeTries = 3
	// outcomeTimeout bounds the recording of an outcome, which runs
	// after the call even when the call's context ended.
	outcomeTimeout = 10 * time.Second
	// createdRetryFor bounds how long a known outcome (a created id, a
	// refusal, not sent) the store refused is retried in the background
	// (see recordKnown).
	createdRetryFor = 24 * time.Hour
	// settleTimeout bounds the marking of an entry as not sent after its
	// intent was reported unwritten, which runs even when the call's
	// context ended; the caller waits for it.
	settleTimeout = 5 * time.Second
	// storeTimeout bounds each of the journal's calls of its store on
	// one key (see boundedStore), whatever the context it is made on.
	storeTimeout = 10 * time.Second
)

// Journal records every create it is given a [Journal.Hook] for (every
// payment and signing-basket creation of a service made with a journal)
// before it is sent and what became of it, in a [store.Store], so that a
// TPP that crashed, or got [client.ErrOutcomeUnknown], learns which
// resources may exist and resolves them with [Journal.Resolve] without
// ever creating a second one (docs/design.md section 8). Keep it in a
// store every replica shares (package pgstore, a store.FileStore on one
// machine): then any replica resolves what another left in doubt. A
// Journal in a store.MemoryStore does not survive the process.
//
// An entry is written durably in the call's [client.Hook], before the
// request leaves: a store error stops the call (nothing is sent without
// a journal entry), and the SDK never sends a create it reported as
// [client.ErrNotSent] later, even when the store wrote the entry while
// reporting an error. It holds the X-Request-ID, the operation, the
// [Create] and URL, the exact body, the session and PSU headers needed to send
// it again, the TPP-Session-ID as SessionKey, and whether the call
// carried allowLogicalDuplicate. After the call its outcome is added:
// created (with the created resource's id), refused by the bank (status and
// codes), not sent, or unknown. An entry keeps account numbers and PSU
// ids in clear in the store, as a session does; its printed (every fmt
// verb, %#v included), slog and JSON forms leave them out.
//
// A Journal is safe for concurrent use.
type Journal struct {
	st    store.Store
	clock func() time.Time
	// ahead is how far a test has moved the clock on (export_test.go's
	// Age and MovePast), read atomically because outcomes are recorded
	// in the background; zero otherwise.
	ahead     atomic.Int64
	inFlight  time.Duration
	retention time.Duration
	stopped   bool // WithWritersStopped

	// Outcomes and created ids still being recorded in the background
	// (Flush).
	writes storebound.Writes
}

// Option configures a [Journal] in [New]; an invalid one
// makes New fail.
type Option func(*Journal) error

// WithInFlight replaces [DefaultInFlight]: entries without an outcome
// younger than d are not in doubt yet. It never shortens an entry's own
// bound: an entry stays in flight until its create and the recording of
// its outcome cannot be running any more ([Entry.Until]: the journal's
// writes before the create is sent and the client's
// [client.Client.LongestCall], or the call's deadline when sooner, plus
// the time allowed to record the outcome), whatever d is. A negative d
// is refused. To resolve at once the entries of writers known to have
// stopped, use [WithWritersStopped].
func WithInFlight(d time.Duration) Option {
	return func(j *Journal) error {
		if d < 0 {
			return fmt.Errorf("journal: WithInFlight(%v): negative", d)
		}
		j.inFlight = d
		return nil
	}
}

// WithWritersStopped is for a Journal read by an operator who knows
// that every process that could be sending a create journaled in it has
// stopped (crashed, killed, shut down): an entry without an outcome is
// then in doubt at once, whatever its in-flight time. So is an entry
// whose outcome is unknown: the operator vouches that the bank is done
// with it too (a few minutes have passed since its client gave up).
// Never give it to a Journal of a running fleet: a create still under way
// would be resolved by a resend.
func WithWritersStopped() Option {
	return func(j *Journal) error {
		j.stopped = true
		return nil
	}
}

// WithRetention replaces [DefaultRetention]; 0 keeps settled entries
// until deleted. A negative d is refused.
func WithRetention(d time.Duration) Option {
	return func(j *Journal) error {
		if d < 0 {
			return fmt.Errorf("journal: WithRetention(%v): negative", d)
		}
		j.retention = d
		return nil
	}
}

// WithClient makes the Journal read the time from c's clock
// ([client.Client.Now], set with client.WithClock), the SDK's one clock,
// instead of time.Now: give the client whose creates it journals.
func WithClient(c *client.Client) Option {
	return func(j *Journal) error {
		if c == nil {
			return errors.New("journal: WithClient(nil)")
		}
		j.clock = c.Now
		return nil
	}
}

// New returns a Journal keeping its entries in st under the prefix
// "journal/entries/", and a marker for each entry not yet settled under
// "journal/open/" (it still reads, lists and resolves the entries of
// earlier versions under "payments/journal/": see the package doc). It
// refuses a nil store and an invalid option.
func New(st store.Store, opts ...Option) (*Journal, error) {
	if st == nil {
		return nil, errors.New("journal: New needs a store")
	}
	j := &Journal{st: boundedStore{Store: st, Wait: storeTimeout}, clock: time.Now, inFlight: DefaultInFlight,
		retention: DefaultRetention}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(j); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// boundedStore is the journal's store with each call on one key bounded
// by Wait (storeTimeout; a test's may be shorter), so that a slow or hung
// database never holds a call, a job or a Resolve for ever, even on a
// context without a deadline. Above all the writes a create's hook makes
// before the create is sent (its intent, its open marker, a resend's
// claim): one given up on ends the hook with an error, and the create is
// not sent (client.ErrNotSent), as after any failed write of the intent.
// The bound is the store call's own; an entry's in-flight bound
// (Entry.Until, see callBound) counts the two it may take before the
// create is sent. A listing (Keys, under Entries, InDoubt and the
// resolver's scans) waits at most Wait for each key: a long one that
// goes on is never cut, a store that stopped answering ends it with
// context.DeadlineExceeded.
type boundedStore = storebound.Store

// ErrJournal matches the errors of the journal's store: an intent that
// could not be recorded (the create was not sent), an entry that cannot
// be read.
var ErrJournal = errors.New("journal: store")

// now is the journal's clock: the client's (WithClient) or the system's.
func (j *Journal) now() time.Time {
	return j.clock().Add(time.Duration(j.ahead.Load()))
}

// Flush waits until every outcome still being recorded after its call
// returned (the caller's deadline came first, see settleWithin) and every
// known outcome (a created id, a refusal, not sent) whose recording the
// store refused (see recordKnown) has been recorded, or ctx ends (its
// error then). Call it before a process exits, so that a resource the
// bank created is not left without an outcome.
func (j *Journal) Flush(ctx context.Context) error {
	if j == nil {
		return nil
	}
	if err := j.writes.Wait(ctx); err != nil {
		return fmt.Errorf("%w: flush: %w", ErrJournal, err)
	}
	return nil
}
