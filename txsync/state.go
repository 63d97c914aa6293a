package txsync

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/store"
)

// state is what the sync keeps of an account between reads: the newest
// booked date seen and the entries of the overlap window and the pending
// list, each with its key. It is stored in the binary form of codec.go
// under "txsync/state/<account key>".
type state struct {
	// Newest is the newest booking date seen; zero before the first read.
	Newest date.Date
	// Seq is the last entry number handed out.
	Seq uint64
	// Reads counts the reads applied.
	Reads   uint64
	Entries []stored
}

// stored is one tracked entry.
type stored struct {
	Seq     uint64
	Occ     int
	FP      uint64
	Core    uint64
	Pending bool
	ID      string
	Booking date.Date
	Value   date.Date
	Amount  string
	Cur     string
	Party   string
	Text    string
	// Txn is a card entry's transaction (purchase) date, Orig and
	// OrigCur its original amount (in the merchant's currency), when the
	// bank sent them; zero for an account's entry.
	Txn           date.Date
	Orig, OrigCur string
}

// maxStateBytes bounds the encoded state of an account: the store holds
// at most store.MaxValueLen (1 MiB) under a key, and a state past it
// could not be written, every read of the account failing. New entries
// take places only while the state stays within it (an eighth of the
// store's bound is left for the tracked entries' facts to grow).
const maxStateBytes = store.MaxValueLen / 8 * 7

// size is about the bytes encodeState writes for the entry: its texts
// and at most 48 for the rest.
func (e *stored) size() int {
	return 48 + len(e.ID) + len(e.Amount) + len(e.Cur) + len(e.Party) + len(e.Text) + len(e.Orig) + len(e.OrigCur)
}

// sizeOf is the bytes of the entries es.
func sizeOf(es []stored) int {
	n := 0
	for i := range es {
		n += es[i].size()
	}
	return n
}

// version is the Version the entry was stored with.
func (e *stored) version() Version {
	st := accounts.BookingBooked
	if e.Pending {
		st = accounts.BookingPending
	}
	return Version{Status: st, TransactionID: e.ID, BookingDate: e.Booking, ValueDate: e.Value,
		Amount: e.Amount, Currency: e.Cur, Counterparty: e.Party, Text: e.Text}
}

// storedOf is the entry to keep for it under number seq.
func storedOf(seq uint64, it *item) stored {
	v := &it.v
	return stored{Seq: seq, Occ: it.occ, FP: it.fp, Core: it.core, Pending: v.Status == accounts.BookingPending,
		ID: v.TransactionID, Booking: v.BookingDate, Value: v.ValueDate, Amount: v.Amount, Cur: v.Currency,
		Party: v.Counterparty, Text: v.Text, Txn: it.txn, Orig: it.orig, OrigCur: it.origCur}
}

func (e *stored) date() date.Date {
	if !e.Booking.IsZero() {
		return e.Booking
	}
	return e.Value
}

// amounts are the entry's amounts matching compares: its amount and, for
// a card entry, its original amount.
func (e *stored) amounts() []amount {
	out := make([]amount, 0, 2)
	if e.Cur != "" {
		out = append(out, amount{value: parseAmount(e.Amount), cur: e.Cur})
	}
	if e.OrigCur != "" {
		out = append(out, amount{value: parseAmount(e.Orig), cur: e.OrigCur})
	}
	return out
}

func parseAmount(s string) decimal.Decimal {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero
	}
	return d
}

// keyOf is the key of entry number seq of account a.
func keyOf(a AccountKey, seq uint64) Key {
	return Key(string(a) + "-" + strconv.FormatUint(seq, 36))
}

// windowStart is the first booking date of the overlap window when the
// newest booked date seen is newest.
func windowStart(newest date.Date, overlap int) date.Date {
	if newest.IsZero() {
		return newest
	}
	return addDays(newest, -overlap)
}

// addDays is d moved by n days (the zero date stays zero).
func addDays(d date.Date, n int) date.Date {
	if d.IsZero() {
		return d
	}
	return date.Of(d.Time(time.UTC).AddDate(0, 0, n))
}

// newestBound is the latest date the newest booked date may take when
// the bank's date is today: today plus [FutureDays] (zero: no bound).
func newestBound(today date.Date) date.Date { return addDays(today, FutureDays) }

// bounded is newest, no later than bound (when set).
func bounded(newest, bound date.Date) date.Date {
	if !bound.IsZero() && bound.Before(newest) {
		return bound
	}
	return newest
}
