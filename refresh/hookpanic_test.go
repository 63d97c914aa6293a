package refresh_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/txsync"
)

// syncBuf is a buffer safe for the workers' logging.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHookPanicsDoNotEndTheProcess: a WithDeltaHook and a WithRounds
// function that panic, called by Run's workers (goroutines the
// Refresher starts), end neither the process nor the run: the delta
// hook's panic is the job's error (Transient, the delta kept in the
// result), the round function's is logged at Error. Before, either panic
// ended the TPP's process.
func TestHookPanicsDoNotEndTheProcess(t *testing.T) {
	var logs syncBuf
	f := newSynced(t,
		refresh.WithDeltaHook(func(context.Context, *txsync.Delta) error { panic("delta consumer bug") }),
		refresh.WithRounds(func(context.Context, refresh.Round) { panic("metrics bug") }),
		refresh.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	f.link(t)
	job := jobWith(newJob(t, f.w.Session, f.id(), false), func(j *refresh.Job) { j.Want = refresh.Transactions })
	var results []refresh.Result
	require.NotPanics(t, func() {
		for res, err := range f.r.Run(t.Context(), slices.Values([]refresh.Job{job})) {
			require.NoError(t, err)
			results = append(results, res)
		}
	})
	require.Len(t, results, 1)
	res := results[0]
	assert.Equal(t, refresh.Transient, res.Outcome)
	require.ErrorIs(t, res.Err, refresh.ErrHookPanicked)
	assert.ErrorContains(t, res.Err, "panic value of type string")
	assert.NotContains(t, res.Err.Error(), "delta consumer bug", "a Result's JSON shows the error's text")
	require.NotNil(t, res.Sync, "the delta is kept for the caller")
	assert.Contains(t, logs.String(), "WithRounds function panicked")
	assert.NotContains(t, logs.String(), "metrics bug", "the value is the TPP's code's: not logged")
	assert.Contains(t, logs.String(), `"level":"ERROR"`)
}
