package reconcile_test

import (
	"context"
	"errors"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// TestTwoReconcilersOneStore: two reconcilers on one store apply the
// same deltas at once, in opposite orders, while a third tracks more
// payments: each payment is settled once, each booking matched at most
// once, twins one to one, and each event published once.
func TestTwoReconcilersOneStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	const n = 120
	var deltas []*txsync.Delta
	for i := range n {
		kid := "10000" + itoa(1000+i)
		f.pay("p"+itoa(i), nok("100.00"), kid, "")
		d := &txsync.Delta{Account: acct, Added: []txsync.Entry{credit("k"+itoa(i), "2026-03-16", nok("100.00"), "KID "+kid)}}
		if i%10 == 0 { // a twin of a text payment and its credit, and a stranger of the same amount
			f.pay("t"+itoa(i), nok("49.00"), "", "Kaffe")
			// Identical entries of one day have their occurrences in the
			// sync's read.
			c := credit("tc"+itoa(i), "2026-03-16", nok("49.00"), "Kaffe")
			x := credit("x"+itoa(i), "2026-03-16", nok("100.00"), "Gave")
			c.Occurrence, x.Occurrence = i, i
			d.Added = append(d.Added, c, x)
		}
		deltas = append(deltas, d)
	}
	r1, r2, r3 := f.reconciler(), f.reconciler(), f.reconciler()
	var wg sync.WaitGroup
	rounds := make([][]*reconcile.Round, 2)
	for w, r := range []*reconcile.Reconciler{r1, r2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range deltas {
				d := deltas[i]
				if w == 1 {
					d = deltas[len(deltas)-1-i]
				}
				round, err := r.Apply(t.Context(), d)
				if !assert.NoError(t, err) {
					return
				}
				rounds[w] = append(rounds[w], round)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 40 {
			_, err := r3.Track(t.Context(), payment("late"+itoa(i), f.clk.Now().Add(time.Duration(i)*time.Second)))
			assert.NoError(t, err)
		}
	}()
	wg.Wait()

	payments := map[string]int{}
	bookings := map[txsync.Key]int{}
	unmatched := map[txsync.Key]int{}
	for _, rs := range rounds {
		for _, r := range rs {
			for _, s := range r.Settled {
				payments[s.Payment]++
				bookings[s.Booking]++
			}
			for _, c := range r.Unmatched {
				unmatched[c.Key]++
			}
		}
	}
	assert.Len(t, payments, n+n/10, "every payment settled")
	for p, c := range payments {
		assert.Equal(t, 1, c, "payment %s settled once", p)
	}
	for b, c := range bookings {
		assert.Equal(t, 1, c, "booking %s matched once", b)
	}
	assert.Len(t, unmatched, n/10, "the strangers, each reported once")
	for k, c := range unmatched {
		assert.Equal(t, 1, c, k)
		assert.Zero(t, bookings[k])
	}
	evs := f.col.events()
	seen := map[string]int{}
	for _, ev := range evs {
		seen[ev.(events.PaymentSettled).Payment]++
	}
	assert.Len(t, seen, n+n/10)
	for p, c := range seen {
		assert.Equal(t, 1, c, "one event for %s", p)
	}
	for i := range 40 {
		assert.Equal(t, reconcile.Awaiting, f.state("late"+itoa(i)).Settlement)
	}
}

// TestReadAgainUnderNewKeys: the same credits read again under new keys
// in a first read (the sync's state lost: txsync.Syncer.Forget) settle
// nothing again and are not reported again; a new payment with the same
// KID and amount, whose own credit has not come, is not given its
// twin's credit.
func TestReadAgainUnderNewKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p", nok("250.00"), "7788990011", "")
	first := []txsync.Entry{credit("a", "2026-03-16", nok("250.00"), "7788990011"), credit("b", "2026-03-16", nok("60.00"), "Gave")}
	r := f.apply(first...)
	require.Len(t, r.Settled, 1)
	require.Len(t, r.Unmatched, 1)
	f.pay("q", nok("250.00"), "7788990011", "") // the same invoice paid again
	again := []txsync.Entry{credit("a", "2026-03-16", nok("250.00"), "7788990011"), credit("b", "2026-03-16", nok("60.00"), "Gave")}
	for i := range again {
		again[i].Key += "-new"
		again[i].Transaction.TransactionID += "-new" // a bank that changed its ids too
	}
	r, err := f.r.Apply(t.Context(), &txsync.Delta{Account: acct, Added: again, First: true})
	require.NoError(t, err)
	assert.True(t, r.Empty(), "%+v", r)
	assert.Equal(t, 2, r.Repeated)
	assert.Equal(t, reconcile.Awaiting, f.state("q").Settlement)
	r = f.apply(credit("c", "2026-03-17", nok("250.00"), "7788990011"))
	require.Len(t, r.Settled, 1)
	assert.Equal(t, "q", r.Settled[0].Payment)
}

