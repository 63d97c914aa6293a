package payments_test

import (
	"context"
	"fmt"
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

// stepStore fails the journal's writes (Update, Put, Delete of its keys)
// numbered from first (1-based, counted over the whole test: intent,
// open marker, outcome, created record, resolution, resend) for burst
// writes, or until healed.
type stepStore struct {
	store.Store
	first, burst int
	healed       atomic.Bool

	mu sync.Mutex
	n  int
}

func (s *stepStore) fail(key string) bool {
	if !strings.HasPrefix(key, "journal/") || s.healed.Load() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return s.n >= s.first && s.n < s.first+s.burst
}

func (s *stepStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	if s.fail(key) {
		return errStoreDown
	}
	return s.Store.Update(ctx, key, fn)
}

func (s *stepStore) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if s.fail(key) {
		return errStoreDown
	}
	return s.Store.Put(ctx, key, v, ttl)
}

func (s *stepStore) Delete(ctx context.Context, key string) error {
	if s.fail(key) {
		return errStoreDown
	}
	return s.Store.Delete(ctx, key)
}

// journalFaultCells and journalFaultMax are the figures of
// TestJournalFaultAtEveryStep, printed with -v.
var journalFaultCells, journalFaultMax atomic.Int32

// A store failure at any step of the journal (the intent, the open
// marker, the outcome and its retries, the created record, Resolve's
// writes), for one write, three, or until the store is healed, followed
// by nothing, the PSU rejecting the payment, or the TPP cancelling it:
// after every entry is resolved, twice, the bank holds at most one
// payment. A cancelled or rejected payment no longer counts as a logical
// duplicate, so any resend of a created payment would be a second one.
func TestJournalFaultAtEveryStep(t *testing.T) {
	t.Parallel()
	const steps = 10
	for first := 1; first <= steps; first++ {
		for _, burst := range []int{1, 3, 7, 1 << 20} {
			for _, after := range []string{"none", "reject", "cancel", "answer lost"} {
				t.Run(fmt.Sprintf("write %d, burst %d, %s", first, burst, after), func(t *testing.T) {
					t.Parallel()
					held := journalFaultCell(t, first, burst, after)
					journalFaultCells.Add(1)
					for {
						m := journalFaultMax.Load()
						if int32(held) <= m || journalFaultMax.CompareAndSwap(m, int32(held)) {
							break
						}
					}
					assert.LessOrEqual(t, held, 1, "never a second payment")
				})
			}
		}
	}
	t.Cleanup(func() {
		t.Logf("journal fault matrix: %d cells, at most %d payment held", journalFaultCells.Load(), journalFaultMax.Load())
	})
}

// journalFaultCell runs one cell of TestJournalFaultAtEveryStep and
// returns the number of payments the bank holds.
func journalFaultCell(t *testing.T, first, burst int, after string) int {
	ctx := t.Context()
	b := newBank(t)
	st := &stepStore{Store: store.NewMemoryStore(), first: first, burst: burst}
	j := mustJournal(t, st)
	svc := journaled(t, b, j)
	if after == "answer lost" {
		b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropAfterBody, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	}
	init, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "25.00"), b.pisp(client.WithRequestID(uuid.NewString()))...)
	if err == nil {
		switch after {
		case "reject":
			_, err := b.s.Control().Reject(ctx, init.SCARedirect())
			require.NoError(t, err)
		case "cancel":
			_, err := svc.Cancel(ctx, init.Ref(), b.pisp()...)
			require.NoError(t, err)
		}
	}
	// Resolve as another replica would at once, while the store may
	// still fail (an entry without an outcome is in flight), then, the
	// store healed and the writer flushed and stopped, as an operator
	// would.
	for round := range 2 {
		jr := j
		if round == 1 {
			st.healed.Store(true)
			require.NoError(t, j.Flush(ctx))
			jr = mustJournal(t, st, journal.WithWritersStopped())
		}
		for e, err := range jr.Entries(ctx) {
			if err != nil {
				break
			}
			_, _ = resolve(ctx, b.c, e, b.pisp()...)
		}
	}
	return len(b.paymentsHeld())
}

