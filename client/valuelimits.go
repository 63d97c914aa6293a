package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tppkit/psd2/internal/pathseg"
)

// Bounds on the strings of a bank's answer that the SDK keeps or shows,
// besides the bound on the whole body. This is the one place they are
// set (docs/interface.md section 8 gives the first; the others are
// generous bounds of the SDK's own, far above anything the platform was
// seen to send):
//
//   - MaxTextLength: free text that is only shown, psuMessage and the
//     text of a tppMessage (the interface's 512 characters). A longer
//     text is cut to MaxTextLength characters ([ClipText]), not refused.
//   - MaxIDLength: ids and codes that drive what the SDK or its caller
//     does next: a created resource's id (paymentId, basketId), the
//     scaStatus of a started authorisation, a transactionStatus. A longer
//     one is refused with a [*ValueTooLongError]: a cut id would name
//     another resource, a cut status another state.
//   - MaxHrefLength: the href of a link, followed by the SDK and handed to
//     the PSU's browser (scaRedirect). In a 2xx answer a longer one is
//     refused with a [*ValueTooLongError]; in an error answer the link is
//     left out, as a malformed one is.
const (
	MaxTextLength = 512
	MaxIDLength   = 256
	MaxHrefLength = 4096
)

// ErrValueTooLong matches a [*ValueTooLongError].
var ErrValueTooLong = errors.New("client: a value of the bank's answer is longer than the SDK accepts")

// ValueTooLongError is an id, status or href of a bank's answer longer
// than the SDK's bound for it ([MaxIDLength], [MaxHrefLength]). It quotes
// nothing of the value. It matches [ErrValueTooLong]; in the answer of a
// request that is not repeatable it comes inside an
// [*OutcomeUnknownError].
type ValueTooLongError struct {
	// Field names the member, e.g. "paymentId" or "_links.self.href".
	Field string
	// Length is the value's length in bytes.
	Length int
	// Max is the bound it exceeds, in bytes.
	Max int
}

func (e *ValueTooLongError) Error() string {
	return fmt.Sprintf("client: the bank's %s is %d bytes long, more than the %d the SDK accepts", e.Field, e.Length, e.Max)
}

// Is matches [ErrValueTooLong].
func (e *ValueTooLongError) Is(target error) bool { return target == ErrValueTooLong }

// CheckLength returns a [*ValueTooLongError] naming field when s is
// longer than max bytes, else nil.
func CheckLength(field, s string, max int) error {
	if len(s) > max {
		return &ValueTooLongError{Field: field, Length: len(s), Max: max}
	}
	return nil
}

// ErrMalformedValue matches a [*MalformedValueError].
var ErrMalformedValue = errors.New("client: a value of the bank's answer has a form the SDK does not accept")

// MalformedValueError is an id of a bank's answer that cannot name a
// resource in a later call: empty, a dot segment, holding a control
// character (a line break, a terminal escape), not UTF-8, blank or with
// spaces around it: the rule the client holds a path's ids to, and the
// created resource's id of a create's answer. Kept, it would be handed
// on as the bank's id, printed and stored, and refused only by the call
// that put it in a path. It quotes nothing of the value. It matches
// [ErrMalformedValue]; in the answer of a request that is not repeatable
// it comes inside an [*OutcomeUnknownError].
type MalformedValueError struct {
	// Field names the member, e.g. "basketId" or "payments[2]".
	Field string
	// Problem says what is wrong, e.g. "contains a control character".
	Problem string
}

func (e *MalformedValueError) Error() string {
	return "client: the bank's " + e.Field + " " + e.Problem
}

// Is matches [ErrMalformedValue].
func (e *MalformedValueError) Is(target error) bool { return target == ErrMalformedValue }

