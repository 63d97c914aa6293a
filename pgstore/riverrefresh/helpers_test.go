package riverrefresh_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sca"
)

// newPool returns a pool of 12 connections on the test server, closed at
// the end of the test.
func newPool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	return pgtest.Pool(tb, 12)
}

// newStore returns a migrated pgstore Store in schema on pool, with
// opts.
func newStore(tb testing.TB, pool *pgxpool.Pool, schema string, opts ...pgstore.Option) *pgstore.Store {
	tb.Helper()
	st, err := pgstore.New(pool, append([]pgstore.Option{pgstore.WithSchema(schema)}, opts...)...)
	require.NoError(tb, err)
	require.NoError(tb, st.Migrate(context.Background()))
	return st
}

// start starts engines with the test's context and stops them when the
// test ends.
func start(t *testing.T, engines ...*riverrefresh.Engine) {
	t.Helper()
	for _, e := range engines {
		require.NoError(t, e.Start(t.Context()))
		t.Cleanup(func() {
			stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = e.Stop(stop)
		})
	}
}

// newJob returns the refresh job of account id (card: a card account) of
// session s.
func newJob(tb testing.TB, s *sca.Session, id string, card bool) refresh.Job {
	tb.Helper()
	j, err := refresh.NewJob(s, id, card)
	require.NoError(tb, err)
	return j
}

// jobWithClaim returns j with its Claim set to claim.
func jobWithClaim(j refresh.Job, claim string) refresh.Job {
	j.Claim = claim
	return j
}

// requireConfigError asserts that New refuses cfg with a *ConfigError
// (ErrInvalidConfig) naming field, and no engine, and returns the error.
func requireConfigError(t *testing.T, cfg riverrefresh.Config, field string) error {
	t.Helper()
	e, err := riverrefresh.New(cfg)
	require.Error(t, err)
	assert.Nil(t, e)
	assert.ErrorIs(t, err, riverrefresh.ErrInvalidConfig)
	var ce *riverrefresh.ConfigError
	require.True(t, errors.As(err, &ce), "%T", err)
	assert.Equal(t, field, ce.Field)
	return err
}
