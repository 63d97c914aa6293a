package payments

import (
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/redact"
	"github.com/tppkit/psd2/money"
)

//go:generate go run ../internal/redact/gen

// The printed and slog forms of the bank's answers. Their JSON form is
// the bank's document (links in full: a TPP hands the scaRedirect to its
// front end). Their String, GoString, Format (every fmt verb) and
// LogValue, generated from their form methods into print_gen.go, show
// the ids, statuses, the names of the links and the tppMessages' codes;
// the links' hrefs (the scaRedirect query carries the bank's SCA state)
// are not shown, and the psuMessage (text for the PSU, which may name
// them) shows as redacted when set.

// answer adds what the payment answers share to f (redact.Answer).
func answer(f *redact.Form, links client.Links, msgs []client.TPPMessage, psuMessage string) *redact.Form {
	return redact.Answer(f, links, msgs, func(m client.TPPMessage) string { return m.Code }, psuMessage)
}

// String describes i: the payment id, status, product and service, the
// fee, the names of its links and the tppMessages' codes; the links'
// hrefs (the scaRedirect carries the bank's SCA state) are not shown, and
// the psuMessage shows as redacted when set.
func (i Initiation) form() *redact.Form {
	f := redact.New("payments.Initiation").Str("paymentId", i.PaymentID).
		Str("transactionStatus", string(i.TransactionStatus)).Str("product", string(i.Product)).
		Str("service", string(i.Service))
	if i.TransactionFees != nil {
		f.Value("transactionFees", *i.TransactionFees)
	}
	f.Bool("transactionFeeIndicator", i.TransactionFeeIndicator)
	return answer(f, i.Links, i.Messages, i.PSUMessage)
}

// String describes r: the payment id, status and funds check, the names
// of its links and the tppMessages' codes; the psuMessage redacted.
func (r StatusResponse) form() *redact.Form {
	f := redact.New("payments.StatusResponse").Str("paymentId", r.PaymentID).
		Str("transactionStatus", string(r.TransactionStatus)).Bool("fundsAvailable", r.FundsAvailable)
	return answer(f, r.Links, r.Messages, r.PSUMessage)
}

// String describes a: the SCA status, the authorisation id and the names
// of its links; the psuMessage redacted.
func (a Authorisation) form() *redact.Form {
	f := redact.New("payments.Authorisation").Str("scaStatus", a.ScaStatus).Str("authorisationId", a.AuthorisationID)
	return answer(f, a.Links, nil, a.PSUMessage)
}

// String describes c: the HTTP status, the transaction status and the
// names of its links.
func (c Cancellation) form() *redact.Form {
	f := redact.New("payments.Cancellation").Int("statusCode", c.StatusCode).
		Str("transactionStatus", string(c.TransactionStatus))
	return answer(f, c.Links, nil, "")
}

// The printed and slog forms of the payment documents: the requests
// (NorwegianDomestic, SEPA) and the bank's Details, with the account
// references, addresses and structured references they hold. Their JSON
// is what is sent to the bank, or the bank's document, and stays data.
// String, GoString, Format (every fmt verb, %d and %x included) and
// LogValue show the amount, currencies, dates, codes, the status and the
// payment id; account numbers (BBAN, IBAN, a card's relatedAccount),
// names of the creditor and the ultimate debtor, addresses (but their
// country), the end-to-end reference and remittance information show as
// redacted when set. log/slog's JSON handler writes a slice of them with
// encoding/json, that is as their JSON: log them one by one.

// String describes r with its account numbers redacted.
func (r AccountReference) form() *redact.Form {
	return redact.New("payments.AccountReference").Secret("bban", r.BBAN).Secret("iban", r.IBAN).
		Nested("other", redact.Ptr(r.Other, OtherAccount.form)).Str("currency", r.Currency)
}

// String describes o by its scheme, the card account's reference
// redacted.
func (o OtherAccount) form() *redact.Form {
	return redact.New("payments.OtherAccount").Secret("identification", o.Identification).
		Str("schemeNameProprietary", o.SchemeNameProprietary)
}

// String describes a by its country; the rest redacted.
func (a Address) form() *redact.Form {
	return redact.New("payments.Address").Secret("street", a.Street).Secret("buildingNumber", a.BuildingNumber).
		Secret("postalCode", a.PostalCode).Secret("city", a.City).Str("country", a.Country)
}

