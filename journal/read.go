package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"
	"time"

	"github.com/tppkit/psd2/store"
)

// Entry returns the entry of the create sent with X-Request-ID
// requestID, written by this version or an earlier one (see the package
// doc); an error matching [store.ErrNotStored] when there is none, which
// also matches [ErrLost] when its open marker is there without it (see
// [Lost]).
func (j *Journal) Entry(ctx context.Context, requestID string) (Entry, error) {
	var err error
	for _, ks := range keyspaces {
		var key string
		if key, err = entryKey(ks, requestID); err != nil {
			return Entry{}, err
		}
		var e Entry
		if e, err = j.read(ctx, key); !errors.Is(err, store.ErrNotStored) {
			return e, err
		}
	}
	if _, _, lost, lerr := j.lostMarker(ctx, requestID); lerr != nil {
		return Entry{}, lerr
	} else if lost {
		return Entry{}, lostError{requestID}
	}
	return Entry{}, err
}

// read returns the entry stored under key.
func (j *Journal) read(ctx context.Context, key string) (Entry, error) {
	if j == nil || j.st == nil {
		return Entry{}, fmt.Errorf("%w: no journal (use journal.New)", ErrJournal)
	}
	b, err := j.st.Get(ctx, key)
	if err != nil {
		return Entry{}, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	var rec journalRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return Entry{}, unreadableEntry(key, err)
	}
	if err := rec.check(); err != nil {
		return Entry{}, unreadableEntry(key, err)
	}
	folded, err := j.foldCreated(ctx, key, &rec)
	if err != nil {
		return Entry{}, err
	}
	e := rec.entry(j, key)
	e.folded = folded
	return e, nil
}

// ErrEntryUnreadable is matched by the error of an entry the journal's
// store holds but the journal cannot read: not JSON, cut short, missing
// what every entry has, or written by a newer version (an
// [*UnreadableEntryError]). It also matches [ErrJournal].
var ErrEntryUnreadable = errors.New("journal: entry unreadable")

// UnreadableEntryError is the error of an entry the journal cannot read.
// [Journal.Entries] and [Journal.InDoubt] yield it in the entry's place
// and go on with the next entries: a consumer that stops at an error sees
// no more than before, and one that goes on sees every entry it can
// read, so that one damaged entry does not hide the payments in doubt
// after it. It matches [ErrEntryUnreadable] and [ErrJournal].
type UnreadableEntryError struct {
	// RequestID is the entry's request id (X-Request-ID of its create),
	// as its key names it: what psd2 journal show takes.
	RequestID string
	// Err says what is wrong with it.
	Err error
}

func (e *UnreadableEntryError) Error() string {
	return "journal: store: entry " + e.RequestID + " unreadable: " + e.Err.Error()
}

// Is matches [ErrEntryUnreadable] and [ErrJournal].
func (e *UnreadableEntryError) Is(target error) bool {
	return target == ErrEntryUnreadable || target == ErrJournal
}

// Unwrap returns Err.
func (e *UnreadableEntryError) Unwrap() error { return e.Err }

// unreadableEntry is the *UnreadableEntryError of the entry under key.
func unreadableEntry(key string, err error) error {
	id := key
	for _, ks := range keyspaces {
		if rest, ok := strings.CutPrefix(key, ks.entries); ok {
			id = rest
			if u, uerr := url.PathUnescape(rest); uerr == nil {
				id = u
			}
			break
		}
	}
	return &UnreadableEntryError{RequestID: id, Err: err}
}

// Entries yields every entry of the journal: those written by this
// version in the order of their keys (the escaped request ids), then
// those an earlier version left under its prefix (see the package doc).
// An entry it cannot read is yielded as an [*UnreadableEntryError]
// ([ErrEntryUnreadable]) and the sequence goes on; any other error (the
// store's) ends it.
func (j *Journal) Entries(ctx context.Context) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		if j == nil || j.st == nil {
			yield(Entry{}, fmt.Errorf("%w: no journal (use journal.New)", ErrJournal))
			return
		}
		for _, ks := range keyspaces {
			for key, err := range j.st.Keys(ctx, ks.entries) {
				if err != nil {
					yield(Entry{}, fmt.Errorf("%w: %w", ErrJournal, err))
					return
				}
				e, err := j.read(ctx, key)
				if errors.Is(err, store.ErrNotStored) {
					continue // expired or deleted meanwhile
				}
				if !yield(e, err) || err != nil && !errors.Is(err, ErrEntryUnreadable) {
					return
				}
			}
		}
	}
}

