package riverrefresh_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
)

// lockedBuffer is a log's buffer written by River's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A Config.Handle or Config.Prepare that panics with a value naming the
// account (the TPP's code: panic(res), panic(fmt.Sprint(..., id)))
// leaves neither the account id nor the PSU's number in River's job
// records nor in the log: the attempt fails with an error giving the
// panic's type (or a runtime error's message) only, and is retried.
// Before, River recovered the panic itself and stored its value, %v, in
// the job's errors, and logged it at Error.
func TestPanicOfTPPCodeKeepsPersonalDataOutOfRiver(t *testing.T) {
	for _, where := range []string{"handle", "prepare"} {
		t.Run(where, func(t *testing.T) {
			w := newWorld(t, 1)
			ctx := t.Context()
			var log lockedBuffer
			cfg := riverrefresh.Config{Work: true, Logger: slog.New(slog.NewJSONHandler(&log, nil))}
			boom := func(id string) { panic(errors.New("account " + id + " of PSU " + nationalID)) }
			if where == "handle" {
				cfg.Handle = func(_ context.Context, _ string, res refresh.Result) { boom(res.Job.AccountID()) }
			} else {
				cfg.Prepare = func(_ context.Context, _ string, j *refresh.Job) error { boom(j.AccountID()); return nil }
			}
			e := w.engine(t, cfg)
			require.NoError(t, e.Migrate(ctx))
			_, err := e.Enqueue(ctx, "testbank")
			require.NoError(t, err)
			start(t, e)
			key := budget.Key(w.seeded.Customers[0].Accounts[0].ID, false)
			require.Eventually(t, func() bool {
				var n int
				err := e.Pool().QueryRow(ctx, "SELECT coalesce(array_length(errors, 1), 0) FROM "+w.schema+
					".river_job WHERE args->>'account' = $1", key).Scan(&n)
				return err == nil && n > 0
			}, time.Minute, 20*time.Millisecond, "the attempt's failure is recorded")
			stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, e.Stop(stop))
			for _, secret := range append([]string{nationalID}, w.ids...) {
				var n int
				require.NoError(t, e.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job r WHERE r::text LIKE '%'||$1||'%'",
					secret).Scan(&n))
				assert.Zero(t, n, "River's jobs hold %s", secret)
				assert.False(t, strings.Contains(log.String(), secret), "the log holds %s", secret)
			}
			var n int
			require.NoError(t, e.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job j, unnest(j.errors) e "+
				`WHERE e->>'error' LIKE '%panic%' AND j.args->>'account' = $1`, key).Scan(&n))
			assert.Positive(t, n, "the job's error says it panicked")
		})
	}
}