// String describes r by its type (KID, for example); the reference and
// its issuer redacted.
func (r StructuredReference) form() *redact.Form {
	return redact.New("payments.StructuredReference").Secret("reference", r.Reference).
		Str("referenceType", r.ReferenceType).Secret("referenceIssuer", r.ReferenceIssuer)
}

// transfer is the part of a transfer's form its three documents share.
type transfer struct {
	endToEnd         string
	amount           money.Amount
	creditorName     string
	creditorAgent    string
	creditorAccount  AccountReference
	creditorAddress  *Address
	debtorAccount    AccountReference
	ultimateDebtor   string
	unstructured     string
	structured       *StructuredReference
	structuredArray  []StructuredReference
	purposeCode      string
	requestedExecute date.Date
}

func (tr transfer) add(f *redact.Form) *redact.Form {
	f.Secret("endToEndIdentification", tr.endToEnd).Value("instructedAmount", tr.amount).
		Secret("creditorName", tr.creditorName).Str("creditorAgent", tr.creditorAgent).
		Nested("creditorAccount", tr.creditorAccount.form()).Nested("creditorAddress", redact.Ptr(tr.creditorAddress, Address.form)).
		Nested("debtorAccount", tr.debtorAccount.form()).Secret("ultimateDebtor", tr.ultimateDebtor).
		Secret("remittanceInformationUnstructured", tr.unstructured).
		Nested("remittanceInformationStructured", redact.Ptr(tr.structured, StructuredReference.form))
	redact.FormsOf(f, "remittanceInformationStructuredArray", tr.structuredArray, StructuredReference.form)
	return f.Str("purposeCode", tr.purposeCode).Value("requestedExecutionDate", tr.requestedExecute)
}

// String describes p: amount, currencies, purpose code and date; names,
// account numbers, the address and the remittance information redacted.
func (p NorwegianDomestic) form() *redact.Form {
	return transfer{amount: p.InstructedAmount,
		creditorName: p.CreditorName, creditorAgent: p.CreditorAgent, creditorAccount: p.CreditorAccount,
		creditorAddress: p.CreditorAddress, debtorAccount: p.DebtorAccount, ultimateDebtor: p.UltimateDebtor,
		unstructured: p.RemittanceInformationUnstructured, structured: p.RemittanceInformationStructured,
		structuredArray: p.RemittanceInformationStructuredArray, purposeCode: p.PurposeCode,
		requestedExecute: p.RequestedExecutionDate}.add(redact.New("payments.NorwegianDomestic"))
}

// String describes p as [NorwegianDomestic.String] does, the end-to-end
// reference redacted too.
func (p SEPA) form() *redact.Form {
	return transfer{endToEnd: p.EndToEndIdentification,
		amount:       p.InstructedAmount,
		creditorName: p.CreditorName, creditorAccount: p.CreditorAccount, creditorAddress: p.CreditorAddress,
		debtorAccount: p.DebtorAccount, unstructured: p.RemittanceInformationUnstructured,
		requestedExecute: p.RequestedExecutionDate}.add(redact.New("payments.SEPA"))
}

// String describes d: payment id, status, amount, dates and codes, the
// links by name; names, account numbers, the address and the remittance
// information redacted.
func (d Details) form() *redact.Form {
	f := redact.New("payments.Details").Str("paymentId", d.PaymentID).Str("transactionStatus", string(d.TransactionStatus))
	transfer{endToEnd: d.EndToEndIdentification, amount: d.InstructedAmount,
		creditorName: d.CreditorName, creditorAgent: d.CreditorAgent, creditorAccount: d.CreditorAccount,
		creditorAddress: d.CreditorAddress, debtorAccount: d.DebtorAccount, ultimateDebtor: d.UltimateDebtor,
		unstructured: d.RemittanceInformationUnstructured, structured: d.RemittanceInformationStructured,
		structuredArray: d.RemittanceInformationStructuredArray, purposeCode: d.PurposeCode,
		requestedExecute: d.RequestedExecutionDate}.add(f)
	redact.Keys(f, "links", d.Links)
	f.Value("startDate", d.StartDate).Value("endDate", d.EndDate).Str("executionRule", d.ExecutionRule).
		Str("frequency", d.Frequency).Str("dayOfExecution", d.DayOfExecution).
		List("monthsOfExecution", d.MonthsOfExecution).Bool("batchBookingPreferred", d.BatchBookingPreferred)
	return redact.FormsOf(f, "payments", d.Payments, Details.form)
}
