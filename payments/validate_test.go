package payments_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/checkdigit"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
)

// fields returns the Field of every *client.ValidationError in err.
func fields(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	require.ErrorIs(t, err, client.ErrValidation)
	var out []string
	var walk func(error)
	walk = func(e error) {
		var ve *client.ValidationError
		switch x := e.(type) {
		case interface{ Unwrap() []error }:
			for _, c := range x.Unwrap() {
				walk(c)
			}
		default:
			if errors.As(e, &ve) {
				out = append(out, ve.Field)
			}
		}
	}
	walk(err)
	return out
}

// ibanFor returns the Norwegian IBAN of bban with correct mod-97 check
// digits, whatever the BBAN's own check digit.
func ibanFor(bban string) string {
	check := 98 - checkdigit.Mod97(bban+"NO00")
	return "NO" + strconv.Itoa(check/10) + strconv.Itoa(check%10) + bban
}

var (
	emoji  = "Hytte \U0001F3D4"
	runes  = func(n int) string { return strings.Repeat("ø", n) }
	dec    = decimal.RequireFromString
	kidRef = func(kid string) []payments.StructuredReference {
		return []payments.StructuredReference{payments.KID(kid)}
	}
)

// unreadable decodes a money object whose amount cannot be read.
func unreadable(doc string) money.Amount {
	var a money.Amount
	if err := json.Unmarshal([]byte(doc), &a); err != nil || a.Err() == nil {
		panic("not an unreadable amount: " + doc)
	}
	return a
}

