package txsync_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

func day(t testing.TB, s string) date.Date {
	t.Helper()
	d, err := date.Parse(s)
	require.NoError(t, err)
	return d
}

func booked(t testing.TB, id, date, amount, party, text string) accounts.Transaction {
	t.Helper()
	return accounts.Transaction{Status: accounts.BookingBooked, TransactionID: id, BookingDate: day(t, date), ValueDate: day(t, date),
		TransactionAmount: money.MustParse(amount, "NOK"), CreditorName: party, RemittanceInformationUnstructured: text}
}

func pending(t testing.TB, date, amount, party, text string) accounts.Transaction {
	t.Helper()
	return accounts.Transaction{Status: accounts.BookingPending, BookingDate: day(t, date),
		TransactionAmount: money.MustParse(amount, "NOK"), CreditorName: party, RemittanceInformationUnstructured: text}
}

// linked returns a Syncer on a memory store and the key of one linked
// account.
func linked(t testing.TB, opts ...txsync.Option) (*txsync.Syncer, txsync.AccountKey) {
	t.Helper()
	s, err := txsync.New(store.NewMemoryStore(), opts...)
	require.NoError(t, err)
	l, err := s.Link(context.Background(), "user-1", []accounts.Account{{ResourceID: "r1", IBAN: "NO93 8601 1117 947"}}, nil)
	require.NoError(t, err)
	return s, l.Accounts[0].Key
}

func TestBookedGoneAndOlderEntriesNotCompared(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	a := booked(t, "1", "2026-03-01", "-10.00", "A", "a")
	b := booked(t, "2", "2026-03-09", "-20.00", "B", "b")
	c := booked(t, "3", "2026-03-10", "-30.00", "C", "c")
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{c, b, a}})
	require.NoError(t, err)
	require.Len(t, d.Added, 3)
	from, err := s.From(ctx, k)
	require.NoError(t, err)
	assert.Equal(t, "2026-03-05", from.String(), "DefaultOverlap days before the newest date")

	// b is gone; a, older than the window, is not listed and not missed.
	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{c}})
	require.NoError(t, err)
	require.Len(t, d.Removed, 1)
	assert.Equal(t, txsync.BookedGone, d.Removed[0].Reason)
	assert.Equal(t, "2", d.Removed[0].Previous.TransactionID)
	assert.Empty(t, d.Added)

	// A bank that sends older entries anyway: not reported again.
	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{c, a}})
	require.NoError(t, err)
	assert.True(t, d.Empty(), "%v", d)
}

func TestChangedAmountKeepsKeyAndFalseChangesNone(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	p := pending(t, "2026-03-10", "-100.00", "Shell", "Drivstoff")
	d, err := s.Apply(ctx, k, txsync.Read{Pending: []accounts.Transaction{p}})
	require.NoError(t, err)
	key := d.Added[0].Key
	// Read again unchanged: nothing.
	d, err = s.Apply(ctx, k, txsync.Read{Pending: []accounts.Transaction{p}})
	require.NoError(t, err)
	assert.True(t, d.Empty())
	// The reservation's amount changes.
	p2 := pending(t, "2026-03-10", "-80.00", "Shell", "Drivstoff")
	d, err = s.Apply(ctx, k, txsync.Read{Pending: []accounts.Transaction{p2}})
	require.NoError(t, err)
	require.Len(t, d.Changed, 1)
	assert.Equal(t, key, d.Changed[0].Key)
	assert.Equal(t, txsync.Amount, d.Changed[0].What)
	assert.Equal(t, "amount", d.Changed[0].What.String())
}

func TestLooseMatchRefusesAnotherPurchase(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	_, err := s.Apply(ctx, k, txsync.Read{Pending: []accounts.Transaction{pending(t, "2026-03-10", "-100.00", "Shell", "Drivstoff")}})
	require.NoError(t, err)
	cases := []accounts.Transaction{
		booked(t, "9", "2026-03-11", "-100.00", "Esso", "Bensin"),     // another counterparty and text
		booked(t, "9", "2026-03-11", "100.00", "Shell", "Drivstoff"),  // money in
		booked(t, "9", "2026-03-11", "-300.00", "Shell", "Drivstoff"), // beyond 50 %
		booked(t, "9", "2026-04-11", "-100.00", "Shell", "Drivstoff"), // a month later
	}
	for _, c := range cases {
		s2, k2 := linked(t)
		_, err := s2.Apply(ctx, k2, txsync.Read{Pending: []accounts.Transaction{pending(t, "2026-03-10", "-100.00", "Shell", "Drivstoff")}})
		require.NoError(t, err)
		d, err := s2.Apply(ctx, k2, txsync.Read{Booked: []accounts.Transaction{c}})
		require.NoError(t, err)
		assert.Len(t, d.Added, 1, "%s %s", c.CreditorName, c.TransactionAmount)
		assert.Len(t, d.Removed, 1)
		assert.Empty(t, d.Changed)
	}
	// The closest of two candidates is taken: same amount over another.
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{
		booked(t, "7", "2026-03-11", "-90.00", "Shell", "Drivstoff"),
		booked(t, "8", "2026-03-11", "-100.00", "Shell", "Drivstoff"),
	}})
	require.NoError(t, err)
	require.Len(t, d.Changed, 1)
	assert.Equal(t, "8", d.Changed[0].Transaction.TransactionID)
	assert.Len(t, d.Added, 1)
}

