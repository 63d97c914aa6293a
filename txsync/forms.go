package txsync

import (
	"log/slog"
	"strconv"

	"github.com/tppkit/psd2/internal/redact"
)

//go:generate go run ../internal/redact/gen

// The printed and log/slog forms of the package's types show keys,
// statuses, dates, amounts and counts; transaction ids, counterparties
// and texts only as [redacted] (they identify people and their
// payments), as the accounts package prints a Transaction; an amount or
// a currency that does not read as one shows as [redacted] or OTHER, as
// there. Their String, GoString, Format (every fmt verb) and LogValue are
// generated from the form methods below into print_gen.go.

// String shows the version with its id, counterparty and text redacted.
func (v Version) form() *redact.Form {
	return redact.New("txsync.Version").Str("status", string(v.Status)).Secret("transactionId", v.TransactionID).
		Value("bookingDate", v.BookingDate).Value("valueDate", v.ValueDate).
		Str("amount", amountText(v.Amount)).Str("currency", redact.Currency(v.Currency)).
		Secret("counterparty", v.Counterparty).Secret("text", v.Text)
}

// amountText is a version's amount as its forms show it: the text when
// it reads as a decimal number, as every readable amount's does, and
// [redact.Redacted] otherwise. The text of an unreadable amount is
// whatever the bank put in the amount member, a name or an account
// number included.
func amountText(s string) string {
	digits := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == '.', i == 0 && (c == '-' || c == '+'):
		default:
			return redact.Redacted
		}
	}
	if s != "" && digits == 0 {
		return redact.Redacted
	}
	return s
}

// String shows the entry's key, status, date and amount.
func (e Entry) form() *redact.Form {
	f := redact.New("txsync.Entry").Str("key", string(e.Key)).Int("occurrence", e.Occurrence)
	if e.Transaction != nil {
		f.Str("status", string(e.Transaction.Status)).Value("bookingDate", e.Transaction.BookingDate).
			Amount("amount", e.Transaction.TransactionAmount)
	}
	if e.Card != nil {
		f.Str("status", string(e.Card.Status)).Value("transactionDate", e.Card.TransactionDate).
			Amount("amount", e.Card.TransactionAmount)
	}
	return f
}

// String shows the change as Entry and Version print.
func (c Change) form() *redact.Form {
	return redact.New("txsync.Change").Nested("entry", c.Entry.form()).Str("what", c.What.String()).
		Nested("previous", c.Previous.form())
}

// String shows the removal as Version prints.
func (r Removal) form() *redact.Form {
	return redact.New("txsync.Removal").Str("key", string(r.Key)).Str("reason", r.Reason.String()).
		Nested("previous", r.Previous.form())
}

// String gives the counts only (no transaction facts); overflow and
// anomalies when there are any. Its log form has every count, and
// whether the read was the first.
func (d *Delta) form() *redact.Form {
	if d == nil {
		return redact.Nil("txsync.Delta")
	}
	f := redact.New("txsync.Delta").Field("added", strconv.Itoa(len(d.Added)), slog.IntValue(len(d.Added))).
		Field("changed", strconv.Itoa(len(d.Changed)), slog.IntValue(len(d.Changed))).
		Field("removed", strconv.Itoa(len(d.Removed)), slog.IntValue(len(d.Removed))).
		Attr(slog.String("first", strconv.FormatBool(d.First))).
		Attr(slog.Int("overflow", d.Overflow)).Attr(slog.Int("anomalies", len(d.Anomalies)))
	if d.Overflow > 0 {
		f.Text("overflow", strconv.Itoa(d.Overflow))
	}
	if len(d.Anomalies) > 0 {
		f.Text("anomalies", strconv.Itoa(len(d.Anomalies)))
	}
	return f
}

// String shows the anomaly: its key, kind and date (no transaction
// facts).
func (a Anomaly) form() *redact.Form {
	return redact.New("txsync.Anomaly").Field("key", string(a.Key), slog.StringValue(string(a.Key))).
		Field("kind", a.Kind.String(), slog.StringValue(a.Kind.String())).
		Field("date", a.Date.String(), slog.StringValue(a.Date.String()))
}

// linkedAccountView is the JSON form of a LinkedAccount.
type linkedAccountView struct {
	ResourceID string `json:",omitempty"`
	Card       bool
	Key        AccountKey
	New        bool
}

// MarshalJSON writes the account under its Go field names with its
// resource id [redacted], so that a [Linked] logged with slog's JSON
// handler or marshalled leaks no account id.
func (a LinkedAccount) view() linkedAccountView {
	v := linkedAccountView{Card: a.Card, Key: a.Key, New: a.New}
	if a.ResourceID != "" {
		v.ResourceID = redact.Redacted
	}
	return v
}

// String shows the key and whether the account is new, not its resource
// id (personal data).
func (a LinkedAccount) form() *redact.Form {
	return redact.New("txsync.LinkedAccount").Field("key", string(a.Key), slog.StringValue(string(a.Key))).
		Field("card", strconv.FormatBool(a.Card), slog.BoolValue(a.Card)).
		Field("new", strconv.FormatBool(a.New), slog.BoolValue(a.New))
}
