package txsync_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// A bank that lists one account twice under the same resource id (its
// list repeated, a page of accounts sent again) lists one account: Link
// gives it one key, the one a later consent's list finds again by its
// IBAN, so that the state its reads wrote carries over and no entry is
// reported again under a new key.
func TestLinkSameResourceListedTwiceIsOneAccount(t *testing.T) {
	s, err := txsync.New(store.NewMemoryStore())
	require.NoError(t, err)
	ctx := t.Context()
	acc := accounts.Account{ResourceID: "r1", IBAN: "NO9386011117947"}
	l, err := s.Link(ctx, "user-1", []accounts.Account{acc, acc}, nil)
	require.NoError(t, err)
	assert.Len(t, l.Accounts, 1, "one account")
	k, err := s.KeyOf(ctx, "r1")
	require.NoError(t, err)
	assert.Equal(t, l.Accounts[0].Key, k)
	d, err := s.ApplyResource(ctx, "r1", txsync.Read{Booked: []accounts.Transaction{booked(t, "1", "2026-03-10", "-10.00", "A", "a")}})
	require.NoError(t, err)
	require.Len(t, d.Added, 1)

	// The next consent lists the account once, under a new resource id.
	l, err = s.Link(ctx, "user-1", []accounts.Account{{ResourceID: "r2", IBAN: "NO9386011117947"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, k, l.Accounts[0].Key, "the key the reads were applied under")
	assert.Empty(t, l.Gone)
	d, err = s.ApplyResource(ctx, "r2", txsync.Read{Booked: []accounts.Transaction{booked(t, "1", "2026-03-10", "-10.00", "A", "a")}})
	require.NoError(t, err)
	assert.True(t, d.Empty(), "the entry is known: %v", d)
}

// One resource id listed for two different accounts cannot name both:
// Link refuses the list rather than apply one account's reads to the
// other's state.
func TestLinkOneResourceForTwoAccountsRefused(t *testing.T) {
	s, err := txsync.New(store.NewMemoryStore())
	require.NoError(t, err)
	_, err = s.Link(t.Context(), "user-1", []accounts.Account{{ResourceID: "r1", IBAN: "NO9386011117947"},
		{ResourceID: "r1", IBAN: "NO8495312776066"}}, nil)
	require.ErrorIs(t, err, txsync.ErrInvalidOption)
	_, err = s.KeyOf(t.Context(), "r1")
	assert.ErrorIs(t, err, txsync.ErrNotLinked, "nothing linked")
}

// The state keeps bounded texts of each entry whatever the bank sends:
// a transactionId, an amount text and a currency of 100 KB each do not
// make an entry of the state 300 KB (the texts a Version keeps are at
// most 140 characters), and the same read applied again is still the
// same entry.
func TestStateBoundsBankTexts(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	long := strings.Repeat("7", 100_000)
	var tr accounts.Transaction
	require.NoError(t, json.Unmarshal([]byte(`{"transactionId":"`+long+`","bookingDate":"2026-03-10",
		"transactionAmount":{"amount":"`+long+`","currency":"`+strings.Repeat("N", 100_000)+`"}}`), &tr))
	tr.Status = accounts.BookingBooked
	ok := booked(t, "2", "2026-03-10", "-10.00", "A", "a")
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{tr, ok}})
	require.NoError(t, err)
	require.Len(t, d.Added, 2)
	assert.Equal(t, long, d.Added[0].Transaction.TransactionID, "the entry itself as the bank sent it")
	n, err := s.StateSize(ctx, k)
	require.NoError(t, err)
	assert.Less(t, n, 2_000, "state bytes")

	d, err = s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{tr, ok}})
	require.NoError(t, err)
	assert.True(t, d.Empty(), "%v", d)
	// Another long id of the same length is another id.
	tr2 := tr
	tr2.TransactionID = strings.Repeat("7", 99_999) + "8"
	tr2.RemittanceInformationUnstructured = "other"
	d, err = s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{tr, tr2, ok}})
	require.NoError(t, err)
	assert.Len(t, d.Added, 1)
	assert.Empty(t, d.Changed)
}

