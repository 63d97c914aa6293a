package reconcile

import (
	"strings"
	"testing"

	"github.com/tppkit/psd2/accounts"
)

// FuzzKIDOf: a reference read as a KID is the reference itself, or its
// digits with the grouping spaces between them taken out, never other
// digits; a run of a text offered as a KID in groups is a piece of the
// text; and a text glued to another token (after "2026/", "INV-" or a
// letter, before "/2026" or ".50") holds no KID the text alone does not.
func FuzzKIDOf(f *testing.F) {
	for _, s := range []string{"12345678903", "1234 5678 903", "12 345 678 903", "1234\u00a05678\u00a090-",
		"faktura 1234 5678903", "KID 1234 5678 903.", "1 2 3", "1234  5678", "x1234 5678 903",
		"12345678903-", " 00000 00018/2026", "KID: 1234 5678 903", "ordre 2026/12345678903"} {
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
		// A token glued to a text makes no KID of its own: a KID read
		// after a slash or letters before it, or a slash after it, was
		// read without them.
		if plain := echoedKIDs(&accounts.Transaction{RemittanceInformationUnstructured: s}); len(plain) < maxKIDs {
			for _, glued := range []string{"2026/" + s, "INV-" + s, "x" + s, s + "/2026", s + ".50"} {
				for _, k := range echoedKIDs(&accounts.Transaction{RemittanceInformationUnstructured: glued}) {
					if !contains(plain, k) {
						t.Fatalf("KID %q read from %q, not from %q (%q)", k, glued, s, plain)
					}
				}
			}
		}
	})
}

// TestKIDGroupsBlankOnlyTheirPlace: a run read as a KID in groups is
// taken out of the text where it stands, not wherever its characters
// recur: a longer word that holds them ("9999912 3449999" holds "12
// 344") is not cut into a shorter KID (99999).
func TestKIDGroupsBlankOnlyTheirPlace(t *testing.T) {
	if k, ok := kidOf("12 344"); !ok || k != "12344" {
		t.Fatalf("kidOf(%q) = %q, %v", "12 344", k, ok)
	}
	kids := echoedKIDs(&accounts.Transaction{RemittanceInformationUnstructured: "KID 12 344, ref 9999912 3449999"})
	for _, k := range kids {
		if k != "12344" && k != "9999912" && k != "3449999" {
			t.Fatalf("KID %q read from a piece of a word: %q", k, kids)
		}
	}
	if !contains(kids, "12344") {
		t.Fatalf("the KID in groups not read: %q", kids)
	}
}
