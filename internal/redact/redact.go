// Package redact builds the printed and log/slog forms of the SDK's
// document types: the bank's answers and the requests sent to it, whose
// JSON is the wire format and stays data, but whose String, GoString,
// Format and LogValue must not show who the PSU is or whom they pay.
//
// A type lists its facts once, in a [Form]: what identifies no one
// (type, status, currency, amounts, dates, counts, codes) in clear with
// [Form.Str] and the like, and what identifies a person or an account
// (account ids, IBAN, BBAN, PAN, names, national identity numbers,
// addresses, remittance text, free text of the bank) with [Form.Secret],
// which shows only that the field is set. The Form's String and LogValue
// are then the type's String, GoString and LogValue, and [Write] its
// Format, so that every fmt verb (%d and %x included, which fmt would
// otherwise apply to each field in turn) prints the same redacted text.
//
// It is the SDK's one printing mechanism: [Redacted] is the one marker of
// a value left out, and [URI] the one redactor of links and URIs.
// internal/redact/gen writes the printing methods of every type that
// declares a form (see its doc for the declarations it reads).
package redact

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tppkit/psd2/money"
)

// Redacted stands in for a value a form does not show. It is the SDK's
// one marker: every package that prints or logs a redacted value uses it.
const Redacted = "[redacted]"

// Form is the printed and slog form of one value: its type's name and
// the facts it shows, in order. The zero Form is not useful; use [New],
// [NewGo] or [Nil].
type Form struct {
	name  string
	sep   string // between a fact's key and its text: "=", or ":" (NewGo)
	attrs []slog.Attr
	text  []string // the facts as String shows them
	isNil bool     // the form of a nil pointer: String is name(nil)
}

// New starts the form of a value of the type called name (the package
// qualified Go name, for example "accounts.Account"): String writes its
// facts as key=value.
func New(name string) *Form { return &Form{name: name, sep: "="} }

// NewGo starts a form whose String writes its facts as Key:value, the
// way fmt's %+v writes a struct's fields (the client's types print so,
// under their Go field names).
func NewGo(name string) *Form { return &Form{name: name, sep: ":"} }

// Nil is the form of a nil pointer of the type called name: String is
// name(nil), LogValue that text.
func Nil(name string) *Form { return &Form{name: name, isNil: true} }

func (f *Form) add(a slog.Attr, text string) *Form {
	f.attrs = append(f.attrs, a)
	f.text = append(f.text, a.Key+f.sep+text)
	return f
}

// Field shows v under key whatever it is, even empty or zero: text in
// String as it is (not quoted), v in LogValue. Use it only for values
// that identify no one, already rendered (a template, a count, a time in
// a chosen layout, a redacted header map).
func (f *Form) Field(key, text string, v slog.Value) *Form {
	return f.add(slog.Attr{Key: key, Value: v}, text)
}

// Text shows text under key in String only, as it is (not quoted): a
// fact that String shows apart from LogValue (a name String abbreviates,
// a member marked as set that the log leaves out). With key "" it shows
// text alone (a word such as an outcome, or a flag).
func (f *Form) Text(key, text string) *Form {
	if key == "" {
		f.text = append(f.text, text)
		return f
	}
	f.text = append(f.text, key+f.sep+text)
	return f
}

// Attr adds a to LogValue only: a fact the log carries and String leaves
// out (a time, a list of codes), or carries under another key.
func (f *Form) Attr(a slog.Attr) *Form {
	f.attrs = append(f.attrs, a)
	return f
}

// Str shows v under key when it is not empty, cut to [MaxShown] bytes
// ([Cut]). Use it only for values that identify no one.
func (f *Form) Str(key, v string) *Form {
	if v == "" {
		return f
	}
	v = Cut(v)
	return f.add(slog.String(key, v), quote(v))
}

// MaxShown bounds each value [Form.Str] and [Form.List] show: the codes,
// statuses and names a form shows in clear are short, but they are the
// bank's text, which may be of any length within an answer's limits, and
// a logged value must not carry megabytes of it.
const MaxShown = 256

// Cut returns v cut to at most [MaxShown] bytes at a character boundary,
// ending with "…" when cut.
func Cut(v string) string {
	if len(v) <= MaxShown {
		return v
	}
	i := MaxShown - len("…")
	for i > 0 && !utf8.RuneStart(v[i]) {
		i--
	}
	return v[:i] + "…"
}

// Secret shows [Redacted] under key when v is not empty, and nothing
// when it is: a reader learns that the field is set, not its value.
func (f *Form) Secret(key, v string) *Form {
	if v == "" {
		return f
	}
	return f.add(slog.String(key, Redacted), Redacted)
}

