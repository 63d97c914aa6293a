package reconcile

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/testkit/cpuclock"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// benchOpen is the open payments of the benchmark's watched account.
const benchOpen = 1000

// benchID is a request id of the form a TPP gives (a UUID).
func benchID(i int) string { return fmt.Sprintf("0c39%04d-7e1a-4c2b-9d3f-%012d", i, i) }

// BenchmarkRound measures, in one run, the CPU of a round of a watched
// account with 1,000 open payments (KID invoices of a price list, so many
// share an amount): txsync's Apply of the read (the overlap window's 24
// credits, 4 new ones, 3 pending) against txsync's Apply followed by the
// reconciler's Apply of its delta, which settles the 4 (events emitted);
// and the same for a read that brings nothing new (the usual round).
// The round with credits is measured twice: with the state this
// Reconciler wrote last (cached decoded: "round"), and with one another
// replica wrote ("other": decoded). Each iteration starts from the same
// states, so every round does the same work; the bank's round trip, the
// same for both, is left out. CPU is the process's (cpuclock), wall time
// where it cannot be read.
func BenchmarkRound(b *testing.B) {
	ctx := context.Background()
	st := store.NewMemoryStore()
	today := date.Date{Year: 2026, Month: time.March, Day: 18}
	now := today.Time(date.Oslo()).Add(20 * time.Hour)
	clock := func() time.Time { return now }
	sy, err := txsync.New(st, txsync.WithClock(clock))
	if err != nil {
		b.Fatal(err)
	}
	acct := accounts.Account{ResourceID: "enc!!bench", IBAN: "NO9386011117947", BBAN: "86011117947", Currency: "NOK"}
	linked, err := sy.Link(ctx, "merchant", []accounts.Account{acct}, nil)
	if err != nil {
		b.Fatal(err)
	}
	key := linked.Accounts[0].Key
	em, err := events.NewEmitter(events.Handler(func(context.Context, events.Envelope) error { return nil }),
		events.WithStore(st), events.WithClock(clock))
	if err != nil {
		b.Fatal(err)
	}
	r, err := New(st, WithClock(clock), WithEmitter(em))
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Watch(ctx, key, acct); err != nil {
		b.Fatal(err)
	}
	prices := []string{"149.00", "199.00", "249.00", "299.00", "399.00", "499.00", "990.00", "1250.00"}
	kidOf := func(i int) string { return strconv.Itoa(7000000000 + i) }
	for i := range benchOpen + 4 {
		created := now.Add(-time.Duration(benchOpen+4-i) * time.Minute)
		_, err := r.Track(ctx, Payment{RequestID: benchID(i), Created: created, Product: payments.ProductNorwegianDomestic,
			Amount: money.MustParse(prices[i%len(prices)], "NOK"), CreditorBBAN: acct.BBAN, KID: kidOf(i),
			ExecutionDate: today, Status: payments.StatusACTC, StatusAt: created})
		if err != nil {
			b.Fatal(err)
		}
	}
	entry := func(id string, d date.Date, amount, text string, pending bool) accounts.Transaction {
		t := accounts.Transaction{Status: accounts.BookingBooked, TransactionID: id, BookingDate: d, ValueDate: d,
			TransactionAmount: money.MustParse(amount, "NOK"), DebtorName: "Betaler " + id,
			DebtorAccount: &accounts.AccountReference{BBAN: "12345678903"}, RemittanceInformationUnstructured: text}
		if pending {
			t.Status, t.TransactionID, t.ValueDate = accounts.BookingPending, "", date.Date{}
		}
		return t
	}
	var window txsync.Read
	for i := range 4 * (txsync.DefaultOverlap + 1) {
		d := date.Of(today.Time(nil).AddDate(0, 0, -i/4))
		window.Booked = append(window.Booked, entry("w"+strconv.Itoa(i), d, prices[i%len(prices)], "Vipps "+strconv.Itoa(i), false))
	}
	for i := range 3 {
		window.Pending = append(window.Pending, entry("", today, "59.00", "Reservasjon "+strconv.Itoa(i), true))
	}
	// The window's credits were seen by earlier rounds.
	d, err := sy.Apply(ctx, key, window)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.Apply(ctx, d); err != nil {
		b.Fatal(err)
	}
	read := window
	read.Booked = append([]accounts.Transaction(nil), window.Booked...)
	for i := range 4 {
		n := benchOpen + i
		read.Booked = append(read.Booked, entry("new"+strconv.Itoa(i), today, prices[n%len(prices)], kidOf(n), false))
	}
	// Each iteration starts from these states, and this Reconciler's
	// cache of the account's state as it wrote it (a state another
	// replica wrote last is decoded: the "other" round); the events the
	// round emits are forgotten.
	snapshot := map[string][]byte{}
	for _, k := range []string{"txsync/state/" + string(key), accountPrefix + string(key)} {
		if snapshot[k], err = st.Get(ctx, k); err != nil {
			b.Fatal(err)
		}
	}
	cachedState := r.cache[key]
	if cachedState == nil {
		b.Fatal("no cached state")
	}
	reset := func(hit bool) {
		for k, v := range snapshot {
			_ = st.Put(ctx, k, v, 0)
		}
		for k, err := range st.Keys(ctx, "events/emitted/") {
			if err != nil {
				b.Fatal(err)
			}
			_ = st.Delete(ctx, k)
		}
		r.mu.Lock()
		if hit {
			r.cache[key] = cachedState
		} else {
			delete(r.cache, key)
		}
		r.mu.Unlock()
	}
	cpu := func() time.Duration {
		if d, ok := cpuclock.Process(); ok {
			return d
		}
		return time.Duration(time.Now().UnixNano())
	}
	round := func(hit bool) (sync, rec time.Duration) {
		reset(hit)
		t0 := cpu()
		d, err := sy.Apply(ctx, key, read)
		t1 := cpu()
		round, rerr := r.Apply(ctx, d)
		t2 := cpu()
		if err != nil || rerr != nil || len(round.Settled) != 4 {
			b.Fatal(err, rerr, round)
		}
		return t1 - t0, t2 - t1
	}
	var syncNew, recNew, syncOther, recOther, syncSame, recSame time.Duration
	var stateBytes int
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s1, r1 := round(false)
		s0, r0 := round(true)
		t2 := cpu()
		same, err2 := sy.Apply(ctx, key, read)
		t3 := cpu()
		empty, rerr2 := r.Apply(ctx, same)
		t4 := cpu()
		if err2 != nil || rerr2 != nil || !same.Empty() || !empty.Empty() {
			b.Fatal(err2, rerr2, same, empty)
		}
		syncNew, recNew, syncOther, recOther = syncNew+s0, recNew+r0, syncOther+s1, recOther+r1
		syncSame, recSame = syncSame+t3-t2, recSame+t4-t3
	}
	b.StopTimer()
	if v, err := st.Get(ctx, accountPrefix+string(key)); err == nil {
		stateBytes = len(v)
	}
	n := float64(b.N)
	b.ReportMetric(float64(syncNew)/n, "sync-ns/round")
	b.ReportMetric(float64(recNew)/n, "reconcile-ns/round")
	b.ReportMetric(float64(syncNew+recNew)/float64(syncNew), "round/sync")
	b.ReportMetric(float64(recOther)/n, "reconcile-ns/other")
	b.ReportMetric(float64(syncOther+recOther)/float64(syncOther), "other/sync")
	b.ReportMetric(float64(syncSame)/n, "sync-ns/same")
	b.ReportMetric(float64(recSame)/n, "reconcile-ns/same")
	b.ReportMetric(float64(syncSame+recSame)/float64(syncSame), "same/sync")
	b.ReportMetric(float64(stateBytes)/(benchOpen+4), "state-B/payment")
}

// openState is the state of benchOpen open KID payments.
func openState() *acctState {
	s := &acctState{since: 20000}
	for i := range benchOpen {
		s.pays = append(s.pays, pay{id: benchID(i), created: 1773650000 + int64(i),
			scheme: Domestic, amt: amt{units: 249, cur: "NOK"}, kid: strconv.Itoa(7000000000 + i), exec: 20560, accepted: 20530, deadline: 20561})
	}
	return s
}

// BenchmarkDecodeState and BenchmarkEncodeState measure the state of
// benchOpen open payments read and written, most of a round with new
// credits.
func BenchmarkDecodeState(b *testing.B) {
	enc := encodeState(openState())
	b.ReportAllocs()
	b.SetBytes(int64(len(enc)))
	for range b.N {
		if _, err := decodeState(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeState(b *testing.B) {
	s := openState()
	b.ReportAllocs()
	for range b.N {
		encodeState(s)
	}
}
