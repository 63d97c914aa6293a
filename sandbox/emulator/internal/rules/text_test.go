package rules

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTextFields(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	tests := []struct {
		name     string
		v        *string
		min, max int
		required *Violation // RequiredText's answer
		optional *Violation // OptionalText's answer
	}{
		{"absent", nil, 1, 5, Format("f", "f is required."), nil},
		{"empty, min 1", s(""), 1, 5, Format("f", "f must not be empty."), Format("f", "f must not be empty.")},
		{"empty, min 0", s(""), 0, 5, nil, nil},
		{"max characters, not bytes", s(strings.Repeat("ø", 5)), 1, 5, nil, nil},
		{"one too long", s(strings.Repeat("ø", 6)), 1, 5, Format("f", "f is longer than 5 characters."), Format("f", "f is longer than 5 characters.")},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.required, RequiredText(tt.v, "f", tt.min, tt.max), tt.name)
		assert.Equal(t, tt.optional, OptionalText(tt.v, "f", tt.min, tt.max), tt.name)
	}
}

func TestViolation(t *testing.T) {
	t.Parallel()
	assert.Equal(t, &Violation{Code: "FORMAT_ERROR", Path: "a.b", Message: "a.b is 7."}, Format("a.b", "%s is %d.", "a.b", 7))
	assert.Equal(t, &Violation{Code: "HTTP_HEADER_REQUIRED", Path: "PSU-ID", Message: "The header PSU-ID is required."}, HeaderRequired("PSU-ID"))
	assert.Equal(t, `FORMAT_ERROR at "creditorName": too long`, Format("creditorName", "too long").Error())

	assert.Equal(t, strings.Repeat("å", MaxQuoted), Clip(strings.Repeat("å", MaxQuoted)))
	assert.Equal(t, strings.Repeat("å", MaxQuoted)+"…", Clip(strings.Repeat("å", MaxQuoted+1)), "cut at a character")
}

func TestCheckContactEmail(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	bad := Format("email", "email must be an e-mail address of the form local-part@domain.")
	assert.Equal(t, Format("email", "The body must carry email."), CheckContactEmail(nil))
	for e, want := range map[string]*Violation{
		"ops@tpp.example":  nil,
		"a.b+c@sub.tpp.no": nil,
		strings.Repeat("a", 64) + "@" + strings.Repeat("b", 186) + ".no": nil,
		strings.Repeat("a", 64) + "@" + strings.Repeat("b", 187) + ".no": bad,
		"":                      bad,
		"ops@localhost":         bad,
		"Ops <ops@tpp.example>": bad,
		"<ops@tpp.example>":     bad,
		"ops":                   bad,
		"ops@tpp.example ":      bad,
	} {
		assert.Equal(t, want, CheckContactEmail(s(e)), e)
	}
}