// SecretIf shows [Redacted] under key when set is true.
func (f *Form) SecretIf(key string, set bool) *Form {
	if !set {
		return f
	}
	return f.add(slog.String(key, Redacted), Redacted)
}

// Value shows v's String under key unless v is zero (amounts, dates).
func (f *Form) Value(key string, v interface {
	fmt.Stringer
	IsZero() bool
}) *Form {
	if v.IsZero() {
		return f
	}
	return f.Str(key, v.String())
}

// Amount shows a bank's amount a under key unless it is zero: its value
// and currency ("-49.00 NOK") when it could be read, its currency as
// [Currency] shows it. An unreadable amount ([money.Amount.Err]) shows
// as [Redacted] and its currency: its text is whatever the bank put in
// the amount member, a name or an account number included.
func (f *Form) Amount(key string, a money.Amount) *Form {
	if a.IsZero() {
		return f
	}
	text := Redacted
	if a.Err() == nil {
		text = a.Text()
	}
	if cur := Currency(a.Currency); cur != "" {
		text += " " + cur
	}
	return f.Str(key, text)
}

// Bool shows *b under key when b is not nil.
func (f *Form) Bool(key string, b *bool) *Form {
	if b == nil {
		return f
	}
	return f.add(slog.Bool(key, *b), strconv.FormatBool(*b))
}

// Int shows n under key when it is not zero (counts, numbers of entries).
func (f *Form) Int(key string, n int) *Form {
	if n == 0 {
		return f
	}
	return f.add(slog.Int(key, n), strconv.Itoa(n))
}

// MaxItems bounds the elements [Form.List] and [Form.Forms] show of a
// list: a bank's answer may hold thousands (members the SDK does not
// know, balances, links), and a logged value must not carry them all.
// The rest are counted: "… 19968 more".
const MaxItems = 32

// more is how a list's String and slog forms say that n elements past
// [MaxItems] are left out.
func more(n int) string { return "… " + strconv.Itoa(n) + " more" }

// List shows vs under key when there are any: values that identify no
// one (codes, months, member names), each cut to [MaxShown] bytes
// ([Cut]), at most [MaxItems] of them.
func (f *Form) List(key string, vs []string) *Form {
	if len(vs) == 0 {
		return f
	}
	n := min(len(vs), MaxItems)
	cut := make([]string, n, n+1)
	q := make([]string, n, n+1)
	for i, v := range vs[:n] {
		cut[i] = Cut(v)
		q[i] = quote(cut[i])
	}
	if len(vs) > n {
		cut = append(cut, more(len(vs)-n))
		q = append(q, more(len(vs)-n))
	}
	return f.add(slog.Any(key, cut), "["+strings.Join(q, " ")+"]")
}

// Keys shows the sorted keys of m under key (the names of a document's
// links, never their hrefs), each as [Word] shows it.
func Keys[M ~map[string]V, V any](f *Form, key string, m M) *Form {
	return f.List(key, Words(slices.Sorted(maps.Keys(m))))
}

// maxWord bounds the length of a [Word].
const maxWord = 64

// OtherWord stands in, in printed, log/slog and redacted JSON forms, for
// a name or verb of the bank's that does not read as a word ([Word]).
const OtherWord = "OTHER"

// Word returns a name or verb of a bank's document that a form shows in
// clear (a link's name: self, scaRedirect, startAuthorisation; a link's
// verb: GET, DELETE) as the bank sent it when it reads as such a word,
// 1 to 64 ASCII letters, and [OtherWord] otherwise: the bank's text may
// hold anything, a national identity number, an IBAN, a line break that
// forges a log line or a terminal escape included. "" stays "".
func Word(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > maxWord {
		return OtherWord
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return OtherWord
		}
	}
	return s
}

// Currency returns a currency of a bank's document that a form shows in
// clear as the bank sent it when it reads as an ISO 4217 code, three
// ASCII letters, and [OtherWord] otherwise: a currency member is the
// bank's text, and a name or an account number in it must not reach a
// log. "" stays "".
func Currency(s string) string {
	if s == "" || len(s) == 3 && Word(s) == s {
		return s
	}
	return OtherWord
}

// DateTime returns a date-time of a bank's document (a balance's
// lastChangeDateTime) that a form shows in clear as the bank sent it when
// it reads as an ISO 8601 date-time, with an offset or without, and
// [OtherWord] otherwise: the member is the bank's text, which may hold a
// name, an account number or a megabyte. "" stays "".
func DateTime(s string) string {
	if s == "" {
		return ""
	}
	if len(s) <= maxDateTime {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
			if _, err := time.Parse(layout, s); err == nil {
				return s
			}
		}
	}
	return OtherWord
}

