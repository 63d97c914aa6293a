package banks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/banks"
)

// TestParseRefusesControlCharacters: an entry's name, notes and source
// are shown as they are (psd2 banks prints them to a terminal), so a
// control character (C0, DEL or C1) in one is refused, as the id's
// pattern refuses them in the id: an escape sequence in a directory file
// would drive the terminal of whoever lists the banks. Before, Parse took
// them.
func TestParseRefusesControlCharacters(t *testing.T) {
	t.Parallel()
	good := `{"id":"x","name":"X","group":"other","production":"https://x.example/api","sandbox":"https://x.example/api-sandbox","notes":"n","source":"s","verified":"2026-01"}`
	for name, tc := range map[string]string{
		"name escape":   strings.Replace(good, `"name":"X"`, `"name":"X\u001b[2J"`, 1),
		"notes newline": strings.Replace(good, `"notes":"n"`, `"notes":"n\nfake line"`, 1),
		"source bell":   strings.Replace(good, `"source":"s"`, `"source":"s\u0007"`, 1),
		"name C1":       strings.Replace(good, `"name":"X"`, `"name":"X\u009b2J"`, 1),
	} {
		_, err := banks.Parse([]byte(`{"banks":[` + tc + `]}`))
		assert.Error(t, err, name)
	}
	_, err := banks.Parse([]byte(`{"banks":[` + strings.Replace(good, `"name":"X"`, `"name":"Sparebanken Sør – Øst"`, 1) + `]}`))
	assert.NoError(t, err, "letters of any script")
}
