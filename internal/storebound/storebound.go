// Package storebound bounds how long the SDK's callers that must not
// wait for ever on a store.Store that stopped answering (the journal,
// txsync, reconcile, sca's Manager, the psd2 command) wait for it. A
// call on one key is bounded with context.WithTimeout ([Store]); a
// listing is not: a long one that goes on must not be cut, so it is the
// wait for each key that is bounded ([Keys]).
package storebound

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/tppkit/psd2/store"
)

// NoAnswerError is the error of a listing that waited Wait for its next
// key; it matches context.DeadlineExceeded.
type NoAnswerError struct{ Wait time.Duration }

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("the store did not answer within %s", e.Wait)
}

// Is reports whether target is context.DeadlineExceeded.
func (e *NoAnswerError) Is(target error) bool { return target == context.DeadlineExceeded }

// Keys yields st.Keys(ctx, prefix), waiting at most wait for each key;
// the clock stops while the caller handles one. When a key does not come
// in time the listing is cancelled and ends with cause (a *NoAnswerError
// when nil) as its error.
func Keys(ctx context.Context, st store.Store, prefix string, wait time.Duration, cause error) iter.Seq2[string, error] {
	if cause == nil {
		cause = &NoAnswerError{Wait: wait}
	}
	return func(yield func(string, error) bool) {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		t := time.AfterFunc(wait, func() { cancel(cause) })
		defer t.Stop()
		for k, err := range st.Keys(ctx, prefix) {
			late := !t.Stop() // the wait ended before this key came
			switch {
			case late:
				yield("", cause)
				return
			case err != nil:
				yield(k, err)
				return
			case !yield(k, nil):
				return
			}
			t.Reset(wait)
		}
		if context.Cause(ctx) == cause {
			yield("", cause) // the store ended the listing when cancelled, without an error
		}
	}
}

// Store is a store.Store with each call on one key bounded by Wait,
// whatever the context it is made on, and each listing's wait for its
// next key bounded by Wait ([Keys]): a slow or hung database never holds
// its caller for ever, even on a context without a deadline, and a
// caller's earlier deadline still ends a call sooner. A call given up on
// ends with an error matching context.DeadlineExceeded; the store may
// have written all the same, as after any failed write.
type Store struct {
	store.Store
	Wait time.Duration
}

// Get implements store.Store.
func (b Store) Get(ctx context.Context, key string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, b.Wait)
	defer cancel()
	return b.Store.Get(ctx, key)
}

// Put implements store.Store.
func (b Store) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, b.Wait)
	defer cancel()
	return b.Store.Put(ctx, key, value, ttl)
}

// Delete implements store.Store.
func (b Store) Delete(ctx context.Context, key string) error {
	ctx, cancel := context.WithTimeout(ctx, b.Wait)
	defer cancel()
	return b.Store.Delete(ctx, key)
}

// Take implements store.Store.
func (b Store) Take(ctx context.Context, key string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, b.Wait)
	defer cancel()
	return b.Store.Take(ctx, key)
}

// Update implements store.Store.
func (b Store) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	ctx, cancel := context.WithTimeout(ctx, b.Wait)
	defer cancel()
	return b.Store.Update(ctx, key, fn)
}

// Keys implements store.Store: [Keys] with the wait Wait.
func (b Store) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return Keys(ctx, b.Store, prefix, b.Wait, nil)
}
