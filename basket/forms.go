package basket

import (
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/redact"
)

//go:generate go run ../internal/redact/gen

// The printed and slog forms of the bank's basket answers. Their JSON is
// the bank's document (the scaRedirect in full, for the TPP's front end)
// and stays data. String, GoString, Format (every fmt verb) and LogValue
// show the basket id, status, payment count, link names and tppMessage
// codes; the links' hrefs (the scaRedirect carries the bank's SCA state)
// are not shown, and the psuMessage (text for the PSU, which may name
// them) shows as redacted when set.

// answer adds what the basket answers share to f (redact.Answer).
func answer(f *redact.Form, links client.Links, msgs []client.TPPMessage, psuMessage string) *redact.Form {
	return redact.Answer(f, links, msgs, func(m client.TPPMessage) string { return m.Code }, psuMessage)
}

// String describes b: id, status, the number of payments, the names of
// its links and the tppMessages' codes.
func (b Basket) form() *redact.Form {
	f := redact.New("basket.Basket").Str("basketId", b.BasketID).Str("transactionStatus", string(b.TransactionStatus)).
		Int("payments", len(b.PaymentIDs))
	return answer(f, b.Links, b.Messages, b.PSUMessage)
}

// String describes r: status, the names of its links and the
// tppMessages' codes.
func (r StatusResponse) form() *redact.Form {
	f := redact.New("basket.StatusResponse").Str("transactionStatus", string(r.TransactionStatus))
	return answer(f, r.Links, r.Messages, r.PSUMessage)
}
