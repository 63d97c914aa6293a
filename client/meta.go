package client

import (
	"net/http"
	"time"
)

// Meta is the response metadata of one successful call: what a bank's
// support asks for first (the X-Request-ID), the status, how many
// attempts the call took, and the few answer headers worth keeping. Every
// typed result of the service packages carries the Meta of the answer it
// was decoded from ([Answer.Meta]); an error carries the same facts in
// its own fields ([Error.RequestID], [Error.StatusCode]).
//
// It keeps no header map: only the values below, each bounded (a value
// beyond its bound is left out), none of which names the PSU or holds an
// id of an account or a payment (docs/interface.md sections 4 and 5), so
// that a result printed, logged or marshalled whole, by any fmt verb,
// leaks nothing through its metadata. That is why it keeps no Location
// header: the path of a created resource holds its id, and the result's
// links give it; a caller of [Client.Do] has it in [Response.Header].
type Meta struct {
	// Operation names the SDK call, e.g. "payments.Status", as
	// [Error.Operation] does.
	Operation string
	// RequestID is the X-Request-ID the SDK sent: the same on every
	// attempt of the call, the id to give the bank's support.
	RequestID string
	// EchoedRequestID is the X-Request-ID header of the bank's answer,
	// normally RequestID again; "" when the answer had none, more than
	// one, or one that is not a token of at most 128 printable ASCII
	// characters.
	EchoedRequestID string
	// StatusCode is the HTTP status of the answer (200, 201, 202, 204).
	StatusCode int
	// Attempts is the number of attempts the call took, 1 unless the
	// client retried it (docs/design.md section 2).
	Attempts int
	// Date is the bank's Date header, zero when absent, unreadable, or
	// given on several field lines that do not all say the same instant.
	Date time.Time
	// SCAApproach is the ASPSP-SCA-Approach header (REDIRECT on the
	// platform), "" when absent, given more than once, or not a token of
	// at most 128 letters and underscores.
	SCAApproach string
	// RetryAfter is the wait the answer's Retry-After header asks for,
	// read as [Error.RetryAfter] reads it (at most [RetryAfterCap]); 0
	// without one.
	RetryAfter time.Duration
}

// Bounds on the answer headers a [Meta] keeps: the one place they live.
// A value beyond them is dropped, not cut, so that what is kept is always
// what the bank sent.
const (
	// maxKeptToken bounds the echoed X-Request-ID (a UUID is 36) and the
	// ASPSP-SCA-Approach.
	maxKeptToken = 128
)

// Answer is embedded in every typed result of the service packages
// (payments.Initiation, accounts.BalanceReport, basket.Basket and the
// others): its [Answer.Meta] method gives the result's response
// metadata, the way stripe-go's LastResponse and the AWS SDK's
// ResultMetadata do. The client fills it when it decodes a 2xx answer
// into a value that embeds an Answer ([Client.Do]). An element of a list
// (an accounts.Transaction of an accounts.TransactionsPage) has none: the
// page has. A method that returns no such result (a plain list, or only
// an error) gives its metadata through [SaveMeta].
//
// It adds no member to a result's JSON, which stays the bank's document,
// and nothing to its printed forms.
type Answer struct {
	meta *Meta
}

// Meta returns the response metadata of the answer the value was decoded
// from, or the zero Meta for a value that was not (built by the caller,
// or an element of a list).
func (a Answer) Meta() Meta {
	if a.meta == nil {
		return Meta{}
	}
	return *a.meta
}

// answered is a value that embeds an [Answer]: Client.Do fills it.
type answered interface{ answer() *Answer }

func (a *Answer) answer() *Answer { return a }

// newMeta makes the Meta of a 2xx answer r to the call of operation op
// with X-Request-ID requestID, read at now.
func newMeta(op string, requestID string, r *reply, now time.Time) Meta {
	m := Meta{Operation: op, RequestID: requestID, StatusCode: r.status, Attempts: r.attempts,
		EchoedRequestID: keepToken(onlyValue(r.header, "X-Request-Id"), isRequestIDByte),
		SCAApproach:     keepToken(onlyValue(r.header, "Aspsp-Sca-Approach"), isApproachByte)}
	m.Date, _ = answerDate(r.header)
	m.RetryAfter, _ = retryAfter(r.header, m.Date, now)
	return m
}

// onlyValue returns the value of the header under the canonical key
// when the answer has exactly one field line of it, and "" otherwise:
// of two X-Request-ID lines, the first alone would show an echo of the
// request the bank did not give (the signature check reads both,
// verifyResponse).
func onlyValue(h http.Header, key string) string {
	if vs := h[key]; len(vs) == 1 {
		return vs[0]
	}
	return ""
}

// keepToken returns v when it is 1 to maxKeptToken bytes, each of which
// ok accepts, and "" otherwise.
func keepToken(v string, ok func(byte) bool) string {
	if len(v) > maxKeptToken {
		return ""
	}
	for i := 0; i < len(v); i++ {
		if !ok(v[i]) {
			return ""
		}
	}
	return v
}

// isRequestIDByte accepts printable ASCII but space.
func isRequestIDByte(b byte) bool { return b > ' ' && b < 0x7f }

// isApproachByte accepts the letters and underscores of the Berlin
// Group's SCA approaches (REDIRECT, EMBEDDED, DECOUPLED).
func isApproachByte(b byte) bool { return b == '_' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' }

// metaKey is the [WithValue] key under which [SaveMeta] hands the call
// its destination.
type metaKey struct{}

// SaveMeta stores the response metadata of the call's successful answer
// in *dst: how a caller of a service method whose result has no [Answer]
// (one that returns only an error, such as basket.Service.Delete, or a
// plain list, such as accounts.Service.List) gets the X-Request-ID, the
// status and the attempts of a success. It works on every call, typed or
// not; *dst is left as it was when the call fails (the error carries the
// request id: [Error.RequestID], [NotSentError.RequestID]). It is an
// option of one call: a dst shared through [WithDefaults] would be
// written by concurrent calls. The last SaveMeta of a call wins; a nil
// dst fails the call before it is sent.
func SaveMeta(dst *Meta) RequestOption {
	if dst == nil {
		return fail(&ValidationError{Field: "meta", Reason: "nil destination"})
	}
	return WithValue(metaKey{}, dst)
}

// deliverMeta hands m, the Meta of a successful answer, to the value the
// answer was decoded into when it embeds an [Answer], and to the
// destination of the call's [SaveMeta] if any.
func deliverMeta(m Meta, out any, values []callValue) {
	if a, ok := out.(answered); ok {
		kept := m
		a.answer().meta = &kept
	}
	for _, v := range values {
		if v.key == (metaKey{}) {
			*v.value.(*Meta) = m
		}
	}
}
