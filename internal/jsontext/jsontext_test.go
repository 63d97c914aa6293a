package jsontext

import (
	"encoding/json"
	"testing"
)

// PlainString gives what encoding/json gives, or declines.
func FuzzPlainString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"æøå"`, `"a\"b"`, `"\u00e6"`, "\"\xff\"", "\"a\tb\"", `""`, `"`, `x`, `"a"b"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := PlainString(b)
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("PlainString(%q) = %q, but encoding/json refuses it: %v", b, got, err)
		}
		if got != want {
			t.Fatalf("PlainString(%q) = %q, encoding/json gives %q", b, got, want)
		}
	})
}

func TestPlainStringDeclinesWhatNeedsTheDecoder(t *testing.T) {
	for _, s := range []string{`"a\"b"`, `"\u00e6"`, "\"\xff\"", "\"a\tb\"", `"`, `x`, `7`, `"a"b"`} {
		if got, ok := PlainString([]byte(s)); ok {
			t.Errorf("PlainString(%q) = %q, want it declined", s, got)
		}
	}
	if got, ok := PlainString([]byte(`"Faktura æ"`)); !ok || got != "Faktura æ" {
		t.Errorf("PlainString of a plain string = %q, %v", got, ok)
	}
}
