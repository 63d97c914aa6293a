package reconcile

import (
	"time"

	"github.com/tppkit/psd2/internal/redact"
)

//go:generate go run ../internal/redact/gen

// The printed and slog forms of a Payment show what identifies no one
// (its request id, product, scheme, amount, dates and status); its
// creditor account, KID, end-to-end id and remittance text show as
// [redacted] when set: they name the creditor, and the payer's invoice.
// State, Round and Credit hold no personal data (the TPP's reference,
// the SDK's keys, amounts and dates) and print as they are.

// String describes p with its creditor account, KID, end-to-end id and
// remittance redacted.
func (p Payment) form() *redact.Form {
	f := redact.New("reconcile.Payment").Str("requestId", p.RequestID)
	if !p.Created.IsZero() {
		f.Str("created", p.Created.UTC().Format(time.RFC3339))
	}
	f.Str("product", string(p.Product))
	if p.Scheme != 0 {
		f.Str("scheme", p.Scheme.String())
	}
	f.Value("amount", p.Amount).Secret("creditorIban", p.CreditorIBAN).Secret("creditorBban", p.CreditorBBAN).
		Secret("kid", p.KID).Secret("endToEndId", p.EndToEndID).Secret("remittance", p.Remittance).
		Value("executionDate", p.ExecutionDate).Str("status", string(p.Status))
	if !p.StatusAt.IsZero() {
		f.Str("statusAt", p.StatusAt.UTC().Format(time.RFC3339))
	}
	return f
}
