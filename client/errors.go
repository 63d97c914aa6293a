package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Error codes of docs/interface.md section 7 and of the platform that
// callers commonly branch on. TPPMessage.Code holds the code as the bank
// sent it.
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

// Sentinel errors. A *Error matches them with errors.Is by status, code
// and scaRedirect link (see [Error.Is]); the doc of each says exactly
// which answers match it. [ErrSCARequired] says what to do (send the PSU
// to the link); [ErrSCAExpired], [ErrConsentExpired] and
// [ErrConsentInvalid] say why, so one answer may match two of them: a 401
// SCA_EXPIRED with a scaRedirect matches [ErrSCARequired] and
// [ErrSCAExpired].
var (
	// ErrSCARequired matches every answer whose body carries a
	// _links.scaRedirect link, whatever its status and code: the first
	// account call of a PSU who never gave consent (401, see
	// docs/interface.md section 5.8), a TPP-Session-ID that is not the one
	// of the last SCA, the one-hour SCA window that passed, the 90-day
	// consent that expired. The platform's code on these answers is not
	// fixed (CONSENT_INVALID, SCA_EXPIRED, CONSENT_EXPIRED), so the link
	// decides. Send the PSU to [SCARedirect] of the error.
	ErrSCARequired = errors.New("client: strong customer authentication required")
	// ErrSCAExpired matches a 401 carrying the code SCA_EXPIRED: the SCA
	// of the TPP-Session-ID is older than one hour (docs/interface.md
	// sections 3 and 8). The consent lives on: calls that need no fresh
	// SCA (balances, transactions of the last 90 days) still work; listing
	// accounts and the full history need a new SCA. With a scaRedirect it
	// also matches [ErrSCARequired]. It does not match [ErrConsentExpired].
	ErrSCAExpired = errors.New("client: SCA of the session expired")
	// ErrConsentExpired matches a 401 carrying the code CONSENT_EXPIRED:
	// the 90-day consent ended and every account call needs a new consent
	// SCA. With a scaRedirect it also matches [ErrSCARequired]. A 401 with
	// a scaRedirect but another code does not match it.
	ErrConsentExpired = errors.New("client: consent expired")
	// ErrConsentInvalid matches a 401 carrying the code CONSENT_INVALID
	// and no scaRedirect link: the bank refuses the consent and offers no
	// SCA to repair it; start a new consent. A 401 CONSENT_INVALID with a
	// scaRedirect (how the platform answers a first call without consent,
	// or a session id other than that of the last SCA) matches only
	// [ErrSCARequired].
	ErrConsentInvalid = errors.New("client: consent invalid")
	// ErrConsentUnknown matches any answer carrying the code
	// CONSENT_UNKNOWN (403 on this platform): the PSU revoked the consent
	// with the bank (docs/interface.md section 1.8).
	ErrConsentUnknown = errors.New("client: consent unknown or revoked")
	// ErrAccessExceeded matches a 429 carrying the code ACCESS_EXCEEDED,
	// or a 429 without tppMessages: the 4-calls-per-24-hours budget
	// without the PSU present is spent (docs/interface.md section 8).
	ErrAccessExceeded = errors.New("client: access limit exceeded")
	// ErrKIDInvalid matches any answer carrying the code KID_INVALID or
	// KID_MISSING (400 on this platform).
	ErrKIDInvalid = errors.New("client: KID invalid")
	// ErrNotFound matches every 404, whatever its code.
	ErrNotFound = errors.New("client: not found")
	// ErrCertificate matches any answer carrying the code
	// CERTIFICATE_INVALID or CERTIFICATE_EXPIRED (401 on this platform).
	ErrCertificate = errors.New("client: TPP certificate refused")
	// ErrResponseSignature: the bank's response signature or Digest does
	// not verify; the body was not decoded. It is not an [*Error].
	ErrResponseSignature = errors.New("client: response signature invalid")
)

// TPPMessage is one entry of a bank answer's tppMessages
// (docs/interface.md section 7).
type TPPMessage struct {
	Category string `json:"category"`
	Code     string `json:"code"`
	Path     string `json:"path,omitempty"`
	Text     string `json:"text,omitempty"`
}

