package payments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/checkdigit"
	"github.com/tppkit/psd2/internal/emoji"
	"github.com/tppkit/psd2/money"
)

// Limits of docs/interface.md sections 2.3 to 2.5 and 8, in characters
// (runes).
const (
	MaxNameLength         = 70  // creditorName, ultimateDebtor, street
	MaxBBANLength         = 30  // bban
	MaxIBANLength         = 34  // iban
	MaxUnstructuredLength = 140 // remittanceInformationUnstructured
	MaxReferenceLength    = 35  // reference, referenceType, referenceIssuer
	MaxEndToEndIDLength   = 35  // endToEndIdentification
)

const (
	// maxCardIdentification bounds other.identification; the interface
	// publishes no limit (assumption: twice a bban, as the emulator).
	maxCardIdentification = 2 * MaxBBANLength
	norwegianCurrency     = "NOK"
	norwegianIBANCountry  = "NO"
	norwegianBBANLength   = 11
)

// purposeCodes are the purposeCode values of docs/interface.md section 2.4.
var purposeCodes = []string{"INVS", "SALA", "IDCP", "CASH", "CORT", "INTC", "PENS", "SSBE", "SUPP", "TAXS", "TREA", "VATX", "LOAN", "OTHR"}

// PurposeCodes returns the purposeCode values of docs/interface.md section
// 2.4, a new slice on every call.
func PurposeCodes() []string { return slices.Clone(purposeCodes) }

func isPurposeCode(s string) bool {
	for _, c := range purposeCodes {
		if c == s {
			return true
		}
	}
	return false
}

// bankZone is the bank's time zone, date.Oslo: the requested
// execution date is compared with "today" there. Assumption: the
// platform's banks are Norwegian and count dates in Norwegian time (the
// bank emulator counts in the same zone); package date names the zone
// once for the SDK, with its data embedded (time/tzdata), so it is right
// in summer and winter on every machine.
var bankZone = date.Oslo

// BankLocation returns the time zone the SDK counts the bank's dates in:
// Europe/Oslo (UTC+1 in winter, UTC+2 in summer).
func BankLocation() *time.Location { return bankZone() }

// BankToday returns the bank's date at now.
func BankToday(now time.Time) date.Date { return date.Of(now.In(BankLocation())) }

// checkedAsNorwegianBBAN is the rule that decides when a bban gets the
// MOD-11 check (assumption, docs/interface.md section 2.3a gives only "at
// most 30 characters"): an NDCT account is Norwegian, and a bban of
// exactly 11 ASCII digits is a Norwegian account number written in
// electronic form, so it must carry a valid check digit.
func checkedAsNorwegianBBAN(s string) bool {
	return len(s) == norwegianBBANLength && checkdigit.AllDigits(s)
}

// formattedNorwegianBBAN recognises a Norwegian account number in its
// printed form: digits with spaces or dots between them that make exactly
// 11 digits ("8601 11 17947", "8601.11.17947"). Validation does not refuse
// it (docs/interface.md section 2.3a leaves every notation of up to 30
// characters to the bank) and does not rewrite it; [NormalizeBBAN] uses
// it to turn form input into the electronic form.
func formattedNorwegianBBAN(s string) bool {
	n, seps := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			n++
		case c == ' ' || c == '.':
			seps++
		default:
			return false
		}
	}
	return n == norwegianBBANLength && seps > 0
}

// problems collects the rules a request breaks.
type problems struct{ errs []error }

func (p *problems) add(field, reason string) {
	p.errs = append(p.errs, &client.ValidationError{Field: field, Reason: reason})
}

func (p *problems) err() error { return errors.Join(p.errs...) }

func join(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}

