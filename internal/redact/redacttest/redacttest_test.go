package redacttest

import (
	"strings"
	"testing"
)

// The slog forms carry no time: a secret of a few digits must not be
// found in (or hidden by) the clock's digits.
func TestFormsHaveNoTime(t *testing.T) {
	t.Parallel()
	f := Forms(struct{ Postal string }{"0155"})
	for _, name := range []string{"slog JSON", "slog text"} {
		if strings.Contains(f[name], "time") {
			t.Errorf("%s holds the record's time: %s", name, f[name])
		}
		if !strings.Contains(f[name], "0155") {
			t.Errorf("%s does not hold the value: %s", name, f[name])
		}
	}
}
