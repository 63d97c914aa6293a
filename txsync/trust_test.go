package txsync_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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

// ledger is a TPP's ledger kept by the sync's keys: it fails the test on
// a key added twice, or changed or removed while unknown.
type ledger struct {
	t    testing.TB
	keys map[txsync.Key]bool
}

func newLedger(t testing.TB) *ledger { return &ledger{t: t, keys: map[txsync.Key]bool{}} }

func (l *ledger) apply(d *txsync.Delta) {
	l.t.Helper()
	for _, e := range d.Added {
		require.False(l.t, l.keys[e.Key], "key %s added twice", e.Key)
		l.keys[e.Key] = true
	}
	for _, c := range d.Changed {
		require.True(l.t, l.keys[c.Key], "unknown key %s changed", c.Key)
	}
	for _, r := range d.Removed {
		require.True(l.t, l.keys[r.Key], "unknown key %s removed", r.Key)
		delete(l.keys, r.Key)
	}
}

// Past WithMaxEntries an identical read reports nothing: the entries the
// state has no room for are not added (Delta.Overflow counts them), and
// the tracked ones stay tracked while the bank lists them. Before, an
// account with 2,500 pending entries reported 500 added under new keys
// on every read, one with 5,000 reported 3,000.
func TestReReadPastMaxEntries(t *testing.T) {
	for _, n := range []int{2500, 5000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			s, k := linked(t)
			ctx := t.Context()
			var r txsync.Read
			for i := range n {
				r.Pending = append(r.Pending, pending(t, "2026-03-10", "-"+strconv.Itoa(10+i)+".00", "Butikk", "Kjøp "+strconv.Itoa(i)))
			}
			l := newLedger(t)
			d, err := s.Apply(ctx, k, r)
			require.NoError(t, err)
			l.apply(d)
			assert.Equal(t, txsync.DefaultMaxEntries, len(d.Added))
			assert.Equal(t, n-txsync.DefaultMaxEntries, d.Overflow)
			for read := 2; read <= 3; read++ {
				d, err := s.Apply(ctx, k, r)
				require.NoError(t, err)
				t.Logf("%d pending entries, read %d: %d added, %d changed, %d removed, %d overflow", n, read,
					len(d.Added), len(d.Changed), len(d.Removed), d.Overflow)
				assert.True(t, d.Empty(), "an identical re-read reports nothing: %v", d)
				assert.Equal(t, n-txsync.DefaultMaxEntries, d.Overflow)
				l.apply(d)
			}
			// Room frees: the bank drops the tracked entries' first
			// hundred; the hundred they held go to entries not reported
			// yet, each once.
			dropped := r.Pending[:100]
			r.Pending = r.Pending[100:]
			d, err = s.Apply(ctx, k, r)
			require.NoError(t, err)
			l.apply(d)
			assert.Len(t, d.Removed, 100)
			assert.Equal(t, 100, len(d.Added))
			for _, e := range d.Added {
				for _, x := range dropped {
					assert.NotEqual(t, x.RemittanceInformationUnstructured, e.Transaction.RemittanceInformationUnstructured)
				}
			}
			d, err = s.Apply(ctx, k, r)
			require.NoError(t, err)
			assert.True(t, d.Empty(), "%v", d)
		})
	}
}

// The same past the limit with booked entries of the overlap window, a
// page of twins among them.
func TestReReadPastMaxEntriesBooked(t *testing.T) {
	s, k := linked(t, txsync.WithMaxEntries(16))
	ctx := t.Context()
	var r txsync.Read
	for i := range 30 {
		r.Booked = append(r.Booked, booked(t, "", fmt.Sprintf("2026-03-%02d", 5+i%6), "-"+strconv.Itoa(10+i%20)+".00", "Butikk", "Kjøp"))
	}
	l := newLedger(t)
	d, err := s.Apply(ctx, k, r)
	require.NoError(t, err)
	l.apply(d)
	assert.Len(t, d.Added, 16)
	assert.Equal(t, 14, d.Overflow)
	for range 3 {
		from, err := s.From(ctx, k)
		require.NoError(t, err)
		r.From = from
		d, err = s.Apply(ctx, k, r)
		require.NoError(t, err)
		assert.True(t, d.Empty(), "%v", d)
		l.apply(d)
	}
}

// listBooked is a bank's booked list from from on (by booking date).
func listBooked(all []accounts.Transaction, from date.Date) []accounts.Transaction {
	var out []accounts.Transaction
	for _, t := range all {
		if from.IsZero() || !t.BookingDate.Before(from) {
			out = append(out, t)
		}
	}
	return out
}

