package emulator

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
// bulk payments), and how a body is decoded into them. The rules the
// values must follow are in paymentrules.go.

// Payment products of the platform's path table.
const (
	productNDCT    = "norwegian-domestic-credit-transfers"
	productSEPA    = "sepa-credit-transfers"
	productCBCT    = "cross-border-credit-transfers"
	productInstant = "instant-norwegian-domestic-credit-transfers-straks"
)

// Payment services (the first path segment after /v1).
const (
	servicePayments = "payments"
	servicePeriodic = "periodic-payments"
	serviceBulk     = "bulk-payments"
)

// paymentBody is the union of the fields of the payment request bodies
// (docs/interface.md sections 2.4, 2.5; Berlin Group periodic and bulk payments). Pointers
// tell absent from empty; the details endpoint echoes the body from it.
type paymentBody struct {
	EndToEndIdentification               *string             `json:"endToEndIdentification,omitempty"`
	InstructedAmount                     *paymentAmount      `json:"instructedAmount,omitempty"`
	CreditorName                         *string             `json:"creditorName,omitempty"`
	CreditorAgent                        *string             `json:"creditorAgent,omitempty"`
	CreditorAccount                      *paymentAccount     `json:"creditorAccount,omitempty"`
	CreditorAddress                      *paymentAddress     `json:"creditorAddress,omitempty"`
	DebtorAccount                        *paymentAccount     `json:"debtorAccount,omitempty"`
	UltimateDebtor                       *string             `json:"ultimateDebtor,omitempty"`
	RemittanceInformationUnstructured    *string             `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationStructured      *paymentReference   `json:"remittanceInformationStructured,omitempty"`
	RemittanceInformationStructuredArray *[]paymentReference `json:"remittanceInformationStructuredArray,omitempty"`
	PurposeCode                          *string             `json:"purposeCode,omitempty"`
	RequestedExecutionDate               *string             `json:"requestedExecutionDate,omitempty"`

	// Periodic payments.
	StartDate         *string   `json:"startDate,omitempty"`
	EndDate           *string   `json:"endDate,omitempty"`
	ExecutionRule     *string   `json:"executionRule,omitempty"`
	Frequency         *string   `json:"frequency,omitempty"`
	DayOfExecution    *string   `json:"dayOfExecution,omitempty"`
	MonthsOfExecution *[]string `json:"monthsOfExecution,omitempty"`

	// Bulk payments.
	BatchBookingPreferred *bool          `json:"batchBookingPreferred,omitempty"`
	Payments              *[]paymentBody `json:"payments,omitempty"`
}

// paymentAmount is a money object as sent. The amount stays raw so the
// check can tell a JSON string from a number.
type paymentAmount struct {
	Amount   json.RawMessage `json:"amount,omitempty"`
	Currency *string         `json:"currency,omitempty"`
}

// paymentAccount is an account reference (docs/interface.md section 2.3a).
type paymentAccount struct {
	IBAN     *string      `json:"iban,omitempty"`
	BBAN     *string      `json:"bban,omitempty"`
	Other    *paymentCard `json:"other,omitempty"`
	Currency *string      `json:"currency,omitempty"`
}

// paymentCard is the card account reference of an NDCT debtorAccount.
type paymentCard struct {
	Identification        *string `json:"identification,omitempty"`
	SchemeNameProprietary *string `json:"schemeNameProprietary,omitempty"`
}

// paymentAddress is a creditorAddress (docs/interface.md section 2.3).
type paymentAddress struct {
	Street         *string `json:"street,omitempty"`
	BuildingNumber *string `json:"buildingNumber,omitempty"`
	PostalCode     *string `json:"postalCode,omitempty"`
	City           *string `json:"city,omitempty"`
	Country        *string `json:"country,omitempty"`
}

// paymentReference is a structured remittance reference (docs/interface.md section 2.4).
type paymentReference struct {
	Reference       *string `json:"reference,omitempty"`
	ReferenceType   *string `json:"referenceType,omitempty"`
	ReferenceIssuer *string `json:"referenceIssuer,omitempty"`
}

// knownProduct reports whether product is one the emulator offers.
func knownProduct(product string) bool {
	switch product {
	case productNDCT, productSEPA, productCBCT, productInstant:
		return true
	}
	return false
}

// decodePaymentBody decodes a payment request body: valid UTF-8, one JSON
// object and nothing after it, each field of the JSON type the schema
// says (400 FORMAT_ERROR naming the field). Unknown fields are ignored,
// and so is a key naming a field in another case ("CREDITORNAME"): field
// names are case-sensitive (docs/interface.md sections 2.4, 2.5; see
// rules.DropMiscased).
func decodePaymentBody(body []byte) (*paymentBody, *apiError) {
	if !utf8.Valid(body) {
		return nil, errFormat("", "The body is not valid UTF-8.")
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, errFormat("", "The body is empty; a JSON payment object is required.")
	}
	if trimmed[0] != '{' {
		return nil, errFormat("", "The body must be a JSON object.")
	}
	var b paymentBody
	body, _ = rules.DropMiscased(body, reflect.TypeFor[paymentBody]())
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&b); err != nil {
		return nil, jsonProblem(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errFormat("", "The body holds data after the JSON object.")
	}
	return &b, nil
}
