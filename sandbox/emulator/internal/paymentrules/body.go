package paymentrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"unicode/utf8"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// The body schema of the payment requests: the fields the emulator reads
// (docs/interface.md sections 2.3 to 2.5; the Berlin Group periodic and
// bulk payments), and how a body is decoded into them.

// Body is the union of the fields of the payment request bodies
// (docs/interface.md sections 2.4, 2.5; Berlin Group periodic and bulk payments). Pointers
// tell absent from empty; the details endpoint echoes the body from it.
type Body struct {
	EndToEndIdentification               *string      `json:"endToEndIdentification,omitempty"`
	InstructedAmount                     *Amount      `json:"instructedAmount,omitempty"`
	CreditorName                         *string      `json:"creditorName,omitempty"`
	CreditorAgent                        *string      `json:"creditorAgent,omitempty"`
	CreditorAccount                      *Account     `json:"creditorAccount,omitempty"`
	CreditorAddress                      *Address     `json:"creditorAddress,omitempty"`
	DebtorAccount                        *Account     `json:"debtorAccount,omitempty"`
	UltimateDebtor                       *string      `json:"ultimateDebtor,omitempty"`
	RemittanceInformationUnstructured    *string      `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationStructured      *Reference   `json:"remittanceInformationStructured,omitempty"`
	RemittanceInformationStructuredArray *[]Reference `json:"remittanceInformationStructuredArray,omitempty"`
	PurposeCode                          *string      `json:"purposeCode,omitempty"`
	RequestedExecutionDate               *string      `json:"requestedExecutionDate,omitempty"`

	// Periodic payments.
	StartDate         *string   `json:"startDate,omitempty"`
	EndDate           *string   `json:"endDate,omitempty"`
	ExecutionRule     *string   `json:"executionRule,omitempty"`
	Frequency         *string   `json:"frequency,omitempty"`
	DayOfExecution    *string   `json:"dayOfExecution,omitempty"`
	MonthsOfExecution *[]string `json:"monthsOfExecution,omitempty"`

	// Bulk payments.
	BatchBookingPreferred *bool   `json:"batchBookingPreferred,omitempty"`
	Payments              *[]Body `json:"payments,omitempty"`
}

// Amount is a money object as sent. The amount stays raw so the
// check can tell a JSON string from a number.
type Amount struct {
	Amount   json.RawMessage `json:"amount,omitempty"`
	Currency *string         `json:"currency,omitempty"`
}

// Account is an account reference (docs/interface.md section 2.3a).
type Account struct {
	IBAN     *string `json:"iban,omitempty"`
	BBAN     *string `json:"bban,omitempty"`
	Other    *Card   `json:"other,omitempty"`
	Currency *string `json:"currency,omitempty"`
}

// Card is the card account reference of an NDCT debtorAccount.
type Card struct {
	Identification        *string `json:"identification,omitempty"`
	SchemeNameProprietary *string `json:"schemeNameProprietary,omitempty"`
}

// Address is a creditorAddress (docs/interface.md section 2.3).
type Address struct {
	Street         *string `json:"street,omitempty"`
	BuildingNumber *string `json:"buildingNumber,omitempty"`
	PostalCode     *string `json:"postalCode,omitempty"`
	City           *string `json:"city,omitempty"`
	Country        *string `json:"country,omitempty"`
}

// Reference is a structured remittance reference (docs/interface.md section 2.4).
type Reference struct {
	Reference       *string `json:"reference,omitempty"`
	ReferenceType   *string `json:"referenceType,omitempty"`
	ReferenceIssuer *string `json:"referenceIssuer,omitempty"`
}

// Decode decodes a payment request body: valid UTF-8, one JSON
// object and nothing after it, each field of the JSON type the schema
// says (400 FORMAT_ERROR naming the field). Unknown fields are ignored,
// and so is a key naming a field in another case ("CREDITORNAME"): field
// names are case-sensitive (docs/interface.md sections 2.4, 2.5; see
// rules.DropMiscased).
func Decode(body []byte) (*Body, *rules.Violation) {
	if !utf8.Valid(body) {
		return nil, rules.Format("", "The body is not valid UTF-8.")
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, rules.Format("", "The body is empty; a JSON payment object is required.")
	}
	if trimmed[0] != '{' {
		return nil, rules.Format("", "The body must be a JSON object.")
	}
	var b Body
	body, _ = rules.DropMiscased(body, reflect.TypeFor[Body]())
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&b); err != nil {
		return nil, rules.DecodeViolation(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, rules.Format("", "The body holds data after the JSON object.")
	}
	return &b, nil
}
