package payments_test

import (
	"context"
	"errors"
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
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// How an ambiguousStore treats one Update of a journal entry.
type updateMode int

const (
	pass           updateMode = iota
	commitThenFail            // written, then an error (COMMIT sent, connection lost)
	failBefore                // an error, nothing written
	commitTwice               // fn runs twice: a store retrying a transaction whose COMMIT it lost
)

var errConnReset = errors.New("connection reset after COMMIT was sent")

// ambiguousStore plays a store (pgstore, a FileStore) that may commit a
// write and still report an error. mode says what the n-th Update of a
// journal entry (1-based, "journal/entry/...") does; failMarkers is
// how many Puts of open markers still fail; cancel, when set, is called on the
// commitThenFail, as when the call's context ends after COMMIT was sent.
type ambiguousStore struct {
	store.Store
	mode        func(n int) updateMode
	failMarkers atomic.Int32
	cancel      context.CancelFunc

	mu sync.Mutex
	n  int
}

func (a *ambiguousStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	if !strings.HasPrefix(key, "journal/entry/") {
		return a.Store.Update(ctx, key, fn)
	}
	a.mu.Lock()
	a.n++
	m := a.mode(a.n)
	a.mu.Unlock()
	switch m {
	case failBefore:
		return errConnReset
	case commitThenFail:
		if err := a.Store.Update(ctx, key, fn); err != nil {
			return err
		}
		if a.cancel != nil {
			a.cancel()
			return context.Canceled
		}
		return errConnReset
	case commitTwice:
		if err := a.Store.Update(ctx, key, fn); err != nil {
			return err
		}
	}
	return a.Store.Update(ctx, key, fn)
}

func (a *ambiguousStore) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if strings.HasPrefix(key, "journal/open/") && a.failMarkers.Add(-1) >= 0 {
		return errStoreDown
	}
	return a.Store.Put(ctx, key, v, ttl)
}

// postCounter counts the POSTs that leave for the bank.
type postCounter struct {
	rt http.RoundTripper
	n  atomic.Int32
}

func (p *postCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/v1/payments/") {
		p.n.Add(1)
	}
	return p.rt.RoundTrip(r)
}

// countingBank is a bank whose client counts the payment POSTs it sends.
func countingBank(t *testing.T) (*bank, *postCounter) {
	t.Helper()
	s := testtpp.Server(t)
	hc := *s.Client()
	pc := &postCounter{rt: hc.Transport}
	hc.Transport = pc
	return bankOn(t, s, testtpp.NewClient(t, s, "Ambiguous store PISP", client.WithHTTPClient(&hc))), pc
}

// resolveAll resolves every entry of the journal, as a TPP that does not
// trust InDoubt's selection would, and returns the resolutions by
// request id.
func resolveAll(t *testing.T, c *client.Client, j *journal.Journal, opts []client.RequestOption) map[string]journal.Resolution {
	t.Helper()
	out := map[string]journal.Resolution{}
	for e, err := range j.Entries(t.Context()) {
		require.NoError(t, err)
		res, err := j.Resolve(t.Context(), c, e, opts...)
		require.NoError(t, err)
		out[e.RequestID] = res
	}
	return out
}

