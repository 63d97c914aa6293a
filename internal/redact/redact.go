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
package redact

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Redacted stands in for a value a form does not show.
const Redacted = "[redacted]"

// Form is the printed and slog form of one value: its type's name and
// the facts it shows, in order. The zero Form is not useful; use [New].
type Form struct {
	name  string
	attrs []slog.Attr
	text  []string // the attrs as String shows them, in the same order
}

// New starts the form of a value of the type called name (the package
// qualified Go name, for example "accounts.Account").
func New(name string) *Form { return &Form{name: name} }

func (f *Form) add(a slog.Attr, text string) *Form {
	f.attrs = append(f.attrs, a)
	f.text = append(f.text, a.Key+"="+text)
	return f
}

// Str shows v under key when it is not empty. Use it only for values
// that identify no one.
func (f *Form) Str(key, v string) *Form {
	if v == "" {
		return f
	}
	return f.add(slog.String(key, v), quote(v))
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

// List shows vs under key when there are any: values that identify no
// one (codes, months, member names).
func (f *Form) List(key string, vs []string) *Form {
	if len(vs) == 0 {
		return f
	}
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = quote(v)
	}
	return f.add(slog.Any(key, slices.Clone(vs)), "["+strings.Join(q, " ")+"]")
}

// Keys shows the sorted keys of m under key (the names of a document's
// links, never their hrefs).
func Keys[M ~map[string]V, V any](f *Form, key string, m M) *Form {
	return f.List(key, slices.Sorted(maps.Keys(m)))
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
// are any: in String as a list, in slog as a group keyed by index.
func (f *Form) Forms(key string, ns []*Form) *Form {
	if len(ns) == 0 {
		return f
	}
	texts := make([]string, len(ns))
	attrs := make([]slog.Attr, len(ns))
	for i, n := range ns {
		texts[i] = n.String()
		attrs[i] = slog.Any(strconv.Itoa(i), n.LogValue())
	}
	return f.add(slog.Attr{Key: key, Value: slog.GroupValue(attrs...)}, "["+strings.Join(texts, " ")+"]")
}

// FormsOf is [Form.Forms] of form(v) for each v of vs.
func FormsOf[T any](f *Form, key string, vs []T, form func(T) *Form) *Form {
	if len(vs) == 0 {
		return f
	}
	ns := make([]*Form, len(vs))
	for i, v := range vs {
		ns[i] = form(v)
	}
	return f.Forms(key, ns)
}

// String writes the form as name{key=value ...}.
func (f *Form) String() string {
	return f.name + "{" + strings.Join(f.text, " ") + "}"
}

// LogValue is the form as a slog group of its facts.
func (f *Form) LogValue() slog.Value { return slog.GroupValue(f.attrs...) }

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

// quote quotes v when it would not read as one word in a form.
func quote(v string) string {
	if strings.ContainsFunc(v, func(r rune) bool {
		return r <= ' ' || r == '=' || r == '"' || r == '{' || r == '}' || r == '[' || r == ']' || r == 0x7f || !strconv.IsPrint(r)
	}) {
		return strconv.Quote(v)
	}
	return v
}
