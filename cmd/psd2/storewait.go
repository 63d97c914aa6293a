package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/tppkit/psd2/internal/storebound"
	"github.com/tppkit/psd2/store"
)

// The store's answers. A database that accepts connections and then
// answers no query (a table locked by a migration, a server out of
// disk, a half-dead proxy) would hold a command for as long as its
// context, which an operator's shell never ends: psd2 waits at most
// -store-wait for any one answer of the store, and then ends with exit
// status 3 and a message that says so, never with a partial listing.
const (
	// defaultStoreWait is -store-wait's default.
	defaultStoreWait = 30 * time.Second
	// minStoreWait and maxStoreWait bound -store-wait.
	minStoreWait = time.Second
	maxStoreWait = time.Hour
)

// storeWaitError is the cause of a store call given up after wait.
type storeWaitError struct{ wait time.Duration }

func (e *storeWaitError) Error() string {
	return fmt.Sprintf("the store did not answer within %s (-store-wait): nothing was read or changed after that point", e.wait)
}

// parseStoreWait reads -store-wait.
func parseStoreWait(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < minStoreWait || d > maxStoreWait {
		return 0, usagef("-store-wait %q: want a duration from %s to %s, such as 30s", s, minStoreWait, maxStoreWait)
	}
	return d, nil
}

// waiting bounds ctx by wait; the error of a call made with it is
// passed through storeErr.
func waiting(ctx context.Context, wait time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, wait, &storeWaitError{wait})
}

// storeErr is err, or the storeWaitError that ended ctx when it did.
func storeErr(ctx context.Context, err error) error {
	var we *storeWaitError
	if err != nil && errors.As(context.Cause(ctx), &we) {
		return we
	}
	return err
}

// waitingStore is a store.Store whose every call waits at most wait for
// the store; Keys waits at most wait for each key (a long listing that
// goes on is never cut).
type waitingStore struct {
	st   store.Store
	wait time.Duration
}

func (w *waitingStore) Get(ctx context.Context, key string) ([]byte, error) {
	ctx, cancel := waiting(ctx, w.wait)
	defer cancel()
	v, err := w.st.Get(ctx, key)
	return v, storeErr(ctx, err)
}

func (w *waitingStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	ctx, cancel := waiting(ctx, w.wait)
	defer cancel()
	return storeErr(ctx, w.st.Put(ctx, key, value, ttl))
}

func (w *waitingStore) Delete(ctx context.Context, key string) error {
	ctx, cancel := waiting(ctx, w.wait)
	defer cancel()
	return storeErr(ctx, w.st.Delete(ctx, key))
}

func (w *waitingStore) Take(ctx context.Context, key string) ([]byte, error) {
	ctx, cancel := waiting(ctx, w.wait)
	defer cancel()
	v, err := w.st.Take(ctx, key)
	return v, storeErr(ctx, err)
}

func (w *waitingStore) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	ctx, cancel := waiting(ctx, w.wait)
	defer cancel()
	return storeErr(ctx, w.st.Update(ctx, key, fn))
}

// Keys waits at most wait for each key, the clock stopped while the
// caller handles one.
func (w *waitingStore) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return storebound.Keys(ctx, w.st, prefix, w.wait, &storeWaitError{w.wait})
}