// An intent the store wrote while reporting an error: the create returns
// ErrNotSent, nothing reaches the bank, and the journal marks the entry
// not sent, so neither InDoubt nor Resolve ever sends it. Both the
// connection lost after COMMIT and the call's context ending then are
// covered: the mark runs without the call's cancellation.
func TestJournalIntentCommittedButReportedFailed(t *testing.T) {
	t.Parallel()
	for _, cancelled := range []bool{false, true} {
		name := map[bool]string{false: "connection lost", true: "context ended"}[cancelled]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, posts := countingBank(t)
			st := &ambiguousStore{Store: store.NewMemoryStore(), mode: func(n int) updateMode {
				return map[bool]updateMode{true: commitThenFail}[n == 1]
			}}
			ctx := t.Context()
			if cancelled {
				ctx, st.cancel = context.WithCancel(ctx)
			}
			j := mustJournal(t, st, journal.WithWritersStopped())
			svc := journaled(t, b, j)
			id := uuid.NewString()

			_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "321.00"), b.pisp(client.WithRequestID(id))...)
			require.ErrorIs(t, err, client.ErrNotSent)
			require.ErrorIs(t, err, journal.ErrJournal)
			assert.NotContains(t, err.Error(), "marking it not sent", "the mark succeeded")
			assert.Zero(t, posts.n.Load(), "nothing left for the bank")

			e, err := j.Entry(t.Context(), id)
			require.NoError(t, err, "the store did write the intent")
			assert.Equal(t, journal.OutcomeNotSent, e.Outcome)
			assert.False(t, e.InDoubt())
			assert.Empty(t, keysUnder(t, st, "journal/open/"), "never armed")
			assert.Empty(t, inDoubt(t, j))

			res := resolveAll(t, b.c, j, b.pisp())
			assert.Equal(t, journal.ResolvedNotCreated, res[id].Kind)
			assert.Zero(t, posts.n.Load(), "Resolve sent nothing")
			assert.Empty(t, b.paymentsHeld())
		})
	}
}

