package rules

import (
	"fmt"
	"unicode/utf8"
)

// The tppMessages codes a rule answers with (docs/interface.md section 7).
const (
	// CodeFormat is a value, body or header of the wrong form.
	CodeFormat = "FORMAT_ERROR"
	// CodeHeaderRequired is a required header that is missing or blank.
	CodeHeaderRequired = "HTTP_HEADER_REQUIRED"
	// CodeKIDMissing is a structured reference of type KID without a KID.
	CodeKIDMissing = "KID_MISSING"
	// CodeKIDInvalid is a KID with a wrong check digit.
	CodeKIDInvalid = "KID_INVALID"
	// CodeExecutionDateInvalid is an execution or start date in the past.
	CodeExecutionDateInvalid = "EXECUTION_DATE_INVALID"
)

// Violation is what a rule refuses: the first problem it found in a
// request. The emulator answers it 400 Bad Request with one tppMessage of
// category ERROR carrying Code, Path and Message.
type Violation struct {
	// Code is the tppMessages code, one of the Code constants.
	Code string
	// Path names the offending field ("creditorAccount.bban",
	// "payments[1].creditorName") or header ("PSU-ID"); "" for the whole
	// body.
	Path string
	// Message is the text of the answer. It quotes values of the request
	// only through [Clip] and never holds secrets.
	Message string
}

// Error returns the code, path and message, so a Violation can be
// reported as an error.
func (v *Violation) Error() string {
	return fmt.Sprintf("%s at %q: %s", v.Code, v.Path, v.Message)
}

// Format returns a [CodeFormat] violation at path with the formatted
// message.
func Format(path, format string, args ...any) *Violation {
	return &Violation{Code: CodeFormat, Path: path, Message: fmt.Sprintf(format, args...)}
}

// HeaderRequired returns the [CodeHeaderRequired] violation of a missing
// header, naming it in path.
func HeaderRequired(header string) *Violation {
	return &Violation{Code: CodeHeaderRequired, Path: header, Message: "The header " + header + " is required."}
}

// MaxQuoted is how many characters of a request's value a message quotes.
const MaxQuoted = 100

// Clip shortens a value from the request (a path, an id, a bad field
// value) quoted in a message to [MaxQuoted] characters and an ellipsis,
// never cutting a character in two.
func Clip(s string) string {
	if utf8.RuneCountInString(s) <= MaxQuoted {
		return s
	}
	return string([]rune(s)[:MaxQuoted]) + "…"
}
