package payments_test

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// wire counts the requests a client sends, by method, under /v1/payments/.
type wire struct {
	next  http.RoundTripper
	posts atomic.Int32
	gets  atomic.Int32
}

func (w *wire) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.Contains(r.URL.Path, "/v1/payments/") {
		switch r.Method {
		case http.MethodPost:
			w.posts.Add(1)
		case http.MethodGet:
			w.gets.Add(1)
		}
	}
	return w.next.RoundTrip(r)
}

// wiredBank is newBank with the client's payment requests counted.
func wiredBank(t *testing.T) (*bank, *wire) {
	t.Helper()
	s := testtpp.Server(t)
	w := &wire{next: s.Client().Transport}
	c := testtpp.NewClient(t, s, "Payments test PISP", client.WithHTTPClient(&http.Client{Transport: w}),
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}))
	return bankOn(t, s, c), w
}

// journalClock returns the option of a Journal on b reading the time from
// clock (the bank's client keeps the real time: the bank checks it).
func journalClock(t *testing.T, b *bank, clock *testtpp.Clock) journal.Option {
	t.Helper()
	return journal.WithClient(testtpp.NewClient(t, b.s, "Journal clock", client.WithClock(clock.Now)))
}

// An entry settled as ResolvedDuplicate (the first create exists, its id
// unknown) is never sent again: Resolve returns the recorded resolution,
// whether it is given the stale copy, the re-read entry, every entry of
// Entries (a reconciler's loop), or several at once. Before, the second
// Resolve sent the create again; once the first payment was cancelled (or
// expired unsigned) the bank accepted it as new: a second payment.
func TestResolveSettledDuplicateSendsNothing(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b, w := wiredBank(t)
	st := store.NewMemoryStore()
	j := mustJournal(t, st)
	svc := journaled(t, b, j)
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropAfterBody, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	id := uuid.NewString()
	_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "61.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	j = later(t, b, st)
	stale, err := j.Entry(ctx, id)
	require.NoError(t, err)

	first, err := resolve(ctx, b.c, stale, b.pisp()...)
	require.NoError(t, err)
	require.Equal(t, journal.ResolvedDuplicate, first.Kind, first.Reason)
	require.NotEmpty(t, first.ResendRequestID)
	held := b.paymentsHeld()
	require.Len(t, held, 1)
	assert.Equal(t, id, held[0].RequestID)

	// The first payment goes away (cancelled here; expired unsigned in
	// life): the bank no longer refuses its content as a duplicate.
	_, err = svc.Cancel(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: held[0].ID}, b.pisp()...)
	require.NoError(t, err)
	posts, gets := w.posts.Load(), w.gets.Load()

	settled, err := j.Entry(ctx, id)
	require.NoError(t, err)
	require.False(t, settled.InDoubt())
	for name, e := range map[string]journal.Entry{"stale copy": stale, "re-read": settled} {
		res, err := resolve(ctx, b.c, e, b.pisp()...)
		require.NoError(t, err, name)
		assert.Equal(t, journal.ResolvedDuplicate, res.Kind, name)
		assert.Equal(t, first.ResendRequestID, res.ResendRequestID, "%s: the recorded resolution", name)
		assert.True(t, first.At.Equal(res.At), "%s: the recorded resolution's time", name)
		assert.Nil(t, res.Answer, name)
	}

	// A reconciler resolving every entry, from two replicas at once.
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rj := mustJournal(t, st)
			n := 0
			for e, err := range rj.Entries(ctx) {
				if !assert.NoError(t, err) {
					return
				}
				n++
				res, err := resolve(ctx, b.c, e, b.pisp()...)
				if e.Resolves != "" {
					assert.ErrorIs(t, err, journal.ErrNotResolvable, "the resend's own entry")
					continue
				}
				assert.NoError(t, err)
				assert.Equal(t, journal.ResolvedDuplicate, res.Kind)
			}
			assert.Equal(t, 2, n, "the create and the resend")
		}()
	}
	wg.Wait()

	assert.Equal(t, posts, w.posts.Load(), "no create was sent again")
	assert.Equal(t, gets, w.gets.Load(), "nothing was read either: the id is unknown")
	assert.Len(t, b.paymentsHeld(), 1, "never a second payment")
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)
	require.NotNil(t, e.Resolution)
	assert.Equal(t, journal.ResolvedDuplicate, e.Resolution.Kind, "the record is unchanged")
	assert.Equal(t, first.ResendRequestID, e.Resolution.ResendRequestID)
	assert.True(t, first.At.Equal(e.Resolution.At))
}

