package pgstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sca"
)

// newStore returns a migrated Store in schema on a pool of its own.
func newStore(tb testing.TB, schema string, maxConns int32) *pgstore.Store {
	tb.Helper()
	st, err := pgstore.New(pgtest.Pool(tb, maxConns), pgstore.WithSchema(schema))
	require.NoError(tb, err)
	require.NoError(tb, st.Migrate(context.Background()))
	tb.Cleanup(st.Close)
	return st
}

// newJob returns the refresh job of account id (card: a card account) of
// session s.
func newJob(tb testing.TB, s *sca.Session, id string, card bool) refresh.Job {
	tb.Helper()
	j, err := refresh.NewJob(s, id, card)
	require.NoError(tb, err)
	return j
}
