package client

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type valueKey struct{}

type otherKey struct{}

// A WithValue option hands its value to the call's hook and BeforeRetry
// (Call.Value), the last one given under a key winning; nothing of it
// reaches the wire or the call's printed forms, and a nil key refuses the
// call before it is sent.
func TestWithValueReachesTheHooks(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	})
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}),
		WithDefaults(WithValue(otherKey{}, "default")))
	var mu sync.Mutex
	var hooked, retried []any
	op := Operation{Method: http.MethodGet, Path: "/v1/x",
		Hook: func(_ context.Context, call *Call) (func(Result), error) {
			mu.Lock()
			defer mu.Unlock()
			hooked = append(hooked, call.Value(valueKey{}), call.Value(otherKey{}), call.Value("none"))
			assert.NotContains(t, call.String(), "second")
			return nil, nil
		},
		BeforeRetry: func(_ context.Context, call *Call) error {
			mu.Lock()
			defer mu.Unlock()
			retried = append(retried, call.Value(valueKey{}))
			return nil
		}}
	_, err := c.Do(t.Context(), op, nil, WithValue(valueKey{}, "first"), WithValue(valueKey{}, "second"))
	require.NoError(t, err)
	assert.Equal(t, []any{"second", "default", nil}, hooked)
	assert.Equal(t, []any{"second"}, retried)
	for _, r := range b.requests() {
		for name, v := range r.Header {
			assert.NotContains(t, v, "second", name)
		}
	}

	before := b.count.Load()
	_, err = c.Do(t.Context(), op, nil, WithValue(nil, "x"))
	require.ErrorIs(t, err, ErrNotSent)
	require.ErrorIs(t, err, ErrValidation)
	assert.Equal(t, before, b.count.Load())
}

// Part keeps one value per client and key, made once, whatever the
// number of callers; another client has its own.
func TestPartIsOnePerClient(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {})
	c, d := newTestClient(t, b.URL), newTestClient(t, b.URL)
	assert.Nil(t, c.Part(valueKey{}, nil), "nothing kept yet")
	var wg sync.WaitGroup
	got := make([]*int, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = c.Part(valueKey{}, func() any { return new(int) }).(*int)
		}()
	}
	wg.Wait()
	for _, p := range got {
		assert.Same(t, got[0], p)
	}
	assert.Same(t, got[0], c.Part(valueKey{}, nil))
	assert.NotSame(t, got[0], d.Part(valueKey{}, func() any { return new(int) }))
	assert.Nil(t, c.Part(otherKey{}, nil))
}
