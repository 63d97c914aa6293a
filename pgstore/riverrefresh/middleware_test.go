package riverrefresh_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
)

// countingPlugin is River middleware that is also a hook, as River's
// OpenTelemetry middleware (otelriver) is: it counts the inserts and
// jobs it wraps and the jobs its hook sees begin.
type countingPlugin struct {
	river.PluginDefaults
	inserts, works, begins atomic.Int64
}

func (c *countingPlugin) InsertMany(ctx context.Context, params []*rivertype.JobInsertParams,
	doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	c.inserts.Add(int64(len(params)))
	return doInner(ctx)
}

func (c *countingPlugin) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	c.works.Add(1)
	return doInner(ctx)
}

func (c *countingPlugin) WorkBegin(context.Context, *rivertype.JobRow) error {
	c.begins.Add(1)
	return nil
}

// Config.Middleware reaches River: the engine's inserts and jobs run
// through it, and one that is also a hook runs as a hook too.
func TestMiddlewarePassedThrough(t *testing.T) {
	w := newWorld(t, 2)
	ctx := t.Context()
	var done atomic.Int64
	p := &countingPlugin{}
	e := w.engine(t, riverrefresh.Config{Work: true, Middleware: []rivertype.Middleware{p},
		Handle: func(context.Context, string, refresh.Result) { done.Add(1) }})
	require.NoError(t, e.Migrate(ctx))
	n, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	require.Positive(t, n)
	start(t, e)
	require.Eventually(t, func() bool { return done.Load() == int64(n) }, time.Minute, 20*time.Millisecond)
	assert.EqualValues(t, n, p.inserts.Load(), "inserts wrapped")
	assert.GreaterOrEqual(t, p.works.Load(), int64(n), "jobs wrapped")
	assert.GreaterOrEqual(t, p.begins.Load(), int64(n), "the hook ran")
}