// The same, and marking the entry not sent fails as well: the caller
// still gets ErrNotSent (nothing was sent), the entry stays without an
// outcome, and the journal never sends it: InDoubt does not yield it and
// Resolve reports NeedsPerson, even once the store works again.
func TestJournalIntentCommittedAndNotSentMarkFails(t *testing.T) {
	t.Parallel()
	b, posts := countingBank(t)
	var down atomic.Bool
	down.Store(true)
	st := &ambiguousStore{Store: store.NewMemoryStore(), mode: func(n int) updateMode {
		switch {
		case n == 1:
			return commitThenFail
		case down.Load():
			return failBefore
		}
		return pass
	}}
	j := mustJournal(t, st, journal.WithWritersStopped())
	svc := journaled(t, b, j)
	id := uuid.NewString()

	_, err := svc.CreateNorwegianDomestic(t.Context(), ndct(kariBruk, "321.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrNotSent)
	require.ErrorIs(t, err, errConnReset)
	assert.Contains(t, err.Error(), "marking it not sent")
	assert.Zero(t, posts.n.Load())

	down.Store(false)
	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)
	assert.Empty(t, e.Outcome, "the mark failed")
	assert.Empty(t, inDoubt(t, j), "an entry never armed is not yielded")

	for range 2 {
		res := resolveAll(t, b.c, j, b.pisp())
		require.Contains(t, res, id)
		assert.Equal(t, journal.NeedsPerson, res[id].Kind)
		assert.Contains(t, res[id].Reason, "does not send it again")
		assert.Empty(t, res[id].ResendRequestID)
	}
	assert.Zero(t, posts.n.Load(), "the create reported as not sent is never sent")
	assert.Empty(t, b.paymentsHeld())
}

// The mark touches only the call's own entry: a second create that
// reuses the X-Request-ID of one still without an outcome, and whose
// intent write fails, leaves that entry (which was sent) alone.
func TestJournalNotSentMarkSparesAnotherCall(t *testing.T) {
	t.Parallel()
	b, posts := countingBank(t)
	st := &ambiguousStore{Store: store.NewMemoryStore(), mode: func(n int) updateMode {
		switch n {
		case 2, 3, 4: // the first create's outcome (three tries): kept apart
			return failBefore
		case 5: // the second create's intent: fails, the mark then runs
			return failBefore
		}
		return pass
	}}
	j := mustJournal(t, st, journal.WithWritersStopped())
	svc := journaled(t, b, j)
	id := uuid.NewString()
	_, err := svc.CreateNorwegianDomestic(t.Context(), ndct(kariBruk, "11.00"), b.pisp(client.WithRequestID(id))...)
	require.NoError(t, err)
	require.EqualValues(t, 1, posts.n.Load())

	_, err = svc.CreateNorwegianDomestic(t.Context(), ndct(kariBruk, "12.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrNotSent)
	assert.NotContains(t, err.Error(), "marking it not sent", "nothing to mark, no error")
	assert.EqualValues(t, 1, posts.n.Load())
	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, journal.OutcomeCreated, e.Outcome, "the first create's entry keeps its id, not marked not sent")
	assert.NotEmpty(t, e.ID)
	assert.Empty(t, inDoubt(t, j), "the bank created it: nothing in doubt")
	res, err := resolve(t.Context(), b.c, e, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedStatus, res.Kind, "the first create exists: its status is read")
	assert.EqualValues(t, 1, posts.n.Load(), "nothing sent again")
	assert.Len(t, b.paymentsHeld(), 1)
}

// A store that retries the intent's transaction after losing its COMMIT
// meets the call's own intent: that is no reuse of the X-Request-ID.
func TestJournalIntentRetriedByTheStore(t *testing.T) {
	t.Parallel()
	b, posts := countingBank(t)
	st := &ambiguousStore{Store: store.NewMemoryStore(), mode: func(n int) updateMode {
		return map[bool]updateMode{true: commitTwice}[n == 1]
	}}
	j := mustJournal(t, st)
	svc := journaled(t, b, j)
	id := uuid.NewString()
	init, err := svc.CreateNorwegianDomestic(t.Context(), ndct(kariBruk, "13.00"), b.pisp(client.WithRequestID(id))...)
	require.NoError(t, err)
	assert.EqualValues(t, 1, posts.n.Load())
	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, journal.OutcomeCreated, e.Outcome)
	assert.Equal(t, init.PaymentID, e.ID)
}

// The open marker is written after the intent and its failure does not
// stop the create; an outcome left in doubt writes it again, so InDoubt
// still finds the entry and Resolve settles it.
func TestJournalMarkerFailureDoesNotHideDoubt(t *testing.T) {
	t.Parallel()
	b, posts := countingBank(t)
	st := &ambiguousStore{Store: store.NewMemoryStore(), mode: func(int) updateMode { return pass }}
	st.failMarkers.Store(1)
	j := mustJournal(t, st, journal.WithWritersStopped())
	svc := journaled(t, b, j)

	// Created: settled, no marker needed.
	_, err := svc.CreateNorwegianDomestic(t.Context(), ndct(kariBruk, "14.00"), b.pisp()...)
	require.NoError(t, err)
	assert.EqualValues(t, 1, posts.n.Load())
	assert.Empty(t, keysUnder(t, st, "journal/open/"))

	// Answer lost: the marker fails before the call, the outcome's
	// marker write works.
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropAfterBody, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	id := uuid.NewString()
	st.failMarkers.Store(1)
	_, err = svc.CreateNorwegianDomestic(t.Context(), ndct(kariBruk, "15.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.EqualValues(t, 2, posts.n.Load())
	assert.Len(t, keysUnder(t, st, "journal/open/"), 1, "the outcome wrote the marker")

	doubt := inDoubt(t, j)
	require.Len(t, doubt, 1)
	assert.Equal(t, id, doubt[0].RequestID)
	res, err := resolve(t.Context(), b.c, doubt[0], b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedDuplicate, res.Kind)
	assert.Len(t, b.paymentsHeld(), 2, "never a second payment")
	assert.Empty(t, inDoubt(t, j))
}

// An error of a resend is prefixed with the operation once.
func TestResolveErrorNamesTheOperationOnce(t *testing.T) {
	t.Parallel()
	b, posts := countingBank(t)
	var down atomic.Bool
	st := &ambiguousStore{Store: store.NewMemoryStore(), mode: func(int) updateMode {
		return map[bool]updateMode{true: failBefore}[down.Load()]
	}}
	j, bankDone := agingJournal(t, b, st)
	svc := journaled(t, b, j)
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	id := uuid.NewString()
	_, err := svc.CreateNorwegianDomestic(t.Context(), ndct(kariBruk, "16.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	bankDone()
	e, err := j.Entry(t.Context(), id)
	require.NoError(t, err)

	down.Store(true)
	_, err = resolve(t.Context(), b.c, e, b.pisp()...)
	require.ErrorIs(t, err, client.ErrNotSent)
	assert.Equal(t, 1, strings.Count(err.Error(), "journal.Resolve"), err.Error())
	assert.True(t, strings.HasPrefix(err.Error(), "journal.Resolve: "), err.Error())
	assert.EqualValues(t, 1, posts.n.Load(), "only the first create left")
}
