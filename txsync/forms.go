package txsync

import (
	"fmt"
	"log/slog"
	"strconv"

	"github.com/tppkit/psd2/internal/redact"
)

// The printed and log/slog forms of the package's types show keys,
// statuses, dates, amounts and counts; transaction ids, counterparties
// and texts only as [redacted] (they identify people and their
// payments), as the accounts package prints a Transaction.

func (v Version) form() *redact.Form {
	return redact.New("txsync.Version").Str("status", string(v.Status)).Secret("transactionId", v.TransactionID).
		Value("bookingDate", v.BookingDate).Value("valueDate", v.ValueDate).
		Str("amount", v.Amount).Str("currency", v.Currency).
		Secret("counterparty", v.Counterparty).Secret("text", v.Text)
}

// String shows the version with its id, counterparty and text redacted.
func (v Version) String() string { return v.form().String() }

// GoString is String, for %#v.
func (v Version) GoString() string { return v.String() }

// Format prints String for every verb.
func (v Version) Format(s fmt.State, verb rune) { redact.Write(s, verb, v.String()) }

// LogValue is the slog form of String.
func (v Version) LogValue() slog.Value { return v.form().LogValue() }

func (e Entry) form() *redact.Form {
	f := redact.New("txsync.Entry").Str("key", string(e.Key)).Int("occurrence", e.Occurrence)
	if e.Transaction != nil {
		f.Str("status", string(e.Transaction.Status)).Value("bookingDate", e.Transaction.BookingDate).
			Value("amount", e.Transaction.TransactionAmount)
	}
	if e.Card != nil {
		f.Str("status", string(e.Card.Status)).Value("transactionDate", e.Card.TransactionDate).
			Value("amount", e.Card.TransactionAmount)
	}
	return f
}

// String shows the entry's key, status, date and amount.
func (e Entry) String() string { return e.form().String() }

// GoString is String, for %#v.
func (e Entry) GoString() string { return e.String() }

// Format prints String for every verb.
func (e Entry) Format(s fmt.State, verb rune) { redact.Write(s, verb, e.String()) }

// LogValue is the slog form of String.
func (e Entry) LogValue() slog.Value { return e.form().LogValue() }

func (c Change) form() *redact.Form {
	return redact.New("txsync.Change").Nested("entry", c.Entry.form()).Str("what", c.What.String()).
		Nested("previous", c.Previous.form())
}

// String shows the change as Entry and Version print.
func (c Change) String() string { return c.form().String() }

// GoString is String, for %#v.
func (c Change) GoString() string { return c.String() }

// Format prints String for every verb.
func (c Change) Format(s fmt.State, verb rune) { redact.Write(s, verb, c.String()) }

// LogValue is the slog form of String.
func (c Change) LogValue() slog.Value { return c.form().LogValue() }

func (r Removal) form() *redact.Form {
	return redact.New("txsync.Removal").Str("key", string(r.Key)).Str("reason", r.Reason.String()).
		Nested("previous", r.Previous.form())
}

// String shows the removal as Version prints.
func (r Removal) String() string { return r.form().String() }

// GoString is String, for %#v.
func (r Removal) GoString() string { return r.String() }

// Format prints String for every verb.
func (r Removal) Format(s fmt.State, verb rune) { redact.Write(s, verb, r.String()) }

// LogValue is the slog form of String.
func (r Removal) LogValue() slog.Value { return r.form().LogValue() }

// GoString is String, for %#v.
func (d *Delta) GoString() string { return d.String() }

// Format prints String for every verb.
func (d *Delta) Format(s fmt.State, verb rune) { redact.Write(s, verb, d.String()) }

// LogValue is the slog form of String: the counts.
func (d *Delta) LogValue() slog.Value {
	if d == nil {
		return slog.StringValue("nil")
	}
	return slog.GroupValue(slog.Int("added", len(d.Added)), slog.Int("changed", len(d.Changed)),
		slog.Int("removed", len(d.Removed)), slog.String("first", strconv.FormatBool(d.First)),
		slog.Int("overflow", d.Overflow), slog.Int("anomalies", len(d.Anomalies)))
}