// Error is a non-2xx answer of the bank.
//
// Messages, Links and PSUMessage are read from the body member by member,
// each under the interface's name exactly: a member named in another
// case, or also in another case, is not read. A member, link or field of
// an unexpected type is left out and the rest kept, so a 401 whose
// psuMessage is an object, or one of whose links has "verbs":"GET",
// still carries its scaRedirect and its codes; a single tppMessages
// object is read as a list of one.
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
	// PSUMessage is the psuMessage of the body, when present, cut to
	// [MaxTextLength] characters.
	PSUMessage string
	// Header holds the response headers (Retry-After, ...).
	Header http.Header
}

// errorMembers returns the values, as raw JSON, of the top-level members
// tppMessages, _links and psuMessage of body, a valid JSON value, read
// under those names exactly, as the interface spells them. A member of
// another case ("PSUMessage") is not read, and a member named also in
// another case is not read at all: encoding/json would read any case,
// the last of them winning, so that a member added after the bank's (by
// a gateway, or in the bank's text) could replace its messages, its
// scaRedirect or the text shown to the PSU. The refusal decision reads
// tppMessages the same way (bankRefusal).
func errorMembers(body []byte) (msgs, links, psu []byte) {
	var ambiguous [3]bool
	topMembers(body, func(key, value []byte) bool {
		for i, name := range [3]string{"tppMessages", "_links", "psuMessage"} {
			exact, folded := keyIs(key, name)
			switch {
			case exact && i == 0:
				msgs = value
			case exact && i == 1:
				links = value
			case exact:
				psu = value
			case folded:
				ambiguous[i] = true
			}
		}
		return true
	})
	if ambiguous[0] {
		msgs = nil
	}
	if ambiguous[1] {
		links = nil
	}
	if ambiguous[2] {
		psu = nil
	}
	return msgs, links, psu
}

// newError builds an *Error from a non-2xx response body (already bounded
// by maxErrorBody). A body that is not a JSON object leaves Messages,
// Links and PSUMessage empty. Otherwise each of tppMessages, _links (link
// by link) and psuMessage, read under its name exactly (errorMembers), is
// decoded on its own and keeps what is readable: a member, link or field
// of an unexpected type is left out without losing the others. A single
// tppMessages object is read as a list of one. The psuMessage is cut to
// [MaxTextLength] characters.
func newError(op string, status int, requestID string, header http.Header, body []byte) *Error {
	e := &Error{Operation: op, StatusCode: status, RequestID: requestID, Header: header}
	if len(body) == 0 || !json.Valid(body) {
		return e
	}
	msgs, links, psu := errorMembers(body)
	e.Messages = decodeMessages(msgs)
	e.Links = decodeLinks(links)
	e.PSUMessage = ClipText(decodeString(psu))
	return e
}

// isObject reports whether raw, a valid JSON value, is an object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}

// decodeString returns raw as a string, or "" when it is not a JSON string.
func decodeString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// decodeMessages reads tppMessages: a list whose objects become messages
// (other entries are dropped), or one object read as a list of one. Each
// field of a message that is not a string is left empty; the text is cut
// to [MaxTextLength] characters, the other fields to [MaxIDLength] bytes.
func decodeMessages(raw json.RawMessage) []TPPMessage {
	if len(raw) == 0 {
		return nil
	}
	var list []json.RawMessage
	if isObject(raw) {
		list = []json.RawMessage{raw}
	} else if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []TPPMessage
	for _, m := range list {
		var f struct {
			Category json.RawMessage `json:"category"`
			Code     json.RawMessage `json:"code"`
			Path     json.RawMessage `json:"path"`
			Text     json.RawMessage `json:"text"`
		}
		if !isObject(m) || json.Unmarshal(m, &f) != nil {
			continue
		}
		out = append(out, TPPMessage{
			Category: clipBytes(decodeString(f.Category)),
			Code:     clipBytes(decodeString(f.Code)),
			Path:     clipBytes(decodeString(f.Path)),
			Text:     ClipText(decodeString(f.Text)),
		})
	}
	return out
}

