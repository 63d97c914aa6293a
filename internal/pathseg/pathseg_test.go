package pathseg

import (
	"net/url"
	"testing"
)

func TestProblem(t *testing.T) {
	for id, bad := range map[string]bool{
		"": true, ".": true, "..": true, "a\x00b": true, "a\nb": true, "\x7f": true, "\xff": true,
		" ": true, "  ": true, "\u00a0": true, " enc!!abc=": true, "enc!!abc= ": true,
		"enc!!abc=": false, "...": false, ".a": false, "a/b": false, "æøå": false, "a b": false,
	} {
		if got := Problem(id) != ""; got != bad {
			t.Errorf("Problem(%q) = %q, want a problem: %v", id, Problem(id), bad)
		}
	}
}

// An escaped segment is one segment that decodes to the id.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"enc!!Qk1-_ZZ=": "enc!!Qk1-_ZZ=",
		"a b/c?d#e%f":   "a%20b%2Fc%3Fd%23e%25f",
		"æ":             "%C3%A6",
		"x:y@z;k=v,w+u": "x:y@z;k=v,w+u",
	} {
		got := Escape(in)
		if got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
		if back, err := url.PathUnescape(got); err != nil || back != in {
			t.Errorf("Escape(%q) = %q decodes to %q, %v", in, got, back, err)
		}
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("enc!!a/b c=")
	f.Fuzz(func(t *testing.T, id string) {
		got := Escape(id)
		for i := 0; i < len(got); i++ {
			if got[i] == '/' || got[i] == '?' || got[i] == '#' || got[i] < 0x21 || got[i] > 0x7e {
				t.Fatalf("Escape(%q) = %q leaves %q", id, got, got[i])
			}
		}
		if back, err := url.PathUnescape(got); err != nil || back != id {
			t.Fatalf("Escape(%q) = %q decodes to %q, %v", id, got, back, err)
		}
	})
}
