package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// What became of a request that failed without a usable answer. Every
// failed call of the pipeline that got no answer from the bank matches
// exactly one of these two sentinels, so budget accounting and
// reconciliation never have to guess from an error's type.
var (
	// ErrOutcomeUnknown: a request that is not safe to repeat (a payment
	// POST, a start of authorisation) may or may not have reached the
	// bank, and was not sent again. Reconcile before trying again; see
	// [OutcomeUnknownError].
	ErrOutcomeUnknown = errors.New("client: outcome unknown; the request was not sent again")
	// ErrNotSent: the request certainly never reached the bank (the
	// connection was refused, the TLS handshake or the certificate check
	// failed, or it was stopped before any byte of it was written). It is
	// safe to send it again; see [NotSentError].
	ErrNotSent = errors.New("client: request not sent")
)

// OutcomeUnknownError is returned when a request that must not be repeated
// (a payment POST) failed after it may have reached the bank: the
// connection dropped after the body was sent, the call timed out, or the
// bank answered 5xx. The request was not sent again. It matches
// ErrOutcomeUnknown.
//
// To reconcile: if the payment id is known, read its status; otherwise
// list what the bank holds or retry deliberately with the same content and
// let the bank's logical-duplicate check refuse a second payment (do not
// set allowLogicalDuplicate on such a retry).
type OutcomeUnknownError struct {
	Operation string
	// RequestID is the X-Request-ID of the request whose outcome is unknown.
	RequestID string
	// StatusCode is the HTTP status of an answer that left the outcome
	// unknown (5xx, 408, a bare 4xx, an unusable 2xx), else 0: 0 too for
	// an answer whose code is outside 100–599, which is no HTTP status;
	// Err is then a [*StatusOutOfRangeError], which keeps the code.
	StatusCode int
	// Err is the underlying transport error or *Error.
	Err error
}

func (e *OutcomeUnknownError) Error() string {
	return fmt.Sprintf("%s: outcome unknown, not sent again (X-Request-ID %s): %v", e.Operation, e.RequestID, e.Err)
}

// Unwrap returns the underlying error. Should it match [ErrNotSent] (a
// caller's context cancelled with such an error as its cause, which
// net/http returns as the attempt's error), it comes without that match,
// nor a *NotSentError for errors.As: the call matches only
// ErrOutcomeUnknown. Err keeps it as it came.
func (e *OutcomeUnknownError) Unwrap() error { return without(e.Err, ErrNotSent) }

// Is matches ErrOutcomeUnknown.
func (e *OutcomeUnknownError) Is(target error) bool { return target == ErrOutcomeUnknown }

// NotSentError is returned when a call failed before any byte of its
// request was written to the bank: nothing was created or counted there.
// It matches ErrNotSent. The pipeline itself retries such a failure within
// the retry policy, for POSTs too; this error means the retries were spent
// or the caller's context ended.
type NotSentError struct {
	Operation string
	// RequestID is the X-Request-ID the request would have carried.
	RequestID string
	// Err is the underlying error (dial, TLS handshake, certificate, context).
	Err error
}

func (e *NotSentError) Error() string {
	return fmt.Sprintf("%s: not sent: %v", e.Operation, e.Err)
}

// Unwrap returns the underlying error. Should it match
// [ErrOutcomeUnknown] (a caller's context cancelled with such an error as
// its cause), it comes without that match, nor an *OutcomeUnknownError
// for errors.As: the call matches only ErrNotSent. Err keeps it as it
// came.
func (e *NotSentError) Unwrap() error { return without(e.Err, ErrOutcomeUnknown) }

// without returns err, or, when err matches sentinel (ErrNotSent or
// ErrOutcomeUnknown), err without that match: every failed call matches
// exactly one of the two sentinels, whatever foreign error (a caller's
// context cause, a caller's transport's error) its chain holds.
func without(err, sentinel error) error {
	if err == nil || !errors.Is(err, sentinel) {
		return err
	}
	return &withoutSentinel{err: err, sentinel: sentinel}
}

// withoutSentinel is an error chain that matches neither its sentinel
// nor the sentinel's error type, and everything else its error matches.
type withoutSentinel struct{ err, sentinel error }

func (w *withoutSentinel) Error() string { return w.err.Error() }

// Is matches what the error matches, but the sentinel.
func (w *withoutSentinel) Is(target error) bool {
	return target != w.sentinel && errors.Is(w.err, target)
}

