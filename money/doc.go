// Package money represents amounts of money exactly, as the PSD2 interface
// expects them: a decimal value and an ISO 4217 currency whose number of
// fraction digits is the currency's minor units (SERVICE.md 2.1, 8).
//
// # Sections
//
// Creating amounts: [New] and [Parse] refuse unknown currencies and values
// with more fraction digits than the currency has; nothing is ever rounded.
//
// JSON: an [Amount] marshals as {"amount":"150.00","currency":"NOK"} with
// exactly the currency's minor units (JPY "5", KWD "1.250", CLF "0.0001").
// Decoding is faithful to what the bank sends: the amount may be a string or
// a JSON number and keeps the exact value it carries.
//
// Minor units come from the ISO 4217 list as published by the maintenance
// agency (via github.com/bojanz/currency), not from CLDR display digits,
// which differ for IQD, RSD, IDR and others.
package money
