package pgstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// A write that races Close never starts a background cleanup that
// outlives Close: once Close has returned, no cleanup runs and none
// starts, so none holds a connection of a caller's pool (New) that the
// caller then closes, nor uses a pool Close closed (Open). On the code
// before, a write that read the store as open just before Close started
// its cleanup (WaitGroup.Add) while Close waited: Close returned with the
// cleanup running, and -race reported the WaitGroup's misuse.
func TestCleanupNeverOutlivesClose(t *testing.T) {
	schema := pgtest.Schema(t)
	pool := pgtest.Pool(t, 4)
	first, err := New(pool, WithSchema(schema))
	require.NoError(t, err)
	require.NoError(t, first.Migrate(t.Context()))
	for i := range 200 {
		st, err := New(pool, WithSchema(schema))
		require.NoError(t, err)
		st.writes.Store(cleanupEvery - 1) // the next write starts a cleanup
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			st.wrote()
		}()
		st.Close()
		<-wrote
		if !assert.False(t, st.cleaning.Load(), "round %d: a cleanup runs after Close returned", i) {
			st.wg.Wait()
			return
		}
	}
}