// Resolve never sends again a create that carried allowLogicalDuplicate
// in any spelling: any case of the name, padded, with any value a bank
// may read as true.
func TestResolveRefusesAnyAllowLogicalDuplicate(t *testing.T) {
	t.Parallel()
	for _, q := range [][2]string{
		{"allowLogicalDuplicate", "yes"}, {"allowLogicalDuplicate", "on"}, {"allowLogicalDuplicate", " true"},
		{"ALLOWLOGICALDUPLICATE", "TRUE"}, {"allowlogicalduplicate", "1"}, {" allowLogicalDuplicate", "true"},
	} {
		t.Run(q[0]+"="+q[1], func(t *testing.T) {
			t.Parallel()
			b, posts := countingBank(t)
			st := &failingStore{Store: store.NewMemoryStore()}
			diedAfterSending(st)
			svc := journaled(t, b, mustJournal(t, st))
			id := uuid.NewString()
			_, _ = svc.CreateNorwegianDomestic(t.Context(), ndct(kariBruk, "31.00"), b.pisp(client.WithRequestID(id), client.WithQuery(q[0], q[1]))...)
			st.dead.Store(false)
			st.failAfter.Store(1 << 30)
			sent := posts.n.Load()

			j := mustJournal(t, st, journal.WithWritersStopped())
			e, err := j.Entry(t.Context(), id)
			require.NoError(t, err)
			require.Empty(t, e.Outcome, "the process died after sending")
			assert.True(t, e.AllowLogicalDuplicate)
			res, err := resolve(t.Context(), b.c, e, b.pisp()...)
			require.NoError(t, err)
			assert.Equal(t, journal.NeedsPerson, res.Kind)
			assert.Equal(t, sent, posts.n.Load(), "nothing sent again")
		})
	}
}

// An entry without an outcome stays in flight as long as its create may
// run, however short the journal's in-flight time: another replica never
// resolves a create still under way.
func TestJournalInFlightCoversTheLongestCall(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b, posts := countingBank(t)
	clock := testtpp.NewClock(time.Now())
	st := &failingStore{Store: store.NewMemoryStore()}
	diedAfterSending(st)
	j := mustJournal(t, st, journalClock(t, b, clock), journal.WithInFlight(time.Millisecond))
	svc := journaled(t, b, j)
	id := uuid.NewString()
	_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "32.00"), b.pisp(client.WithRequestID(id))...)
	require.NoError(t, err)
	st.dead.Store(false)
	st.failAfter.Store(1 << 30)
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, e.Until.Sub(e.Created), b.c.LongestCall(), "in flight at least the client's longest call")

	sent := posts.n.Load()
	clock.Add(b.c.LongestCall() - time.Second)
	_, err = resolve(ctx, b.c, e, b.pisp()...)
	require.ErrorIs(t, err, journal.ErrInFlight)
	assert.Empty(t, inDoubt(t, j))
	assert.Equal(t, sent, posts.n.Load())

	pastInFlight(t, clock, st, e)
	res, err := resolve(ctx, b.c, e, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedDuplicate, res.Kind)
	assert.Len(t, b.paymentsHeld(), 1)
}

// The case: the bank created the payment, the store refused
// every write of its outcome for a while, and the PSU then rejected it
// (or the TPP cancelled it), so the bank would accept the same body
// again. The entry keeps the id all the same (recorded in the background
// once the store is back), and Resolve reads its status: nothing is sent
// again.
func TestJournalCreatedIDSurvivesStoreOutage(t *testing.T) {
	t.Parallel()
	for _, after := range []string{"reject", "cancel"} {
		t.Run(after, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			b, posts := countingBank(t)
			st := &stepStore{Store: store.NewMemoryStore(), first: 4, burst: 1 << 20} // after the intent, its in-flight lease and its marker
			j := mustJournal(t, st)
			svc := journaled(t, b, j)
			id := uuid.NewString()
			init, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "26.00"), b.pisp(client.WithRequestID(id))...)
			require.NoError(t, err)
			if after == "reject" {
				_, err = b.s.Control().Reject(ctx, init.SCARedirect())
			} else {
				_, err = svc.Cancel(ctx, init.Ref(), b.pisp()...)
			}
			require.NoError(t, err)

			st.healed.Store(true)
			require.NoError(t, j.Flush(ctx))
			e, err := j.Entry(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, journal.OutcomeCreated, e.Outcome, "a known 201 never falls back to no outcome")
			assert.Equal(t, init.PaymentID, e.ID)
			assert.Empty(t, inDoubt(t, j))

			stopped := mustJournal(t, st, journal.WithWritersStopped())
			e, err = stopped.Entry(ctx, id)
			require.NoError(t, err)
			// A Service without a journal of its own resolves through the
			// entry's.
			res, err := resolve(ctx, b.c, e, b.pisp()...)
			require.NoError(t, err)
			assert.Equal(t, journal.ResolvedStatus, res.Kind)
			assert.Equal(t, init.PaymentID, res.ID)
			assert.EqualValues(t, 1, posts.n.Load(), "the create was sent once")
			assert.Len(t, b.paymentsHeld(), 1)
		})
	}
}