// InDoubt yields the entries that may stand for a resource nobody knows
// about (see [Entry.InDoubt]): outcome unknown, or no outcome at
// all and older than the in-flight time ([DefaultInFlight],
// [WithInFlight]), so that creates still on their way in another
// replica are left alone. An entry whose outcome is unknown is yielded
// at once, though [Journal.Resolve] sends nothing for it until the bank
// is done with it ([ErrInFlight]). Pass each to [Journal.Resolve]. The entries of
// Resolve's own resends are never yielded: their original is. It reads
// only the open entries (each gets a marker in the store once its intent
// is recorded, before it is sent, until it is settled), not the settled
// ones, of this version and of earlier ones; an entry whose create was
// reported as [client.ErrNotSent] is never yielded. An open marker
// whose entry is missing is not yielded (there is nothing to resolve)
// and never removed: [Journal.Lost] yields it. An entry it cannot read
// is yielded as an [*UnreadableEntryError] ([ErrEntryUnreadable]), in
// doubt as far as anyone can tell, and the sequence goes on; any other
// error ends it.
func (j *Journal) InDoubt(ctx context.Context) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		if j == nil || j.st == nil {
			yield(Entry{}, fmt.Errorf("%w: no journal (use journal.New)", ErrJournal))
			return
		}
		now := j.now()
		for _, ks := range keyspaces {
			for marker, err := range j.st.Keys(ctx, ks.open) {
				if err != nil {
					yield(Entry{}, fmt.Errorf("%w: %w", ErrJournal, err))
					return
				}
				e, err := j.read(ctx, ks.entries+strings.TrimPrefix(marker, ks.open))
				switch {
				case errors.Is(err, store.ErrNotStored):
					// A marker without its entry: nothing to resolve,
					// and never removed here, since the payment it
					// stands for may exist (see Lost): Journal.Lost
					// yields it, and a person settles it.
					continue
				case errors.Is(err, ErrEntryUnreadable):
					if !yield(Entry{}, err) {
						return
					}
					continue
				case err != nil:
					yield(Entry{}, err)
					return
				case !e.InDoubt():
					if e.folded {
						_ = j.keepFold(ctx, e.key, e.ID)
					}
					j.closeDoubt(ctx, e.key)
					continue
				case e.Outcome == "":
					under, err := j.underWay(ctx, e, now)
					if err != nil {
						// Not known not to be in flight: left out, the
						// list would claim less in doubt than there is.
						yield(Entry{}, err)
						return
					}
					if under {
						continue
					}
				}
				if !yield(e, nil) {
					return
				}
			}
		}
	}
}

// underWay reports whether the create of e, without an outcome, may
// still be running (or recording its outcome) at now: younger than the
// in-flight time, or than its call's own bound plus outcomeTimeout. With
// WithWritersStopped nothing is under way.
// Whatever the reader's clock says, it is under way while its in-flight
// lease lives (see leases); a store error reading the lease is returned,
// and the entry is then to be taken as under way.
func (j *Journal) underWay(ctx context.Context, e Entry, now time.Time) (bool, error) {
	if j.stopped {
		return false, nil
	}
	if j.youngAt(e, now) {
		return true, nil
	}
	return j.flying(ctx, e.key)
}

// mayBeUnderWay is underWay with a store error taken as under way.
func (j *Journal) mayBeUnderWay(ctx context.Context, e Entry, now time.Time) bool {
	under, err := j.underWay(ctx, e, now)
	return under || err != nil
}

// bankDone is when e, whose outcome is unknown, is old enough that the
// bank is taken to be done with its create: the in-flight time after
// its intent, or its own bound (Until) when later.
func (e Entry) bankDone(inFlight time.Duration) time.Time {
	done := e.Created.Add(inFlight)
	if e.Until.After(done) {
		done = e.Until
	}
	return done
}

// youngAt reports whether e is younger, at now on this journal's clock,
// than the in-flight time or its own bound.
func (j *Journal) youngAt(e Entry, now time.Time) bool {
	return now.Sub(e.Created) < j.inFlight || now.Before(e.Until)
}
