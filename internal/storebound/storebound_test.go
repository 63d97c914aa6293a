package storebound_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/storebound"
	"github.com/tppkit/psd2/store"
)

// slowKeys is a store whose listing waits pause before each key it
// lists after the first stall keys, and ends without an error when its
// context does (as a store may).
type slowKeys struct {
	store.Store
	stall int
	pause time.Duration
}

func (s slowKeys) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for k, err := range s.Store.Keys(ctx, prefix) {
			if s.stall--; s.stall < 0 {
				select {
				case <-time.After(s.pause):
				case <-ctx.Done():
					return
				}
			}
			if !yield(k, err) {
				return
			}
		}
	}
}

func fill(t *testing.T, n int) store.Store {
	st := store.NewMemoryStore()
	for i := range n {
		require.NoError(t, st.Put(t.Context(), fmt.Sprintf("k/%03d", i), []byte("v"), 0))
	}
	return st
}

// A caller that takes longer than the wait over each key is never cut:
// the clock runs only while the store is awaited.
func TestSlowCallerIsNotCut(t *testing.T) {
	st := fill(t, 5)
	n := 0
	for _, err := range storebound.Keys(t.Context(), st, "k/", 20*time.Millisecond, nil) {
		require.NoError(t, err)
		time.Sleep(40 * time.Millisecond)
		n++
	}
	require.Equal(t, 5, n)
}

// A store that stops answering mid-listing ends it with the cause, even
// when it ends its own listing without an error.
func TestStalledListingEndsWithCause(t *testing.T) {
	cause := errors.New("no answer")
	st := slowKeys{Store: fill(t, 5), stall: 2, pause: time.Hour}
	var keys []string
	var last error
	start := time.Now()
	for k, err := range storebound.Keys(context.Background(), st, "k/", 50*time.Millisecond, cause) {
		if err != nil {
			last = err
			continue
		}
		keys = append(keys, k)
	}
	require.ErrorIs(t, last, cause)
	require.Equal(t, []string{"k/000", "k/001"}, keys)
	require.Less(t, time.Since(start), 10*time.Second)

	_, err := func() (string, error) {
		for k, err := range storebound.Keys(context.Background(), st, "k/", 50*time.Millisecond, nil) {
			if err != nil {
				return k, err
			}
		}
		return "", nil
	}()
	require.ErrorIs(t, err, context.DeadlineExceeded, "the default cause")
	var na *storebound.NoAnswerError
	require.ErrorAs(t, err, &na)
	require.Equal(t, 50*time.Millisecond, na.Wait)
}