// An entry booked a year ahead does not move the window: every entry
// booked after it is reported, and it is reported once, as an anomaly.
// Before, its date set From a year ahead and the 10 entries of the next
// 10 days were never reported.
func TestFutureDatedEntryCannotMoveTheWindow(t *testing.T) {
	clock := &frozen{now: time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)}
	s, err := txsync.New(store.NewMemoryStore(), txsync.WithClock(clock.Now))
	require.NoError(t, err)
	l0, err := s.Link(t.Context(), "user-1", []accounts.Account{{ResourceID: "r1", IBAN: "NO9386011117947"}}, nil)
	require.NoError(t, err)
	k := l0.Accounts[0].Key
	ctx := t.Context()
	today := clock.bankToday()
	bank := []accounts.Transaction{
		booked(t, "1", today.String(), "-10.00", "A", "a"),
		booked(t, "2", plusDays(today, 365).String(), "-99.00", "Z", "a year ahead"),
	}
	l := newLedger(t)
	d, err := s.Apply(ctx, k, txsync.Read{Booked: bank})
	require.NoError(t, err)
	l.apply(d)
	require.Len(t, d.Added, 2)
	require.Len(t, d.Anomalies, 1)
	assert.Equal(t, txsync.FutureBooked, d.Anomalies[0].Kind)
	assert.Equal(t, d.Added[1].Key, d.Anomalies[0].Key)
	lost := 0
	for i := 1; i <= 10; i++ {
		clock.add(24 * time.Hour)
		bank = append(bank, booked(t, strconv.Itoa(100+i), clock.bankToday().String(), "-"+strconv.Itoa(20+i)+".00", "B", "day "+strconv.Itoa(i)))
		from, err := s.From(ctx, k)
		require.NoError(t, err)
		d, err := s.Apply(ctx, k, txsync.Read{From: from, Booked: listBooked(bank, from)})
		require.NoError(t, err)
		l.apply(d)
		if len(d.Added) != 1 {
			lost++
		}
		assert.Empty(t, d.Removed)
		assert.Empty(t, d.Anomalies, "the anomaly is reported with the entry, once")
	}
	t.Logf("entries booked after one dated a year ahead: %d of 10 lost", lost)
	assert.Zero(t, lost)
}

// A state already holding a newest date a year ahead (written before the
// bound) is read with the bound: the next reads report what is booked.
func TestFutureNewestInStoredStateIsBounded(t *testing.T) {
	clock := &frozen{now: time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)}
	s, err := txsync.New(store.NewMemoryStore(), txsync.WithClock(clock.Now))
	require.NoError(t, err)
	l0, err := s.Link(t.Context(), "user-1", []accounts.Account{{ResourceID: "r1", IBAN: "NO9386011117947"}}, nil)
	require.NoError(t, err)
	k := l0.Accounts[0].Key
	from, err := s.From(t.Context(), k)
	require.NoError(t, err)
	assert.True(t, from.IsZero())
	_, err = s.Apply(t.Context(), k, txsync.Read{Booked: []accounts.Transaction{booked(t, "2", "2027-03-10", "-99.00", "Z", "z")}})
	require.NoError(t, err)
	from, err = s.From(t.Context(), k)
	require.NoError(t, err)
	bound := plusDays(clock.bankToday(), txsync.FutureDays)
	assert.Equal(t, plusDays(bound, -txsync.DefaultOverlap), from, "the window ends at the bank's today plus FutureDays")
}

// corruptions are the corruptions of one encoded state the sweep tries:
// every bit flipped, every byte inverted, set to 0 and to 1 (the legacy
// version byte), every truncation (the empty value included), a byte
// appended, every two adjacent bytes swapped.
func corruptions(b []byte) [][]byte {
	var out [][]byte
	mut := func(f func(c []byte) []byte) {
		out = append(out, f(append([]byte(nil), b...)))
	}
	for i := range b {
		for bit := range 8 {
			mut(func(c []byte) []byte { c[i] ^= 1 << bit; return c })
		}
		mut(func(c []byte) []byte { c[i] ^= 0xff; return c })
		if b[i] != 0 {
			mut(func(c []byte) []byte { c[i] = 0; return c })
		}
		if b[i] != 1 {
			mut(func(c []byte) []byte { c[i] = 1; return c })
		}
		if i+1 < len(b) && b[i] != b[i+1] {
			mut(func(c []byte) []byte { c[i], c[i+1] = c[i+1], c[i]; return c })
		}
	}
	for n := range len(b) {
		mut(func(c []byte) []byte { return c[:n] })
	}
	mut(func(c []byte) []byte { return append(c, 0) })
	return out
}

