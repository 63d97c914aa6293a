// Package storebound bounds how long a listing of a store.Store may wait
// for its next key, for the SDK's callers that must not wait for ever on
// a store that stopped answering (the journal, the psd2 command). A call
// on one key is bounded with context.WithTimeout; a listing is not: a
// long one that goes on must not be cut, so it is the wait for each key
// that is bounded.
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