// text checks an optional text field: at most max characters, valid
// UTF-8, no control character, and no character the bank's downstream
// systems cannot process (docs/interface.md sections 1.6 and 7): an
// emoji or other Extended_Pictographic character above ISO 8859-1, or
// anything outside the Basic Multilingual Plane ([emoji.Refused]).
//
// A control character (C0 such as a line break, a tab, NUL or the ESC
// of a terminal sequence, DEL, or C1 such as CSI) has no place in a
// name, an address, an account number or a payment's text: none of the
// interface's fields is a text of lines, and whatever a bank that takes
// it does with it (shows it to the PSU, prints it on a statement, hands
// it to a clearing system) is not what the caller wrote. It was sent as
// written (only emoji were refused), so a creditor name read from a form
// or a file with a stray line break was sent as the name of a payment.
// The reason names the character's code point, never the text around
// it, which may be a person's name or account. So are the bidirectional
// controls that reorder the text as shown (isControl).
func (p *problems) text(prefix, name, s string, max int) {
	if s == "" {
		return
	}
	field := func() string { return join(prefix, name) }
	if !utf8.ValidString(s) {
		p.add(field(), "not valid UTF-8")
		return
	}
	if i := strings.IndexFunc(s, isControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		p.add(field(), controlReason(r))
		return
	}
	if i := emoji.Index(s); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		p.add(field(), fmt.Sprintf("holds %U, a character the bank cannot process (an emoji or pictograph, or outside the Basic Multilingual Plane)", r))
		return
	}
	if n := utf8.RuneCountInString(s); max > 0 && n > max {
		p.add(field(), "longer than "+strconv.Itoa(max)+" characters")
	}
}

