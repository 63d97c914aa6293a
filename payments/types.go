package payments

import (
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
)

// SchemeCreditCardAccount is the only schemeNameProprietary of a card
// account reference (docs/interface.md section 2.3a).
const SchemeCreditCardAccount = "creditCardAccount"

// ReferenceTypeKID is the referenceType of a structured reference that
// carries a Norwegian KID (docs/interface.md section 2.4: "A KID/OCR number goes into a
// structured reference"). The platform's public material and the emulator
// write "KID"; the SDK compares case-insensitively (so "kid" is checked
// too), as the bank's KID check does.
const ReferenceTypeKID = "KID"

// AccountReference identifies an account in a payment (docs/interface.md section 2.3a).
// NDCT: creditorAccount needs BBAN; debtorAccount exactly one of BBAN and
// Other (a card account). SEPA: IBAN on both. Currency is required.
type AccountReference struct {
	BBAN     string        `json:"bban,omitempty"`
	IBAN     string        `json:"iban,omitempty"`
	Other    *OtherAccount `json:"other,omitempty"`
	Currency string        `json:"currency"`
}

// OtherAccount is the card account reference of an NDCT debtorAccount
// (docs/interface.md section 2.3a). Identification is the card account's relatedAccount;
// SchemeNameProprietary must be [SchemeCreditCardAccount].
type OtherAccount struct {
	Identification        string `json:"identification"`
	SchemeNameProprietary string `json:"schemeNameProprietary"`
}

// Address is a creditorAddress (docs/interface.md section 2.3). Country (ISO 3166-1
// alpha-2) is required; Street is at most 70 characters.
type Address struct {
	Street         string `json:"street,omitempty"`
	BuildingNumber string `json:"buildingNumber,omitempty"`
	PostalCode     string `json:"postalCode,omitempty"`
	City           string `json:"city,omitempty"`
	Country        string `json:"country"`
}

// StructuredReference is a structured remittance reference (docs/interface.md
// 2.4): Reference 1 to 35 characters; ReferenceType and ReferenceIssuer
// optional, at most 35. A KID goes here with ReferenceType
// [ReferenceTypeKID].
type StructuredReference struct {
	Reference       string `json:"reference"`
	ReferenceType   string `json:"referenceType,omitempty"`
	ReferenceIssuer string `json:"referenceIssuer,omitempty"`
}

// KID returns a structured reference carrying kid (referenceType KID).
func KID(kid string) StructuredReference {
	return StructuredReference{Reference: kid, ReferenceType: ReferenceTypeKID}
}

// NorwegianDomestic is a Norwegian domestic credit transfer request
// (docs/interface.md section 2.4). Empty optional fields are not sent. Call
// [NorwegianDomestic.Validate] or let [Service.CreateNorwegianDomestic]
// do it.
type NorwegianDomestic struct {
	// InstructedAmount is the amount, with exactly the currency's minor
	// units (required).
	InstructedAmount money.Amount `json:"instructedAmount"`
	// CreditorName is at most 70 characters (required).
	CreditorName string `json:"creditorName"`
	// CreditorAgent is the creditor bank's BIC; required when paying to a
	// currency account (creditorAccount.currency other than NOK).
	CreditorAgent string `json:"creditorAgent,omitempty"`
	// CreditorAccount needs a BBAN and a currency (required).
	CreditorAccount AccountReference `json:"creditorAccount"`
	// CreditorAddress needs at least the country (required for NDCT).
	CreditorAddress *Address `json:"creditorAddress,omitempty"`
	// DebtorAccount holds exactly one of BBAN and Other, and the
	// currency (required).
	DebtorAccount AccountReference `json:"debtorAccount"`
	// UltimateDebtor is at most 70 characters.
	UltimateDebtor string `json:"ultimateDebtor,omitempty"`
	// RemittanceInformationUnstructured is a message to the creditor, 1
	// to 140 characters; not together with
	// RemittanceInformationStructuredArray (docs/interface.md section 2.4).
	RemittanceInformationUnstructured string `json:"remittanceInformationUnstructured,omitempty"`
	// RemittanceInformationStructured is a single structured reference
	// (deprecated by the bank in favour of the array, docs/interface.md section 9.4).
	// It may be set together with the unstructured text or the array.
	RemittanceInformationStructured *StructuredReference `json:"remittanceInformationStructured,omitempty"`
	// RemittanceInformationStructuredArray lists structured references
	// (a KID, for example); not together with
	// RemittanceInformationUnstructured (docs/interface.md section 2.4).
	RemittanceInformationStructuredArray []StructuredReference `json:"remittanceInformationStructuredArray,omitempty"`
	// PurposeCode is one of the codes of docs/interface.md section 2.4 (see
	// [PurposeCodes]).
	PurposeCode string `json:"purposeCode,omitempty"`
	// RequestedExecutionDate is today or later in Norway; zero means as
	// soon as possible.
	RequestedExecutionDate date.Date `json:"requestedExecutionDate,omitzero"`
}

// SEPA is a SEPA credit transfer request (docs/interface.md section 2.5). Empty optional
// fields are not sent.
type SEPA struct {
	// EndToEndIdentification is the TPP's reference, at most 35
	// characters, passed on to the creditor.
	EndToEndIdentification string `json:"endToEndIdentification,omitempty"`
	// InstructedAmount is the amount (required).
	InstructedAmount money.Amount `json:"instructedAmount"`
	// CreditorName is at most 70 characters (required).
	CreditorName string `json:"creditorName"`
	// CreditorAccount needs an IBAN and a currency (required).
	CreditorAccount AccountReference `json:"creditorAccount"`
	// CreditorAddress is optional for SEPA; when given, its country is
	// required.
	CreditorAddress *Address `json:"creditorAddress,omitempty"`
	// DebtorAccount needs an IBAN and a currency (required).
	DebtorAccount AccountReference `json:"debtorAccount"`
	// RemittanceInformationUnstructured is 1 to 140 characters.
	RemittanceInformationUnstructured string `json:"remittanceInformationUnstructured,omitempty"`
	// RequestedExecutionDate is today or later in Norway; zero means as
	// soon as possible.
	RequestedExecutionDate date.Date `json:"requestedExecutionDate,omitzero"`
}
