package payments

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tppkit/psd2/client"
)

// ErrNotYetReadable matches the error of a status or details read
// ([Service.Status], [Service.StatusAt], [Service.Get], [Service.GetAt])
// of a Norwegian domestic credit transfer,
// single, periodic or bulk, that the bank answered with 404.
// Known issue of the platform (docs/interface.md section 4.2): the details
// and status of an NDCT cannot be read before the PSU has approved it, and
// the bank answers 404. Such a 404 does not mean that the payment is gone:
// read again after the PSU completed the SCA (the redirect to
// TPP-Redirect-URI), or cancel it with [Service.Cancel] while it is RCVD.
// The bank gives the same 404 for an id it does not know; the SDK cannot
// tell the two apart, so a payment id that was never created also matches.
//
// The error is a [*NotYetReadableError]. It unwraps to the bank's
// [*client.Error], so it matches [client.ErrNotFound] too: check
// ErrNotYetReadable first.
var ErrNotYetReadable = errors.New("payments: the bank shows this payment only after the PSU approved it")

// NotYetReadableError is the 404 answer to a status or details read of a
// payment of a product that the bank cannot show before approval
// ([ErrNotYetReadable]).
type NotYetReadableError struct {
	// Product is the payment product of the read.
	Product Product
	// Service is the payment service of the read: [ServiceSingle],
	// [ServicePeriodic] or [ServiceBulk].
	Service PaymentService
	// Err is the bank's 404 answer.
	Err *client.Error
}

// Error returns one short line: the bank's answer and what it means.
func (e *NotYetReadableError) Error() string {
	return e.Err.Error() + " (" + ErrNotYetReadable.Error() + "; a 404 before approval is a known issue of the bank)"
}

// Unwrap returns the bank's answer.
func (e *NotYetReadableError) Unwrap() error { return e.Err }

// Is matches [ErrNotYetReadable].
func (e *NotYetReadableError) Is(target error) bool { return target == ErrNotYetReadable }

// unreadableBeforeApproval reports whether the bank cannot show payments of
// product p under service ps before the PSU approved them. This is the one
// place to add a product or to tell the services apart.
//
// ASSUMPTION: docs/interface.md section 4.2 names the known issue for "an
// NDCT" and says nothing of periodic or bulk payments (section 10 gives
// them the same status and details paths). The SDK applies it to the
// product under every service: a periodic or bulk NDCT's 404 to a status
// or details read is an ErrNotYetReadable too. That is the safe choice
// for [Service.Wait], which read again instead of giving
// up on a payment the PSU may still approve (a wrong id then waits until
// ctx ends, as for a single NDCT). It applies to reads only: a 404 to a
// cancellation ([Service.Cancel]) stays the bank's error,
// never a cancellation and never "gone". The other products are read
// normally.
func unreadableBeforeApproval(ps PaymentService, p Product) bool {
	return p == ProductNorwegianDomestic
}

// notYetReadable turns the bank's 404 to a status or details read of path
// (a /v1/{payment-service}/{product}/... path or href) into a
// [*NotYetReadableError] when the product cannot be read before approval;
// any other error is returned unchanged.
func notYetReadable(path string, err error) error {
	var ce *client.Error
	if !errors.As(err, &ce) || ce.StatusCode != http.StatusNotFound {
		return err
	}
	ps, p := productOfPath(path)
	if p == "" || !unreadableBeforeApproval(ps, p) {
		return err
	}
	return &NotYetReadableError{Product: p, Service: ps, Err: ce}
}

// productOfPath returns the {payment-service} and {payment-product}
// segments of a /v1/{payment-service}/{product}/{id}... path, relative or
// absolute (under any base path, such as /api), or "" and "".
func productOfPath(path string) (PaymentService, Product) {
	u, err := url.Parse(path)
	if err != nil {
		return "", ""
	}
	segs := strings.Split(u.Path, "/")
	for i := 1; i+1 < len(segs); i++ {
		ps := PaymentService(segs[i])
		if segs[i-1] == "v1" && ps.check() == nil {
			return ps, Product(segs[i+1])
		}
	}
	return "", ""
}

// ErrLogicalDuplicate matches the bank's refusal of a payment creation as
// a logical duplicate of a payment it already holds (same debtor,
// creditor, amount and date; docs/interface.md section 4.2): 400 with
// PAYMENT_FAILED on this platform. Nothing new was created. The error
// unwraps to the bank's [*client.Error]. To pay the same payee the same
// amount again on purpose, send the create with [AllowLogicalDuplicate];
// see docs/design.md section 8 for when that is safe after an outcome
// that was unknown.
var ErrLogicalDuplicate = errors.New("payments: refused as a logical duplicate")

// logicalDuplicateError is the bank's refusal of a create as a logical
// duplicate: it prints as the bank's answer and matches
// [ErrLogicalDuplicate].
type logicalDuplicateError struct{ err error }

func (e *logicalDuplicateError) Error() string        { return e.err.Error() }
func (e *logicalDuplicateError) Unwrap() error        { return e.err }
func (e *logicalDuplicateError) Is(target error) bool { return target == ErrLogicalDuplicate }

