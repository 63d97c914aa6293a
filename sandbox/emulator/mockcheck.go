package emulator

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// The input checks of mock data, one set for both doors (Controls.Seed and
// the mock-data operations, see mockbuild.go). A check finds a problem;
// it does not word it. The builders report a problem as a badInput with
// the field named as the door names it, and each door renders it in its
// own form: Seed as a SeedError (path and reason), the operations as a
// 400 FORMAT_ERROR answer with the field's path.
//
// The set is what the mock-data operations have always checked, and the
// bound of every text they keep: the interface shows no field rules for
// mock data (docs/interface.md sections 4.5 and 10) beyond the body
// shapes, its lengths (section 8) and the refusal of a mock transaction
// with another account as debtor, and the emulator refuses only what the
// bank refuses and texts past maxFreeText, kept for the server's life.
// The few rules beyond the shapes are the emulator's own readings, kept
// as they were: the customer number and type, text lengths (1 to 70 for
// names, 0 to 140 for remittance and details, 1 to 35 for a masked PAN,
// 30 for a bban and 34 for an iban of the other party, maxFreeText for
// the texts the interface gives no length for), ISO 4217 currencies,
// amounts in the currency's minor units, a non-zero amount in the
// account's currency on an account transaction, dates YYYY-MM-DD and
// MOD-11 BBANs. The
// characters the bank cannot process (docs/interface.md section 1.6) are
// refused over HTTP by the request rules before an operation runs; the
// text check refuses them too, for the doors that bypass the request
// rules (Seed, the scenario controls). The one refusal Seed keeps beyond
// this set is in seed.go (seedOnlyLimit).

// maxFreeText bounds, in characters, every text of mock data the
// interface gives no length for: an account's product and cash account
// type, a card account's product, a transaction's code, an agreement's
// roles. It is past the longest text the bank takes (a remittance's
// 140), so that no text the emulator keeps for the server's life can be
// megabytes of a request's body. The control API bounds every text of
// its arguments by the same (maxControlText).
const maxFreeText = 256

// problemKind is what a check found wrong with a value.
type problemKind uint8

const (
	noProblem       problemKind = iota
	textShort                   // fewer characters than allowed
	textLong                    // more characters than allowed
	textNotUTF8                 // not valid UTF-8
	textRefused                 // holds a character the bank cannot process (rules.Index)
	valueMissing                // a required value is absent
	amountInvalid               // not a decimal in the currency's minor units
	amountZero                  // absent or zero where an amount must move money
	currencyInvalid             // not an ISO 4217 code
	currencyOther               // not the currency of the account it is booked on
	dateInvalid                 // not a date YYYY-MM-DD (mock-data operations only: Seed takes time.Time)
	bbanInvalid                 // not 11 digits with a valid MOD-11 check digit
	numberInvalid               // not a customer number of 11 or 9 digits
	customerTypeBad             // neither PRIVATE nor CORPORATE
	debtorOther                 // a debtor account other than the account itself
)

// inputProblem is one check's verdict on a value: its zero value means the
// value passes. min and max are a text's bounds, currency an amount's.
type inputProblem struct {
	kind     problemKind
	min, max int
	currency string
}

// ok reports whether the value passed.
func (p inputProblem) ok() bool { return p.kind == noProblem }

// checkText checks a text's length in characters and that the bank can
// store it: valid UTF-8, no character rules.Index refuses.
func checkText(v string, minLen, maxLen int) inputProblem {
	n := utf8.RuneCountInString(v)
	switch {
	case n < minLen:
		return inputProblem{kind: textShort, min: minLen, max: maxLen}
	case n > maxLen:
		return inputProblem{kind: textLong, min: minLen, max: maxLen}
	case !utf8.ValidString(v):
		return inputProblem{kind: textNotUTF8}
	case rules.Index(v) >= 0:
		return inputProblem{kind: textRefused}
	}
	return inputProblem{}
}

// checkCurrency checks an ISO 4217 code.
func checkCurrency(v string) inputProblem {
	if !money.IsCurrency(v) {
		return inputProblem{kind: currencyInvalid}
	}
	return inputProblem{}
}

// inputCheck holds what the checks of one door's call need: today, the
// date of dates left out (the Europe/Oslo date of the server clock), and
// a cache of parsed amounts (a seed repeats its amounts; nil: none).
type inputCheck struct {
	today   time.Time
	amounts map[amountKey]decimal.Decimal
}

// amountKey is a cached amount: its text and currency.
type amountKey struct{ value, currency string }

// newInputCheck is the checker of a call at now; cache keeps parsed
// amounts for the call's lifetime.
func newInputCheck(now time.Time, cache bool) *inputCheck {
	c := &inputCheck{today: rules.Today(now)}
	if cache {
		c.amounts = map[amountKey]decimal.Decimal{}
	}
	return c
}

