package basket

import (
	"encoding/json"
	"strconv"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
)

// MaxPayments is the most payments one signing basket may hold
// (docs/interface.md section 2.7 and 8). [Service.Create] refuses more before sending,
// and so does [Service.PaymentStatuses] (one call per payment),
// and a basket answer listing more is refused ([TooManyPaymentsError]).
const MaxPayments = 10

// Basket is a signing basket as the bank describes it (docs/interface.md section 2.7): the
// answer of [Service.Create] (201) and of [Service.Get] (200).
//
// A basket is not atomic: its TransactionStatus is the worst case of its
// payments (RCVD, ACTC, PATC or RJCT, docs/interface.md section 3). Read each payment's
// own status with [Service.PaymentStatuses].
type Basket struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	// BasketID identifies the basket in later calls. The spec marks it
	// optional in the answer; the platform sends it on create.
	BasketID string `json:"basketId,omitempty"`
	// TransactionStatus is the basket's status: RCVD, ACTC, PATC or RJCT.
	TransactionStatus payments.TransactionStatus `json:"transactionStatus"`
	// PaymentIDs are the ids of the basket's payments. The request field is
	// paymentIds; the GET answer calls it payments (Berlin Group,
	// docs/interface.md section 10); both decode here. On a create answer that lists none,
	// [Service.Create] fills in the ids it sent.
	PaymentIDs []string `json:"paymentIds,omitempty"`
	// Links are self, status, startAuthorisation and, when SCA is needed,
	// scaRedirect. Their verbs say what is allowed now (self loses DELETE
	// once the basket is signed).
	Links client.Links `json:"_links,omitempty"`
	// Messages are the tppMessages of the answer (docs/interface.md section 7).
	Messages []client.TPPMessage `json:"tppMessages,omitempty"`
	// PSUMessage is text for the PSU (at most 512 characters, docs/interface.md section 8).
	PSUMessage string `json:"psuMessage,omitempty"`
}

// UnmarshalJSON decodes a basket answer, taking the payment ids from
// paymentIds or, when that is absent, from payments (the field name of the
// GET answer, docs/interface.md section 10). Unknown fields are ignored.
// The basketId and every payment id are checked with [client.CheckID]:
// later calls put them in a path, so one longer than
// [client.MaxIDLength] bytes is refused with a
// [*client.ValueTooLongError], not cut, and one no path could carry (an
// empty payment id, a control character, bytes that are not UTF-8,
// spaces around it) with a [*client.MalformedValueError]. An
// answer listing more than [MaxPayments] payments is refused with a
// [*TooManyPaymentsError].
func (b *Basket) UnmarshalJSON(data []byte) error {
	type plain Basket
	var v struct {
		plain
		Payments []string `json:"payments"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if v.BasketID != "" {
		if err := client.CheckID("basketId", v.BasketID); err != nil {
			return err
		}
	}
	field, ids := "paymentIds", v.PaymentIDs
	if ids == nil {
		field, ids = "payments", v.Payments
	}
	if len(ids) > MaxPayments {
		return &TooManyPaymentsError{Field: field, Count: len(ids), Max: MaxPayments}
	}
	for i, id := range ids {
		if err := client.CheckID(field+"["+strconv.Itoa(i)+"]", id); err != nil {
			return err
		}
	}
	*b = Basket(v.plain)
	b.PaymentIDs = ids
	return nil
}

// SCARedirect returns the absolute URL of the bank's authorisation page
// where the PSU approves every payment of the basket with one SCA, or ""
// when the answer carries none; then start SCA with
// [Service.StartAuthorisation] (docs/interface.md section 5.8, docs/interface.md section 10 "Paths").
func (b *Basket) SCARedirect() string {
	if b == nil {
		return ""
	}
	return b.Links.SCARedirect()
}

// StatusResponse is the answer of GET /v1/signing-baskets/{id}/status
// ([Service.Status]).
type StatusResponse struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	// TransactionStatus is the basket's status, the worst case of its
	// payments: RCVD, ACTC, PATC or RJCT (docs/interface.md section 2.7, 3).
	TransactionStatus payments.TransactionStatus `json:"transactionStatus"`
	// Links are the answer's _links, when the bank sends any.
	Links client.Links `json:"_links,omitempty"`
	// Messages are the tppMessages of the answer (docs/interface.md section 7).
	Messages []client.TPPMessage `json:"tppMessages,omitempty"`
	// PSUMessage is text for the PSU, when present.
	PSUMessage string `json:"psuMessage,omitempty"`
}

// Authorisation is the answer of POST
// /v1/signing-baskets/{id}/authorisations ([Service.StartAuthorisation]):
// the SCA status and the link to send the PSU to. It is the same document
// as a payment's start-authorisation answer.
type Authorisation = payments.Authorisation

// createRequest is the body of POST /v1/signing-baskets (docs/interface.md section 4.1).
type createRequest struct {
	PaymentIDs []string `json:"paymentIds"`
}
