package payments

import (
	"encoding/json"
	"slices"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
)

// Initiation is the bank's answer to a payment creation (docs/interface.md section 2.6):
// the paymentId, the status (RCVD), fees and the links to follow.
type Initiation struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	// PaymentID identifies the payment; keep it to read the status and to
	// put the payment in a signing basket.
	PaymentID string `json:"paymentId"`
	// TransactionStatus is the status at creation, normally RCVD.
	TransactionStatus TransactionStatus `json:"transactionStatus"`
	// TransactionFees is the total fee, nil when the bank names none.
	TransactionFees *money.Amount `json:"transactionFees,omitempty"`
	// TransactionFeeIndicator is true when the payment incurs a fee, nil
	// when the bank does not say.
	TransactionFeeIndicator *bool `json:"transactionFeeIndicator,omitempty"`
	// Messages are tppMessages on operational issues (docs/interface.md section 7).
	Messages []client.TPPMessage `json:"tppMessages,omitempty"`
	// PSUMessage is text to show the PSU.
	PSUMessage string `json:"psuMessage,omitempty"`
	// Links are self, status, startAuthorisation and, when SCA is needed,
	// scaRedirect (docs/interface.md section 10 "Paths").
	Links client.Links `json:"_links,omitempty"`
	// Product is the product the payment was created with; the SDK fills
	// it in, the bank does not send it.
	Product Product `json:"-"`
	// Service is the payment service the payment was created under
	// ([ServiceSingle], [ServicePeriodic] or [ServiceBulk]); the SDK fills
	// it in, the bank does not send it. Its status, details, cancellation
	// and authorisation are under the same service, which [Initiation.Ref]
	// carries: svc.Status(ctx, init.Ref()).
	Service PaymentService `json:"-"`
}

// SCARedirect returns the absolute URL of the bank's authorisation page to
// send the PSU to, or "" when the answer has none; then start SCA with
// [Service.StartAuthorisation] (docs/interface.md section 10 "Paths").
func (i *Initiation) SCARedirect() string {
	if i == nil {
		return ""
	}
	return i.Links.SCARedirect()
}

// StatusResponse is the answer of the payment status endpoint
// (docs/interface.md section 10 "Paths"): {paymentId, transactionStatus, fundsAvailable?,
// _links}.
type StatusResponse struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	// PaymentID is the payment's id (the platform sends it).
	PaymentID string `json:"paymentId,omitempty"`
	// TransactionStatus is the current status.
	TransactionStatus TransactionStatus `json:"transactionStatus"`
	// FundsAvailable is false when the bank cannot fund the payment now
	// (docs/interface.md section 2.6, 3); nil when the bank does not say.
	FundsAvailable *bool `json:"fundsAvailable,omitempty"`
	// PSUMessage is text to show the PSU.
	PSUMessage string `json:"psuMessage,omitempty"`
	// Messages are tppMessages on operational issues.
	Messages []client.TPPMessage `json:"tppMessages,omitempty"`
	// Links say what is allowed now: after signing, self loses DELETE and
	// startAuthorisation disappears.
	Links client.Links `json:"_links,omitempty"`
}

// FundsUnavailable reports whether the bank says it cannot fund the
// payment (fundsAvailable false; on this platform with status ACCP,
// docs/interface.md section 2.6, 3). The bank's batch tries again; the PSU may add money
// or cancel.
func (r *StatusResponse) FundsUnavailable() bool {
	return r != nil && r.FundsAvailable != nil && !*r.FundsAvailable
}

// Details is the answer of the payment details endpoint: the request as
// the bank holds it, with paymentId and links (docs/interface.md section 10 "Paths"). It
// holds the fields of every product; those the product lacks stay empty.
// InstructedAmount is the zero Amount, left out when encoded, when the
// bank sends none, as for a bulk payment, whose Payments carry theirs.
type Details struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	PaymentID                            string                `json:"paymentId"`
	EndToEndIdentification               string                `json:"endToEndIdentification,omitempty"`
	InstructedAmount                     money.Amount          `json:"instructedAmount,omitzero"`
	CreditorName                         string                `json:"creditorName,omitempty"`
	CreditorAgent                        string                `json:"creditorAgent,omitempty"`
	CreditorAccount                      AccountReference      `json:"creditorAccount"`
	CreditorAddress                      *Address              `json:"creditorAddress,omitempty"`
	DebtorAccount                        AccountReference      `json:"debtorAccount"`
	UltimateDebtor                       string                `json:"ultimateDebtor,omitempty"`
	RemittanceInformationUnstructured    string                `json:"remittanceInformationUnstructured,omitempty"`
	RemittanceInformationStructured      *StructuredReference  `json:"remittanceInformationStructured,omitempty"`
	RemittanceInformationStructuredArray []StructuredReference `json:"remittanceInformationStructuredArray,omitempty"`
	PurposeCode                          string                `json:"purposeCode,omitempty"`
	RequestedExecutionDate               date.Date             `json:"requestedExecutionDate,omitzero"`
	// TransactionStatus is usually absent: the platform does not send it
	// with the details; read it with [Service.Status].
	TransactionStatus TransactionStatus `json:"transactionStatus,omitempty"`
	Links             client.Links      `json:"_links,omitempty"`

	// The Berlin Group fields of a periodic payment
	// ([Service.Get] of a periodic payment's [Ref]); empty for other payments.
	StartDate         date.Date `json:"startDate,omitzero"`
	EndDate           date.Date `json:"endDate,omitzero"`
	ExecutionRule     string    `json:"executionRule,omitempty"`
	Frequency         string    `json:"frequency,omitempty"`
	DayOfExecution    string    `json:"dayOfExecution,omitempty"`
	MonthsOfExecution []string  `json:"monthsOfExecution,omitempty"`

	// The Berlin Group fields of a bulk payment ([Service.Get] of a
	// bulk payment's [Ref]):
	// the payments it holds, each without debtorAccount (the bulk's
	// DebtorAccount pays them all); empty for other payments.
	BatchBookingPreferred *bool     `json:"batchBookingPreferred,omitempty"`
	Payments              []Details `json:"payments,omitempty"`
}