// Code returns a code of a bank's document that a form shows in clear (a
// BIC, a purpose code, a bank transaction code, a merchant category
// code, a country, a standing order's frequency) as the bank sent it
// when it reads as a code, and [OtherWord] otherwise. A code reads as
// one when it has 1 to 35 bytes (ISO 20022's Max35Text) of letters,
// ASCII digits, '_', '-', '.' and '/', with at most [maxCodeDigits]
// digits. The member is the bank's text: a gateway may put anything in
// it, and what identifies someone is mostly a long run of digits (an
// account number, an IBAN, a national identity number, a card number, a
// telephone number) or a name with spaces; a line break that forges a log
// line and a terminal escape are no character of a code either. A name
// written as one word reads as a code: the rule cannot tell it from one.
// "" stays "".
func Code(s string) string { return shape(s, maxCode, false) }

// Label returns a bank's name of a thing, not of a person, that a form
// shows in clear (an account's product, "Kredittkort Gull") as [Code]
// shows a code, spaces allowed between its words, of at most 70 bytes
// (ISO 20022's Max70Text), and [OtherWord] otherwise. A holder's name
// reads as a label: the rule keeps account and identity numbers, line
// breaks and megabytes out of the log, not names.
func Label(s string) string { return shape(s, maxLabel, true) }

// Bounds of [Code] and [Label]: at most 6 digits keeps a postcode, a
// day of the month and the platform's proprietary codes (R_203), and
// leaves out the 8 digits of a Norwegian telephone number, the 11 of an
// account number or a national identity number and the more of an IBAN
// or a card number.
const (
	maxCode       = 35
	maxLabel      = 70
	maxCodeDigits = 6
)

// shape returns s when it reads as a code (a label when spaces are
// allowed: single spaces between words), else [OtherWord].
func shape(s string, max int, spaces bool) string {
	if s == "" {
		return ""
	}
	if len(s) > max || !utf8.ValidString(s) {
		return OtherWord
	}
	digits := 0
	for i, r := range s {
		switch {
		case '0' <= r && r <= '9':
			if digits++; digits > maxCodeDigits {
				return OtherWord
			}
		case r == '_', r == '-', r == '.', r == '/':
		case r == ' ':
			if !spaces || i == 0 || i == len(s)-1 || s[i-1] == ' ' {
				return OtherWord
			}
		case unicode.IsLetter(r):
		default:
			return OtherWord
		}
	}
	return s
}

// maxDateTime bounds the length of a [DateTime]: an RFC 3339 date-time
// with nanoseconds and an offset takes 35 bytes.
const maxDateTime = 35

// Decimal returns a decimal number of a bank's document that a form
// shows in clear (an exchange rate, a fee's percentage) as the bank sent
// it when it reads as one, an optional sign, digits and at most one
// decimal point, of at most [MaxShown] bytes, and [OtherWord] otherwise:
// the member is the bank's text, which may hold a name. "" stays "".
func Decimal(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > MaxShown {
		return OtherWord
	}
	digits, points := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == '.':
			points++
		case i == 0 && (c == '-' || c == '+'):
		default:
			return OtherWord
		}
	}
	if digits == 0 || points > 1 {
		return OtherWord
	}
	return s
}

// Words returns [Word] of each of vs, nil for none.
func Words(vs []string) []string { return each(vs, Word) }

// Codes returns vs, each as [Code] shows it (a standing order's months
// of execution); nil for none.
func Codes(vs []string) []string { return each(vs, Code) }

// each returns show of each of vs, nil for none.
func each(vs []string, show func(string) string) []string {
	if len(vs) == 0 {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = show(v)
	}
	return out
}

// Answer adds to f what the bank's answers share: the names of their
// links (never the hrefs: a scaRedirect carries the bank's SCA state),
// the codes of their tppMessages (code reads one) and the psuMessage,
// text for the PSU that may name them, as [Redacted] when set.
func Answer[L ~map[string]V, V, M any](f *Form, links L, msgs []M, code func(M) string, psuMessage string) *Form {
	Keys(f, "links", links)
	var codes []string
	for _, m := range msgs {
		codes = append(codes, code(m))
	}
	return f.List("tppMessages", codes).Secret("psuMessage", psuMessage)
}

// Nested shows the form of a value a field holds; nil shows nothing.
func (f *Form) Nested(key string, n *Form) *Form {
	if n == nil {
		return f
	}
	return f.add(slog.Any(key, n.LogValue()), n.String())
}

