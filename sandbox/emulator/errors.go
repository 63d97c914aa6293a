package emulator

import (
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// tppMessage is one entry of an error body's tppMessages (docs/interface.md section 7).
type tppMessage struct {
	Category string `json:"category"`
	Code     string `json:"code"`
	Path     string `json:"path,omitempty"`
	Text     string `json:"text,omitempty"`
}

// apiError is an error answer: an HTTP status and a tppMessages body, and
// optionally _links (the scaRedirect of a 401). Handlers return it; the
// request wrapper writes it.
type apiError struct {
	status int
	msg    tppMessage
	links  map[string]link
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.status, e.msg.Code, e.msg.Text)
}

// at returns a copy of e whose tppMessage names the offending field or header.
func (e *apiError) at(path string) *apiError {
	c := *e
	c.msg.Path = path
	return &c
}

// maxErrorText is the longest tppMessages text, in characters
// (docs/interface.md sections 7 and 8).
const maxErrorText = 512

// newError returns an error answer with status, code and text, the text
// cut to maxErrorText characters (never inside a character). The text must
// never contain secrets or personal data (PSU-ID, signatures, ...).
func newError(status int, code, format string, args ...any) *apiError {
	text := fmt.Sprintf(format, args...)
	if utf8.RuneCountInString(text) > maxErrorText {
		text = string([]rune(text)[:maxErrorText])
	}
	return &apiError{status: status, msg: tppMessage{Category: "ERROR", Code: code, Text: text}}
}

// clip shortens a value from the request (a path, an id, a bad field
// value) quoted in an error text, as the rules do (rules.Clip).
func clip(s string) string { return rules.Clip(s) }

// violation is the 400 answer to what a request rule refused
// (internal/rules, internal/paymentrules): its code, path and message; nil
// for nil.
func violation(v *rules.Violation) *apiError {
	if v == nil {
		return nil
	}
	return newError(http.StatusBadRequest, v.Code, "%s", v.Message).at(v.Path)
}

// Shorthands for the common answers (status per docs/interface.md section 10's table).

func errFormat(path, format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, "FORMAT_ERROR", format, args...).at(path)
}

func errHeaderRequired(header string) *apiError {
	return violation(rules.HeaderRequired(header))
}

func errNotFound(format string, args ...any) *apiError {
	return newError(http.StatusNotFound, "RESOURCE_UNKNOWN", format, args...)
}

func errInternal() *apiError {
	return newError(http.StatusInternalServerError, "SYSTEM_ERROR", "Internal error in the emulator.")
}

// errSCARequired is the 401 that sends the PSU to the authorisation page.
func errSCARequired(code, text, href string) *apiError {
	e := newError(http.StatusUnauthorized, code, "%s", text)
	e.links = map[string]link{"scaRedirect": getLink(href)}
	return e
}