// A bank that lists two entries under one transactionId (ids are
// stable, not promised unique) lists them in any order: a read with the
// same two entries in the other order changes nothing. Each pairs with
// the tracked entry of its id and its facts, not with the first tracked
// entry of its id.
func TestSameIDTwiceInAnotherOrderIsNoChange(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	a := booked(t, "x", "2026-03-10", "-10.00", "A", "a")
	b := booked(t, "x", "2026-03-10", "-20.00", "B", "b")
	d, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{a, b}})
	require.NoError(t, err)
	require.Len(t, d.Added, 2)
	keyA, keyB := d.Added[0].Key, d.Added[1].Key
	from, err := s.From(ctx, k)
	require.NoError(t, err)

	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{b, a}})
	require.NoError(t, err)
	assert.True(t, d.Empty(), "the same two entries: %v", d)

	// One of them changes its amount: that one is the change, under its key.
	b2 := booked(t, "x", "2026-03-10", "-25.00", "B", "b")
	d, err = s.Apply(ctx, k, txsync.Read{From: from, Booked: []accounts.Transaction{b2, a}})
	require.NoError(t, err)
	require.Len(t, d.Changed, 1, "%v", d)
	assert.Equal(t, keyB, d.Changed[0].Key)
	assert.NotEqual(t, keyA, d.Changed[0].Key)
	assert.Empty(t, d.Added)
	assert.Empty(t, d.Removed)
}

// A read that lists none of the 2,000 pending entries the state keeps
// (DefaultMaxEntries) and 100,000 new booked entries (MaxReadEntries),
// each like every pending entry (the same counterparty, dates within the
// days a reservation is booked in, amounts within 50 %), is applied with
// at most 20 million comparisons (seconds, not minutes; counted, not
// timed): the loose matching of vanished pending entries (every vanished
// entry against every new one, 200 million) is bounded, and a vanished
// entry it cannot compare is reported vanished, the new entries added.
// Before, this read took over two minutes inside the store's atomic
// update.
func TestVanishedPendingAgainstAHugeReadIsBounded(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	pend := make([]accounts.Transaction, 0, txsync.DefaultMaxEntries-1)
	for i := range txsync.DefaultMaxEntries - 1 {
		pend = append(pend, pending(t, "2026-03-10", fmt.Sprintf("-%d.00", 100+i), "Shop", fmt.Sprintf("p%d", i)))
	}
	_, err := s.Apply(ctx, k, txsync.Read{Booked: []accounts.Transaction{booked(t, "b", "2026-03-10", "-1.00", "X", "x")}, Pending: pend})
	require.NoError(t, err)
	bk := make([]accounts.Transaction, 0, txsync.MaxReadEntries)
	for i := range txsync.MaxReadEntries {
		bk = append(bk, booked(t, fmt.Sprintf("n%d", i), "2026-03-11", fmt.Sprintf("-%d.00", 120+i%3000), "Shop", "zz"))
	}
	var pairs, costly int
	txsync.CountLoose(t, &pairs, &costly)
	start := time.Now()
	d, err := s.Apply(ctx, k, txsync.Read{Booked: bk})
	took := time.Since(start)
	require.NoError(t, err)
	t.Logf("%v: %v; %d pairs compared, %d to the amounts", took, d, pairs, costly)
	// Every vanished entry against every new one would be 200 million.
	assert.LessOrEqual(t, pairs, txsync.MaxLoosePairs)
	assert.Equal(t, len(pend)+1, len(d.Changed)+len(d.Removed), "each pending entry booked or vanished, and the booked one gone")
	assert.Equal(t, len(bk), len(d.Changed)+len(d.Added)+d.Overflow, "each new entry reported once")
}