func TestValidateNorwegianDomestic(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(p *payments.NorwegianDomestic)
		want []string // fields refused; nil means valid
	}{
		{"valid", func(*payments.NorwegianDomestic) {}, nil},
		{"valid: name of 70 characters (140 bytes)", func(p *payments.NorwegianDomestic) { p.CreditorName = runes(70) }, nil},
		{"valid: remittance of 140 characters", func(p *payments.NorwegianDomestic) { p.RemittanceInformationUnstructured = runes(140) }, nil},
		{"valid: street of 70 characters", func(p *payments.NorwegianDomestic) { p.CreditorAddress.Street = runes(70) }, nil},
		{"valid: ultimate debtor of 70", func(p *payments.NorwegianDomestic) { p.UltimateDebtor = runes(70) }, nil},
		{"valid: KID in the array", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = kidRef("79927398713")
		}, nil},
		{"valid: KID type in lower case is checked and passes", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructured = &payments.StructuredReference{Reference: "23-", ReferenceType: "kid"}
		}, nil},
		{"valid: other reference types are not KID-checked", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: "INV 42", ReferenceType: "SCOR", ReferenceIssuer: "ISO"}}
		}, nil},
		{"valid: card debtor", func(p *payments.NorwegianDomestic) {
			p.DebtorAccount = payments.AccountReference{Other: &payments.OtherAccount{Identification: "5678", SchemeNameProprietary: payments.SchemeCreditCardAccount}, Currency: "NOK"}
		}, nil},
		{"valid: currency account with BIC", func(p *payments.NorwegianDomestic) {
			p.CreditorAccount.Currency = "EUR"
			p.CreditorAgent = "DNBANOKK"
		}, nil},
		{"valid: 11-character BIC", func(p *payments.NorwegianDomestic) { p.CreditorAgent = "DEUTDEFF500" }, nil},
		{"valid: purpose code", func(p *payments.NorwegianDomestic) { p.PurposeCode = "SALA" }, nil},
		{"valid: execution date today in Oslo", func(p *payments.NorwegianDomestic) {
			p.RequestedExecutionDate = date.Date{Year: 2025, Month: 3, Day: 10}
		}, nil},
		{"valid: no execution date", func(p *payments.NorwegianDomestic) { p.RequestedExecutionDate = date.Date{} }, nil},
		{"valid: JPY without fraction", func(p *payments.NorwegianDomestic) { p.InstructedAmount = money.MustParse("5", "JPY") }, nil},
		{"valid (assumption): a bban of other digits within 30 characters is left to the bank", func(p *payments.NorwegianDomestic) {
			p.CreditorAccount.BBAN = "123456789012"
		}, nil},
		// docs/interface.md section 2.3a: any notation of up to 30
		// characters but 11 digits with a wrong check digit.
		{"valid: creditor bban in printed form with dots", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "8601.11.17947" }, nil},
		{"valid: creditor bban in printed form with spaces", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "8601 11 17947" }, nil},
		{"valid: debtor bban in printed form", func(p *payments.NorwegianDomestic) { p.DebtorAccount.BBAN = "9531 27 76066" }, nil},
		{"valid: printed form with a wrong digit is left to the bank", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "8601 11 17948" }, nil},
		{"valid: creditor bban of 30 characters", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = strings.Repeat("8", 30) }, nil},
		{"valid: creditor bban of 11 characters not all digits", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "8601111794X" }, nil},
		{"creditor bban of 11 digits, MOD-11 wrong", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "86011117948" }, []string{"creditorAccount.bban"}},
		{"valid: the printed form normalised", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = payments.NormalizeBBAN("8601 11 17947") }, nil},

		{"amount missing", func(p *payments.NorwegianDomestic) { p.InstructedAmount = money.Amount{} }, []string{"instructedAmount"}},
		{"amount unreadable (decoded from a bank document)", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = unreadable(`{"amount":"abc","currency":"NOK"}`)
		}, []string{"instructedAmount"}},
		{"amount unreadable, with its value set afterwards", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = unreadable(`{"amount":1e400,"currency":"NOK"}`)
			p.InstructedAmount.Value = dec("10")
		}, []string{"instructedAmount"}},
		{"amount currency unknown", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = money.Amount{Value: dec("10"), Currency: "ABC"}
		}, []string{"instructedAmount.currency"}},
		{"valid: amount in XCG (ISO 4217 since 2025)", func(p *payments.NorwegianDomestic) { p.InstructedAmount = money.MustParse("10.00", "XCG") }, nil},
		{"valid: amount in ZWG (ISO 4217 since 2024)", func(p *payments.NorwegianDomestic) { p.InstructedAmount = money.MustParse("10.00", "ZWG") }, nil},
		{"amount in ANG (withdrawn 2025)", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = money.Amount{Value: dec("10"), Currency: "ANG"}
		}, []string{"instructedAmount.currency"}},
		{"amount in HRK (withdrawn 2023)", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = money.Amount{Value: dec("10"), Currency: "HRK"}
		}, []string{"instructedAmount.currency"}},
		{"creditor account in ANG (withdrawn 2025)", func(p *payments.NorwegianDomestic) {
			p.CreditorAccount.Currency = "ANG"
			p.CreditorAgent = "DNBANOKK"
		}, []string{"creditorAccount.currency"}},
		{"amount currency lower case", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = money.Amount{Value: dec("10"), Currency: "nok"}
		}, []string{"instructedAmount.currency"}},
		{"amount with 3 digits in NOK (hand-built)", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = money.Amount{Value: dec("10.005"), Currency: "NOK"}
		}, []string{"instructedAmount.amount"}},
		{"amount with a fraction in JPY", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = money.Amount{Value: dec("5.5"), Currency: "JPY"}
		}, []string{"instructedAmount.amount"}},
		{"amount zero", func(p *payments.NorwegianDomestic) { p.InstructedAmount = money.MustParse("0.00", "NOK") }, []string{"instructedAmount.amount"}},
		{"amount negative", func(p *payments.NorwegianDomestic) { p.InstructedAmount = money.MustParse("-1.00", "NOK") }, []string{"instructedAmount.amount"}},
		{"valid: amount of 13 integer digits", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = money.MustParse("9999999999999.99", "NOK")
		}, nil},
		{"amount of 14 integer digits (precision 18, scale 5)", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = money.Amount{Value: dec("10000000000000.00"), Currency: "NOK"}
		}, []string{"instructedAmount.amount"}},
		{"amount of 16 integer digits in JPY", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = money.Amount{Value: dec("1234567890123456"), Currency: "JPY"}
		}, []string{"instructedAmount.amount"}},
		{"amount beyond 18 digits", func(p *payments.NorwegianDomestic) {
			p.InstructedAmount = money.Amount{Value: dec("12345678901234567890"), Currency: "NOK"}
		}, []string{"instructedAmount.amount"}},
		{"creditorName missing", func(p *payments.NorwegianDomestic) { p.CreditorName = "" }, []string{"creditorName"}},
		{"creditorName of 71", func(p *payments.NorwegianDomestic) { p.CreditorName = runes(71) }, []string{"creditorName"}},
		{"creditorName with emoji", func(p *payments.NorwegianDomestic) { p.CreditorName = emoji }, []string{"creditorName"}},
		{"creditorName not UTF-8", func(p *payments.NorwegianDomestic) { p.CreditorName = "Ola\xff" }, []string{"creditorName"}},
		{"creditorAgent not a BIC", func(p *payments.NorwegianDomestic) { p.CreditorAgent = "DNBANOK" }, []string{"creditorAgent"}},
		{"creditorAgent with unknown country", func(p *payments.NorwegianDomestic) { p.CreditorAgent = "DNBAXXKK" }, []string{"creditorAgent"}},
		{"creditorAgent missing for a currency account", func(p *payments.NorwegianDomestic) { p.CreditorAccount.Currency = "EUR" }, []string{"creditorAgent"}},
		{"creditor bban missing", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "" }, []string{"creditorAccount.bban"}},
		{"creditor bban MOD-11 wrong", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "91026527437" }, []string{"creditorAccount.bban"}},
		{"creditor bban longer than 30", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = strings.Repeat("1", 31) }, []string{"creditorAccount.bban"}},
		{"creditor iban wrong", func(p *payments.NorwegianDomestic) { p.CreditorAccount.IBAN = "NO9386011117948" }, []string{"creditorAccount.iban"}},
		{"creditor card reference", func(p *payments.NorwegianDomestic) {
			p.CreditorAccount.Other = &payments.OtherAccount{Identification: "1", SchemeNameProprietary: payments.SchemeCreditCardAccount}
		}, []string{"creditorAccount.other"}},
		{"creditor currency missing", func(p *payments.NorwegianDomestic) { p.CreditorAccount.Currency = "" }, []string{"creditorAccount.currency"}},
		{"creditor currency unknown", func(p *payments.NorwegianDomestic) { p.CreditorAccount.Currency = "KRO" }, []string{"creditorAgent", "creditorAccount.currency"}},
		{"address missing", func(p *payments.NorwegianDomestic) { p.CreditorAddress = nil }, []string{"creditorAddress"}},
		{"address country missing", func(p *payments.NorwegianDomestic) { p.CreditorAddress.Country = "" }, []string{"creditorAddress.country"}},
		{"address country unassigned", func(p *payments.NorwegianDomestic) { p.CreditorAddress.Country = "XX" }, []string{"creditorAddress.country"}},
		{"address country lower case", func(p *payments.NorwegianDomestic) { p.CreditorAddress.Country = "no" }, []string{"creditorAddress.country"}},
		{"address country alpha-3", func(p *payments.NorwegianDomestic) { p.CreditorAddress.Country = "NOR" }, []string{"creditorAddress.country"}},
		{"street of 71", func(p *payments.NorwegianDomestic) { p.CreditorAddress.Street = runes(71) }, []string{"creditorAddress.street"}},
		{"city with emoji", func(p *payments.NorwegianDomestic) { p.CreditorAddress.City = emoji }, []string{"creditorAddress.city"}},
		{"debtor with bban and card", func(p *payments.NorwegianDomestic) {
			p.DebtorAccount.Other = &payments.OtherAccount{Identification: "1", SchemeNameProprietary: payments.SchemeCreditCardAccount}
		}, []string{"debtorAccount"}},
		{"debtor with neither", func(p *payments.NorwegianDomestic) { p.DebtorAccount.BBAN = "" }, []string{"debtorAccount"}},
		{"debtor bban MOD-11 wrong", func(p *payments.NorwegianDomestic) { p.DebtorAccount.BBAN = "95312776060" }, []string{"debtorAccount.bban"}},
		{"debtor card without identification", func(p *payments.NorwegianDomestic) {
			p.DebtorAccount = payments.AccountReference{Other: &payments.OtherAccount{SchemeNameProprietary: payments.SchemeCreditCardAccount}, Currency: "NOK"}
		}, []string{"debtorAccount.other.identification"}},
		{"debtor card with another scheme", func(p *payments.NorwegianDomestic) {
			p.DebtorAccount = payments.AccountReference{Other: &payments.OtherAccount{Identification: "1", SchemeNameProprietary: "BBAN"}, Currency: "NOK"}
		}, []string{"debtorAccount.other.schemeNameProprietary"}},
		{"debtor card without scheme", func(p *payments.NorwegianDomestic) {
			p.DebtorAccount = payments.AccountReference{Other: &payments.OtherAccount{Identification: "1"}, Currency: "NOK"}
		}, []string{"debtorAccount.other.schemeNameProprietary"}},
		{"debtor currency missing", func(p *payments.NorwegianDomestic) { p.DebtorAccount.Currency = "" }, []string{"debtorAccount.currency"}},
		{"ultimateDebtor of 71", func(p *payments.NorwegianDomestic) { p.UltimateDebtor = runes(71) }, []string{"ultimateDebtor"}},
		{"remittance of 141", func(p *payments.NorwegianDomestic) { p.RemittanceInformationUnstructured = runes(141) }, []string{"remittanceInformationUnstructured"}},
		{"remittance with emoji", func(p *payments.NorwegianDomestic) { p.RemittanceInformationUnstructured = emoji }, []string{"remittanceInformationUnstructured"}},
		{"unstructured and structured array", func(p *payments.NorwegianDomestic) { p.RemittanceInformationStructuredArray = kidRef("79927398713") }, []string{"remittanceInformationUnstructured"}},
		// Only the array and the unstructured text exclude each other
		// (docs/interface.md section 2.4).
		{"valid: unstructured and single structured", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationStructured = &payments.StructuredReference{Reference: "79927398713", ReferenceType: "KID"}
		}, nil},
		{"valid: single structured and array", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructured = &payments.StructuredReference{Reference: "A"}
			p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: "B"}}
		}, nil},
		{"unstructured, single structured and array", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationStructured = &payments.StructuredReference{Reference: "A"}
			p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: "B"}}
		}, []string{"remittanceInformationUnstructured"}},
		{"reference missing", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = []payments.StructuredReference{{ReferenceType: "SCOR"}}
		}, []string{"remittanceInformationStructuredArray[0].reference"}},
		{"reference of 36", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: "A"}, {Reference: runes(36)}}
		}, []string{"remittanceInformationStructuredArray[1].reference"}},
		{"referenceType of 36", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: "A", ReferenceType: runes(36)}}
		}, []string{"remittanceInformationStructuredArray[0].referenceType"}},
		{"referenceIssuer of 36", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: "A", ReferenceIssuer: runes(36)}}
		}, []string{"remittanceInformationStructuredArray[0].referenceIssuer"}},
		{"KID with a wrong check digit", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = kidRef("79927398714")
		}, []string{"remittanceInformationStructuredArray[0].reference"}},
		{"KID too short, single reference", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructured = &payments.StructuredReference{Reference: "7", ReferenceType: "Kid"}
		}, []string{"remittanceInformationStructured.reference"}},
		{"KID missing", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = kidRef("")
		}, []string{"remittanceInformationStructuredArray[0].reference"}},
		{"purpose code unknown", func(p *payments.NorwegianDomestic) { p.PurposeCode = "GIFT" }, []string{"purposeCode"}},
		{"execution date yesterday", func(p *payments.NorwegianDomestic) {
			p.RequestedExecutionDate = date.Date{Year: 2025, Month: 3, Day: 9}
		}, []string{"requestedExecutionDate"}},
		{"several rules at once", func(p *payments.NorwegianDomestic) {
			p.CreditorName = ""
			p.PurposeCode = "GIFT"
		}, []string{"creditorName", "purposeCode"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := validNDCT()
			tc.edit(p)
			err := p.Validate(testNow)
			assert.Equal(t, tc.want, fields(t, err))
			for _, acct := range []string{p.DebtorAccount.BBAN, p.CreditorAccount.BBAN} {
				if err != nil && len(acct) > 3 {
					assert.NotContains(t, err.Error(), acct, "no account number in errors")
				}
			}
		})
	}
}

