package reconcile

import (
	"strconv"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/payments"
)

// Scheme is the way a payment travels to its creditor, which sets when
// its credit is expected: each has a booking window in Norwegian
// banking days (date.IsBankingDay: weekends, Norwegian public holidays,
// Christmas Eve and New Year's Eve are not).
type Scheme uint8

// The schemes of the platform's payment products ([SchemeOf]).
const (
	// Domestic is a Norwegian domestic credit transfer (NDCT), settled
	// between banks in NICS ([WindowDomestic]).
	Domestic Scheme = iota + 1
	// Instant is the instant domestic transfer (straks), and a transfer
	// between the PSU's own accounts, credited within seconds on every
	// day ([WindowInstant]). [SchemeOf] gives it for the straks product;
	// a TPP that knows an NDCT goes between two accounts of one bank (the
	// PSU's own), which the bank books at once, sets [Payment.Scheme].
	Instant
	// SEPA is a SEPA credit transfer in euro ([WindowSEPA]).
	SEPA
	// CrossBorder is a cross-border (non-SEPA) credit transfer
	// ([WindowCrossBorder]).
	CrossBorder
)

// The booking windows, in banking days after the first banking day on or
// after the payment's start: the bank date its accepted status was
// first seen, or its requested execution date when later. A payment
// whose credit is not booked by the window's last banking day, and which
// a read of the account after that day does not show, is stalled. Where
// no rule binds the banks (docs/interface.md is silent on settlement
// times) each is the safe side of what the scheme promises: a window too
// short would flag payments that are on their way.
const (
	// WindowDomestic: NICS settles domestic transfers in several cycles
	// each banking day; a payment that misses the day's last cycle is
	// credited the next banking day.
	WindowDomestic = 1
	// WindowInstant: the instant scheme, and a transfer between accounts
	// in one bank, credit at once, on every day of the week; a bank that
	// books a weekend's credits under the next banking day is still
	// within the window, which ends on the first banking day on or after
	// the start.
	WindowInstant = 0
	// WindowSEPA: the Payment Services Directive gives euro transfers in
	// the EEA one business day (article 83); one more covers the debtor
	// bank's cut-off.
	WindowSEPA = 2
	// WindowCrossBorder: the directive allows up to four business days
	// for transfers in other EEA currencies, and sets none outside the
	// EEA; one more covers the cut-off.
	WindowCrossBorder = 5
)

// String names the scheme: "domestic", "instant", "sepa" or
// "cross-border".
func (s Scheme) String() string {
	switch s {
	case Domestic:
		return "domestic"
	case Instant:
		return "instant"
	case SEPA:
		return "sepa"
	case CrossBorder:
		return "cross-border"
	}
	return "Scheme(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes the scheme's name.
func (s Scheme) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Window returns the scheme's booking window in banking days (the
// Window constants); an unknown scheme has the longest.
func (s Scheme) Window() int {
	switch s {
	case Domestic:
		return WindowDomestic
	case Instant:
		return WindowInstant
	case SEPA:
		return WindowSEPA
	}
	return WindowCrossBorder
}

// Deadline returns the last banking day of the window of a payment of
// the scheme that started on start (see the Window constants); the zero
// Date for the zero start.
func (s Scheme) Deadline(start date.Date) date.Date {
	return date.AddBankingDays(start, s.Window())
}

// valid reports whether s is one of the schemes.
func (s Scheme) valid() bool { return s >= Domestic && s <= CrossBorder }

// SchemeOf returns the scheme of a payment product; false for a product
// the SDK does not know.
func SchemeOf(p payments.Product) (Scheme, bool) {
	switch p {
	case payments.ProductNorwegianDomestic:
		return Domestic, true
	case payments.ProductInstantNorwegianDomestic:
		return Instant, true
	case payments.ProductSEPA:
		return SEPA, true
	case payments.ProductCrossBorder:
		return CrossBorder, true
	}
	return 0, false
}
