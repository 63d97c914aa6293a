// Package money represents amounts of money exactly, as the PSD2 interface
// expects them: a decimal value and an ISO 4217 currency whose number of
// fraction digits is the currency's minor units (docs/interface.md
// sections 2.1 and 8).
//
// # Creating amounts
//
// [New] and [Parse] refuse unknown currencies, values
// with more fraction digits than the currency has (nothing is ever
// rounded; Parse counts them as written, so "1.000" NOK, a thousands
// separator or a typing error, is refused, not read as 1.00) and values with more than [MaxIntegerDigits] (13) digits before
// the decimal point: the contract precision is 18 with scale 5.
//
// # JSON
//
// An [Amount] marshals as {"amount":"150.00","currency":"NOK"} with
// exactly the currency's minor units (JPY "5", KWD "1.250", CLF "0.0001").
// Decoding is faithful to what the bank sends (docs/design.md, Money): the
// amount may be a string or a JSON number and keeps the exact value it
// carries, and one odd amount never fails a whole document. An amount that
// cannot be read at all ("abc", an exponent beyond ±64, more than 64
// characters, or no amount: {"currency":"NOK"}, null or "") becomes an
// unreadable Amount: [Amount.Err] reports [ErrUnreadable], [Amount.Raw]
// holds the money object as sent, and encoding it writes that text back.
// An absent money object (no member, or null) is the zero Amount. Decoding
// takes time linear in the input: an amount's text is checked for length
// and characters before it is parsed. A readable amount that the request
// rules refuse (0.125 EUR, a withdrawn currency such as HRK, no currency)
// is encoded again as the bank sent it, so every decoded document encodes
// again. Validation is strict on what the TPP sends: [Amount.Validate]
// refuses all of these, and encoding an amount built in code that
// Validate refuses fails.
//
// # Currencies
//
// The list is ISO 4217 as published by the maintenance agency
// (via github.com/bojanz/currency), with its minor units, not CLDR display
// digits, which differ for IQD, RSD, IDR and others. It includes codes
// introduced since 2023 (XCG 2025, ZWG 2024). Withdrawn codes (BGN on
// Bulgaria's change to the euro, ANG 2025, ZWL 2024, HRK and SLL 2023, ...)
// are no longer in the bank's fixed list:
// [IsCurrency] is false for them and a request in one is refused, while a
// bank document that still carries one (an old transaction) decodes as
// sent. The bank emulator (sandbox/emulator) checks currencies with this
// package, so both sides use the same list. Tests compare the list with
// golang.org/x/text/currency, whose digits are CLDR's display digits, and
// name ISO 4217's figure for every code on which the two differ.
package money