func TestValidateSEPA(t *testing.T) {
	t.Parallel()
	badNO := ibanFor("86011117940") // mod-97 right, MOD-11 wrong
	require.NoError(t, payments.CheckIBAN(badNO))
	for _, tc := range []struct {
		name string
		edit func(p *payments.SEPA)
		want []string
	}{
		{"valid", func(*payments.SEPA) {}, nil},
		{"valid: no address", func(p *payments.SEPA) { p.CreditorAddress = nil }, nil},
		{"valid: end-to-end id of 35", func(p *payments.SEPA) { p.EndToEndIdentification = runes(35) }, nil},
		{"valid: Norwegian creditor", func(p *payments.SEPA) { p.CreditorAccount.IBAN = ibanFor("86011117947") }, nil},
		{"valid: GB creditor", func(p *payments.SEPA) { p.CreditorAccount.IBAN = "GB29NWBK60161331926819" }, nil},

		{"end-to-end id of 36", func(p *payments.SEPA) { p.EndToEndIdentification = runes(36) }, []string{"endToEndIdentification"}},
		{"end-to-end id with emoji", func(p *payments.SEPA) { p.EndToEndIdentification = emoji }, []string{"endToEndIdentification"}},
		{"amount missing", func(p *payments.SEPA) { p.InstructedAmount = money.Amount{} }, []string{"instructedAmount"}},
		{"amount zero", func(p *payments.SEPA) { p.InstructedAmount = money.MustParse("0", "EUR") }, []string{"instructedAmount.amount"}},
		{"creditorName missing", func(p *payments.SEPA) { p.CreditorName = "" }, []string{"creditorName"}},
		{"creditor iban missing", func(p *payments.SEPA) { p.CreditorAccount.IBAN = "" }, []string{"creditorAccount.iban"}},
		{"creditor iban mod-97 wrong", func(p *payments.SEPA) { p.CreditorAccount.IBAN = "DE89370400440532013001" }, []string{"creditorAccount.iban"}},
		{"creditor iban country length wrong", func(p *payments.SEPA) { p.CreditorAccount.IBAN = "DE8937040044053201300" }, []string{"creditorAccount.iban"}},
		{"creditor iban with spaces", func(p *payments.SEPA) { p.CreditorAccount.IBAN = "DE89 3704 0044 0532 0130 00" }, []string{"creditorAccount.iban"}},
		{"creditor iban longer than 34", func(p *payments.SEPA) { p.CreditorAccount.IBAN = strings.Repeat("1", 35) }, []string{"creditorAccount.iban"}},
		{"creditor Norwegian iban with bad MOD-11", func(p *payments.SEPA) { p.CreditorAccount.IBAN = badNO }, []string{"creditorAccount.iban"}},
		{"creditor card", func(p *payments.SEPA) {
			p.CreditorAccount.Other = &payments.OtherAccount{Identification: "1", SchemeNameProprietary: payments.SchemeCreditCardAccount}
		}, []string{"creditorAccount.other"}},
		{"creditor currency missing", func(p *payments.SEPA) { p.CreditorAccount.Currency = "" }, []string{"creditorAccount.currency"}},
		{"debtor iban missing", func(p *payments.SEPA) { p.DebtorAccount.IBAN = "" }, []string{"debtorAccount.iban"}},
		{"debtor currency unknown", func(p *payments.SEPA) { p.DebtorAccount.Currency = "EURO" }, []string{"debtorAccount.currency"}},
		{"address without country", func(p *payments.SEPA) { p.CreditorAddress.Country = "" }, []string{"creditorAddress.country"}},
		{"street of 71", func(p *payments.SEPA) { p.CreditorAddress.Street = runes(71) }, []string{"creditorAddress.street"}},
		{"remittance of 141", func(p *payments.SEPA) { p.RemittanceInformationUnstructured = runes(141) }, []string{"remittanceInformationUnstructured"}},
		{"execution date in the past", func(p *payments.SEPA) { p.RequestedExecutionDate = date.Date{Year: 2024, Month: 12, Day: 31} }, []string{"requestedExecutionDate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := validSEPA()
			tc.edit(p)
			assert.Equal(t, tc.want, fields(t, p.Validate(testNow)))
		})
	}
}

