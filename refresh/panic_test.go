package refresh_test

import (
	"context"
	"fmt"
	"iter"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/refresh"
)

// A panic in the progress callback, in the loop's body or in the jobs
// sequence, recovered by the caller (as net/http recovers a handler's),
// leaves no goroutine of the run behind: 20 panics of each kind. The
// jobs are invalid (no session), so the workers end them at once, without
// a call, and the consumer is slower (a millisecond per result). Each
// panic comes, after a few results, at the first moment when more jobs
// were handed to the workers than the results' buffer holds (counted
// from the jobs taken and the results read): the workers can then not
// all hand over their results, and some stay blocked unless Run drains
// them. Not parallel: it counts every goroutine of package refresh.
func TestRunPanicLeavesNoGoroutine(t *testing.T) {
	svc := stubService(t, &stubBank{})
	const workers, after = 2, 5
	for _, kind := range []string{"progress", "body", "jobs"} {
		t.Run(kind, func(t *testing.T) {
			for attempt := range 20 {
				var taken, read atomic.Int64
				// due: enough results read, and more jobs at the workers
				// or results in the buffer than the buffer holds (taken,
				// less the job the loop holds read ahead of the workers,
				// ahead 1 or 0, less the results read).
				due := func(ahead int64) bool {
					return read.Load() >= after && taken.Load()-ahead-read.Load() > workers
				}
				opts := []refresh.Option{refresh.WithWorkers(workers)}
				if kind == "progress" {
					opts = append(opts, refresh.WithProgress(func(refresh.Progress) {
						read.Add(1)
						if due(1) {
							panic(kind)
						}
					}))
				}
				r, err := refresh.New(svc, opts...)
				require.NoError(t, err)
				jobs := invalidJobs(&taken, func() {
					if kind == "jobs" && due(0) {
						panic(kind)
					}
				})
				got := func() (v any) {
					defer func() { v = recover() }()
					for res, err := range r.Run(context.Background(), jobs) {
						require.NoError(t, err)
						require.Equal(t, refresh.Refused, res.Outcome)
						if kind != "progress" {
							read.Add(1)
						}
						if kind == "body" && due(1) {
							panic(kind)
						}
						time.Sleep(time.Millisecond)
					}
					return nil
				}()
				require.Equal(t, kind, got, "attempt %d: the panic reaches the caller unchanged", attempt)
			}
			left := waitNoRefreshGoroutine(30 * time.Second) // bounds a leak; returns when they are gone
			assert.Empty(t, left, "goroutines of package refresh left after 20 recovered panics")
		})
	}
}

// invalidJobs yields jobs not made with NewJob, endlessly, counting them in
// taken and calling before ahead of each: each ends Refused at once,
// without a call.
func invalidJobs(taken *atomic.Int64, before func()) iter.Seq[refresh.Job] {
	return func(yield func(refresh.Job) bool) {
		for i := 0; ; i++ {
			before()
			taken.Add(1)
			if !yield(refresh.Job{Claim: fmt.Sprint("job-", i)}) {
				return
			}
		}
	}
}

// waitNoRefreshGoroutine polls, for up to d, the stacks of every
// goroutine, and returns those still running code of package refresh
// (none once they are all gone). It goes by the frames' files, not their
// function names: Run's closures inlined into a caller are named after
// it.
func waitNoRefreshGoroutine(d time.Duration) []string {
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Dir(self) + string(filepath.Separator)
	inPackage := func(g string) bool {
		for _, line := range strings.Split(g, "\n") {
			file, _, _ := strings.Cut(strings.TrimSpace(line), ":")
			if strings.HasPrefix(file, dir) && !strings.Contains(file[len(dir):], string(filepath.Separator)) &&
				!strings.HasSuffix(file, "_test.go") {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(d)
	for {
		buf := make([]byte, 1<<20)
		for {
			n := runtime.Stack(buf, true)
			if n < len(buf) {
				buf = buf[:n]
				break
			}
			buf = make([]byte, 2*len(buf))
		}
		var left []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if inPackage(g) {
				left = append(left, g)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			if len(left) > 3 {
				left = append(left[:3], fmt.Sprintf("... and %d more", len(left)-3))
			}
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}
