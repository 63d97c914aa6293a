package basket

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/pathseg"
	"github.com/tppkit/psd2/payments"
)

// Refs returns the [payments.Ref] of a single payment of product for
// each id, for baskets whose payments are all of one product (a basket
// holds single payments only, docs/interface.md section 2.7). A
// payment's own Initiation.Ref gives the same.
func Refs(product payments.Product, ids ...string) []payments.Ref {
	refs := make([]payments.Ref, len(ids))
	for i, id := range ids {
		refs[i] = payments.Ref{Service: payments.ServiceSingle, Product: product, ID: id}
	}
	return refs
}

// PaymentStatus is the outcome of reading one payment's status in
// [Service.PaymentStatuses]: exactly one of Status and Err is set.
type PaymentStatus struct {
	// Ref is the payment asked for.
	Ref payments.Ref
	// Status is the payment's own status answer.
	Status *payments.StatusResponse
	// Err is why the status could not be read: the bank's [*client.Error]
	// (a 404 for a domestic transfer not yet approved, the known issue of
	// docs/interface.md section 4.2, matches payments.ErrNotYetReadable),
	// a transport error, or the context's error for payments not asked
	// for after it ended.
	Err error
}

// PaymentStatuses reads the own status of each payment of refs, in order,
// with the payment status endpoint (GET
// /v1/payments/{product}/{id}/status). A basket is not atomic (docs/interface.md
// 2.7): its status is only the worst case, so after the batch has run
// each payment may have ended differently (ACSC, ACCP for lack of funds,
// RJCT).
//
// The result has one entry per ref, in the order of refs. One payment's
// failure does not stop the others: it is in that entry's Err. When ctx
// ends, the payments not yet asked for get ctx's error and are not sent.
//
// The returned error is non-nil only when refs are invalid; then nothing
// is sent and it is a [*client.NotSentError] holding a
// [*client.ValidationError] that quotes no id: more refs than a basket
// holds ([MaxPayments], Field "refs": one call is sent per ref, so the
// refs bound the calls), or a ref whose service is not one of the
// payment services, or whose product or id no path can carry (empty, a
// dot segment, a control character, bytes that are not UTF-8, spaces
// around it, an id longer than [client.MaxIDLength] bytes; Field
// "refs[i].service", "refs[i].product" or "refs[i].paymentId").
func (s *Service) PaymentStatuses(ctx context.Context, refs []payments.Ref, opts ...client.RequestOption) ([]PaymentStatus, error) {
	const op = "basket.PaymentStatuses"
	if s == nil || s.c == nil || s.pay == nil {
		return nil, errNoClient
	}
	if ctx == nil {
		return nil, &client.NotSentError{Operation: op, Err: &client.ValidationError{Field: "ctx", Reason: "nil context"}}
	}
	// Refused as the client refuses one call, since none is sent.
	if len(refs) > MaxPayments {
		return nil, &client.NotSentError{Operation: op, Err: &client.ValidationError{Field: "refs",
			Reason: strconv.Itoa(len(refs)) + " payments; a signing basket holds at most " + strconv.Itoa(MaxPayments)}}
	}
	for i, r := range refs {
		if field, reason := refProblem(r); field != "" {
			return nil, &client.NotSentError{Operation: op, Err: &client.ValidationError{Field: "refs[" + strconv.Itoa(i) + "]." + field, Reason: reason}}
		}
	}
	out := make([]PaymentStatus, len(refs))
	for i, r := range refs {
		out[i].Ref = r
		if err := ctx.Err(); err != nil {
			out[i].Err = fmt.Errorf("%s: %w", op, err)
			continue
		}
		out[i].Status, out[i].Err = s.pay.Status(ctx, r, opts...)
	}
	return out, nil
}

// refProblem names the member of r that no status call can carry and
// says why, without quoting it, or returns "", "".
func refProblem(r payments.Ref) (field, reason string) {
	switch r.Service {
	case "":
		return "service", "empty"
	case payments.ServiceSingle, payments.ServicePeriodic, payments.ServiceBulk:
	default:
		return "service", "not payments, periodic-payments or bulk-payments"
	}
	if r.Product == "" {
		return "product", "empty"
	}
	if p := segmentProblem(string(r.Product)); p != "" {
		return "product", p
	}
	if r.ID == "" {
		return "paymentId", "empty"
	}
	if len(r.ID) > client.MaxIDLength {
		return "paymentId", "longer than " + strconv.Itoa(client.MaxIDLength) + " bytes"
	}
	if p := segmentProblem(r.ID); p != "" {
		return "paymentId", p
	}
	return "", ""
}

// segmentProblem says why s cannot be a path segment of a call (the
// client's rule, pathseg.Problem), or is no value of the bank's (U+FFFD,
// which encoding/json puts in place of bytes that are not UTF-8, or a
// C1 control character), or returns "".
func segmentProblem(s string) string {
	if p := pathseg.Problem(s); p != "" {
		return p
	}
	if strings.ContainsRune(s, utf8.RuneError) {
		return "is not UTF-8"
	}
	if strings.ContainsFunc(s, unicode.IsControl) {
		return "contains a control character"
	}
	return ""
}