// An entry settled as ResolvedCreated knows the payment's id: resolving
// it again reads that payment's status (a GET, as for any entry whose id
// is known) and never sends the create, even
// once the payment is cancelled and its content would be accepted anew.
func TestResolveSettledCreatedSendsNoCreate(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b, w := wiredBank(t)
	st := store.NewMemoryStore()
	svc := journaled(t, b, mustJournal(t, st))
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	id := uuid.NewString()
	_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "62.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	j := later(t, b, st)
	stale, err := j.Entry(ctx, id)
	require.NoError(t, err)
	first, err := resolve(ctx, b.c, stale, b.pisp()...)
	require.NoError(t, err)
	require.Equal(t, journal.ResolvedCreated, first.Kind, first.Reason)
	require.Len(t, b.paymentsHeld(), 1)
	_, err = svc.Cancel(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: first.ID}, b.pisp()...)
	require.NoError(t, err)
	posts := w.posts.Load()

	for _, e := range []journal.Entry{stale, stale} {
		res, err := resolve(ctx, b.c, e, b.pisp()...)
		require.NoError(t, err)
		assert.Equal(t, journal.ResolvedStatus, res.Kind)
		assert.Equal(t, first.ID, res.ID)
		assert.Empty(t, res.Status, "an NDCT is unreadable before SCA")
		assert.Nil(t, res.Answer)
	}
	assert.Equal(t, posts, w.posts.Load(), "no create was sent again")
	assert.Len(t, b.paymentsHeld(), 1, "never a second payment")
}

// An entry without an outcome that is younger than the in-flight time may
// be a create still running in another replica: Resolve refuses it with
// ErrInFlight, sends nothing and records nothing; once the time has
// passed it resolves it as before.
func TestResolveInFlightEntrySendsNothing(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b, w := wiredBank(t)
	clock := testtpp.NewClock(time.Now())
	st := &failingStore{Store: store.NewMemoryStore()}
	diedAfterSending(st)
	j := mustJournal(t, st, journalClock(t, b, clock))
	svc := journaled(t, b, j)
	id := uuid.NewString()
	_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "63.00"), b.pisp(client.WithRequestID(id))...)
	require.NoError(t, err)
	st.dead.Store(false)
	st.failAfter.Store(1 << 30)
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)
	require.Empty(t, e.Outcome)
	posts := w.posts.Load()

	pastInFlight(t, clock, st, e)
	clock.Add(-2 * time.Second)
	res, err := resolve(ctx, b.c, e, b.pisp()...)
	require.ErrorIs(t, err, journal.ErrInFlight)
	assert.NotErrorIs(t, err, journal.ErrNotResolvable, "a later call may resolve it")
	assert.Empty(t, res.Kind)
	assert.Equal(t, posts, w.posts.Load(), "nothing was sent")
	e, err = j.Entry(ctx, id)
	require.NoError(t, err)
	assert.Nil(t, e.Resolution, "nothing was recorded")
	assert.Empty(t, inDoubt(t, j), "InDoubt skips it too")

	clock.Add(time.Second)
	require.Len(t, inDoubt(t, j), 1)
	res, err = resolve(ctx, b.c, e, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedDuplicate, res.Kind, "the first payment exists")
	assert.Equal(t, posts+1, w.posts.Load(), "one resend")
	assert.Len(t, b.paymentsHeld(), 1)

	// JournalWritersStopped: a process that knows the writer is dead
	// resolves at once.
	diedAfterSending(st)
	id2 := uuid.NewString()
	_, err = svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "64.00"), b.pisp(client.WithRequestID(id2))...)
	require.NoError(t, err)
	st.dead.Store(false)
	st.failAfter.Store(1 << 30)
	j0 := mustJournal(t, st, journalClock(t, b, clock), journal.WithWritersStopped())
	e2, err := j0.Entry(ctx, id2)
	require.NoError(t, err)
	res, err = resolve(ctx, b.c, e2, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedDuplicate, res.Kind)
}
