package journal

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"
	"time"

	"github.com/tppkit/psd2/store"
)

// Lost is an open marker whose entry is missing: the journal knew of a
// create that may be in doubt (a marker is written once its intent is,
// and removed once it is settled), but no longer holds what it was. Its
// entry was deleted or lost while the create was not settled, or (an
// entry of an earlier version, which wrote the marker before the intent)
// its intent was never written, and nothing sent. Which of these it is,
// the journal cannot tell: the payment may exist, and nobody may know of
// it. [Journal.Lost] yields it; only a person settles it
// ([Journal.SettleByPerson]): the journal never removes it of its own.
type Lost struct {
	// RequestID is the X-Request-ID of the create.
	RequestID string
	// Marked is when its intent was recorded, as the marker holds it;
	// zero when the marker holds no time the journal reads.
	Marked time.Time
}

// ErrLost matches the error of [Journal.Entry] for a request id whose
// entry is missing while its open marker is there (see [Lost]); it also
// matches [store.ErrNotStored].
var ErrLost = errors.New("journal: entry lost: only its open marker is left")

// lostError is ErrLost that also matches store.ErrNotStored.
type lostError struct{ requestID string }

func (e lostError) Error() string {
	return fmt.Sprintf("%v (request id %s)", ErrLost, e.requestID)
}

func (e lostError) Is(target error) bool { return target == ErrLost || target == store.ErrNotStored }

// Lost yields the open markers whose entry is missing (see [Lost]),
// those older than the in-flight time ([DefaultInFlight], [WithInFlight];
// every one [WithWritersStopped]): an earlier version wrote its marker
// before its intent, and a younger one may be a create whose intent is
// being written. [Journal.InDoubt] does not yield them (there is no
// entry to resolve), and never removes them. An error ends the sequence.
func (j *Journal) Lost(ctx context.Context) iter.Seq2[Lost, error] {
	return func(yield func(Lost, error) bool) {
		if j == nil || j.st == nil {
			yield(Lost{}, fmt.Errorf("%w: no journal (use journal.New)", ErrJournal))
			return
		}
		now := j.now()
		for _, ks := range keyspaces {
			for marker, err := range j.st.Keys(ctx, ks.open) {
				if err != nil {
					yield(Lost{}, fmt.Errorf("%w: %w", ErrJournal, err))
					return
				}
				l, lost, err := j.lostAt(ctx, ks, marker, now)
				if err != nil {
					yield(Lost{}, err)
					return
				}
				if lost && !yield(l, nil) {
					return
				}
			}
		}
	}
}

// lostAt reports whether the open marker (in ks) is one of a lost entry
// at now: its entry missing, and the marker older than the in-flight
// time. A store error is an error: the caller cannot tell.
func (j *Journal) lostAt(ctx context.Context, ks keyspace, marker string, now time.Time) (Lost, bool, error) {
	suffix := strings.TrimPrefix(marker, ks.open)
	_, err := j.st.Get(ctx, ks.entries+suffix)
	switch {
	case err == nil:
		return Lost{}, false, nil
	case !errors.Is(err, store.ErrNotStored):
		return Lost{}, false, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	b, err := j.st.Get(ctx, marker)
	switch {
	case errors.Is(err, store.ErrNotStored):
		return Lost{}, false, nil // settled meanwhile
	case err != nil:
		return Lost{}, false, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	id, err := url.PathUnescape(suffix)
	if err != nil {
		id = suffix
	}
	l := Lost{RequestID: id}
	if at, err := time.Parse(time.RFC3339Nano, string(b)); err == nil {
		l.Marked = at
		if !j.stopped && now.Sub(at) < j.inFlight {
			return Lost{}, false, nil // perhaps an intent being written
		}
	}
	return l, true, nil
}

// lostMarker returns the key of the open marker of requestID whose entry
// is missing (in the first keyspace that has one), and its Lost; ok is
// false when there is none.
func (j *Journal) lostMarker(ctx context.Context, requestID string) (key string, l Lost, ok bool, err error) {
	now := j.now()
	for _, ks := range keyspaces {
		ekey, err := entryKey(ks, requestID)
		if err != nil {
			return "", Lost{}, false, err
		}
		marker := doubtKey(ekey)
		if _, err := j.st.Get(ctx, marker); errors.Is(err, store.ErrNotStored) {
			continue
		} else if err != nil {
			return "", Lost{}, false, fmt.Errorf("%w: %w", ErrJournal, err)
		}
		l, lost, err := j.lostAt(ctx, ks, marker, now)
		if err != nil || lost {
			return marker, l, lost, err
		}
	}
	return "", Lost{}, false, nil
}

// settleLost records a person's settlement of the lost entry of
// requestID (its marker under marker) as an entry of its own, settled
// (kept for the retention, with Lost set), and then removes the marker.
func (j *Journal) settleLost(ctx context.Context, marker string, l Lost, settled string) (Entry, error) {
	ks := current
	for _, k := range keyspaces {
		if strings.HasPrefix(marker, k.open) {
			ks = k
		}
	}
	key := ks.entries + strings.TrimPrefix(marker, ks.open)
	now := j.now().UTC()
	rec := journalRecord{V: recordVersion, RequestID: l.RequestID, Created: l.Marked, Lost: true,
		Resolution: &Resolution{Kind: SettledByPerson, Reason: settled, At: now}}
	b, err := marshalKeeping(&rec, nil)
	if err != nil {
		return Entry{}, err
	}
	err = j.st.Update(ctx, key, func(_ []byte, found bool) ([]byte, time.Duration, error) {
		if found {
			return nil, 0, errLostFound
		}
		return b, j.retention, nil
	})
	if err != nil {
		if errors.Is(err, errLostFound) {
			return Entry{}, fmt.Errorf("%w: the entry of %s was written while it was settled as lost: settle it again", ErrJournal, l.RequestID)
		}
		return Entry{}, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	// Best effort: the settlement is recorded, and InDoubt removes the
	// marker of a settled entry it meets.
	_ = j.st.Delete(ctx, marker)
	return j.read(ctx, key)
}

// errLostFound stops settleLost: the entry exists after all.
var errLostFound = errors.New("entry found")
