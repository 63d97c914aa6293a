package reconcile

import (
	"strings"
	"testing"
)

// FuzzKIDOf: a reference read as a KID is the reference itself, or its
// digits with the grouping spaces between them taken out, never other
// digits; a run of a text offered as a KID in groups is a piece of the
// text.
func FuzzKIDOf(f *testing.F) {
	for _, s := range []string{"12345678903", "1234 5678 903", "12 345 678 903", "1234\u00a05678\u00a090-",
		"faktura 1234 5678903", "KID 1234 5678 903.", "1 2 3", "1234  5678", "x1234 5678 903"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if k, ok := kidOf(s); ok {
			trimmed := strings.TrimSpace(s)
			if k != trimmed && k != strings.Join(strings.FieldsFunc(trimmed, isGroupSpace), "") {
				t.Fatalf("kidOf(%q) = %q", s, k)
			}
			if !isKID(k) {
				t.Fatalf("kidOf(%q) = %q, not a KID", s, k)
			}
		}
		for _, g := range digitGroups(s) {
			if !strings.Contains(s, g) {
				t.Fatalf("digitGroups(%q) gives %q", s, g)
			}
		}
	})
}