// isControl reports whether r is a character no text of a payment may
// hold: a control character (C0, DEL, C1: unicode.IsControl), or one of
// the bidirectional embeddings, overrides and isolates (U+202A to
// U+202E, U+2066 to U+2069). Those are invisible and reorder the
// characters after them wherever the text is shown by the Unicode
// bidirectional algorithm: a creditorName holding U+202E reads reversed,
// on a page where the PSU reads whom the payment goes to before
// approving it as on a statement, so that the name read is not the name
// sent. The marks U+200E and U+200F,
// which only set the direction of the characters around them, are not
// refused.
func isControl(r rune) bool {
	return unicode.IsControl(r) || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// controlReason is the reason of a refusal for r, an isControl
// character: its code point, never the text around it.
func controlReason(r rune) string {
	if unicode.IsControl(r) {
		return fmt.Sprintf("holds %U, a control character", r)
	}
	return fmt.Sprintf("holds %U, a bidirectional control character (it reorders the text as shown)", r)
}

// refusedCharacters refuses an encoded request body holding, in any
// string value or member name, a character the bank's downstream systems
// cannot process (docs/interface.md sections 1.6 and 7; [emoji.Refused])
// or a control character: the checks of problems.text for a body of the
// caller's own, which has no Validate method that knows its fields (a
// cross-border, bulk or periodic payment written as a map). It names the
// first such string as the bank does, members in sorted order, and
// returns nil for a body that is no JSON.
func refusedCharacters(body []byte, _ time.Time) error {
	if !bytes.Contains(body, []byte(`\`)) && !slices.ContainsFunc(body, func(b byte) bool { return b >= utf8.RuneSelf || b == 0x7f }) {
		// ASCII without an escape or a DEL: no refused character can be
		// written (JSON writes a C0 control character as an escape, \n
		// or \u001b, and refuses one written raw; DEL it may write raw).
		return nil
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil
	}
	path, r, ok := findRefused(v, "")
	if !ok {
		return nil
	}
	if path == "" {
		path = "body"
	}
	if isControl(r) {
		return &client.ValidationError{Field: path, Reason: controlReason(r)}
	}
	return &client.ValidationError{Field: path, Reason: fmt.Sprintf("holds %U, a character the bank cannot process (an emoji or pictograph, or outside the Basic Multilingual Plane)", r)}
}

// findRefused returns the path of the first string in v (a decoded JSON
// value) holding a character [emoji.Refused] reports or a control
// character, and the first such character of it.
func findRefused(v any, path string) (string, rune, bool) {
	switch t := v.(type) {
	case string:
		i := emoji.Index(t)
		if c := strings.IndexFunc(t, isControl); c >= 0 && (i < 0 || c < i) {
			i = c
		}
		if i >= 0 {
			r, _ := utf8.DecodeRuneInString(t[i:])
			return path, r, true
		}
	case []any:
		for i, e := range t {
			if p, r, ok := findRefused(e, path+"["+strconv.Itoa(i)+"]"); ok {
				return p, r, true
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if p, r, ok := findRefused(k, join(path, k)); ok {
				return p, r, true
			}
			if p, r, ok := findRefused(t[k], join(path, k)); ok {
				return p, r, true
			}
		}
	}
	return "", 0, false
}

// required checks a required text field: a text of spaces only is as
// absent as the empty one (see nonEmpty).
func (p *problems) required(prefix, name, s string, max int) {
	if s == "" {
		p.add(join(prefix, name), "required")
		return
	}
	p.nonEmpty(prefix, name, s, max)
}

// nonEmpty checks an optional text field that docs/interface.md sections
// 2.4 and 8 hold to at least one character when it is sent
// (remittanceInformationUnstructured, a structured reference's members),
// and each required one: a text of nothing but spaces (a space, a
// no-break space, an em space: unicode.IsSpace) is refused as blank. It
// was sent: a creditorName of three spaces, a reference of one, which
// the bank either refuses after the PSU's authorisation was asked for or
// takes as a payment to nobody named, with no reference a creditor can
// match.
func (p *problems) nonEmpty(prefix, name, s string, max int) {
	if s != "" && strings.TrimSpace(s) == "" {
		p.add(join(prefix, name), "blank: holds only spaces")
		return
	}
	p.text(prefix, name, s, max)
}

// amount checks instructedAmount: present, an ISO 4217 currency, no more
// fraction digits than its minor units, greater than zero.
func (p *problems) amount(field string, a money.Amount) {
	if a.IsZero() {
		p.add(field, "required")
		return
	}
	if a.Err() != nil {
		p.add(field, "unreadable amount (decoded from a bank document); build it with money.New or money.Parse")
		return
	}
	if !money.IsCurrency(a.Currency) {
		p.add(field+".currency", "not an ISO 4217 currency code")
		return
	}
	if err := a.Validate(); err != nil {
		switch {
		case errors.Is(err, money.ErrTooManyDigits):
			units, _ := money.MinorUnits(a.Currency)
			p.add(field+".amount", "more fraction digits than the "+strconv.Itoa(units)+" of "+a.Currency)
		default:
			p.add(field+".amount", "exceeds the precision of the interface: at most "+
				strconv.Itoa(money.MaxIntegerDigits)+" digits before the decimal point (precision 18, scale 5)")
		}
		return
	}
	if !a.Positive() {
		p.add(field+".amount", "must be greater than zero")
	}
}

func (p *problems) currency(prefix, name, c string) {
	if c == "" {
		p.add(join(prefix, name), "required")
	} else if !money.IsCurrency(c) {
		p.add(join(prefix, name), "not an ISO 4217 currency code")
	}
}

// bban checks a bban as docs/interface.md section 2.3a does: at most 30
// characters, and one written as 11 digits must carry its MOD-11 check
// digit. Every other notation within 30 characters, the printed form
// "8601 11 17947" included, is sent as written and left to the bank.
func (p *problems) bban(prefix, name, s string) {
	p.text(prefix, name, s, MaxBBANLength)
	if checkedAsNorwegianBBAN(s) && checkdigit.NorwegianBBAN(s) != nil {
		p.add(join(prefix, name), "not a valid Norwegian account number (MOD-11 check digit)")
	}
}

// iban checks an iban: at most 34 characters, the country's length and
// mod-97 check digits, and for Norway the BBAN's MOD-11 check digit.
func (p *problems) iban(prefix, name, s string) {
	if utf8.RuneCountInString(s) > MaxIBANLength {
		p.add(join(prefix, name), "longer than "+strconv.Itoa(MaxIBANLength)+" characters")
		return
	}
	if err := checkdigit.IBAN(s); err != nil {
		p.add(join(prefix, name), "not a valid IBAN: "+err.Error())
		return
	}
	if s[:2] == norwegianIBANCountry && checkdigit.NorwegianBBAN(s[4:]) != nil {
		p.add(join(prefix, name), "not a valid Norwegian account number (MOD-11 check digit)")
	}
}

func (p *problems) address(field string, a *Address, required bool) {
	if a == nil {
		if required {
			p.add(field, "required")
		}
		return
	}
	p.text(field, "street", a.Street, MaxNameLength)
	p.text(field, "buildingNumber", a.BuildingNumber, 0)
	p.text(field, "postalCode", a.PostalCode, 0)
	p.text(field, "city", a.City, 0)
	switch {
	case a.Country == "":
		p.add(field+".country", "required")
	case !checkdigit.IsCountry(a.Country):
		p.add(field+".country", "not an ISO 3166-1 alpha-2 country code")
	}
}

// reference checks one structured reference; a KID (referenceType KID,
// any case) must carry valid check digits.
func (p *problems) reference(field string, r StructuredReference) {
	kid := strings.EqualFold(r.ReferenceType, ReferenceTypeKID)
	p.required(field, "reference", r.Reference, MaxReferenceLength)
	p.nonEmpty(field, "referenceType", r.ReferenceType, MaxReferenceLength)
	p.nonEmpty(field, "referenceIssuer", r.ReferenceIssuer, MaxReferenceLength)
	if kid && r.Reference != "" {
		if err := checkdigit.KID(r.Reference); err != nil {
			p.add(field+".reference", "not a valid KID: "+err.Error())
		}
	}
}

// executionDate refuses a requested execution date before the bank's
// today.
func (p *problems) executionDate(field string, d date.Date, now time.Time) {
	if d.IsZero() {
		return
	}
	// A date.Date is a struct filled in by hand: 2025-04-31 or month 13
	// would be normalised by d.Time and pass the comparison, then be sent
	// as written, which is no ISO 8601 date (docs/interface.md sections
	// 1.7 and 2.1).
	if d.Year < 1 || d.Year > 9999 || date.Of(d.Time(nil)) != d {
		p.add(field, "not a calendar date YYYY-MM-DD")
		return
	}
	if d.Before(BankToday(now)) {
		p.add(field, "before today ("+BankToday(now).String()+" in Norway)")
	}
}

// Validate checks p against docs/interface.md sections 2.3, 2.3a, 2.4
// and 8 before it is sent, with now as the time for the execution date.
// It returns nil, or every broken rule as a [*client.ValidationError]
// (joined with errors.Join; match with errors.Is(err,
// client.ErrValidation) and errors.As). The rules: required fields;
// lengths in characters; ISO 4217 currencies with the currency's minor
// units, at most 13 digits before the decimal point and an amount above
// zero; ISO 3166 country; purposeCode of section 2.4; the unstructured
// text or the structured array, not both (the single structured reference
// goes with either); debtorAccount with exactly one of
// bban and a card reference; MOD-11 on Norwegian account numbers written
// as 11 digits; KID check digits; BIC
// format of creditorAgent, which is required for a creditor account in
// another currency than NOK; requestedExecutionDate not before today in
// Norway ([BankToday]); no emoji, pictograph or character outside the
// Basic Multilingual Plane in any text (sections 1.6 and 7), and no
// control character (a line break, a tab, NUL, ESC, DEL, C1); no
// required text, unstructured remittance or structured reference member
// of spaces only.
func (p *NorwegianDomestic) Validate(now time.Time) error {
	return p.validate(now, false)
}

// validate is [NorwegianDomestic.Validate]; crossBorder holds p to the
// account forms of a cross-border credit transfer instead (sent with
// [Service.Create] under [ProductCrossBorder]; assumption, as the bank
// emulator takes it): the creditor's account is an iban or a bban of any
// country, so a bban is not held to the Norwegian MOD-11 rule; the
// debtor's an iban or a bban, not a card account; and creditorAgent is
// not required for a creditor account in another currency than NOK,
// which docs/interface.md section 2.4 requires of domestic payments
// only.
func (p *NorwegianDomestic) validate(now time.Time, crossBorder bool) error {
	if p == nil {
		return &client.ValidationError{Field: "body", Reason: "no payment given"}
	}
	var v problems
	v.amount("instructedAmount", p.InstructedAmount)
	v.required("", "creditorName", p.CreditorName, MaxNameLength)

	switch {
	case p.CreditorAgent != "":
		if err := checkdigit.BIC(p.CreditorAgent); err != nil {
			v.add("creditorAgent", "not a BIC: "+err.Error())
		}
	case !crossBorder && p.CreditorAccount.Currency != "" && p.CreditorAccount.Currency != norwegianCurrency:
		v.add("creditorAgent", "required when paying to a currency account")
	}

	ca := p.CreditorAccount
	switch {
	case crossBorder && ca.BBAN == "" && ca.IBAN == "":
		v.add("creditorAccount", "must hold an iban or a bban")
	case crossBorder && ca.BBAN != "":
		v.text("creditorAccount", "bban", ca.BBAN, MaxBBANLength) // a foreign account number
	case ca.BBAN == "":
		v.add("creditorAccount.bban", "required")
	default:
		v.bban("creditorAccount", "bban", ca.BBAN)
	}
	if ca.IBAN != "" {
		v.iban("creditorAccount", "iban", ca.IBAN)
	}
	if ca.Other != nil {
		v.add("creditorAccount.other", "a card account can only be a debtor")
	}
	v.currency("creditorAccount", "currency", ca.Currency)

	v.address("creditorAddress", p.CreditorAddress, true)

	da := p.DebtorAccount
	switch {
	case crossBorder && da.BBAN == "" && da.IBAN == "":
		v.add("debtorAccount", "must hold an iban or a bban (a card account cannot pay a cross-border credit transfer)")
	case crossBorder:
		if da.BBAN != "" {
			v.bban("debtorAccount", "bban", da.BBAN)
		}
		if da.Other != nil { // not read there, but sent: no refused characters
			v.text("debtorAccount.other", "identification", da.Other.Identification, 0)
			v.text("debtorAccount.other", "schemeNameProprietary", da.Other.SchemeNameProprietary, 0)
		}
	case da.BBAN != "" && da.Other != nil, da.BBAN == "" && da.Other == nil:
		v.add("debtorAccount", "must hold exactly one of bban and other")
	case da.BBAN != "":
		v.bban("debtorAccount", "bban", da.BBAN)
	default:
		v.required("", "debtorAccount.other.identification", da.Other.Identification, maxCardIdentification)
		switch da.Other.SchemeNameProprietary {
		case SchemeCreditCardAccount:
		case "":
			v.add("debtorAccount.other.schemeNameProprietary", "required")
		default:
			v.add("debtorAccount.other.schemeNameProprietary", "must be "+SchemeCreditCardAccount)
		}
	}
	if da.IBAN != "" {
		v.iban("debtorAccount", "iban", da.IBAN)
	}
	v.currency("debtorAccount", "currency", da.Currency)

	v.text("", "ultimateDebtor", p.UltimateDebtor, MaxNameLength)
	v.nonEmpty("", "remittanceInformationUnstructured", p.RemittanceInformationUnstructured, MaxUnstructuredLength)
	// Only the structured array and the unstructured text exclude each
	// other (docs/interface.md section 2.4); the single structured
	// reference goes with either.
	if len(p.RemittanceInformationStructuredArray) > 0 && p.RemittanceInformationUnstructured != "" {
		v.add("remittanceInformationUnstructured", "only one of remittanceInformationStructuredArray and remittanceInformationUnstructured may be set")
	}
	if p.RemittanceInformationStructured != nil {
		v.reference("remittanceInformationStructured", *p.RemittanceInformationStructured)
	}
	for i, r := range p.RemittanceInformationStructuredArray {
		v.reference("remittanceInformationStructuredArray["+strconv.Itoa(i)+"]", r)
	}
	if p.PurposeCode != "" && !isPurposeCode(p.PurposeCode) {
		v.add("purposeCode", "not one of the purpose codes of the interface")
	}
	v.executionDate("requestedExecutionDate", p.RequestedExecutionDate, now)
	return v.err()
}

// Validate checks p against docs/interface.md sections 2.3, 2.3a, 2.5
// and 8 before it is sent, as [NorwegianDomestic.Validate] does: required
// fields, lengths, currencies and amount, IBANs of both accounts
// (registry length, mod-97, and MOD-11 inside a Norwegian IBAN), the
// optional address, requestedExecutionDate not before today in Norway,
// no emoji, pictograph or character outside the Basic Multilingual
// Plane and no control character in any text, and no creditorName or
// remittance text of spaces only.
func (p *SEPA) Validate(now time.Time) error {
	if p == nil {
		return &client.ValidationError{Field: "body", Reason: "no payment given"}
	}
	var v problems
	v.text("", "endToEndIdentification", p.EndToEndIdentification, MaxEndToEndIDLength)
	v.amount("instructedAmount", p.InstructedAmount)
	v.required("", "creditorName", p.CreditorName, MaxNameLength)
	for _, a := range []struct {
		field string
		ref   AccountReference
	}{{"creditorAccount", p.CreditorAccount}, {"debtorAccount", p.DebtorAccount}} {
		if a.ref.IBAN == "" {
			v.add(a.field+".iban", "required")
		} else {
			v.iban(a.field, "iban", a.ref.IBAN)
		}
		if a.ref.BBAN != "" {
			v.bban(a.field, "bban", a.ref.BBAN)
		}
		if a.ref.Other != nil {
			v.add(a.field+".other", "not allowed in a SEPA payment")
		}
		v.currency(a.field, "currency", a.ref.Currency)
	}
	v.address("creditorAddress", p.CreditorAddress, false)
	v.nonEmpty("", "remittanceInformationUnstructured", p.RemittanceInformationUnstructured, MaxUnstructuredLength)
	v.executionDate("requestedExecutionDate", p.RequestedExecutionDate, now)
	return v.err()
}
