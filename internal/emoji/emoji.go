// Package emoji holds Unicode data, not SDK logic: the characters the
// bank's downstream systems cannot process, which the interface answers
// with 400 (docs/interface.md sections 1.6 and 7: "for example an emoji").
//
// The table [ExtendedPictographic] is generated from the Unicode emoji data
// file emoji-data.txt (run go generate in this directory with Debian's
// unicode-data package installed); the generated table.go names the
// Unicode version in its header. The SDK's request validation (package
// payments, package sandbox) imports it. The bank emulator has a check of
// its own (sandbox/emulator/internal/rules), whose test compares the two
// on every code point, so the two sides refuse the same characters.
package emoji

//go:generate go run ./gen -in /usr/share/unicode/emoji/emoji-data.txt -out table.go

import "unicode"

// maxBMP is the last code point of the Basic Multilingual Plane.
const maxBMP = 0xFFFF

// maxLatin1 is the last code point of ISO 8859-1 (Latin-1).
const maxLatin1 = 0xFF

// Refused reports whether r is a character the bank cannot process: a
// character of the Unicode property Extended_Pictographic above ISO 8859-1
// (☕ U+2615, ✅ U+2705, ❤ U+2764, ™ U+2122 and the emoji of the other
// planes) or any character outside the Basic Multilingual Plane (U+10000
// and above, where the downstream systems' UCS-2 ends).
//
// The characters of ISO 8859-1 are accepted, although © U+00A9 and ®
// U+00AE are Extended_Pictographic: they are ordinary Latin-1 text
// ("Acme® AS") that the downstream systems hold, and only their emoji
// presentation (with U+FE0F) makes them emoji; the variation selector
// alone is not refused either.
func Refused(r rune) bool {
	return r > maxBMP || (r > maxLatin1 && unicode.Is(ExtendedPictographic, r))
}

// Index returns the byte index in s of the first character [Refused]
// reports, or -1 when there is none. Invalid UTF-8 is not refused here
// (its bytes read as U+FFFD); callers check validity separately.
func Index(s string) int {
	for i, r := range s {
		if Refused(r) {
			return i
		}
	}
	return -1
}
