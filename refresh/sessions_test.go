package refresh_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// Within the hour after SCA, Remember lists the accounts and card
// accounts and the session keeps their ids; after it, listing is refused.
func TestRememberListsConsentedAccounts(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(2, 2, 1, 1, time.Now().Add(-10*time.Minute)))
	cu := b.seeded.Customers[1]
	s, err := refresh.Remember(t.Context(), b.svc, refreshbench.SessionOf(cu), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{cu.Accounts[0].ID, cu.Accounts[1].ID}, s.AccountIDs)
	assert.Equal(t, []string{cu.CardAccounts[0].ID}, s.CardAccountIDs)
	assert.Equal(t, cu.Session.PSUID, s.PSUID)
	assert.WithinDuration(t, cu.Session.ConsentExpiresAt, s.ConsentExpiresAt(), time.Second)

	// Stored and listed again, the session keeps them.
	st := store.NewMemoryStore()
	require.NoError(t, sca.SaveSession(t.Context(), st, "user-1", s))
	loaded, err := sca.LoadSession(t.Context(), st, "user-1")
	require.NoError(t, err)
	assert.Equal(t, s.AccountIDs, loaded.AccountIDs)
	assert.Equal(t, s.CardAccountIDs, loaded.CardAccountIDs)

	b.clock.Add(sca.SCAValidity)
	_, err = refresh.Remember(t.Context(), b.svc, refreshbench.SessionOf(cu), nil)
	assert.ErrorIs(t, err, client.ErrSCARequired)

	_, err = refresh.Remember(t.Context(), nil, refreshbench.SessionOf(cu), nil)
	assert.Error(t, err)
	_, err = refresh.Remember(t.Context(), b.svc, nil, nil)
	assert.ErrorIs(t, err, sca.ErrInvalidSession)
}

// The jobs of every stored session, from the store, refresh every
// consented account.
func TestJobsFromStoredSessions(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(3, 2, 1, 1, time.Now().Add(-time.Hour)))
	st := store.NewMemoryStore()
	want := map[string]bool{} // account ids
	for i, cu := range b.seeded.Customers {
		s := refreshbench.Remembered(t, cu)
		require.NoError(t, sca.SaveSession(t.Context(), st, "user-"+string(rune('a'+i)), s))
		for _, id := range append(slices.Clone(s.AccountIDs), s.CardAccountIDs...) {
			want[id] = true
		}
	}
	// A session without accounts gives no job; a value that is not a
	// session is reported and skipped.
	bare := refreshbench.SessionOf(b.seeded.Customers[0])
	require.NoError(t, sca.SaveSession(t.Context(), st, "user-z", bare))
	require.NoError(t, st.Put(t.Context(), "sca/session/user-broken", []byte("{not json"), 0))

	flow, err := sca.NewFlow(testRedirect)
	require.NoError(t, err)
	m, err := sca.NewManager(flow, st)
	require.NoError(t, err)
	var failures []error
	jobs := refresh.JobsFrom(m.Sessions(t.Context()), nil, func(err error) { failures = append(failures, err) })
	var n int
	for res, err := range b.refresher(t).Run(t.Context(), jobs) {
		require.NoError(t, err)
		require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
		assert.True(t, want[res.Job.AccountID()])
		assert.Equal(t, res.Job.Card(), slices.Contains(res.Job.Session().CardAccountIDs, res.Job.AccountID()))
		delete(want, res.Job.AccountID())
		n++
	}
	assert.Equal(t, 9, n)
	assert.Empty(t, want, "every account refreshed once")
	require.Len(t, failures, 1)
	assert.NotContains(t, failures[0].Error(), "user-broken")

	// prepare sets what the TPP keeps per account, or skips the job.
	var cards int
	for j := range refresh.JobsFrom(sca.ListSessions(t.Context(), st), func(j *refresh.Job) bool {
		j.Want = refresh.Balances
		return j.Card()
	}, nil) {
		assert.True(t, j.Card())
		assert.Equal(t, refresh.Balances, j.Want)
		cards++
	}
	assert.Equal(t, 3, cards)

	// break stops the sessions.
	for range refresh.JobsFrom(sca.ListSessions(t.Context(), st), nil, nil) {
		break
	}
	assert.Empty(t, slices.Collect(refresh.JobsFrom(nil, nil, nil)))
}

const testRedirect = "https://tpp.example/cb"

func TestListSessionsStoreError(t *testing.T) {
	t.Parallel()
	boom := errors.New("store down")
	var got []error
	for s, err := range sca.ListSessions(t.Context(), failingStore{store.NewMemoryStore(), boom}) {
		assert.Nil(t, s)
		got = append(got, err)
	}
	require.Len(t, got, 1)
	assert.ErrorIs(t, got[0], boom)
	for _, err := range sca.ListSessions(t.Context(), nil) {
		assert.Error(t, err)
	}
}

// failingStore is a store whose Keys fails.
type failingStore struct {
	*store.MemoryStore
	err error
}

func (f failingStore) Keys(context.Context, string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) { yield("", f.err) }
}
