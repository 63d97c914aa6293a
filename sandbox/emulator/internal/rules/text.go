package rules

import (
	"net/mail"
	"strings"
	"unicode/utf8"
)

// RequiredText checks a required text field s at path: present (nil is a
// missing field) and of min to max characters ([OptionalText]).
func RequiredText(s *string, path string, min, max int) *Violation {
	if s == nil {
		return Format(path, "%s is required.", path)
	}
	return OptionalText(s, path, min, max)
}

// OptionalText checks an optional text field s at path: when present, of
// min to max characters (characters, not bytes). An empty string is
// present, and breaks a min of 1.
func OptionalText(s *string, path string, min, max int) *Violation {
	if s == nil {
		return nil
	}
	n := utf8.RuneCountInString(*s)
	if n < min {
		return Format(path, "%s must not be empty.", path)
	}
	if n > max {
		return Format(path, "%s is longer than %d characters.", path, max)
	}
	return nil
}

// MaxEmailLen is the longest e-mail address, in bytes (RFC 5321).
const MaxEmailLen = 254

// CheckContactEmail checks the email of a TPP's contact information
// (PUT /v1/tpps/{tppId}/contact-information): present, and a plain
// local-part@domain address of at most [MaxEmailLen] bytes, without
// display name or brackets, whose domain has a dot ([CodeFormat]).
func CheckContactEmail(email *string) *Violation {
	if email == nil {
		return Format("email", "The body must carry email.")
	}
	if !validEmail(*email) {
		return Format("email", "email must be an e-mail address of the form local-part@domain.")
	}
	return nil
}

// validEmail reports whether e is a plain address of at most MaxEmailLen
// bytes, without display name or brackets, whose domain has a dot.
func validEmail(e string) bool {
	if e == "" || len(e) > MaxEmailLen {
		return false
	}
	a, err := mail.ParseAddress(e)
	return err == nil && a.Name == "" && a.Address == e && strings.Contains(e[strings.LastIndexByte(e, '@')+1:], ".")
}