// TestCorruptState: a state the store changed is ErrCorruptState for
// every call, never nothing; Forget starts the account over.
func TestCorruptState(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	f.pay("p", nok("1.00"), "", "x")
	ctx := t.Context()
	b, err := f.st.Get(ctx, "reconcile/account/"+string(acct))
	require.NoError(t, err)
	header := append([]byte(nil), b...)
	header[3] ^= 0x01
	b[len(b)-20] ^= 0x40
	require.NoError(t, f.st.Put(ctx, "reconcile/account/"+string(acct), b, 0))
	_, err = f.r.Apply(ctx, &txsync.Delta{Account: acct, Added: []txsync.Entry{credit("a", "2026-03-16", nok("1.00"), "x")}})
	assert.ErrorIs(t, err, reconcile.ErrCorruptState)
	r, err := f.r.Apply(ctx, &txsync.Delta{Account: acct})
	require.NoError(t, err, "a read that brings nothing reads the header alone")
	assert.True(t, r.Empty())
	_, err = f.r.Payment(ctx, "p")
	assert.ErrorIs(t, err, reconcile.ErrCorruptState)
	assert.ErrorIs(t, f.r.Status(ctx, "p", "ACSC"), reconcile.ErrCorruptState)
	_, err = f.r.Track(ctx, payment("q", f.clk.Now()))
	assert.ErrorIs(t, err, reconcile.ErrCorruptState)
	for _, err := range f.r.Payments(ctx, date.Date{}, date.Date{}) {
		assert.ErrorIs(t, err, reconcile.ErrCorruptState)
	}
	assert.ErrorIs(t, f.r.Watch(ctx, acct, accounts.Account{BBAN: merchantBBAN}), reconcile.ErrCorruptState)
	require.NoError(t, f.st.Put(ctx, "reconcile/account/"+string(acct), header, 0))
	_, err = f.r.Apply(ctx, &txsync.Delta{Account: acct})
	assert.ErrorIs(t, err, reconcile.ErrCorruptState)
	require.NoError(t, f.r.Forget(ctx, acct))
	require.NoError(t, f.r.Watch(ctx, acct, accounts.Account{BBAN: merchantBBAN}))
	st, err := f.r.Track(ctx, payment("q", f.clk.Now()))
	require.NoError(t, err)
	assert.Equal(t, reconcile.Awaiting, st.Settlement)
}

// failingStore fails every call after fail is set.
type failingStore struct {
	store.Store
	mu   sync.Mutex
	fail bool
}

func (s *failingStore) Get(ctx context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return nil, errors.New("disk gone")
	}
	return s.Store.Get(ctx, key)
}

func (s *failingStore) Keys(ctx context.Context, prefix string) iter.Seq2[string, error] {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return func(yield func(string, error) bool) { yield("", errors.New("disk gone")) }
	}
	return s.Store.Keys(ctx, prefix)
}

// TestStoreErrors: a store that cannot be read is an error, never
// "nothing found".
func TestStoreErrors(t *testing.T) {
	t.Parallel()
	fs := &failingStore{Store: store.NewMemoryStore()}
	r, err := reconcile.New(fs)
	require.NoError(t, err)
	ctx := t.Context()
	require.NoError(t, r.Watch(ctx, acct, accounts.Account{BBAN: merchantBBAN}))
	fs.fail = true
	_, err = r.Apply(ctx, &txsync.Delta{Account: acct})
	assert.ErrorIs(t, err, reconcile.ErrStore)
	_, err = r.Watching(ctx)
	assert.ErrorIs(t, err, reconcile.ErrStore)
	n := 0
	for _, err := range r.Payments(ctx, date.Date{}, date.Date{}) {
		assert.ErrorIs(t, err, reconcile.ErrStore)
		n++
	}
	assert.Equal(t, 1, n)
	_, err = r.Track(ctx, payment("p", time.Now()))
	assert.ErrorIs(t, err, reconcile.ErrStore)
}

// flakySink fails its first n publications.
type flakySink struct {
	mu  sync.Mutex
	n   int
	got []events.Envelope
}

func (s *flakySink) Publish(_ context.Context, e events.Envelope) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n > 0 {
		s.n--
		return errors.New("outbox down")
	}
	s.got = append(s.got, e)
	return nil
}

// TestEventAfterFailedPublish: an outcome whose event could not be
// published is kept with its announcement; the next call publishes it,
// once, and the outcome is never decided twice.
func TestEventAfterFailedPublish(t *testing.T) {
	t.Parallel()
	st := store.NewMemoryStore()
	clk := newClockAt("2026-03-16")
	sink := &flakySink{n: 1}
	em, err := events.NewEmitter(sink, events.WithStore(st), events.WithClock(clk.Now))
	require.NoError(t, err)
	r, err := reconcile.New(st, reconcile.WithClock(clk.Now), reconcile.WithEmitter(em))
	require.NoError(t, err)
	ctx := t.Context()
	require.NoError(t, r.Watch(ctx, acct, accounts.Account{BBAN: merchantBBAN}))
	_, err = r.Track(ctx, payment("p", clk.Now()))
	require.NoError(t, err)
	round, err := r.Apply(ctx, &txsync.Delta{Account: acct, Added: []txsync.Entry{credit("a", "2026-03-16", nok("100.00"), "KID 5550001112")}})
	require.Error(t, err, "the publication failed")
	require.NotNil(t, round, "the outcome is kept and reported")
	require.Len(t, round.Settled, 1)
	assert.Empty(t, sink.got)
	round, err = r.Apply(ctx, &txsync.Delta{Account: acct})
	require.NoError(t, err)
	assert.Empty(t, round.Settled, "decided once")
	require.Len(t, sink.got, 1)
	assert.Equal(t, events.KindPaymentSettled, sink.got[0].Kind)
	_, err = r.Apply(ctx, &txsync.Delta{Account: acct})
	require.NoError(t, err)
	assert.Len(t, sink.got, 1, "published once")
}
