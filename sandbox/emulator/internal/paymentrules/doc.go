// Package paymentrules holds the rules a payment request body must
// follow, the way the bank checks them (docs/interface.md sections 2.3 to
// 2.5 and 8): the body schema ([Body]) and its decoding ([Decode]), and
// the checks of amounts, currencies, account references (bban, iban, card
// reference), texts, remittance references and KIDs, dates, periodic and
// bulk payments ([Check]). It knows nothing of the emulator's server or
// its answers: a check returns the first problem as a [*rules.Violation]
// naming the field in its path, and the emulator answers it 400.
//
// Account numbers, KIDs, IBANs, BICs and country codes are checked by
// package rules (checkdigits.go). Characters the bank cannot process are
// refused for every body before ([rules.CheckJSONBody]). What the
// emulator's state decides (a debtor account the PSU may pay from, a
// logical duplicate) is not checked here.
//
// Rules that the interface leaves open and the emulator decides, each
// kept in one place here:
//
//   - an amount must have exactly the currency's minor units as fraction
//     digits ("150.00" NOK; "150" NOK is refused), as docs/interface.md
//     section 2.1 says "must equal";
//   - a bban of a domestic payment (NDCT, instant) is refused only where
//     section 2.3a refuses it: empty, more than 30 characters, or 11
//     digits with a wrong MOD-11 check digit; any other notation, the
//     printed form "8601 11 17947" included, is taken as written
//     (requiredBBAN);
//   - an IBAN is written in the electronic form: upper case, no spaces;
//   - instant payments (straks) are in NOK only;
//   - empty strings count as present (and then break "non-empty" rules);
//     JSON null counts as absent;
//   - unknown fields are ignored, as the platform does, and field names
//     are case-sensitive: a key naming a field in another case is an
//     unknown field ([rules.DropMiscased]).
//
// The files: body.go (schema, decoding), check.go (a payment, amounts,
// remittance, dates), accounts.go (account references, agent, address),
// periodic.go (periodic and bulk payments).
package paymentrules
