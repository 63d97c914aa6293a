package pgstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
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
