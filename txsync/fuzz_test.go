package txsync_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/txsync"
)

// FuzzApply feeds reads of arbitrary entries (ids, dates, amounts, texts,
// statuses) to one account, with a small limit of entries and a clock
// amid the dates (some are booked in the future): no input panics, every
// read's lists are consistent with the ledger they update (an added key is
// new, a changed or removed key is known), and the same read applied again
// reports nothing.
func FuzzApply(f *testing.F) {
	f.Add([]byte("\x01\x02\x03abc\x00\x10\x80\xff"), "1", "-49.00", "Kaffe")
	f.Add([]byte{0, 0, 0, 0, 1, 1, 1, 1, 2, 2}, "", "0", "")
	f.Add([]byte("0123456789:;<=>?\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1cabcdefghijklmnopqrstuvwxyz"), "7", "-10.00", "Rema")
	f.Fuzz(func(t *testing.T, seed []byte, id, amount, text string) {
		clock := &frozen{now: time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)}
		s, k := linked(t, txsync.WithMaxEntries(16), txsync.WithClock(clock.Now))
		ledger := map[txsync.Key]bool{}
		v, err := decimal.NewFromString(amount)
		if err != nil {
			v = decimal.NewFromInt(1)
		}
		for round := range 4 {
			var r txsync.Read
			for i, b := range seed {
				if (i+round)%3 == 0 {
					continue
				}
				tr := accounts.Transaction{Status: accounts.BookingBooked, TransactionID: id + string(rune('a'+b%4)),
					BookingDate:       date.Date{Year: 2026, Month: 3, Day: 1 + int(b%28)},
					TransactionAmount: money.Amount{Value: v.Add(decimal.NewFromInt(int64(b % 3))), Currency: "NOK"},
					CreditorName:      text, RemittanceInformationUnstructured: text[:min(len(text), int(b%8))]}
				if b&0x40 != 0 {
					tr.Status, tr.TransactionID = accounts.BookingPending, ""
					r.Pending = append(r.Pending, tr)
				} else {
					r.Booked = append(r.Booked, tr)
				}
			}
			if round > 0 {
				r.From, _ = s.From(t.Context(), k)
			}
			d, err := s.Apply(t.Context(), k, r)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range d.Added {
				if ledger[e.Key] {
					t.Fatalf("key %s added twice", e.Key)
				}
				ledger[e.Key] = true
			}
			for _, c := range d.Changed {
				if !ledger[c.Key] {
					t.Fatalf("unknown key %s changed", c.Key)
				}
			}
			for _, x := range d.Removed {
				if !ledger[x.Key] {
					t.Fatalf("unknown key %s removed", x.Key)
				}
				delete(ledger, x.Key)
			}
			again, err := s.Apply(t.Context(), k, r)
			if err != nil {
				t.Fatal(err)
			}
			if !again.Empty() {
				t.Fatalf("round %d read again: %v", round, again)
			}
		}
	})
}
