package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/psd2/date"
)

// Seed data in JSON (the control API's seed and add-transaction): the
// dates of a transaction (and a consent's time) in the interface's own
// form, an ISO date "YYYY-MM-DD", as the bank's documents and the
// mock-data operations write them, or, as before, an RFC 3339 time; a
// date of another form is refused naming its field.

// UnmarshalJSON reads a transaction from JSON, its keys the names of its
// fields (without regard to case). BookingDate and ValueDate are a date
// "YYYY-MM-DD" (midnight UTC) or an RFC 3339 time (whose own year, month
// and day count); null or "" leaves one zero. A key that is no field, or
// a date of another form, is refused, the error naming the field.
func (t *SeedTransaction) UnmarshalJSON(b []byte) error {
	type fields SeedTransaction // without this method
	v := struct {
		*fields
		BookingDate, ValueDate json.RawMessage
	}{fields: (*fields)(t)}
	if err := decodeStrict(b, &v, "SeedTransaction"); err != nil {
		return err
	}
	return seedDates(
		seedDate{"bookingDate", v.BookingDate, &t.BookingDate},
		seedDate{"valueDate", v.ValueDate, &t.ValueDate})
}

// UnmarshalJSON reads a card transaction from JSON as
// [SeedTransaction.UnmarshalJSON] reads a transaction: TransactionDate
// and BookingDate are a date "YYYY-MM-DD" or an RFC 3339 time.
func (t *SeedCardTransaction) UnmarshalJSON(b []byte) error {
	type fields SeedCardTransaction // without this method
	v := struct {
		*fields
		TransactionDate, BookingDate json.RawMessage
	}{fields: (*fields)(t)}
	if err := decodeStrict(b, &v, "SeedCardTransaction"); err != nil {
		return err
	}
	return seedDates(
		seedDate{"transactionDate", v.TransactionDate, &t.TransactionDate},
		seedDate{"bookingDate", v.BookingDate, &t.BookingDate})
}

// UnmarshalJSON reads a consent from JSON as
// [SeedTransaction.UnmarshalJSON] reads a transaction: At is an RFC 3339
// time or a date "YYYY-MM-DD" (midnight UTC).
func (c *SeedConsent) UnmarshalJSON(b []byte) error {
	type fields SeedConsent // without this method
	v := struct {
		*fields
		At json.RawMessage
	}{fields: (*fields)(c)}
	if err := decodeStrict(b, &v, "SeedConsent"); err != nil {
		return err
	}
	return seedDates(seedDate{"at", v.At, &c.At})
}

// decodeStrict decodes the JSON value b into v, the fields of the type
// named typ embedded as "fields", refusing a key that is no field of v
// (a custom UnmarshalJSON does not inherit the caller's
// DisallowUnknownFields). A value of the wrong type is named as a field
// of typ.
func decodeStrict(b []byte, v any, typ string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) {
			te.Struct, te.Field = typ, strings.TrimPrefix(te.Field, "fields.")
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more than one JSON value")
	}
	return nil
}

// seedDate is one date field of seed data in JSON: its key, its value as
// given (nil: absent) and where it goes.
type seedDate struct {
	key string
	raw json.RawMessage
	to  *time.Time
}

// seedDates reads each date given, naming the first one refused.
func seedDates(ds ...seedDate) error {
	for _, d := range ds {
		if d.raw == nil {
			continue
		}
		t, err := parseSeedDate(d.raw)
		if err != nil {
			return fmt.Errorf("%s: %w", d.key, err)
		}
		if t != nil {
			*d.to = *t
		}
	}
	return nil
}

// parseSeedDate reads a date of seed data: "YYYY-MM-DD" (midnight UTC),
// an RFC 3339 time, or null or "" (nil: nothing given).
func parseSeedDate(raw json.RawMessage) (*time.Time, error) {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, errors.New(`want a date "YYYY-MM-DD" (or an RFC 3339 time) in a string`)
	}
	if s == "" {
		return nil, nil
	}
	if len(s) == len(time.DateOnly) {
		if d, err := date.Parse(s); err == nil {
			t := d.Time(time.UTC)
			return &t, nil
		}
	} else if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return &t, nil
	}
	return nil, fmt.Errorf("%s is not a date YYYY-MM-DD (or an RFC 3339 time)", strconv.Quote(clip(s)))
}

// UnmarshalJSON reads a settlement from JSON, its keys the names of its
// fields (without regard to case), as [SeedTransaction.UnmarshalJSON]
// reads a transaction: a key that is no field is refused, in Fee too,
// whose keys are amount and currency ({"fee":{"amount":"5.00",
// "curency":"EUR"}} was taken, the misspelt key dropped without a word,
// since money.Amount reads a bank's documents leniently).
func (s *Settlement) UnmarshalJSON(b []byte) error {
	type fields Settlement // without this method
	v := struct {
		*fields
		Fee json.RawMessage `json:"fee"` // the tag of Settlement.Fee: this one is read
	}{fields: (*fields)(s)}
	if err := decodeStrict(b, &v, "Settlement"); err != nil {
		return err
	}
	if v.Fee == nil {
		return nil
	}
	var keys map[string]json.RawMessage // any other value: Fee reads it (and Validate refuses it)
	if json.Unmarshal(v.Fee, &keys) == nil {
		for k := range keys {
			if !strings.EqualFold(k, "amount") && !strings.EqualFold(k, "currency") {
				return &fieldError{path: "fee", msg: strconv.Quote(clip(k)) + " is no key of a fee (amount, currency)"}
			}
		}
	}
	return s.Fee.UnmarshalJSON(v.Fee)
}

// fieldError is a refusal of a value inside a JSON argument, path naming
// it from the argument (fee: settlement.fee in the control API).
type fieldError struct{ path, msg string }

func (e *fieldError) Error() string { return e.path + ": " + e.msg }