// logicalDuplicate marks the bank's refusal of a payment creation as a
// logical duplicate ([ErrLogicalDuplicate]); any other error is returned
// unchanged.
func logicalDuplicate(err error) error {
	var ce *client.Error
	if errors.As(err, &ce) && ce.StatusCode == http.StatusBadRequest && ce.HasCode(client.CodePaymentFailed) &&
		!errors.Is(err, client.ErrOutcomeUnknown) {
		return &logicalDuplicateError{err}
	}
	return err
}

// ErrCancellationUnconfirmed matches the error of a cancellation
// ([Service.Cancel], [Service.CancelAt]) that the bank answered with a
// 2xx that is not one the interface names (docs/interface.md section 10
// "Paths": 204, or 202 with a body): another 2xx status, or a 202 without
// a body, whose body is not a JSON object, or names neither a
// transactionStatus nor a link. The bank received the cancellation, but
// its answer says neither that the payment was cancelled nor that it was
// not: read the payment's status ([Service.Status]; CANC is cancelled)
// before telling anyone either. So is an error answer to an attempt the
// client sent again after one that may have reached the bank and
// cancelled the payment (see [Service.Cancel]). The error is a
// [*CancellationUnconfirmedError].
var ErrCancellationUnconfirmed = errors.New("payments: the bank's answer to the cancellation is not one the interface names")

// CancellationUnconfirmedError is a cancellation's 2xx answer that is not
// one the interface names ([ErrCancellationUnconfirmed]). It quotes
// nothing of the bank's body.
type CancellationUnconfirmedError struct {
	// Operation is "payments.Cancel" or "payments.CancelAt".
	Operation string
	// RequestID is the X-Request-ID of the cancellation.
	RequestID string
	// StatusCode is the status the bank answered.
	StatusCode int
	// Reason says what is wrong with a 202's body ("without a body", ...);
	// "" when the status itself is not one the interface names.
	Reason string
	// Err is the client's [*client.UnexpectedStatusError] when the status
	// is not one the interface names, the bank's error answer (a
	// [*client.Error]) to a retried attempt, else nil.
	Err error

	// retried: the answer came to an attempt sent again after one that
	// may have cancelled the payment.
	retried bool
}

// Error returns one line: the answer, that it is not one the interface
// names, and what to do.
func (e *CancellationUnconfirmedError) Error() string {
	answer := strconv.Itoa(e.StatusCode)
	if e.retried {
		return e.Operation + ": the bank answered " + answer + " to a retry of the cancellation after an earlier attempt that may have cancelled the payment (X-Request-ID " + e.RequestID +
			"): whether the payment was cancelled is unknown; read the payment's status to learn it"
	}
	if e.Reason != "" {
		answer += " " + e.Reason
	}
	return e.Operation + ": the bank answered " + answer + ", not an answer the interface names for a cancellation (204, or 202 with a body) (X-Request-ID " + e.RequestID +
		"): whether the payment was cancelled is unknown; read the payment's status to learn it"
}

// Unwrap returns Err.
func (e *CancellationUnconfirmedError) Unwrap() error { return e.Err }

// Is matches [ErrCancellationUnconfirmed].
func (e *CancellationUnconfirmedError) Is(target error) bool {
	return target == ErrCancellationUnconfirmed
}

// ErrIncompleteAnswer matches the error of a payment read whose 200
// answer lacks what the interface says it carries (docs/interface.md
// section 10 "Paths"): a status answer ([Service.Status],
// [Service.StatusAt]) without a transactionStatus, a details answer
// ([Service.Get], [Service.GetAt]) without a paymentId, an empty body
// or `{}` included; so is a signing basket's read (package basket's Get,
// GetAt, Status and StatusAt) without a transactionStatus
// (docs/interface.md section 2.7). The error is an [*IncompleteAnswerError]. A read
// answered with another 2xx status (a 204) fails with a
// [*client.UnexpectedStatusError] instead ([client.ErrUnexpectedStatus]).
// Neither says anything about the payment's state: read it again later.
var ErrIncompleteAnswer = errors.New("payments: the bank's answer lacks what the interface says it carries")

// IncompleteAnswerError is the 200 answer of a payment's (or a signing
// basket's) read without the member the interface says it carries
// ([ErrIncompleteAnswer]).
type IncompleteAnswerError struct {
	// Operation is the SDK call, e.g. "payments.Status".
	Operation string
	// RequestID is the X-Request-ID of the read.
	RequestID string
	// StatusCode is the status the bank answered.
	StatusCode int
	// Missing names the member the answer lacks ("transactionStatus",
	// "paymentId").
	Missing string
}

// Error returns one line: the call, the member missing, and that the
// payment's state is unknown.
func (e *IncompleteAnswerError) Error() string {
	what := "payment"
	if strings.HasPrefix(e.Operation, "basket.") {
		what = "basket"
	}
	return e.Operation + ": the bank answered " + strconv.Itoa(e.StatusCode) + " without " + e.Missing + " (X-Request-ID " + e.RequestID +
		"): the " + what + "'s state is unknown; read it again later"
}

// Is matches [ErrIncompleteAnswer].
func (e *IncompleteAnswerError) Is(target error) bool { return target == ErrIncompleteAnswer }
