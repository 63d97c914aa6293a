package rules

import "unicode/utf8"

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