// Emoji in the Basic Multilingual Plane (Extended_Pictographic) are
// refused in every free-text field, like those outside it
// (docs/interface.md sections 1.6 and 7).
func TestValidateRefusesPictographs(t *testing.T) {
	t.Parallel()
	for _, pict := range []string{"\u2705", "\u2615", "\u2764", "\u2764\uFE0F", "\u2122", "\U0001F600", "\U00010348"} {
		text := "Takk " + pict
		ndct := map[string]func(p *payments.NorwegianDomestic){
			"creditorName":                      func(p *payments.NorwegianDomestic) { p.CreditorName = text },
			"ultimateDebtor":                    func(p *payments.NorwegianDomestic) { p.UltimateDebtor = text },
			"remittanceInformationUnstructured": func(p *payments.NorwegianDomestic) { p.RemittanceInformationUnstructured = text },
			"creditorAddress.street":            func(p *payments.NorwegianDomestic) { p.CreditorAddress.Street = text },
			"creditorAddress.buildingNumber":    func(p *payments.NorwegianDomestic) { p.CreditorAddress.BuildingNumber = text },
			"creditorAddress.postalCode":        func(p *payments.NorwegianDomestic) { p.CreditorAddress.PostalCode = text },
			"creditorAddress.city":              func(p *payments.NorwegianDomestic) { p.CreditorAddress.City = text },
			"creditorAccount.bban":              func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = text },
			"remittanceInformationStructuredArray[0].reference": func(p *payments.NorwegianDomestic) {
				p.RemittanceInformationUnstructured = ""
				p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: text}}
			},
			"remittanceInformationStructuredArray[0].referenceIssuer": func(p *payments.NorwegianDomestic) {
				p.RemittanceInformationUnstructured = ""
				p.RemittanceInformationStructuredArray = []payments.StructuredReference{{Reference: "INV 1", ReferenceIssuer: text}}
			},
			"debtorAccount.other.identification": func(p *payments.NorwegianDomestic) {
				p.DebtorAccount = payments.AccountReference{Other: &payments.OtherAccount{Identification: text, SchemeNameProprietary: payments.SchemeCreditCardAccount}, Currency: "NOK"}
			},
		}
		for field, edit := range ndct {
			t.Run("NDCT "+field+" "+pict, func(t *testing.T) {
				t.Parallel()
				p := validNDCT()
				edit(p)
				err := p.Validate(testNow)
				assert.Equal(t, []string{field}, fields(t, err))
				assert.ErrorContains(t, err, "cannot process")
			})
		}
		sepa := map[string]func(p *payments.SEPA){
			"endToEndIdentification":            func(p *payments.SEPA) { p.EndToEndIdentification = text },
			"creditorName":                      func(p *payments.SEPA) { p.CreditorName = text },
			"remittanceInformationUnstructured": func(p *payments.SEPA) { p.RemittanceInformationUnstructured = text },
			"creditorAddress.city":              func(p *payments.SEPA) { p.CreditorAddress.City = text },
		}
		for field, edit := range sepa {
			t.Run("SEPA "+field+" "+pict, func(t *testing.T) {
				t.Parallel()
				p := validSEPA()
				edit(p)
				assert.Equal(t, []string{field}, fields(t, p.Validate(testNow)))
			})
		}
	}
	// Norwegian letters, currency and other signs remain.
	p := validNDCT()
	p.CreditorName = "Ærlige Øystein Ås § 12 € 5 – «takk»"
	assert.NoError(t, p.Validate(testNow))
}

