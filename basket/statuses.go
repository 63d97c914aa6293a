package basket

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tppkit/psd2/client"
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
// The returned error is non-nil only when refs are invalid (an empty
// service, product or id: a [*client.ValidationError] with Field
// "refs[i].service", "refs[i].product" or "refs[i].paymentId"); then
// nothing is sent.
func (s *Service) PaymentStatuses(ctx context.Context, refs []payments.Ref, opts ...client.RequestOption) ([]PaymentStatus, error) {
	const op = "basket.PaymentStatuses"
	if s == nil || s.c == nil || s.pay == nil {
		return nil, errNoClient
	}
	if ctx == nil {
		return nil, &client.NotSentError{Operation: op, Err: &client.ValidationError{Field: "ctx", Reason: "nil context"}}
	}
	for i, r := range refs {
		// Refused as the client refuses one call, since none is sent.
		switch {
		case r.Service == "":
			return nil, &client.NotSentError{Operation: op, Err: &client.ValidationError{Field: "refs[" + strconv.Itoa(i) + "].service", Reason: "empty"}}
		case r.Product == "":
			return nil, &client.NotSentError{Operation: op, Err: &client.ValidationError{Field: "refs[" + strconv.Itoa(i) + "].product", Reason: "empty"}}
		case r.ID == "":
			return nil, &client.NotSentError{Operation: op, Err: &client.ValidationError{Field: "refs[" + strconv.Itoa(i) + "].paymentId", Reason: "empty"}}
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
