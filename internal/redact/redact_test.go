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
