package sca

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/tppkit/psd2/client"
)

// MaxCallbackLength bounds the callback URL [Flow.ParseCallback] accepts (8 KiB).
const MaxCallbackLength = 8 << 10

// maxParamLen bounds a single id parameter of the callback.
const maxParamLen = 256

// Errors of [Flow.ParseCallback]. A failed SCA reported by the bank is a
// [*CallbackError] instead; all of them are refusals of the callback and
// no Session is made.
var (
	// ErrMalformedCallback: the URL cannot be parsed, a parameter is
	// missing, repeated or invalid (psu-id not a UUID, unknown context...).
	ErrMalformedCallback = errors.New("sca: malformed SCA callback")
	// ErrCallbackTooLong: the URL is longer than MaxCallbackLength.
	ErrCallbackTooLong = errors.New("sca: SCA callback too long")
	// ErrStateMismatch: the state parameter is missing or is not the one of
	// the pending SCA (a forged or crossed-over callback).
	ErrStateMismatch = errors.New("sca: SCA callback state does not match")
	// ErrSessionMismatch: tpp-session-id is not the TPP-Session-ID the SCA
	// was started with.
	ErrSessionMismatch = errors.New("sca: SCA callback tpp-session-id does not match")
	// ErrReplayed: the pending SCA was already completed by an earlier
	// callback (a pending SCA is single-use).
	ErrReplayed = errors.New("sca: SCA callback replayed")
	// ErrPendingExpired: the callback came after the pending SCA expired.
	ErrPendingExpired = errors.New("sca: pending SCA expired")
	// ErrNoPending: no pending SCA (nil, or no record for the callback's
	// state in the store, or one that does not decode).
	ErrNoPending = errors.New("sca: no pending SCA for this callback")
	// ErrSCAFailed matches every *CallbackError with errors.Is.
	ErrSCAFailed = errors.New("sca: SCA failed or was cancelled")
)

// CallbackError is the bank's failure redirect after SCA (docs/interface.md section 6):
// the PSU cancelled, or authentication failed. A callback with any of the
// failure parameters (system, status, code, message) is one, even with the
// message alone. It carries the parameters of the redirect; Message is
// URL-decoded display text. It matches ErrSCAFailed.
// Its error string, %#v, slog and JSON forms leave out Message and show
// TPPSessionID as [redacted]; %#v and JSON show System only when it reads
// as a system name (ASCII letters, '-', '_' and '.', at most 64 bytes),
// "OTHER" otherwise, and Code as client.SafeCode does.
//
// After a failed SCA the PSU's earlier session, if any, stays valid
// (docs/interface.md section 3).
type CallbackError struct {
	// System is the internal system that produced the error, if given,
	// as the redirect wrote it.
	System string
	// Status is the HTTP status the bank reports (for example 401).
	Status int
	// Code is the error code, e.g. SCA_INVALID.
	Code string
	// Message is the detail text, URL-decoded, with each control character
	// (line breaks included) made a space and invalid UTF-8 made U+FFFD,
	// cut to client.MaxTextLength characters (client.ClipText), as the
	// bank's other text for the PSU is.
	// It is free text from the bank: escape it before showing it in HTML.
	Message string
	// TPPSessionID is the TPP-Session-ID of the pending SCA.
	TPPSessionID string
}

// Error returns one short line with the status and code (the message stays
// in the field).
func (e *CallbackError) Error() string {
	s := "sca: SCA failed"
	if e.Status != 0 {
		s += ": " + strconv.Itoa(e.Status)
	}
	if e.Code != "" {
		// The code comes from the callback URL's query: any text, a
		// national identity number included. Only the interface's codes
		// are shown (client.SafeCode); the field keeps the bank's.
		s += " " + client.SafeCode(e.Code)
	}
	return s
}

// Is matches ErrSCAFailed.
func (e *CallbackError) Is(target error) bool { return target == ErrSCAFailed }

// Callback parameter names (docs/interface.md section 6) and the TPP's own state.
const (
	paramState          = "state"
	paramPSUID          = "psu-id"
	paramPSUCorporateID = "psu-corporate-id"
	paramTPPSessionID   = "tpp-session-id"
	paramContext        = "context"
	paramSystem         = "system"
	paramStatus         = "status"
	paramCode           = "code"
	paramMessage        = "message"
)

// callbackState returns the state parameter of a callback URL (absolute,
// or a request URI such as r.URL.RequestURI()), to find the pending SCA it
// belongs to. It does not validate anything else.
func callbackState(callbackURL string) (string, error) {
	q, err := callbackQuery(callbackURL)
	if err != nil {
		return "", err
	}
	st, err := single(q, paramState)
	if err != nil {
		return "", err
	}
	if st == "" {
		return "", ErrStateMismatch
	}
	return st, nil
}

func callbackQuery(callbackURL string) (url.Values, error) {
	if len(callbackURL) > MaxCallbackLength {
		return nil, ErrCallbackTooLong
	}
	u, err := url.Parse(callbackURL)
	if err != nil {
		return nil, fmt.Errorf("%w: not a URL", ErrMalformedCallback)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("%w: query cannot be parsed", ErrMalformedCallback)
	}
	return q, nil
}

