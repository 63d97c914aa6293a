package journal

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tppkit/psd2/store"
)

// keyspace is where one version of the journal keeps its records in the
// store, each key followed by the path-escaped X-Request-ID: the entries,
// a marker per entry that may be in doubt (so that InDoubt reads the few
// open entries, not months of settled ones), and the created id of an
// entry that could not be updated (one Put records it, and reading the
// entry folds it in: see recordKnown).
type keyspace struct{ entries, open, created, flight, claim string }

// ASSUMPTION (keyspaces): the journal writes every new entry under
// current. Versions before it kept the journal under the prefixes of its
// first home, package payments (legacy). Those entries are read, listed,
// settled and resolved where they are, under their own keys, and never
// moved: a replica of the earlier version may still be recording the
// outcome of one of them during a rolling deploy, and a move would lose
// that write. They leave with their retention, like any settled entry.
// A new create's X-Request-ID is checked against current only, so a
// request id that a legacy entry holds could be journaled again (each
// create has its own, random one); [Journal.Entry] then returns the
// current entry.
var (
	current = keyspace{entries: "journal/entry/", open: "journal/open/", created: "journal/created/",
		flight: "journal/flight/", claim: "journal/claim/"}
	legacy = keyspace{entries: "payments/journal/", open: "payments/journal-open/", created: "payments/journal-created/",
		flight: "payments/journal-flight/", claim: "payments/journal-claim/"}
	keyspaces = [...]keyspace{current, legacy}
)

// spaceOf returns the keyspace of an entry's key.
func spaceOf(key string) keyspace {
	for _, ks := range keyspaces {
		if strings.HasPrefix(key, ks.entries) {
			return ks
		}
	}
	return current
}

// entryKey returns the key of the entry of requestID in ks.
func entryKey(ks keyspace, requestID string) (string, error) {
	k := ks.entries + url.PathEscape(requestID)
	if err := store.CheckKey(k); err != nil {
		return "", fmt.Errorf("%w: request id unusable as a key: %w", ErrJournal, err)
	}
	return k, nil
}

// doubtKey returns the key of the open marker of the entry under key.
func doubtKey(key string) string { return besideKey(key, func(ks keyspace) string { return ks.open }) }

// createdKey returns the key of the created id of the entry under key.
func createdKey(key string) string {
	return besideKey(key, func(ks keyspace) string { return ks.created })
}

// flightKey returns the key of the in-flight lease of the entry under
// key (see leases).
func flightKey(key string) string {
	return besideKey(key, func(ks keyspace) string { return ks.flight })
}

// claimKey returns the key of the claim lease of the entry under key
// (see leases).
func claimKey(key string) string { return besideKey(key, func(ks keyspace) string { return ks.claim }) }

// besideKey returns the key, under the prefix of the entry's keyspace
// that prefix names, of the value kept beside the entry under key.
func besideKey(key string, prefix func(keyspace) string) string {
	ks := spaceOf(key)
	return prefix(ks) + strings.TrimPrefix(key, ks.entries)
}

// ASSUMPTION (leases): replicas' clocks disagree (a replica without NTP
// drifts by minutes), so no replica judges on its own clock a time
// another replica wrote. An entry's in-flight bound (Until) and a
// Resolve's claim (claim.Until) are therefore also written as leases:
// store values whose ttl is the remaining time, which the store expires
// on its one clock (pgstore: the database's; a FileStore or MemoryStore:
// the one machine's). While its lease exists an entry's create is under
// way, or its claim holds, whatever the reader's clock says; once the
// lease is gone (or its write failed) the times in the entry decide, as
// before. A writer's clock that stepped back since the entry's creation
// lengthens no in-flight lease beyond its end after that creation
// (leaseTTL).

// flying reports whether the in-flight lease of the entry under key
// exists: its create may still be on its way. A store error is an
// error (the caller sends nothing).
func (j *Journal) flying(ctx context.Context, key string) (bool, error) {
	_, err := j.st.Get(ctx, flightKey(key))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, store.ErrNotStored):
		return false, nil
	}
	return false, fmt.Errorf("%w: %w", ErrJournal, err)
}

// closeDoubt removes the open marker of the entry under key once the
// entry is settled. Best effort: InDoubt removes markers of settled
// entries it meets.
func (j *Journal) closeDoubt(ctx context.Context, key string) {
	_ = j.st.Delete(ctx, doubtKey(key))
}

// putMarker writes the open marker of the entry under key, holding the
// entry's creation time.
func (j *Journal) putMarker(ctx context.Context, key string, created time.Time) error {
	return j.st.Put(ctx, doubtKey(key), []byte(created.Format(time.RFC3339Nano)), 0)
}

// armed reports whether the entry under key may be sent again when it has
// no outcome: whether its open marker exists (see armedCreates).
func (j *Journal) armed(ctx context.Context, key string) (bool, error) {
	_, err := j.st.Get(ctx, doubtKey(key))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, store.ErrNotStored):
		return false, nil
	}
	return false, fmt.Errorf("%w: %w", ErrJournal, err)
}

// keepFold writes the created id folded in from the created record into
// the entry under key, and then removes that record.
func (j *Journal) keepFold(ctx context.Context, key, id string) error {
	err := j.update(ctx, key, func(rec *journalRecord) error {
		if rec.Outcome == "" && rec.ID == "" {
			rec.Outcome, rec.ID = OutcomeCreated, id
		}
		return nil
	})
	if err == nil {
		_ = j.st.Delete(ctx, createdKey(key))
	}
	return err
}

// putCreated records id as the created id of the entry under key in one
// Put, kept as long as the entry (no ttl).
func (j *Journal) putCreated(ctx context.Context, key, id string) error {
	return j.st.Put(ctx, createdKey(key), []byte(id), 0)
}

// foldCreated makes rec, without an outcome, created with the id the
// store holds under the created prefix, if any; it reports whether it
// did.
func (j *Journal) foldCreated(ctx context.Context, key string, rec *journalRecord) (bool, error) {
	if rec.Outcome != "" || rec.ID != "" {
		return false, nil
	}
	b, err := j.st.Get(ctx, createdKey(key))
	switch {
	case errors.Is(err, store.ErrNotStored):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("%w: %w", ErrJournal, err)
	case len(b) == 0:
		return false, nil
	}
	rec.Outcome, rec.ID = OutcomeCreated, string(b)
	return true, nil
}