// decodeLinks reads _links link by link: a link that is not an object is
// dropped (so is one whose href is longer than [MaxHrefLength]), an href
// that is not a string is left empty, and verbs keeps the
// strings of a list (verbs of another form are left out, so the link
// allows nothing: [Link.Allows]), held as clipVerbs holds them.
func decodeLinks(raw json.RawMessage) Links {
	var m map[string]json.RawMessage
	if !isObject(raw) || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out Links
	for name, l := range m {
		var f struct {
			Href  json.RawMessage `json:"href"`
			Verbs json.RawMessage `json:"verbs"`
		}
		if !isObject(l) || json.Unmarshal(l, &f) != nil {
			continue
		}
		link := Link{Href: decodeString(f.Href)}
		if len(link.Href) > MaxHrefLength {
			continue // as a malformed link: MaxHrefLength
		}
		var verbs []json.RawMessage
		if len(f.Verbs) > 0 && json.Unmarshal(f.Verbs, &verbs) == nil {
			for _, v := range verbs {
				if s := decodeString(v); s != "" {
					link.Verbs = append(link.Verbs, s)
				}
			}
			link.Verbs = clipVerbs(link.Verbs)
		}
		if out == nil {
			out = Links{}
		}
		out[name] = link
	}
	return out
}

// Error returns one short line: operation, status and the first code.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %d %s", e.Operation, e.StatusCode, http.StatusText(e.StatusCode))
	if len(e.Messages) > 0 {
		// The bank's code, path and text can hold any text, the PSU's
		// national identity number or an IBAN included (a bank may echo
		// the request): the line shows one of the interface's codes
		// (SafeCode), a path only when it names a field, and no text.
		// Messages keeps them all.
		m := e.Messages[0]
		s += ": " + SafeCode(m.Code)
		if isFieldPath(m.Path) {
			s += " at " + m.Path
		}
	}
	return s
}

// isFieldPath reports whether p reads as the path of a request field
// ("creditorAccount.bban", "payments[0].instructedAmount"): letters,
// digits, '.', '_', '[' and ']', starting with a letter, at most 100
// bytes, and no run of more than 3 digits (a value, not an index).
func isFieldPath(p string) bool {
	if p == "" || len(p) > 100 || !('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z') {
		return false
	}
	digits := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case '0' <= c && c <= '9':
			if digits++; digits > 3 {
				return false
			}
			continue
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '.', c == '_', c == '[', c == ']':
		default:
			return false
		}
		digits = 0
	}
	return true
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

// RetryAfter returns the wait the answer's Retry-After header asks for,
// given in seconds or as an HTTP date (in GMT, as the Date header must
// be: a date naming another zone is unreadable; measured against the
// answer's Date header as the client reads it, else against now: Date
// lines that disagree are none): at least 0 and at most [RetryAfterCap],
// whatever the bank sent, the longest readable one when the answer
// carries it on several field lines; false without a readable one. It
// is the SDK's one reading of Retry-After: the client's retries, the
// accounts pause, refresh and riverrefresh all take their wait from it.
func (e *Error) RetryAfter(now time.Time) (time.Duration, bool) {
	if e == nil {
		return 0, false
	}
	server, _ := answerDate(e.Header)
	return retryAfter(e.Header, server, now)
}

// SCARedirect returns the scaRedirect href of the error body, or "".
func (e *Error) SCARedirect() string { return e.Links.SCARedirect() }

// Is matches the sentinel errors by status, code and scaRedirect link, as
// the doc of each sentinel says.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrSCARequired:
		return e.SCARedirect() != ""
	case ErrSCAExpired:
		return e.StatusCode == http.StatusUnauthorized && e.HasCode(CodeSCAExpired)
	case ErrConsentExpired:
		return e.StatusCode == http.StatusUnauthorized && e.HasCode(CodeConsentExpired)
	case ErrConsentInvalid:
		return e.StatusCode == http.StatusUnauthorized && e.HasCode(CodeConsentInvalid) && e.SCARedirect() == ""
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
		if h := e.SCARedirect(); h != "" {
			return h, true
		}
	}
	return "", false
}