// single returns the one value of name, "" when absent, and an error when
// the parameter is repeated (parameter pollution) or unsafe.
func single(q url.Values, name string) (string, error) {
	v, err := once(q, name)
	if err == nil && !headerSafe(v) {
		return "", fmt.Errorf("%w: parameter %s has control characters", ErrMalformedCallback, name)
	}
	return v, err
}

// once returns the one value of name, "" when absent, and an error when the
// parameter is repeated (parameter pollution).
func once(q url.Values, name string) (string, error) {
	vs := q[name]
	switch {
	case len(vs) == 0:
		return "", nil
	case len(vs) > 1:
		return "", fmt.Errorf("%w: parameter %s repeated", ErrMalformedCallback, name)
	}
	return vs[0], nil
}

// displayText makes the free-text message of a failure redirect
// (docs/interface.md section 6) safe to show on one line: invalid UTF-8
// becomes U+FFFD and every control character a space.
func displayText(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// httpStatus reads the status parameter of a failure redirect, an HTTP
// status (docs/interface.md section 6): three ASCII digits from 100 to
// 599, the range the client takes a status code in. strconv.Atoi alone
// took "+401", "0401" and 999 as the bank's HTTP status.
func httpStatus(s string) (int, bool) {
	if len(s) != 3 {
		return 0, false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 100 && n <= 599
}

func parseCallback(p *Pending, callbackURL string, now time.Time) (*Session, error) {
	if p == nil {
		return nil, ErrNoPending
	}
	if p.Consumed {
		return nil, ErrReplayed
	}
	q, err := callbackQuery(callbackURL)
	if err != nil {
		return nil, err
	}
	state, err := single(q, paramState)
	if err != nil {
		return nil, err
	}
	if state == "" || p.State == "" || subtle.ConstantTimeCompare([]byte(state), []byte(p.State)) != 1 {
		return nil, ErrStateMismatch
	}
	// From here on the callback belongs to this pending SCA: it is used up
	// whatever the outcome.
	p.Consumed = true
	if !p.ExpiresAt.IsZero() && now.After(p.ExpiresAt) {
		return nil, ErrPendingExpired
	}

	get := func(name string) string {
		v, e := single(q, name)
		if e != nil && err == nil {
			err = e
		}
		return v
	}
	system, status, code := get(paramSystem), get(paramStatus), get(paramCode)
	psuID, corpID, sid, ctxName := get(paramPSUID), get(paramPSUCorporateID), get(paramTPPSessionID), get(paramContext)
	if err != nil {
		return nil, err
	}
	// The message is display text, not an id: control characters in it are
	// replaced, not refused.
	message, err := once(q, paramMessage)
	if err != nil {
		return nil, err
	}
	message = client.ClipText(displayText(message))

	// Any failure parameter makes the callback a failure (docs/interface.md
	// section 6), the message alone included; an empty one does so when
	// there is no psu-id either.
	failed := code != "" || status != "" || system != "" || message != ""
	if !failed && psuID == "" {
		failed = q.Has(paramCode) || q.Has(paramStatus) || q.Has(paramSystem) || q.Has(paramMessage)
	}
	if failed {
		if psuID != "" {
			return nil, fmt.Errorf("%w: both success and failure parameters", ErrMalformedCallback)
		}
		ce := &CallbackError{System: system, Code: code, Message: message, TPPSessionID: p.TPPSessionID}
		if status != "" {
			n, ok := httpStatus(status)
			if !ok {
				return nil, fmt.Errorf("%w: parameter status is not an HTTP status", ErrMalformedCallback)
			}
			ce.Status = n
		}
		if len(code) > maxParamLen || len(system) > maxParamLen {
			return nil, fmt.Errorf("%w: failure parameter too long", ErrMalformedCallback)
		}
		return nil, ce
	}

	switch {
	case psuID == "":
		return nil, fmt.Errorf("%w: parameter psu-id missing", ErrMalformedCallback)
	case !isUUID(psuID):
		return nil, fmt.Errorf("%w: parameter psu-id is not a UUID", ErrMalformedCallback)
	case sid == "":
		return nil, fmt.Errorf("%w: parameter tpp-session-id missing", ErrMalformedCallback)
	case subtle.ConstantTimeCompare([]byte(sid), []byte(p.TPPSessionID)) != 1:
		return nil, ErrSessionMismatch
	}
	c := client.PSUContext(strings.ToUpper(ctxName))
	if !c.Valid() {
		return nil, fmt.Errorf("%w: parameter context is not PRIVATE or CORPORATE", ErrMalformedCallback)
	}
	if corpID != "" {
		if c != client.Corporate {
			return nil, fmt.Errorf("%w: psu-corporate-id outside CORPORATE context", ErrMalformedCallback)
		}
		if !isUUID(corpID) {
			return nil, fmt.Errorf("%w: parameter psu-corporate-id is not a UUID", ErrMalformedCallback)
		}
	}
	return &Session{
		Key:            p.Key,
		PSUID:          psuID,
		PSUCorporateID: corpID,
		TPPSessionID:   p.TPPSessionID,
		Context:        c,
		SCAAt:          now,
		NoConsent:      p.Purpose.valid() && !p.Purpose.GrantsConsent(),
	}, nil
}
