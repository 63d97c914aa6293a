package redact_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/internal/redact"
)

type doc struct{ id, status, note string }

func (d doc) form() *redact.Form {
	n := true
	return redact.New("x.Doc").Secret("id", d.id).Str("status", d.status).Str("note", d.note).
		Int("count", 0).Bool("flag", &n).Nested("inner", redact.New("x.Inner").Secret("iban", "NO93"))
}

func (d doc) Format(s fmt.State, verb rune) { redact.Write(s, verb, d.form().String()) }
func (d doc) LogValue() slog.Value          { return d.form().LogValue() }

func TestForm(t *testing.T) {
	t.Parallel()
	d := doc{id: "SECRET-1", status: "ACTC", note: "two words"}
	want := `x.Doc{id=[redacted] status=ACTC note="two words" flag=true inner=x.Inner{iban=[redacted]}}`
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%d"} {
		assert.Equal(t, want, fmt.Sprintf(verb, d), verb)
	}
	assert.Equal(t, fmt.Sprintf("%q", want), fmt.Sprintf("%q", d))
	assert.Equal(t, "x.Doc{status=ACTC flag=true inner=x.Inner{iban=[redacted]}}", fmt.Sprint(doc{status: "ACTC"}), "empty fields are left out")
	var b bytes.Buffer
	slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})).Info("m", "d", d)
	assert.JSONEq(t, `{"level":"INFO","msg":"m","d":{"id":"[redacted]","status":"ACTC","note":"two words","flag":true,"inner":{"iban":"[redacted]"}}}`, b.String())
}

// link prints as its URL in full (String) and as its form otherwise.
type link struct{ url string }

func (l link) String() string { return l.url }
func (l link) GoString() string {
	return redact.NewGo("x.Link").Field("URL", redact.URI(l.url, nil), slog.Value{}).String()
}
func (l link) Format(s fmt.State, verb rune) { redact.Format(s, verb, l) }

func TestFormShapes(t *testing.T) {
	t.Parallel()
	f := redact.NewGo("x.Call").Field("Path", "/v1/{id}", slog.StringValue("/v1/{id}")).Field("Scope", "", slog.StringValue("")).
		Text("op", "create").Attr(slog.String("operation", "create")).Secret("ID", "p-1")
	assert.Equal(t, "x.Call{Path:/v1/{id} Scope: op:create ID:[redacted]}", f.String(), "Field shows empty values, Text is String's")
	var b bytes.Buffer
	slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})).Info("m", "f", f.LogValue(), "n", redact.Nil("x.Delta").LogValue())
	assert.JSONEq(t, `{"level":"INFO","msg":"m","f":{"Path":"/v1/{id}","Scope":"","operation":"create","ID":"[redacted]"},"n":"x.Delta(nil)"}`, b.String())
	assert.Equal(t, "x.Delta(nil)", redact.Nil("x.Delta").String())
	assert.Equal(t, "x.Result{done calls=2 deferred}", redact.New("x.Result").Text("", "done").Int("calls", 2).Text("", "deferred").String(),
		"Text without a key writes the word alone")

	l := link{"https://bank.example/sca?state=S"}
	for _, verb := range []string{"%v", "%+v", "%s", "%d", "%x"} {
		assert.Equal(t, l.url, fmt.Sprintf(verb, l), verb)
	}
	assert.Equal(t, `"`+l.url+`"`, fmt.Sprintf("%q", l))
	assert.Equal(t, "x.Link{URL:https://bank.example/sca?[redacted]}", fmt.Sprintf("%#v", l))
}

func TestURI(t *testing.T) {
	t.Parallel()
	upper := func(p string) string { return "<" + p + ">" }
	for _, tt := range []struct {
		in   string
		path func(string) string
		want string
	}{
		{"", nil, ""},
		{"", upper, ""},
		{"https://tpp.example/cb?state=S#F", nil, "https://tpp.example/cb?[redacted]#[redacted]"},
		{"https://u:p@tpp.example:8443/cb?", nil, "https://[redacted]@tpp.example:8443/cb?[redacted]"},
		{"/relative?state=S", nil, redact.Redacted},
		{"https:///nohost", nil, redact.Redacted},
		{"/relative?state=S", upper, "</relative>?[redacted]"},
		{"//bank.example/v1/user", upper, "//bank.example</v1/user>"},
		{"https://bank.example/a/b#f", upper, "https://bank.example</a/b>#[redacted]"},
		{"mailto:S@example.com", nil, redact.Redacted},
		{"mailto:S@example.com", upper, redact.Redacted},
		{"%zzS", upper, redact.Redacted},
	} {
		assert.Equal(t, tt.want, redact.URI(tt.in, tt.path), tt.in)
	}
}

// TestCodeAndLabel: a code or a product's name shows as sent when it
// reads as one, else as OTHER: more than 6 digits (an account number, a
// national identity number, an IBAN, a card number), a control
// character, a name with spaces in a code, a megabyte.
func TestCodeAndLabel(t *testing.T) {
	for _, s := range []string{"", "R_203", "PMNT-RCDT-ESCT", "TSTBNO22", "DNBANOKKXXX", "5411", "NO", "31", "following", "Høyrente"} {
		assert.Equal(t, s, redact.Code(s), s)
	}
	for _, s := range []string{"NO9386011117947", "01017012345", "12345678", "Kari Nordmann", "R_1\nFORGED", "a\u009b2J",
		"x\x1b[2J", string(make([]byte, 36)), "a b", "\xff"} {
		assert.Equal(t, redact.OtherWord, redact.Code(s), "%q", s)
	}
	for _, s := range []string{"", "Kredittkort Gull", "BRUKSKONTO", "Sparekonto Ung 18-34"} {
		assert.Equal(t, s, redact.Label(s), s)
	}
	for _, s := range []string{"Konto 12345678903", " lead", "trail ", "two  spaces", "a\tb", "x\ny"} {
		assert.Equal(t, redact.OtherWord, redact.Label(s), "%q", s)
	}
}