// Forms shows the forms of the elements of a list under key, when there
// are any, at most [MaxItems] of them: in String as a list, in slog as a
// group keyed by index (the rest counted under "more").
func (f *Form) Forms(key string, ns []*Form) *Form {
	if len(ns) == 0 {
		return f
	}
	shown := ns[:min(len(ns), MaxItems)]
	texts := make([]string, len(shown), len(shown)+1)
	attrs := make([]slog.Attr, len(shown), len(shown)+1)
	for i, n := range shown {
		texts[i] = n.String()
		attrs[i] = slog.Any(strconv.Itoa(i), n.LogValue())
	}
	if rest := len(ns) - len(shown); rest > 0 {
		texts = append(texts, more(rest))
		attrs = append(attrs, slog.Int("more", rest))
	}
	return f.add(slog.Attr{Key: key, Value: slog.GroupValue(attrs...)}, "["+strings.Join(texts, " ")+"]")
}

// FormsOf is [Form.Forms] of form(v) for each v of vs (the first
// [MaxItems] of them made, the rest counted).
func FormsOf[T any](f *Form, key string, vs []T, form func(T) *Form) *Form {
	if len(vs) == 0 {
		return f
	}
	n := min(len(vs), MaxItems)
	ns := make([]*Form, len(vs))
	for i, v := range vs[:n] {
		ns[i] = form(v)
	}
	return f.Forms(key, ns)
}

// String writes the form as name{key=value ...} (name{Key:value ...}
// for [NewGo]), or name(nil) for [Nil].
func (f *Form) String() string {
	if f.isNil {
		return f.name + "(nil)"
	}
	return f.name + "{" + strings.Join(f.text, " ") + "}"
}

// LogValue is the form as a slog group of its facts; String's text for
// [Nil].
func (f *Form) LogValue() slog.Value {
	if f.isNil {
		return slog.StringValue(f.String())
	}
	return slog.GroupValue(f.attrs...)
}

// Ptr is the form of *p made by form, nil for a nil p: the form of an
// optional member ([Form.Nested] leaves a nil form out).
func Ptr[T any](p *T, form func(T) *Form) *Form {
	if p == nil {
		return nil
	}
	return form(*p)
}

// Write is the Format of a type whose form is s (its String): %q writes
// s quoted, every other verb and flag writes s as it is. fmt would
// otherwise print a struct field by field for verbs such as %d, %x and
// %s, bypassing String.
func Write(st fmt.State, verb rune, s string) {
	if verb == 'q' {
		s = strconv.Quote(s)
	}
	_, _ = io.WriteString(st, s)
}

// Format is the Format of a type whose String is not its form (an
// error's message, a link in full) and whose GoString is: %#v writes
// GoString, every other verb String (%q quoted), as [Write] does.
func Format(st fmt.State, verb rune, v interface {
	fmt.Stringer
	fmt.GoStringer
}) {
	if verb == 'v' && st.Flag('#') {
		Write(st, verb, v.GoString())
		return
	}
	Write(st, verb, v.String())
}

// URI is the one redactor of links and URIs in printed, logged and JSON
// forms: s with its user info, query and fragment (which carry states,
// session ids and account ids) each replaced by [Redacted], so
// "https://[redacted]@host/p?[redacted]#[redacted]"; "" stays "".
//
// With path nil, s must be an absolute URI with a host (a redirect URI, a
// link to send a browser to), whose path is kept; anything else is
// redacted whole. With path, s may be any reference (relative, or
// "//host/..."), and its escaped path is shown as path returns it (the
// client's templates, ids as {id}). A value that does not parse, or an
// opaque one ("mailto:..."), is redacted whole.
func URI(s string, path func(escapedPath string) string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || (path == nil && (!u.IsAbs() || u.Host == "")) {
		return Redacted
	}
	p := u.EscapedPath()
	if path != nil {
		p = path(p)
	}
	var b strings.Builder
	if u.Scheme != "" || u.Host != "" {
		if u.Scheme != "" {
			b.WriteString(u.Scheme + ":")
		}
		b.WriteString("//")
		if u.User != nil {
			b.WriteString(Redacted + "@")
		}
		b.WriteString(u.Host)
	}
	b.WriteString(p)
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?" + Redacted)
	}
	if u.Fragment != "" || u.RawFragment != "" {
		b.WriteString("#" + Redacted)
	}
	return b.String()
}

// quote quotes v when it would not read as one word in a form.
func quote(v string) string {
	if strings.ContainsFunc(v, func(r rune) bool {
		return r <= ' ' || r == '=' || r == '"' || r == '{' || r == '}' || r == '[' || r == ']' || r == 0x7f || !strconv.IsPrint(r)
	}) {
		return strconv.Quote(v)
	}
	return v
}