// As finds what errors.As finds in the error, but the sentinel's type.
func (w *withoutSentinel) As(target any) bool {
	switch target.(type) {
	case **NotSentError:
		if w.sentinel == ErrNotSent {
			return false
		}
	case **OutcomeUnknownError:
		if w.sentinel == ErrOutcomeUnknown {
			return false
		}
	}
	return errors.As(w.err, target)
}

// Is matches ErrNotSent.
func (e *NotSentError) Is(target error) bool { return target == ErrNotSent }

// bankRefusal reports whether a non-2xx answer to a request that is not
// repeatable proves that the bank did not act on it: a 4xx other than
// 408 carrying the bank's tppMessages (read, or named in a body cut at
// the limit), under that name exactly, with no member of that name in
// another case beside it. A 408, a bare 4xx (a gateway's), a 3xx and a 5xx leave
// the outcome unknown. body is the answer's body as e was read from, its
// Content-Encoding undone (nil when it cannot be); cut says the client
// cut it at maxErrorBody.
//
// Only a body the client cut may name tppMessages without being JSON: a
// whole body that is not JSON (the bank's document followed by other
// bytes, or one that stops short) is no answer the bank's API gives, and
// proves nothing, whatever it names.
func bankRefusal(status int, body []byte, cut bool, e *Error) bool {
	if status < 400 || status >= 500 || status == http.StatusRequestTimeout {
		return false
	}
	if len(e.Messages) > 0 {
		// newError read them under the interface's name only, with no
		// other spelling beside it (errorMembers): encoding/json would
		// take a "TPPMessages" that is not the bank's refusal, or that
		// replaced the bank's member.
		return true
	}
	return cut && bytes.Contains(body, []byte(`"tppMessages"`)) && !json.Valid(body)
}

// ErrUnexpectedStatus matches the error of a call whose 2xx answer has a
// status the interface does not name for it ([Operation.Statuses]): see
// [UnexpectedStatusError].
var ErrUnexpectedStatus = errors.New("client: the bank's 2xx status is not one the interface names for this call")

// UnexpectedStatusError is a 2xx answer whose status is not among those
// the interface names for the call ([Operation.Statuses]), a 200 to a
// payment's cancellation (204, or 202 with a body) for example. The bank
// answered, but not as the interface says: the SDK does not guess what
// it did, and does not decode the answer. Learn the resource's state by
// reading it. It matches [ErrUnexpectedStatus]; for a request that is not
// repeatable it comes inside an [*OutcomeUnknownError].
type UnexpectedStatusError struct {
	Operation string
	// RequestID is the X-Request-ID of the request.
	RequestID string
	// StatusCode is the status the bank answered.
	StatusCode int
	// Named are the statuses the interface names for the call.
	Named []int
}

func (e *UnexpectedStatusError) Error() string {
	named := make([]string, len(e.Named))
	for i, s := range e.Named {
		named[i] = strconv.Itoa(s)
	}
	return fmt.Sprintf("%s: the bank answered %d, not an answer the interface names for this call (%s) (X-Request-ID %s): what the bank did is unknown",
		e.Operation, e.StatusCode, strings.Join(named, " or "), e.RequestID)
}

// Is matches [ErrUnexpectedStatus].
func (e *UnexpectedStatusError) Is(target error) bool { return target == ErrUnexpectedStatus }

// ErrStatusOutOfRange matches the error of an answer whose status code is
// outside 100–599: see [StatusOutOfRangeError].
var ErrStatusOutOfRange = errors.New("client: the answer's status code is outside 100-599")

// StatusOutOfRangeError is an answer whose status line has a code outside
// 100–599 (000 or 999 from a broken proxy, any int from a caller's
// transport): no HTTP status (RFC 9110 section 15), so it says neither
// that the bank acted nor that it did not, and nothing of the answer is
// read. The call fails as when the connection is lost after the request
// was sent: a request that is not repeatable (a create) is not sent again
// and ends in an [*OutcomeUnknownError] holding this error (its
// StatusCode 0); a repeatable one is retried as after a lost connection
// (a call the budget counts is not: its BeforeRetry sees no status) and
// ends with this error. It matches [ErrStatusOutOfRange].
type StatusOutOfRangeError struct {
	// StatusCode is the code the answer's status line carried.
	StatusCode int
}

func (e *StatusOutOfRangeError) Error() string {
	return fmt.Sprintf("the answer's status code %03d is outside 100-599, not an HTTP status: nothing of the answer was read", e.StatusCode)
}

// Is matches [ErrStatusOutOfRange].
func (e *StatusOutOfRangeError) Is(target error) bool { return target == ErrStatusOutOfRange }
