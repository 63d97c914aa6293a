package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Error codes of SERVICE.md section 7 and PLATFORM.md that callers commonly
// branch on. TPPMessage.Code holds the code as the bank sent it.
const (
	CodeSystemError          = "SYSTEM_ERROR"
	CodeFormatError          = "FORMAT_ERROR"
	CodeHTTPHeaderRequired   = "HTTP_HEADER_REQUIRED"
	CodeCertificateInvalid   = "CERTIFICATE_INVALID"
	CodeCertificateExpired   = "CERTIFICATE_EXPIRED"
	CodeConsentUnknown       = "CONSENT_UNKNOWN"
	CodeConsentInvalid       = "CONSENT_INVALID"
	CodeConsentExpired       = "CONSENT_EXPIRED"
	CodeAccessExceeded       = "ACCESS_EXCEEDED"
	CodeProductUnknown       = "PRODUCT_UNKNOWN"
	CodeProductInvalid       = "PRODUCT_INVALID"
	CodeKIDMissing           = "KID_MISSING"
	CodeKIDInvalid           = "KID_INVALID"
	CodePaymentFailed        = "PAYMENT_FAILED"
	CodeExecutionDateInvalid = "EXECUTION_DATE_INVALID"
	CodeReferenceMixInvalid  = "REFERENCE_MIX_INVALID"
	CodeResourceUnknown      = "RESOURCE_UNKNOWN"
	CodeCancellationInvalid  = "CANCELLATION_INVALID"
	CodeSCAInvalid           = "SCA_INVALID"
	CodeSCAExpired           = "SCA_EXPIRED"
)

// Sentinel errors. A *Error matches them with errors.Is by status and code
// (see [Error.Is]).
var (
	// ErrSCARequired: the answer carries a scaRedirect link (typically 401
	// on an account call without a valid session). Send the PSU to
	// [SCARedirect] of the error.
	ErrSCARequired = errors.New("client: strong customer authentication required")
	// ErrConsentExpired: 401 CONSENT_EXPIRED, or a 401 whose scaRedirect
	// says the session is no longer valid; a new consent SCA is needed.
	ErrConsentExpired = errors.New("client: consent expired")
	// ErrConsentInvalid: 401 CONSENT_INVALID.
	ErrConsentInvalid = errors.New("client: consent invalid")
	// ErrConsentUnknown: 403 CONSENT_UNKNOWN; the PSU revoked consent.
	ErrConsentUnknown = errors.New("client: consent unknown or revoked")
	// ErrAccessExceeded: 429 ACCESS_EXCEEDED; the 4-calls-per-24-hours
	// budget without the PSU present is spent (SERVICE.md 8).
	ErrAccessExceeded = errors.New("client: access limit exceeded")
	// ErrKIDInvalid: 400 KID_INVALID or KID_MISSING.
	ErrKIDInvalid = errors.New("client: KID invalid")
	// ErrNotFound: 404.
	ErrNotFound = errors.New("client: not found")
	// ErrCertificate: 401 CERTIFICATE_INVALID or CERTIFICATE_EXPIRED.
	ErrCertificate = errors.New("client: TPP certificate refused")
	// ErrResponseSignature: the bank's response signature or Digest does
	// not verify; the body was not decoded.
	ErrResponseSignature = errors.New("client: response signature invalid")
)

// TPPMessage is one entry of a bank answer's tppMessages (SERVICE.md 7).
type TPPMessage struct {
	Category string `json:"category"`
	Code     string `json:"code"`
	Path     string `json:"path,omitempty"`
	Text     string `json:"text,omitempty"`
}

// Error is a non-2xx answer of the bank.
type Error struct {
	// Operation names the SDK call, e.g. "payments.CreateNorwegianDomestic".
	Operation string
	// StatusCode is the HTTP status.
	StatusCode int
	// RequestID is the X-Request-ID of the request.
	RequestID string
	// Messages are the tppMessages of the body.
	Messages []TPPMessage
	// Links are the _links of the body (scaRedirect among them).
	Links Links
	// PSUMessage is the psuMessage of the body, when present.
	PSUMessage string
	// Header holds the response headers (Retry-After, ...).
	Header http.Header
}

type errorBody struct {
	TPPMessages []TPPMessage `json:"tppMessages"`
	Links       Links        `json:"_links"`
	PSUMessage  string       `json:"psuMessage"`
}

// maxErrorBody bounds how much of an error body is read.
const maxErrorBody = 64 << 10

// newError builds an *Error from a non-2xx response body. A body that is
// not JSON leaves Messages empty.
func newError(op string, status int, requestID string, header http.Header, body []byte) *Error {
	e := &Error{Operation: op, StatusCode: status, RequestID: requestID, Header: header}
	var b errorBody
	if len(body) > 0 && json.Unmarshal(body, &b) == nil {
		e.Messages = b.TPPMessages
		e.Links = b.Links
		e.PSUMessage = b.PSUMessage
	}
	return e
}

// Error returns one short line: operation, status and the first code.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %d %s", e.Operation, e.StatusCode, http.StatusText(e.StatusCode))
	if len(e.Messages) > 0 {
		m := e.Messages[0]
		s += ": " + m.Code
		if m.Path != "" {
			s += " at " + m.Path
		}
		if m.Text != "" {
			s += ": " + truncateText(m.Text, 200)
		}
	}
	return s
}

func truncateText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// HasCode reports whether any tppMessage carries code.
func (e *Error) HasCode(code string) bool {
	for _, m := range e.Messages {
		if m.Code == code {
			return true
		}
	}
	return false
}

// ScaRedirect returns the scaRedirect href of the error body, or "".
func (e *Error) ScaRedirect() string { return e.Links.ScaRedirect() }

// Is matches the sentinel errors by status and code.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrSCARequired:
		return e.ScaRedirect() != ""
	case ErrConsentExpired:
		return e.StatusCode == http.StatusUnauthorized && (e.HasCode(CodeConsentExpired) || e.ScaRedirect() != "")
	case ErrConsentInvalid:
		return e.StatusCode == http.StatusUnauthorized && e.HasCode(CodeConsentInvalid)
	case ErrConsentUnknown:
		return e.HasCode(CodeConsentUnknown)
	case ErrAccessExceeded:
		return e.StatusCode == http.StatusTooManyRequests && (len(e.Messages) == 0 || e.HasCode(CodeAccessExceeded))
	case ErrKIDInvalid:
		return e.HasCode(CodeKIDInvalid) || e.HasCode(CodeKIDMissing)
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrCertificate:
		return e.HasCode(CodeCertificateInvalid) || e.HasCode(CodeCertificateExpired)
	}
	return false
}

// SCARedirect returns the scaRedirect href carried by err (a *Error whose
// body has _links.scaRedirect) and whether there is one.
func SCARedirect(err error) (string, bool) {
	var e *Error
	if errors.As(err, &e) {
		if h := e.ScaRedirect(); h != "" {
			return h, true
		}
	}
	return "", false
}
