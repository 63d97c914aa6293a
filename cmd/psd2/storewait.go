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

// storeWaitError is the error of a store call given up after wait: by
// -store-wait (flag), or sooner by a bound of the SDK's own, such as the
// journal's and the budget's 10 s for one store call.
type storeWaitError struct {
	wait time.Duration
	flag bool
}

func (e *storeWaitError) Error() string {
	by := "the SDK's bound of one store call"
	if e.flag {
		by = "-store-wait"
	}
	return fmt.Sprintf("the store did not answer within %s (%s): nothing was read or changed after that point", e.wait, by)
}

// parseStoreWait reads -store-wait.
func parseStoreWait(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < minStoreWait || d > maxStoreWait {
		return 0, usagef("-store-wait %q: want a duration from %s to %s, such as 30s", s, minStoreWait, maxStoreWait)
	}
	return d, nil
}

// waiting bounds one store call by wait: it returns the call's context
// and the function that ends the call, which takes the call's error and
// returns it in the operator's words when a bound ended the call
// (storeErr).
func waiting(ctx context.Context, wait time.Duration) (context.Context, func(error) error) {
	start := time.Now()
	ctx, cancel := context.WithTimeoutCause(ctx, wait, &storeWaitError{wait: wait, flag: true})
	return ctx, func(err error) error {
		defer cancel()
		return storeErr(ctx, start, err)
	}
}

// storeErr is err, or a storeWaitError when a deadline ended ctx, the
// context of a store call made at start: -store-wait's, or a shorter
// one of the SDK's (then with the time it waited).
func storeErr(ctx context.Context, start time.Time, err error) error {
	if err == nil {
		return nil
	}
	var we *storeWaitError
	switch cause := context.Cause(ctx); {
	case errors.As(cause, &we):
		return we
	case errors.Is(cause, context.DeadlineExceeded):
		return &storeWaitError{wait: time.Since(start).Round(time.Second)}
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
	ctx, end := waiting(ctx, w.wait)
	v, err := w.st.Get(ctx, key)
	return v, end(err)
}

func (w *waitingStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	ctx, end := waiting(ctx, w.wait)
	return end(w.st.Put(ctx, key, value, ttl))
}

func (w *waitingStore) Delete(ctx context.Context, key string) error {
	ctx, end := waiting(ctx, w.wait)
	return end(w.st.Delete(ctx, key))
}

func (w *waitingStore) Take(ctx context.Context, key string) ([]byte, error) {
	ctx, end := waiting(ctx, w.wait)
	v, err := w.st.Take(ctx, key)
	return v, end(err)
}

func (w *waitingStore) Update(ctx context.Context, key string, fn func(old []byte, found bool) ([]byte, time.Duration, error)) error {
	ctx, end := waiting(ctx, w.wait)
	return end(w.st.Update(ctx, key, fn))
}

// Keys waits at most wait for each key, the clock stopped while the
// caller handles one.
func (w *waitingStore) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return storebound.Keys(ctx, w.st, prefix, w.wait, &storeWaitError{wait: w.wait, flag: true})
}
