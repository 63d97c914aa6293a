package txsync_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/txsync"
)

// windowPage is the answer of a round's read of a busy account: the
// overlap window's booked entries (4 a day over DefaultOverlap+1 days, a
// pair of twins among them) and 3 pending entries, as the bank's JSON.
func windowPage(b *testing.B) []byte {
	b.Helper()
	var p accounts.TransactionsPage
	for i := range 4 * (txsync.DefaultOverlap + 1) {
		d := "2026-03-" + strconv.Itoa(10+i/4)
		p.Booked = append(p.Booked, booked(b, strconv.Itoa(1000000+i), d, "-"+strconv.Itoa(10+i)+".00", "Butikk "+strconv.Itoa(i%5), "Kjøp "+strconv.Itoa(i)))
	}
	p.Booked = append(p.Booked, booked(b, "9000001", "2026-03-15", "-49.00", "Kaffebar", "Kaffe"), booked(b, "9000002", "2026-03-15", "-49.00", "Kaffebar", "Kaffe"))
	for i := range 3 {
		p.Pending = append(p.Pending, pending(b, "2026-03-16", "-"+strconv.Itoa(70+i)+".50", "Rema", "Rema "+strconv.Itoa(i)))
	}
	raw, err := json.Marshal(p)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// BenchmarkRound measures, in one run, the CPU of a round of one account
// with the sync (decoding the page and applying it to the state in a
// memory store) against a plain page read (decoding the page), and the
// state's bytes. The bank's round trip, the same for both, is left out.
func BenchmarkRound(b *testing.B) {
	raw := windowPage(b)
	s, k := linked(b)
	ctx := context.Background()
	decode := func() *accounts.TransactionsPage {
		var p accounts.TransactionsPage
		if err := json.Unmarshal(raw, &p); err != nil {
			b.Fatal(err)
		}
		return &p
	}
	p := decode()
	if _, err := s.Apply(ctx, k, txsync.Read{Booked: p.Booked, Pending: p.Pending}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	// Interleaved, so that both see the same load of a shared machine.
	var read, round time.Duration
	for range b.N {
		t0 := time.Now()
		decode()
		t1 := time.Now()
		p := decode()
		d, err := s.Apply(ctx, k, txsync.Read{Booked: p.Booked, Pending: p.Pending})
		if err != nil || !d.Empty() {
			b.Fatal(err, d)
		}
		read, round = read+t1.Sub(t0), round+time.Since(t1)
	}
	b.StopTimer()
	n, err := s.StateSize(ctx, k)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(read.Nanoseconds())/float64(b.N), "read-ns/op")
	b.ReportMetric(float64(round.Nanoseconds())/float64(b.N), "sync-ns/op")
	b.ReportMetric(float64(round)/float64(read), "sync/read")
	b.ReportMetric(float64(n), "state-B/account")
	b.ReportMetric(float64(n)/float64(len(p.Booked)+len(p.Pending)), "state-B/entry")
}