// sweepAccount is a read of an account with what a state holds: booked
// entries with ids and references, twins, pending entries, an account's
// and a card's.
type sweepCase struct {
	name  string
	apply func(s *txsync.Syncer, k txsync.AccountKey) (*txsync.Delta, error)
}

func sweepCases(t testing.TB) []sweepCase {
	acct := txsync.Read{
		Booked: []accounts.Transaction{
			booked(t, "1001", "2026-03-09", "-389.40", "Fjordkraft", "Strøm februar"),
			booked(t, "1002", "2026-03-10", "-49.00", "Kaffebar", "Kaffe"),
			booked(t, "1003", "2026-03-10", "-49.00", "Kaffebar", "Kaffe"),
			booked(t, "1004", "2026-03-08", "25000.00", "Arbeidsgiver AS", "Lønn"),
		},
		Pending: []accounts.Transaction{
			pending(t, "2026-03-10", "-300.00", "Circle K", "Drivstoff"),
			pending(t, "2026-03-11", "-990.00", "Hotell", "Reservasjon"),
		},
	}
	eur := money.MustParse("-39.90", "EUR")
	card := txsync.CardRead{
		Booked: []accounts.CardTransaction{
			{Status: accounts.BookingBooked, CardTransactionID: "832319375079", TransactionDate: day(t, "2026-03-03"), BookingDate: day(t, "2026-03-05"),
				TransactionAmount: money.MustParse("-452.30", "NOK"), OriginalAmount: &eur, TransactionDetails: "CAFE EXEMPLE PARIS FR"},
			{Status: accounts.BookingBooked, CardTransactionID: "763633950432", TransactionDate: day(t, "2026-03-04"), BookingDate: day(t, "2026-03-05"),
				TransactionAmount: money.MustParse("-899.00", "NOK"), TransactionDetails: "SPORT TESTBUTIKKEN TESTBY"},
		},
		Pending: []accounts.CardTransaction{{Status: accounts.BookingPending, CardTransactionID: "674912199995", TransactionDate: day(t, "2026-03-06"),
			TransactionAmount: money.MustParse("-215.00", "NOK"), TransactionDetails: "KIOSKEN TESTBY STASJON"}},
	}
	return []sweepCase{
		{"account", func(s *txsync.Syncer, k txsync.AccountKey) (*txsync.Delta, error) {
			return s.Apply(context.Background(), k, acct)
		}},
		{"card", func(s *txsync.Syncer, k txsync.AccountKey) (*txsync.Delta, error) {
			return s.ApplyCard(context.Background(), k, card)
		}},
	}
}

// Every corruption of a stored state is detected: the read after it
// fails with ErrCorruptState; none is read as another state that adds
// entries again or reports changes that did not happen.
func TestCorruptionSweep(t *testing.T) {
	clock := &frozen{now: time.Date(2026, 3, 11, 9, 0, 0, 0, time.UTC)}
	total, detected, readded, spurious := 0, 0, 0, 0
	for _, c := range sweepCases(t) {
		st := store.NewMemoryStore()
		s, err := txsync.New(st, txsync.WithClock(clock.Now))
		require.NoError(t, err)
		l, err := s.Link(t.Context(), "user-1", []accounts.Account{{ResourceID: "r1", IBAN: "NO9386011117947"}}, nil)
		require.NoError(t, err)
		k := l.Accounts[0].Key
		_, err = c.apply(s, k)
		require.NoError(t, err)
		key := "txsync/state/" + string(k)
		good, err := st.Get(t.Context(), key)
		require.NoError(t, err)
		d, err := c.apply(s, k)
		require.NoError(t, err)
		require.True(t, d.Empty(), "%s: an identical read reports nothing", c.name)
		for _, bad := range corruptions(good) {
			require.NoError(t, st.Put(t.Context(), key, bad, 0))
			total++
			d, err := c.apply(s, k)
			switch {
			case errors.Is(err, txsync.ErrCorruptState):
				detected++
			case err != nil:
				t.Fatalf("%s: %v", c.name, err)
			case len(d.Added) > 0:
				readded++
			case !d.Empty():
				spurious++
			}
		}
	}
	t.Logf("corruptions of %d encoded states: %d, detected %d (%.1f %%), entries added again %d, spurious changes %d",
		len(sweepCases(t)), total, detected, 100*float64(detected)/float64(total), readded, spurious)
	assert.Equal(t, total, detected)
}
