package txsync

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
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
		Party: v.Counterparty, Text: v.Text}
}

func (e *stored) date() date.Date {
	if !e.Booking.IsZero() {
		return e.Booking
	}
	return e.Value
}

func (e *stored) value() decimal.Decimal {
	d, err := decimal.NewFromString(e.Amount)
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
	return date.Of(newest.Time(time.UTC).AddDate(0, 0, -overlap))
}
