package payments

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/tppkit/psd2/client"
)

// The slog forms of the bank's answers. Their JSON form is the bank's
// document (links in full: a TPP hands the scaRedirect to its front end),
// which is what log/slog's JSON handler would write for a struct without
// LogValue. LogValue instead gives each link to [client.Links]' own
// LogValue, which redacts the hrefs (the scaRedirect query carries the
// bank's SCA state). Their printed forms (%v, %+v, %#v) print the links
// with client.Links' String and GoString, redacted the same way.

// String describes r: its kind, the payment id, status and resend's
// request id when known, the reason and the time. The Initiation (whose
// links carry the bank's SCA state) is not printed: read it.
func (r Resolution) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "payments.Resolution{kind=%s", r.Kind)
	if r.PaymentID != "" {
		fmt.Fprintf(&b, " paymentId=%s", r.PaymentID)
	}
	if r.Status != "" {
		fmt.Fprintf(&b, " status=%s", r.Status)
	}
	if r.ResendRequestID != "" {
		fmt.Fprintf(&b, " resendRequestId=%s", r.ResendRequestID)
	}
	if r.Reason != "" {
		fmt.Fprintf(&b, " reason=%q", r.Reason)
	}
	if !r.At.IsZero() {
		fmt.Fprintf(&b, " at=%s", r.At.Format(time.RFC3339Nano))
	}
	if r.Initiation != nil {
		b.WriteString(" initiation=set")
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String, for %#v.
func (r Resolution) GoString() string { return r.String() }

// Format prints String for every verb (GoString for %#v): printed field
// by field, a verb other than %v would print the Initiation's links in
// full.
func (r Resolution) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, r.GoString())
		return
	}
	_, _ = io.WriteString(f, r.String())
}

// LogValue makes log/slog print r as a group of its fields, the
// Initiation (when set) with its links redacted ([Initiation.LogValue]).
func (r Resolution) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("kind", string(r.Kind))}
	if r.PaymentID != "" {
		attrs = append(attrs, slog.String("paymentId", r.PaymentID))
	}
	if r.Status != "" {
		attrs = append(attrs, slog.String("status", string(r.Status)))
	}
	if r.ResendRequestID != "" {
		attrs = append(attrs, slog.String("resendRequestId", r.ResendRequestID))
	}
	if r.Reason != "" {
		attrs = append(attrs, slog.String("reason", r.Reason))
	}
	attrs = append(attrs, slog.Time("at", r.At))
	if r.Initiation != nil {
		attrs = append(attrs, slog.Any("initiation", *r.Initiation))
	}
	return slog.GroupValue(attrs...)
}

// LogValue makes log/slog print i as a group of its fields, its links
// redacted by [client.Links]' LogValue.
func (i Initiation) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("paymentId", i.PaymentID), slog.String("transactionStatus", string(i.TransactionStatus))}
	if i.Product != "" {
		attrs = append(attrs, slog.String("product", string(i.Product)))
	}
	if i.Service != "" {
		attrs = append(attrs, slog.String("service", string(i.Service)))
	}
	if i.TransactionFees != nil {
		attrs = append(attrs, slog.String("transactionFees", i.TransactionFees.String()))
	}
	if i.TransactionFeeIndicator != nil {
		attrs = append(attrs, slog.Bool("transactionFeeIndicator", *i.TransactionFeeIndicator))
	}
	return slog.GroupValue(withMessagesAndLinks(attrs, i.Messages, i.PSUMessage, i.Links)...)
}

// LogValue makes log/slog print r as a group of its fields, its links
// redacted by [client.Links]' LogValue.
func (r StatusResponse) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("transactionStatus", string(r.TransactionStatus))}
	if r.PaymentID != "" {
		attrs = append(attrs, slog.String("paymentId", r.PaymentID))
	}
	if r.FundsAvailable != nil {
		attrs = append(attrs, slog.Bool("fundsAvailable", *r.FundsAvailable))
	}
	return slog.GroupValue(withMessagesAndLinks(attrs, r.Messages, r.PSUMessage, r.Links)...)
}

// LogValue makes log/slog print a as a group of its fields, its links
// redacted by [client.Links]' LogValue.
func (a Authorisation) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("scaStatus", a.ScaStatus)}
	if a.AuthorisationID != "" {
		attrs = append(attrs, slog.String("authorisationId", a.AuthorisationID))
	}
	return slog.GroupValue(withMessagesAndLinks(attrs, nil, a.PSUMessage, a.Links)...)
}

// LogValue makes log/slog print c as a group of its fields, its links
// redacted by [client.Links]' LogValue.
func (c Cancellation) LogValue() slog.Value {
	attrs := []slog.Attr{slog.Int("statusCode", c.StatusCode)}
	if c.TransactionStatus != "" {
		attrs = append(attrs, slog.String("transactionStatus", string(c.TransactionStatus)))
	}
	return slog.GroupValue(withMessagesAndLinks(attrs, nil, "", c.Links)...)
}

// withMessagesAndLinks adds the tppMessages' codes, the PSU message and
// the links (as client.Links, whose LogValue redacts them) to attrs.
func withMessagesAndLinks(attrs []slog.Attr, msgs []client.TPPMessage, psuMessage string, links client.Links) []slog.Attr {
	if len(msgs) > 0 {
		codes := make([]string, len(msgs))
		for i, m := range msgs {
			codes[i] = m.Code
		}
		attrs = append(attrs, slog.Any("tppMessages", codes))
	}
	if psuMessage != "" {
		attrs = append(attrs, slog.String("psuMessage", psuMessage))
	}
	if len(links) > 0 {
		attrs = append(attrs, slog.Any("links", links))
	}
	return attrs
}
