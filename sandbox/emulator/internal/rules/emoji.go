package rules

import (
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// maxBMP is the last code point of the Basic Multilingual Plane.
const maxBMP = 0xFFFF

// maxLatin1 is the last code point of ISO 8859-1 (Latin-1).
const maxLatin1 = 0xFF

// zwj is U+200D ZERO WIDTH JOINER.
const zwj = "\u200d"

// Pictographic reports whether r has the Unicode property
// Extended_Pictographic. The emulator does not keep a table of its own: it
// reads the property off the grapheme cluster rules of
// github.com/rivo/uniseg, which join two Extended_Pictographic characters
// around a zero width joiner into one cluster (rule GB11 of UAX #29) and
// nothing else that way: r ZWJ r is one cluster, while "a" ZWJ r is two
// (a mark that extends anything, such as U+0301, makes both one).
func Pictographic(r rune) bool {
	if r == utf8.RuneError || !utf8.ValidRune(r) {
		return false
	}
	s := string(r)
	return uniseg.GraphemeClusterCount(s+zwj+s) == 1 && uniseg.GraphemeClusterCount("a"+zwj+s) == 2
}

// Refused reports whether r is a character the bank cannot process (the
// interface answers 400, "for example an emoji"): an Extended_Pictographic
// character above ISO 8859-1, or any character outside the Basic
// Multilingual Plane. © and ® are Latin-1 text the bank holds.
func Refused(r rune) bool {
	return r > maxBMP || (r > maxLatin1 && Pictographic(r))
}

// Index returns the byte index in s of the first character [Refused]
// reports, or -1 when there is none. Invalid UTF-8 is checked separately.
func Index(s string) int {
	for i, r := range s {
		if r > maxLatin1 && Refused(r) {
			return i
		}
	}
	return -1
}