// Authorisation is the answer of a start-authorisation call on a payment
// or a signing basket (docs/interface.md section 10 "Paths"): scaStatus (started) and the
// scaRedirect link.
type Authorisation struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	// ScaStatus is one of received, psuIdentified, psuAuthenticated,
	// scaMethodSelected, started, unconfirmed, finalised, failed,
	// exempted (docs/interface.md section 10 "Status values").
	ScaStatus string `json:"scaStatus"`
	// AuthorisationID identifies the authorisation sub-resource when the
	// bank sends one (Berlin Group; the platform's recordings have none).
	AuthorisationID string `json:"authorisationId,omitempty"`
	// Links hold scaRedirect.
	Links client.Links `json:"_links,omitempty"`
	// PSUMessage is text for the PSU, when present.
	PSUMessage string `json:"psuMessage,omitempty"`
}

// UnmarshalJSON decodes a start-authorisation answer, its
// authorisationId, when present, checked with [client.CheckID]: an id
// longer than [client.MaxIDLength] bytes is refused with a
// [*client.ValueTooLongError], one no path could carry (a control
// character, bytes that are not UTF-8, spaces around it) with a
// [*client.MalformedValueError], neither quoting it. It names a
// sub-resource a later call would put in a path, as a payment's id does.
func (a *Authorisation) UnmarshalJSON(b []byte) error {
	type plain Authorisation
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v.AuthorisationID != "" {
		if err := client.CheckID("authorisationId", v.AuthorisationID); err != nil {
			return err
		}
	}
	*a = Authorisation(v)
	return nil
}

// scaStatuses are the scaStatus values docs/interface.md section 10
// "Status values" lists.
var scaStatuses = []string{"received", "psuIdentified", "psuAuthenticated", "scaMethodSelected",
	"started", "unconfirmed", "finalised", "failed", "exempted"}

// ScaStatusKnown reports whether the answer's scaStatus is one the
// interface lists. A start of authorisation whose scaStatus is not
// listed is not refused: the authorisation may exist, and its scaRedirect
// is still where to send the PSU. The SDK keeps such a value as it came
// and no code of the SDK treats any scaStatus as final: the payment's
// own status ([Service.Status]) says what became of it.
func (a *Authorisation) ScaStatusKnown() bool {
	return a != nil && slices.Contains(scaStatuses, a.ScaStatus)
}

// SCARedirect returns the absolute URL of the bank's authorisation page,
// or "".
func (a *Authorisation) SCARedirect() string {
	if a == nil {
		return ""
	}
	return a.Links.SCARedirect()
}

// Cancellation is the answer of a cancellation (DELETE): 204 without a
// body (the payment is cancelled), or 202 with a body whose status and
// links say what happens next (for example a further authorisation).
type Cancellation struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	// StatusCode is 204 or 202.
	StatusCode int `json:"-"`
	// TransactionStatus is the status a 202 body names; "" for 204.
	TransactionStatus TransactionStatus `json:"transactionStatus,omitempty"`
	Links             client.Links      `json:"_links,omitempty"`
}

// SCARedirect returns the scaRedirect of a 202 cancellation that needs
// the PSU's authorisation, or "".
func (c *Cancellation) SCARedirect() string {
	if c == nil {
		return ""
	}
	return c.Links.SCARedirect()
}

// cancelAnswer is what a cancellation's answer is decoded into: the
// Cancellation, and what the body was, so that a 202 whose body is
// missing or says nothing is told apart from one that says what happens
// next. Its decoding never fails: a body that does not decode is
// recorded, and only a 202's body matters (a 204's is not read).
type cancelAnswer struct {
	Cancellation
	body    bool   // a body came
	invalid string // why the body is unusable, "" when it is not
}

// UnmarshalJSON keeps the Cancellation a JSON object decodes into, and
// records any other body.
func (a *cancelAnswer) UnmarshalJSON(b []byte) error {
	a.body = true
	if len(b) == 0 || b[0] != '{' {
		a.invalid = "whose body is not a JSON object"
		return nil
	}
	var c Cancellation
	if err := json.Unmarshal(b, &c); err != nil {
		a.invalid = "whose body does not decode"
		return nil
	}
	a.Cancellation.TransactionStatus, a.Cancellation.Links = c.TransactionStatus, c.Links
	return nil
}

// unusable says why a 202's body does not say what happens next, "" when
// it does.
func (a *cancelAnswer) unusable() string {
	switch {
	case !a.body:
		return "without a body"
	case a.invalid != "":
		return a.invalid
	case a.TransactionStatus == "" && len(a.Links) == 0:
		return "whose body names neither a transactionStatus nor a link"
	}
	return ""
}