// The bank's today is the date in Oslo: late evening UTC is already the
// next day there.
func TestValidateExecutionDateInOslo(t *testing.T) {
	t.Parallel()
	p := validNDCT()
	p.RequestedExecutionDate = date.Date{Year: 2025, Month: 3, Day: 9}
	lateUTC := time.Date(2025, 3, 9, 23, 30, 0, 0, time.UTC) // 00:30 on the 10th in Oslo
	assert.Equal(t, []string{"requestedExecutionDate"}, fields(t, p.Validate(lateUTC)))
	earlyUTC := time.Date(2025, 3, 9, 22, 30, 0, 0, time.UTC) // 23:30 on the 9th in Oslo
	assert.NoError(t, p.Validate(earlyUTC))
	// Summer time: UTC+2.
	p.RequestedExecutionDate = date.Date{Year: 2025, Month: 7, Day: 1}
	assert.Error(t, p.Validate(time.Date(2025, 7, 1, 22, 30, 0, 0, time.UTC)))
	assert.NoError(t, p.Validate(time.Date(2025, 7, 1, 21, 30, 0, 0, time.UTC)))
	assert.Equal(t, date.Date{Year: 2025, Month: 3, Day: 10}, payments.BankToday(lateUTC))
}

// Around midnight in Oslo, in winter (UTC+1) and summer (UTC+2), with a
// fixed clock: today is the Oslo date whatever the zone of the clock, and
// the zone is the real one (not a fixed UTC+1, an hour off in summer).
func TestValidateExecutionDateAroundOsloMidnight(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Europe/Oslo", payments.BankLocation().String())
	_, winter := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC).In(payments.BankLocation()).Zone()
	_, summer := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC).In(payments.BankLocation()).Zone()
	assert.Equal(t, 3600, winter)
	assert.Equal(t, 7200, summer)
	far := time.FixedZone("UTC-10", -10*60*60)
	for _, tc := range []struct {
		name  string
		now   time.Time
		today date.Date
	}{
		{"winter 23:59:59", time.Date(2026, 1, 15, 22, 59, 59, 0, time.UTC), date.Date{Year: 2026, Month: 1, Day: 15}},
		{"winter 00:00:00", time.Date(2026, 1, 15, 23, 0, 0, 0, time.UTC), date.Date{Year: 2026, Month: 1, Day: 16}},
		{"summer 23:59:59", time.Date(2026, 7, 1, 21, 59, 59, 0, time.UTC), date.Date{Year: 2026, Month: 7, Day: 1}},
		{"summer 00:00:00", time.Date(2026, 7, 1, 22, 0, 0, 0, time.UTC), date.Date{Year: 2026, Month: 7, Day: 2}},
		{"summer 00:30 (UTC+1 would say 23:30)", time.Date(2026, 7, 1, 22, 30, 0, 0, time.UTC), date.Date{Year: 2026, Month: 7, Day: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, now := range []time.Time{tc.now, tc.now.In(far)} {
				assert.Equal(t, tc.today, payments.BankToday(now))
				p := validNDCT()
				p.RequestedExecutionDate = tc.today
				assert.NoError(t, p.Validate(now), "today in Oslo")
				p.RequestedExecutionDate = date.Of(time.Date(tc.today.Year, tc.today.Month, tc.today.Day-1, 12, 0, 0, 0, time.UTC))
				assert.Equal(t, []string{"requestedExecutionDate"}, fields(t, p.Validate(now)), "yesterday in Oslo")
			}
		})
	}
}

func TestValidateNil(t *testing.T) {
	t.Parallel()
	var n *payments.NorwegianDomestic
	var s *payments.SEPA
	assert.ErrorIs(t, n.Validate(testNow), client.ErrValidation)
	assert.ErrorIs(t, s.Validate(testNow), client.ErrValidation)
}

// Every purpose code of docs/interface.md section 2.4 passes.
func TestValidatePurposeCodes(t *testing.T) {
	t.Parallel()
	codes := payments.PurposeCodes()
	require.Len(t, codes, 14)
	codes[0] = "changed"
	assert.NotEqual(t, "changed", payments.PurposeCodes()[0], "PurposeCodes returns a copy")
	for _, c := range payments.PurposeCodes() {
		p := validNDCT()
		p.PurposeCode = c
		assert.NoError(t, p.Validate(testNow), c)
	}
}
