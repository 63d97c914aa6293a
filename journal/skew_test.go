package journal_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// skewAhead is how far the clock of the second replica runs ahead of the
// first's: well past the in-flight time and the test client's longest
// call, as a replica without NTP can drift.
const skewAhead = 30 * time.Minute

// replicas returns two journals on one store: the first on the local
// clock, the second on a clock skewAhead ahead, with its client.
func replicas(t *testing.T, b *thingBank) (j1, j2 *journal.Journal, c2 *client.Client) {
	t.Helper()
	st := store.NewMemoryStore()
	j1, err := journal.New(st)
	require.NoError(t, err)
	ahead := testtpp.NewClock(time.Now().Add(skewAhead))
	c2 = b.client(t, client.WithClock(func() time.Time { return ahead.Now().Add(0) }))
	j2, err = journal.New(st, journal.WithClient(c2))
	require.NoError(t, err)
	return j1, j2, c2
}

// A create still on its way in one replica is never resolved by another
// whose clock runs ahead. On the code before, the second replica judged
// the entry's age on its own clock against the first's timestamps, took
// the create for one whose writer had died, and sent it again while the
// first was still waiting for the bank: two identical creates on the
// wire at once.
func TestSkewedReplicaLeavesCreateInFlight(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c1 := b.client(t)
	j1, j2, c2 := replicas(t, b)

	arrived, release := b.holdNext()
	defer release()
	id := uuid.NewString()
	done := make(chan error, 1)
	go func() { done <- create(ctx, c1, j1, id, `{"skew":"create"}`) }()
	<-arrived // the create is at the bank, unanswered
	posts := b.posts.Load()

	e, err := j2.Entry(ctx, id)
	require.NoError(t, err)
	for d, err := range j2.InDoubt(ctx) {
		require.NoError(t, err)
		assert.NotEqual(t, id, d.RequestID, "an entry in flight is not in doubt")
	}
	_, err = j2.Resolve(ctx, c2, e)
	require.ErrorIs(t, err, journal.ErrInFlight)
	_, err = j2.SettleByPerson(ctx, id, "ops-anna", "nothing arrived")
	require.ErrorIs(t, err, journal.ErrInFlight)
	assert.Equal(t, posts, b.posts.Load(), "nothing sent again")
	release()
	require.NoError(t, <-done)
}

// A resend on its way in one replica holds its claim in another whose
// clock runs ahead. On the code before, the second replica judged the
// claim's end on its own clock, found it over, and sent the create a
// second time while the first resend was still at the bank; an operator
// on that replica could settle the entry under the resend.
func TestSkewedReplicaRespectsClaim(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c1 := b.client(t)
	j1, j2, c2 := replicas(t, b)
	e1 := inDoubt(t, b, c1, j1, `{"skew":"claim"}`)

	arrived, release := b.holdNext()
	defer release()
	done := make(chan error, 1)
	go func() {
		_, err := j1.Resolve(ctx, c1, e1)
		done <- err
	}()
	<-arrived // the resend is at the bank, unanswered
	posts := b.posts.Load()

	e2, err := j2.Entry(ctx, e1.RequestID)
	require.NoError(t, err)
	_, err = j2.Resolve(ctx, c2, e2)
	require.ErrorIs(t, err, journal.ErrClaimed)
	_, err = j2.SettleByPerson(ctx, e1.RequestID, "ops-anna", "nothing arrived")
	require.ErrorIs(t, err, journal.ErrClaimed)
	assert.Equal(t, posts, b.posts.Load(), "one resend")
	release()
	require.NoError(t, <-done)
	final, err := j2.Entry(ctx, e1.RequestID)
	require.NoError(t, err)
	require.NotNil(t, final.Resolution)
	assert.Equal(t, journal.ResolvedCreated, final.Resolution.Kind)
}

// flightUnreadable is a store whose reads of in-flight leases fail.
type flightUnreadable struct{ store.Store }

func (s flightUnreadable) Get(ctx context.Context, key string) ([]byte, error) {
	if strings.Contains(key, "flight/") {
		return nil, errors.New("store unreachable")
	}
	return s.Store.Get(ctx, key)
}

// An in-flight lease that cannot be read ends InDoubt with the store's
// error: the entry may be in flight or in doubt, and a list without it
// would claim less in doubt than there is.
func TestInDoubtSaysWhenALeaseIsUnreadable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	st := store.NewMemoryStore()
	c1 := b.client(t)
	j1, err := journal.New(st)
	require.NoError(t, err)
	ahead := testtpp.NewClock(time.Now().Add(skewAhead))
	c2 := b.client(t, client.WithClock(func() time.Time { return ahead.Now().Add(0) }))
	j2, err := journal.New(flightUnreadable{st}, journal.WithClient(c2))
	require.NoError(t, err)

	arrived, release := b.holdNext()
	defer release()
	id := uuid.NewString()
	done := make(chan error, 1)
	go func() { done <- create(ctx, c1, j1, id, `{"skew":"unreadable"}`) }()
	<-arrived

	var sawErr bool
	for d, err := range j2.InDoubt(ctx) {
		if err != nil {
			sawErr = true
			break
		}
		assert.NotEqual(t, id, d.RequestID)
	}
	assert.True(t, sawErr, "the unreadable lease is reported")
	release()
	require.NoError(t, <-done)
}
