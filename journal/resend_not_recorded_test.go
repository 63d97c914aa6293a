package journal_test

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// loseResolutionOnce fails the first write of a resolution to the entry
// under key once it is armed, and nothing else: the resend's claim and
// its own entry are written, the bank creates the resource, and the
// original entry does not learn of it.
type loseResolutionOnce struct {
	store.Store
	key   string
	armed atomic.Bool
}

func (s *loseResolutionOnce) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	if key != s.key {
		return s.Store.Update(ctx, key, fn)
	}
	lost := false
	err := s.Store.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		v, ttl, err := fn(old, found)
		if err == nil && bytes.Contains(v, []byte(`"resolution"`)) && s.armed.Load() {
			lost = true
			return nil, 0, errors.New("store down while recording the resolution")
		}
		return v, ttl, err
	})
	if lost {
		s.armed.Store(false)
	}
	return err
}

// A Resolve whose resend created the resource but whose resolution the
// store refused (ErrNotRecorded) leaves the entry in doubt. Its resend's
// own entry knows the created id: a later Resolve must learn it there
// (and read its status) instead of sending the create once more, which
// the bank refuses as a duplicate, so that the resource's id (and with it
// the PSU's approval) would be lost for good, the entry settled as
// "exists, id unknown". So too when the resolver died before recording.
func TestResolveAfterUnrecordedResendLearnsItsID(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	mem := store.NewMemoryStore()
	j0, err := journal.New(mem)
	require.NoError(t, err)
	e := inDoubt(t, b, c, j0, `{"resend":"unrecorded"}`)

	st := &loseResolutionOnce{Store: mem, key: "journal/entry/" + e.RequestID}
	j, err := journal.New(st)
	require.NoError(t, err)
	journal.Age(j, e)
	e, err = j.Entry(ctx, e.RequestID)
	require.NoError(t, err)

	st.armed.Store(true)
	res, err := j.Resolve(ctx, c, e)
	require.ErrorIs(t, err, journal.ErrNotRecorded)
	require.Equal(t, journal.ResolvedCreated, res.Kind)
	created := res.ID
	require.NotEmpty(t, created)
	require.EqualValues(t, 2, b.posts.Load(), "one resend")
	require.NoError(t, j.Flush(ctx))

	// Later, once the claim is over: the store works again.
	journal.MovePast(j, time.Now().Add(24*time.Hour))
	journal.ExpireLeases(t, mem, e.RequestID)
	e, err = j.Entry(ctx, e.RequestID)
	require.NoError(t, err)
	require.True(t, e.InDoubt())
	res, err = j.Resolve(ctx, c, e)
	require.NoError(t, err)
	assert.EqualValues(t, 2, b.posts.Load(), "the create sent again though its resend created it")
	assert.Equal(t, created, res.ID, "the created id was lost")
	assert.Equal(t, journal.ResolvedStatus, res.Kind)
	got, err := j.Entry(ctx, e.RequestID)
	require.NoError(t, err)
	assert.False(t, got.InDoubt())
	assert.Equal(t, created, got.ID)
}
