// Package redacttest checks the printed and slog forms of the SDK's
// document types in their packages' tests: no fmt verb and no slog
// handler shows a value that identifies the PSU or an account, while the
// type's JSON stays the document.
package redacttest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Verbs are the fmt verbs every form is printed with.
var Verbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"}

// Forms returns the printed forms of v (by verb) and its log/slog forms
// ("slog JSON", "slog text"), each logged as the attribute "v" without
// the record's time: the digits of a time (".172150155Z") would match a
// short secret (a postal code "0155") on some runs and not on others.
func Forms(v any) map[string]string {
	out := map[string]string{}
	for _, verb := range Verbs {
		out[verb] = fmt.Sprintf(verb, v)
	}
	var jb, tb bytes.Buffer
	opts := &slog.HandlerOptions{ReplaceAttr: dropTime}
	slog.New(slog.NewJSONHandler(&jb, opts)).Info("m", "v", v)
	slog.New(slog.NewTextHandler(&tb, opts)).Info("m", "v", v)
	out["slog JSON"], out["slog text"] = jb.String(), tb.String()
	return out
}

// dropTime leaves out the time of a log record.
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// WithHex returns secrets and the hex form of each, which %x of a struct
// printed field by field would show.
func WithHex(secrets ...string) []string {
	out := append([]string(nil), secrets...)
	for _, s := range secrets {
		out = append(out, hex.EncodeToString([]byte(s)))
	}
	return out
}

// AssertHidden fails t for each form of v that contains one of secrets.
// slog's JSON handler writes a value that is not a [slog.LogValuer] (a
// slice of documents, a caller's struct holding one) with encoding/json,
// that is as the documents it holds (their JSON is data by design), so
// for such a v that form is not checked. It returns the forms.
func AssertHidden(t testing.TB, v any, secrets []string) map[string]string {
	t.Helper()
	forms := Forms(v)
	_, logValuer := v.(slog.LogValuer)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range forms {
			if !yield(k) {
				return
			}
		}
	}) {
		if name == "slog JSON" && !logValuer {
			continue
		}
		for _, s := range secrets {
			if strings.Contains(forms[name], s) {
				t.Errorf("%T via %s shows %q: %s", v, name, s, forms[name])
			}
		}
	}
	return forms
}

// AssertVerbs fails t unless v prints as want under every verb of
// [Verbs] (%q quoted) but %#v, which prints goWant: the Format that
// internal/redact/gen writes, which no verb bypasses.
func AssertVerbs(t testing.TB, v any, want, goWant string) {
	t.Helper()
	for _, verb := range Verbs {
		w := want
		switch verb {
		case "%q":
			w = strconv.Quote(want)
		case "%#v":
			w = goWant
		}
		if got := fmt.Sprintf(verb, v); got != w {
			t.Errorf("%T via %s: %s, want %s", v, verb, got, w)
		}
	}
}

// AssertRedacted is [AssertHidden] for a v whose JSON is a redacted form
// too (its MarshalJSON is generated from a view, not the document): its
// json.Marshal, alone and inside a struct, is checked as well, under
// "json" in the forms it returns. A v that does not marshal fails t.
func AssertRedacted(t testing.TB, v any, secrets []string) map[string]string {
	t.Helper()
	forms := AssertHidden(t, v, secrets)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%T: json.Marshal: %v", v, err)
	}
	nested, err := json.Marshal(struct{ V any }{v})
	if err != nil {
		t.Fatalf("%T: json.Marshal: %v", v, err)
	}
	forms["json"] = string(b)
	for _, s := range secrets {
		if strings.Contains(string(b), s) || strings.Contains(string(nested), s) {
			t.Errorf("%T via json shows %q: %s", v, s, b)
		}
	}
	return forms
}

// MinSecret is the shortest value Secrets collects: shorter values (a
// suffix "1", a day "3") would match harmless text.
const MinSecret = 4

// Secrets returns the values in the JSON document doc that the forms must
// not show: every string (and number) anywhere below a member whose name
// is in names or starts with a name in prefixes, and the state query
// parameter of every "href" (the bank's SCA state in a scaRedirect). Values
// shorter than MinSecret are left out. A doc that is not JSON fails t.
func Secrets(t testing.TB, doc []byte, names, prefixes []string) []string {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("redacttest: %v", err)
	}
	var out []string
	add := func(s string) {
		if len(s) >= MinSecret && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	var all func(v any)
	all = func(v any) {
		switch v := v.(type) {
		case string:
			add(v)
		case json.Number:
			add(v.String())
		case []any:
			for _, e := range v {
				all(e)
			}
		case map[string]any:
			for _, e := range v {
				all(e)
			}
		}
	}
	secret := func(name string) bool {
		return slices.Contains(names, name) || slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name, p) })
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				switch {
				case secret(k):
					all(e)
				case k == "href":
					if s, ok := e.(string); ok {
						if u, err := url.Parse(s); err == nil {
							for _, q := range u.Query()["state"] {
								add(q)
							}
						}
					}
				default:
					walk(e)
				}
			}
		}
	}
	walk(v)
	return out
}