// CheckID returns nil when id, a value of the bank's answer named field,
// can name a resource in a later call's path: at most [MaxIDLength]
// bytes (else a [*ValueTooLongError]) and of the form every id of the
// interface has (else a [*MalformedValueError]): not empty, not a dot
// segment, no control character (C0, DEL or C1), UTF-8 without U+FFFD (which
// encoding/json puts in place of bytes that are not UTF-8, so that such
// an id is not the bank's), no spaces around it. A member the answer may
// leave out is checked only when present.
func CheckID(field, id string) error {
	if err := CheckLength(field, id, MaxIDLength); err != nil {
		return err
	}
	if p := pathseg.Problem(id); p != "" {
		return &MalformedValueError{Field: field, Problem: p}
	}
	if strings.ContainsRune(id, utf8.RuneError) {
		return &MalformedValueError{Field: field, Problem: "is not UTF-8"}
	}
	// The C1 controls (U+0080 to U+009F, CSI among them), which the
	// path rule leaves to escaping, are no character of an id either.
	if strings.ContainsFunc(id, unicode.IsControl) {
		return &MalformedValueError{Field: field, Problem: "contains a control character"}
	}
	return nil
}

// CheckPrintable returns a [*MalformedValueError] naming field when s, a
// value of the bank's answer that is kept, compared or shown (a status
// code, an address), holds a control character (C0, DEL or C1: a line
// break, a terminal escape, NUL) or U+FFFD, which encoding/json puts in
// place of bytes that are not UTF-8; else nil. No code or address of the
// interface holds one, and such a value would reach a log line or a
// terminal as the bank's text.
func CheckPrintable(field, s string) error {
	if strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) {
		return &MalformedValueError{Field: field, Problem: "contains a control character or bytes that are not UTF-8"}
	}
	return nil
}

// ClipText returns s cut to at most [MaxTextLength] characters (runes),
// for free text of the bank's that is only shown (psuMessage, a
// tppMessage's text). A cut text ends with "…" in place of its last
// character.
func ClipText(s string) string {
	if len(s) <= MaxTextLength || utf8.RuneCountInString(s) <= MaxTextLength {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxTextLength-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// UnmarshalJSON decodes a link and refuses an href longer than
// [MaxHrefLength] with a [*ValueTooLongError]. Its verbs are held as
// [clipVerbs] holds them.
func (l *Link) UnmarshalJSON(b []byte) error {
	type plain Link
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if err := CheckLength("link href", p.Href, MaxHrefLength); err != nil {
		return err
	}
	p.Verbs = clipVerbs(p.Verbs)
	*l = Link(p)
	return nil
}

// Bounds of a link's verbs: the interface's are GET, POST, PUT and
// DELETE, and no HTTP method is near 16 bytes long.
const (
	maxVerbs      = 16
	maxVerbLength = 16
)

// clipVerbs returns the verbs of a link the SDK keeps: those of at most
// maxVerbLength bytes, at most maxVerbs of them (the first), verbs
// itself when that is all of them. A longer verb names no method
// [Link.Allows] is asked about, so leaving it out changes nothing; a
// list of more is no link of the interface's. Neither is refused, as a
// link's href beyond its bound is: the verbs only say what is allowed
// now, and the answer, its scaRedirect among its links, stays usable.
// Kept whole, a body within the client's limits (4 MiB, 100,000
// members and elements for a 2xx answer) could give one link a verb of
// megabytes, the only string of a link without a bound of its own, or
// 100,000 verbs, copied on with the link (sca.Redirect).
func clipVerbs(verbs []string) []string {
	if len(verbs) <= maxVerbs && !slices.ContainsFunc(verbs, func(v string) bool { return len(v) > maxVerbLength }) {
		return verbs
	}
	out := make([]string, 0, min(len(verbs), maxVerbs))
	for _, v := range verbs {
		if len(out) == maxVerbs {
			break
		}
		if len(v) <= maxVerbLength {
			out = append(out, v)
		}
	}
	return out
}

// UnmarshalJSON decodes a tppMessage and cuts its text to
// [MaxTextLength] characters ([ClipText]); code, category and path are
// cut to [MaxIDLength] bytes at a character boundary: they are shown
// and compared, never followed.
func (m *TPPMessage) UnmarshalJSON(b []byte) error {
	type plain TPPMessage
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	p.Text = ClipText(p.Text)
	p.Code, p.Category, p.Path = clipBytes(p.Code), clipBytes(p.Category), clipBytes(p.Path)
	*m = TPPMessage(p)
	return nil
}

// clipBytes cuts s to at most MaxIDLength bytes at a character boundary.
func clipBytes(s string) string {
	if len(s) <= MaxIDLength {
		return s
	}
	i := MaxIDLength
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
