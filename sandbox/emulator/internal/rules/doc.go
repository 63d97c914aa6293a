// Package rules holds the emulator's request rules: what a request of the
// interface (docs/interface.md) must carry and what form its values must
// have, as pure functions of headers, bodies and values. It knows nothing
// of the emulator's server, its state or its HTTP answers.
//
// A rule that refuses returns a [*Violation]: the tppMessages code
// ([CodeFormat], [CodeHeaderRequired], ...), the path of the field or
// header, and the text. Every violation is answered 400 Bad Request; the
// emulator turns it into that answer and applies the checks that need its
// state (a PSU-ID issued to the TPP, a payment of the TPP).
//
// The rules, by file:
//
//   - violation.go: [Violation], its codes and constructors, [Clip];
//   - headers.go: the headers each operation requires ([RequirementOf],
//     [Requirement.Check]) and the forms of the headers the interface
//     fixes ([CheckHeaderForms], [CheckPSUID], [CheckPSUContext],
//     [CheckSCAHeaders]);
//   - signature.go: the form of X-Request-ID ([CheckRequestID]) and of
//     the Signature value, and the headers a signature must cover
//     ([CheckSignedHeaders]);
//   - paths.go: the payment services and products of the path table;
//   - body.go: what every JSON body must be ([CheckJSONBody],
//     [CheckCharacters]) and how it decodes ([DecodeJSON],
//     [DecodeViolation]);
//   - query.go: query parameters ([ParseBool], [ParsePage]);
//   - text.go: lengths of text fields ([RequiredText], [OptionalText]) and
//     the contact e-mail address ([CheckContactEmail]);
//   - emoji.go: the characters the bank cannot process ([Refused]), read
//     off the Unicode grapheme rules, not from the SDK's table;
//   - checkdigits.go: the check-digit oracle (MOD-11, KID, IBAN, BIC,
//     country codes);
//   - bankdate.go: the bank's date ([BankDate]);
//   - casematch.go: case-sensitive field names ([DropMiscased],
//     [MiscasedHint]).
//
// The rules of a payment body are in the sibling package paymentrules.
//
// The rules are written apart from the SDK's own checks on purpose, so
// that the emulator checks the wire independently of what the SDK
// believes.
package rules