func TestReferenceChangedWithIDIsNoChange(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	a := booked(t, "1", "2026-03-10", "-10.00", "A", "a")
	a.EntryReference = "ref-1"
	_, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{a}})
	require.NoError(t, err)
	b := a
	b.TransactionID, b.EntryReference = "2", "ref-2"
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{b}})
	require.NoError(t, err)
	assert.True(t, d.Empty(), "%v", d)
	// With the same id, a changed reference is a change of text.
	c := b
	c.EntryReference = "ref-3"
	d, err = s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{c}})
	require.NoError(t, err)
	require.Len(t, d.Changed, 1)
	assert.Equal(t, txsync.Text, d.Changed[0].What)
}

func TestCardAccounts(t *testing.T) {
	s, err := txsync.New(store.NewMemoryStore())
	require.NoError(t, err)
	ctx := t.Context()
	cards := []accounts.CardAccount{{ResourceID: "c1", MaskedPAN: "525412******3241", Currency: "NOK"}}
	l, err := s.Link(ctx, "user-1", nil, cards)
	require.NoError(t, err)
	k := l.Accounts[0].Key
	p := accounts.CardTransaction{Status: accounts.BookingPending, TransactionDate: day(t, "2026-03-10"),
		TransactionAmount: money.MustParse("-45.00", "NOK"), TransactionDetails: "Narvesen"}
	d, err := s.ApplyCard(ctx, k, txsync.CardRead{Pending: []accounts.CardTransaction{p}})
	require.NoError(t, err)
	require.Len(t, d.Added, 1)
	assert.NotNil(t, d.Added[0].Card)
	b := p
	b.Status, b.CardTransactionID, b.BookingDate = accounts.BookingBooked, "77", day(t, "2026-03-11")
	d, err = s.ApplyCard(ctx, k, txsync.CardRead{Booked: []accounts.CardTransaction{b}})
	require.NoError(t, err)
	require.Len(t, d.Changed, 1)
	assert.NotZero(t, d.Changed[0].What&txsync.Booked)

	// A new consent: the card keeps its key under its new resource id.
	cards[0].ResourceID = "c2"
	l, err = s.Link(ctx, "user-1", nil, cards)
	require.NoError(t, err)
	assert.Equal(t, k, l.Accounts[0].Key)
	got, err := s.KeyOf(ctx, "c2")
	require.NoError(t, err)
	assert.Equal(t, k, got)
}

func TestOwnersDoNotShareAccounts(t *testing.T) {
	s, err := txsync.New(store.NewMemoryStore())
	require.NoError(t, err)
	acct := []accounts.Account{{ResourceID: "r1", BBAN: "86011117947"}}
	l1, err := s.Link(t.Context(), "user-1", acct, nil)
	require.NoError(t, err)
	acct[0].ResourceID = "r2"
	l2, err := s.Link(t.Context(), "user-2", acct, nil)
	require.NoError(t, err)
	assert.NotEqual(t, l1.Accounts[0].Key, l2.Accounts[0].Key)
	assert.True(t, l2.Accounts[0].New)
}

