package store

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"
	"unicode"
)

// Store keeps small values by a key the SDK chooses. It is the one state
// interface of the SDK: sca keeps PSU sessions and pending SCAs in it,
// accounts the without-PSU call budget, journal the create journal. Every
// method must be safe for concurrent use by goroutines and, for a store
// shared by several processes or replicas, by those processes:
//
//   - Get returns the value under key, or an error matching [ErrNotStored]
//     when there is none or it has expired.
//   - Put stores value under key, replacing any earlier value. A ttl above
//     zero lets the store forget the value after that long (a pending SCA,
//     a budget window); 0 keeps it until deleted. An expired value is
//     never returned, and the store reclaims its space eventually.
//   - Delete removes key; a missing key is not an error.
//   - Take returns the value under key and deletes it in one atomic step:
//     of several concurrent Takes of one key, across processes, exactly
//     one gets the value and the others get [ErrNotStored]. A pending SCA
//     is completed by one callback only because of it.
//   - Update runs a read-modify-write of one key atomically against every
//     other Put, Delete, Take and Update of that key, across processes: fn
//     gets the current value and whether there is one, and returns the
//     new value and its ttl (as for Put); a nil value deletes the key; an
//     error from fn leaves the key as it was and Update returns it. fn may
//     run more than once (a store that retries a transaction); it must not
//     have side effects. Updates of different keys should not wait on
//     each other. Two replicas can never both take the last budget call
//     because of it.
//   - Keys yields the keys that start with prefix and have not expired,
//     in ascending byte order, then stops; an error ends the sequence.
//     Keys written during the iteration may or may not be yielded.
//
// Keys are 1 to [MaxKeyLen] bytes of printable text without a leading
// "/", a ".." element or a backslash ([CheckKey]); values are at most
// [MaxValueLen] bytes. [MemoryStore] is provided here; the SDK also
// ships a file store ([FileStore]) and a PostgreSQL store (module
// github.com/tppkit/psd2/pgstore). Package storetest checks any
// implementation, a user's own included, against this contract.
type Store interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Put(ctx context.Context, key string, value []byte, ttl time.Duration) error
	Delete(ctx context.Context, key string) error
	Take(ctx context.Context, key string) ([]byte, error)
	Update(ctx context.Context, key string, fn func(old []byte, found bool) (value []byte, ttl time.Duration, err error)) error
	Keys(ctx context.Context, prefix string) iter.Seq2[string, error]
}

// ErrNotStored is matched (errors.Is) by the error of Get and Take for a
// key that holds no value (never stored, deleted, taken or expired).
var ErrNotStored = errors.New("store: no value under this key")

// ErrInvalidKey is matched by the error of every method given a key that
// [CheckKey] refuses.
var ErrInvalidKey = errors.New("store: invalid key")

// ErrValueTooLarge is matched by the error of Put and Update for a value
// longer than [MaxValueLen].
var ErrValueTooLarge = errors.New("store: value too large")

// MaxKeyLen is the longest key a Store accepts.
const MaxKeyLen = 1024

// MaxValueLen is the longest value a Store accepts: far above any
// session, pending SCA, budget window or journal entry the SDK writes,
// and small enough that a value never strains memory.
const MaxValueLen = 1 << 20

// CheckKey reports whether key is acceptable to every Store: 1 to
// [MaxKeyLen] bytes, printable (no control characters or invalid UTF-8),
// no leading "/", no backslash and no ".." element, so that no key can
// name a path outside a file store's directory. The SDK's keys look like
// "sca/session/user-42".
func CheckKey(key string) error {
	if key == "" || len(key) > MaxKeyLen {
		return fmt.Errorf("%w: must have 1 to %d bytes", ErrInvalidKey, MaxKeyLen)
	}
	if strings.HasPrefix(key, "/") || strings.ContainsRune(key, '\\') {
		return fmt.Errorf("%w: absolute or with a backslash", ErrInvalidKey)
	}
	for _, r := range key {
		// unicode.IsControl: C0, DEL and the C1 controls U+0080..U+009F.
		if unicode.IsControl(r) || r == '\uFFFD' {
			return fmt.Errorf("%w: control character or invalid UTF-8", ErrInvalidKey)
		}
	}
	for _, el := range strings.Split(key, "/") {
		if el == ".." {
			return fmt.Errorf("%w: path traversal", ErrInvalidKey)
		}
	}
	return nil
}

// CheckValue reports whether v is acceptable to every Store: at most
// [MaxValueLen] bytes. The error matches [ErrValueTooLarge]. A Store
// implementation calls it in Put and on the value Update's fn returns.
func CheckValue(v []byte) error {
	if len(v) > MaxValueLen {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrValueTooLarge, len(v), MaxValueLen)
	}
	return nil
}

// expiry turns a ttl into an absolute time; zero means never.
func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return now.Add(ttl)
}
