package syncscript

import (
	"context"
	"slices"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
)

// Cursor is the "new booked" cursor a TPP keeps without txsync: the
// newest booking date seen, and the ids of the booked entries seen in the
// lookbackDays before it. Package refresh kept it until txsync became the
// one judge of what is new; the month keeps it to score what a TPP that
// trusts the bank's ids records.
type Cursor struct {
	// Date is the booking date of the newest booked transaction seen.
	Date date.Date
	// From is the first booking date Seen covers.
	From date.Date
	// Seen are the ids of the booked transactions seen from From to Date.
	Seen []string
}

// lookbackDays is how many days before the cursor's Date a read asks for
// again: a bank books some entries under an earlier business day.
const lookbackDays = 5

// historyDays is how far back a read without the PSU reaches.
const historyDays = 89

// windowStart is the first booking date of the window of a cursor whose
// newest date is d.
func windowStart(d date.Date) date.Date {
	if d.IsZero() {
		return d
	}
	return date.Of(d.Time(time.UTC).AddDate(0, 0, -lookbackDays))
}

// ReadNew reads the transactions of account id from the cursor's window
// on (through the accounts iterator, without the PSU: ro), and returns
// the booked entries the cursor has not seen, the whole pending list and
// the cursor after the read.
func ReadNew(ctx context.Context, svc *accounts.Service, id string, c Cursor, now time.Time, ro ...client.RequestOption) (booked, pending []accounts.Transaction, next Cursor, err error) {
	q := &accounts.TransactionQuery{BookingStatus: accounts.BookingBoth, DateFrom: windowStart(c.Date)}
	if floor := date.Of(now.UTC().AddDate(0, 0, -historyDays)); !q.DateFrom.IsZero() && q.DateFrom.Before(floor) {
		q.DateFrom = floor
	}
	var read []accounts.Transaction
	for tr, err := range svc.TransactionsIter(ctx, id, q, ro...) {
		if err != nil {
			return nil, nil, c, err
		}
		switch tr.Status {
		case accounts.BookingPending:
			pending = append(pending, *tr)
		case accounts.BookingBooked:
			read = append(read, *tr)
		}
	}
	dates, ids := make([]date.Date, len(read)), make([]string, len(read))
	for i := range read {
		dates[i], ids[i] = read[i].BookingDate, read[i].TransactionID
		if c.isNew(dates[i], ids[i]) {
			booked = append(booked, read[i])
		}
	}
	return booked, pending, c.advance(dates, ids, q.DateFrom), nil
}

// advance returns the cursor after the booked entries (date, id) read
// from queried on. The new window starts lookbackDays before the newest
// date, but not before what the read covered.
func (c Cursor) advance(dates []date.Date, ids []string, queried date.Date) Cursor {
	if len(dates) == 0 {
		c.Seen = slices.Clone(c.Seen)
		return c
	}
	next := Cursor{Date: c.Date}
	for _, d := range dates {
		if next.Date.Before(d) {
			next.Date = d
		}
	}
	next.From = windowStart(next.Date)
	covered := queried
	for _, d := range dates {
		if !covered.IsZero() && !d.IsZero() && d.Before(covered) {
			covered = d
		}
	}
	if next.From.Before(covered) {
		next.From = covered
	}
	for i, d := range dates {
		if !d.IsZero() && !d.Before(next.From) && ids[i] != "" && !slices.Contains(next.Seen, ids[i]) {
			next.Seen = append(next.Seen, ids[i])
		}
	}
	return next
}

// isNew reports whether the booked entry (date, id) is one the cursor has
// not seen.
func (c Cursor) isNew(d date.Date, id string) bool {
	switch {
	case c.Date.IsZero() || d.IsZero():
		return true
	case id == "":
		return !d.Before(c.Date)
	case d.Before(c.From):
		return false
	}
	return !slices.Contains(c.Seen, id)
}