func TestErrors(t *testing.T) {
	_, err := txsync.New(nil)
	require.ErrorIs(t, err, txsync.ErrInvalidOption)
	for _, o := range []txsync.Option{txsync.WithOverlap(0), txsync.WithOverlap(txsync.MaxOverlap + 1), txsync.WithMaxEntries(3),
		txsync.WithStateTTL(time.Hour), txsync.WithClock(nil)} {
		_, err := txsync.New(store.NewMemoryStore(), o)
		require.ErrorIs(t, err, txsync.ErrInvalidOption)
	}
	st := store.NewMemoryStore()
	s, err := txsync.New(st)
	require.NoError(t, err)
	ctx := t.Context()
	_, err = s.KeyOf(ctx, "nobody")
	require.ErrorIs(t, err, txsync.ErrNotLinked)
	_, err = s.Sync(ctx, nil, "nobody")
	require.ErrorIs(t, err, txsync.ErrNotLinked)
	_, err = s.Apply(ctx, "not-a-key", txsync.Read{})
	require.ErrorIs(t, err, txsync.ErrInvalidOption)
	_, err = s.Link(ctx, "", nil, nil)
	require.ErrorIs(t, err, txsync.ErrInvalidOption)
	_, err = s.Link(ctx, "u", []accounts.Account{{IBAN: "NO9386011117947"}}, nil)
	require.ErrorIs(t, err, txsync.ErrInvalidOption)

	l, err := s.Link(ctx, "u", []accounts.Account{{ResourceID: "r", IBAN: "NO9386011117947"}}, nil)
	require.NoError(t, err)
	k := l.Accounts[0].Key
	require.NoError(t, st.Put(ctx, "txsync/state/"+string(k), []byte("{not json"), 0))
	_, err = s.Apply(ctx, k, txsync.Read{})
	require.ErrorIs(t, err, txsync.ErrCorruptState)
	require.NoError(t, s.Forget(ctx, k))
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{booked(t, "1", "2026-03-10", "-1.00", "A", "a")}})
	require.NoError(t, err)
	assert.True(t, d.First)
}

// TestReplicas applies the same reads from two Syncers on one store at
// once: every entry is added once, under one key.
func TestReplicas(t *testing.T) {
	st := store.NewMemoryStore()
	var ss [2]*txsync.Syncer
	for i := range ss {
		var err error
		ss[i], err = txsync.New(st)
		require.NoError(t, err)
	}
	l, err := ss[0].Link(t.Context(), "u", []accounts.Account{{ResourceID: "r", IBAN: "NO9386011117947"}}, nil)
	require.NoError(t, err)
	k := l.Accounts[0].Key
	read := txsync.Read{Booked: []accounts.Transaction{booked(t, "1", "2026-03-10", "-1.00", "A", "a"), booked(t, "2", "2026-03-10", "-2.00", "B", "b")}}
	var mu sync.Mutex
	added := map[txsync.Key]int{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := ss[i%2].Apply(context.Background(), k, read)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			for _, e := range d.Added {
				added[e.Key]++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	assert.Len(t, added, 2)
	for key, n := range added {
		assert.Equal(t, 1, n, key)
	}
}

func TestMaxEntriesBoundsState(t *testing.T) {
	s, k := linked(t, txsync.WithMaxEntries(16))
	ctx := t.Context()
	var ps []accounts.Transaction
	for i := range 40 {
		ps = append(ps, pending(t, "2026-03-10", "-"+string(rune('1'+i%9))+"0.00", "P", "p"+string(rune('a'+i%26))+string(rune('a'+i/26))))
	}
	_, err := s.Apply(ctx, k, txsync.Read{Pending: ps})
	require.NoError(t, err)
	n, err := s.StateSize(ctx, k)
	require.NoError(t, err)
	assert.Less(t, n, 16*200)
	assert.False(t, errors.Is(err, store.ErrNotStored))
}

// A dropped reservation and a new one at the same shop are two
// purchases: one removed, one added, not one changed.
func TestAnotherPendingIsNotAChange(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	_, err := s.Apply(ctx, k, txsync.Read{Pending: []accounts.Transaction{pending(t, "2026-03-10", "-56.50", "Rema", "Rema 1")}})
	require.NoError(t, err)
	d, err := s.Apply(ctx, k, txsync.Read{Pending: []accounts.Transaction{pending(t, "2026-03-11", "-57.50", "Rema", "Rema 2")}})
	require.NoError(t, err)
	assert.Empty(t, d.Changed)
	assert.Len(t, d.Added, 1)
	assert.Len(t, d.Removed, 1)
}

// ApplyResource finds the account by resource id, and the Delta's
// entries are copies: the caller may reuse the read's slice at once (as
// refresh compacts its booked list in place).
func TestApplyResourceCopiesEntries(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	_, err := s.ApplyResource(ctx, "nobody", txsync.Read{})
	require.ErrorIs(t, err, txsync.ErrNotLinked)
	_, err = s.ResourceFrom(ctx, "nobody")
	require.ErrorIs(t, err, txsync.ErrNotLinked)
	bs := []accounts.Transaction{booked(t, "1", "2026-03-10", "-1.00", "A", "a"), booked(t, "2", "2026-03-10", "-2.00", "B", "b")}
	d, err := s.ApplyResource(ctx, "r1", txsync.Read{Booked: bs})
	require.NoError(t, err)
	assert.Equal(t, k, d.Account)
	bs[0] = bs[1]
	assert.Equal(t, "1", d.Added[0].Transaction.TransactionID)
	from, err := s.ResourceFrom(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, "2026-03-05", from.String())
}
