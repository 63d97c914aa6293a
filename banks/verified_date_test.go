package banks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/banks"
)

// An impossible verified date (a month or day that does not exist) is
// refused, saying which; a real one, at any precision, is taken.
func TestParseRefusesImpossibleVerifiedDate(t *testing.T) {
	t.Parallel()
	entry := func(v string) []byte {
		return []byte(`{"banks":[{"id":"x","name":"X","group":"other","production":"https://x.example/api","sandbox":"https://x.example/api-sandbox","source":"s","verified":"` + v + `"}]}`)
	}
	for _, v := range []string{"2026-13-45", "2026-13", "2026-00", "2026-02-30", "2025-02-29", "2026-04-31", "2026-01-00", "0000"} {
		_, err := banks.Parse(entry(v))
		if assert.Error(t, err, v) {
			assert.Contains(t, err.Error(), "not a real date", v)
			assert.Contains(t, err.Error(), v, v)
			assert.True(t, strings.HasPrefix(err.Error(), "banks: "), err.Error())
		}
	}
	for _, v := range []string{"2026", "2026-12", "2024-02-29", "2026-01-31"} {
		_, err := banks.Parse(entry(v))
		require.NoError(t, err, v)
	}
}
