package riverrefresh_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/riverrefresh"
)

// A stored session that does not decode (damaged, or written by hand)
// and one that is not valid, listed before the others, do not stop the
// round: every account of the other sessions is enqueued, and Enqueue
// returns no error (the scheduler's job would fail on every run, and be
// retried, for the same session). Before, Enqueue returned the first
// one's error and no account of the sessions after it in key order was
// ever refreshed again.
func TestEnqueueGoesPastAnUnreadableSession(t *testing.T) {
	w := newWorld(t, 2)
	ctx := t.Context()
	// "user-0" and "user-1" sort before the world's "user-a", "user-b".
	require.NoError(t, w.store.Put(ctx, "sca/session/user-0", []byte("{not a session"), 0))
	require.NoError(t, w.store.Put(ctx, "sca/session/user-1", []byte(`{"psuId":""}`), 0))
	e := w.engine(t, riverrefresh.Config{})
	require.NoError(t, e.Migrate(ctx))
	n, err := e.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	assert.Equal(t, len(w.ids), n, "every account of the readable sessions")
}