// amount parses the decimal text v in currency cur; empty is 0. An
// amount that moves money (moves true) must not be 0, given or not.
func (c *inputCheck) amount(v, cur string, moves bool) (decimal.Decimal, inputProblem) {
	if v == "" {
		if moves {
			return decimal.Decimal{}, inputProblem{kind: amountZero}
		}
		return decimal.Zero, inputProblem{}
	}
	k := amountKey{v, cur}
	d, ok := c.amounts[k]
	if !ok {
		a, err := money.Parse(v, cur)
		if err != nil {
			return decimal.Decimal{}, inputProblem{kind: amountInvalid, currency: cur}
		}
		d = a.Value
		if c.amounts != nil {
			c.amounts[k] = d
		}
	}
	if moves && d.IsZero() {
		return decimal.Decimal{}, inputProblem{kind: amountZero}
	}
	return d, inputProblem{}
}

// day is the date of t (its own year, month and day) as the emulator
// keeps dates; zero is today.
func (c *inputCheck) day(t time.Time) time.Time {
	if t.IsZero() {
		return c.today
	}
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// dayIn is a date as a door gives it: Seed and the scenario controls a
// time (only its year, month and day count), the mock-data operations a
// text YYYY-MM-DD. Neither given: the builder's default.
type dayIn struct {
	at   time.Time
	text string
}

// dayOr is the date d gives, def when it gives none.
func (c *inputCheck) dayOr(d dayIn, def time.Time) (time.Time, inputProblem) {
	switch {
	case d.text != "":
		t, err := time.Parse(time.DateOnly, d.text)
		if err != nil {
			return time.Time{}, inputProblem{kind: dateInvalid}
		}
		return t, inputProblem{}
	case !d.at.IsZero():
		return c.day(d.at), inputProblem{}
	}
	return def, inputProblem{}
}

// badInput is a refusal by a builder: the field, named as the door names
// it (see the *Names tables of mockbuild.go), and its problem.
type badInput struct {
	field string
	inputProblem
}

// refuse is the refusal of field for p, nil when p passed.
func refuse(field string, p inputProblem) *badInput {
	if p.ok() {
		return nil
	}
	return &badInput{field: field, inputProblem: p}
}

// seedReason words p for a SeedError.
func (p inputProblem) seedReason() string {
	switch p.kind {
	case textShort, textLong:
		return "must be " + strconv.Itoa(p.min) + " to " + strconv.Itoa(p.max) + " characters"
	case textNotUTF8:
		return "is not valid UTF-8"
	case textRefused:
		return "holds a character the bank cannot process"
	case valueMissing:
		return "is required"
	case amountInvalid:
		return "is not a valid amount in " + p.currency
	case amountZero:
		return "must be given and not zero"
	case currencyInvalid:
		return "must be an ISO 4217 code"
	case currencyOther:
		return "must be the account's currency (" + p.currency + ")"
	case dateInvalid:
		return "must be a date YYYY-MM-DD"
	case bbanInvalid:
		return "must be 11 digits with a valid MOD-11 check digit"
	case numberInvalid:
		return "must be 11 digits (national identity number) or 9 digits (organisation number)"
	case customerTypeBad:
		return "must be PRIVATE or CORPORATE"
	case debtorOther:
		return "must be the account itself: a mock transaction cannot have another account as debtor"
	}
	return "is not valid"
}

// seedError renders b for Controls.Seed; prefix is the path of the object
// the field belongs to ("Customers[1].Accounts[0]"), empty for none.
func (b *badInput) seedError(prefix string) *SeedError {
	if prefix == "" {
		return &SeedError{Path: b.field, Reason: b.seedReason()}
	}
	return &SeedError{Path: prefix + "." + b.field, Reason: b.seedReason()}
}

// answer words p for the mock-data operations: a 400 FORMAT_ERROR whose
// tppMessage names path.
func (p inputProblem) answer(path string) *apiError {
	name := path[strings.LastIndexByte(path, '.')+1:] // the field without its object's path
	switch p.kind {
	case textShort:
		return errFormat(path, "%s must not be empty.", path)
	case textLong:
		return errFormat(path, "%s is longer than %d characters.", path, p.max)
	case textNotUTF8:
		return errFormat(path, "%s is not valid UTF-8.", path)
	case textRefused:
		return errFormat(path, "%s holds a character the bank cannot process.", path)
	case valueMissing:
		return errFormat(path, "%s is required.", name)
	case amountInvalid:
		return errFormat(path, "%s is not a valid amount in %s.", path, clip(p.currency))
	case amountZero:
		return errFormat(path, "The amount must not be zero.")
	case currencyInvalid:
		return errFormat(path, "%s must be an ISO 4217 code.", name)
	case currencyOther:
		return errFormat(path, "The currency must be the account's (%s).", p.currency)
	case dateInvalid:
		return errFormat(path, "%s must be a date YYYY-MM-DD.", name)
	case bbanInvalid:
		return errFormat(path, "%s must be 11 digits with a valid MOD11 check digit.", name)
	case numberInvalid:
		return errFormat(path, "%s must be 11 digits (national identity number) or 9 digits (organisation number).", name)
	case customerTypeBad:
		return errFormat(path, "%s must be PRIVATE or CORPORATE.", name)
	case debtorOther:
		return errFormat(path, "A mock transaction cannot have another account as debtor.")
	}
	return errFormat(path, "%s is not valid.", path)
}

// answer renders b for the mock-data operations; prefix is the path of
// the object the field belongs to ("[2]." in an array, "" for the body).
func (b *badInput) answer(prefix string) *apiError { return b.inputProblem.answer(prefix + b.field) }
