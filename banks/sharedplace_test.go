package banks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/banks"
)

// TestOneScopePerPlace: the Eika banks share one host and one entry, and
// so one scope (package doc, "One client per bank"); a directory refuses
// one URL for both environments of a bank because two scopes at one place
// split its budget and journal. Before the fix Load and Parse took a
// second id at a place another id already names, such as a TPP's own
// entry per Eika bank at psd2.eika.no: each got its own scope, so the 4
// calls a day without the PSU were counted apart for one host and a PSU's
// payments journalled under two names.
func TestOneScopePerPlace(t *testing.T) {
	t.Parallel()
	entry := func(id, production, sandbox, extra string) string {
		return `{"id":"` + id + `","name":"` + id + `","group":"Eika","production":"` + production + `","sandbox":"` + sandbox + `"` + extra + `,"source":"own","verified":"2026"}`
	}
	for name, tc := range map[string]string{
		"an Eika bank of its own":      entry("eika-skue", "https://psd2.eika.no/api", "https://psd2.eika.no/api-sandbox", ""),
		"its sandbox only":             entry("eika-skue", "https://psd2.skue.example/api", "https://psd2.eika.no/api-sandbox", ""),
		"spelt otherwise":              entry("eika-skue", "https://PSD2.eika.no.:443/api/", "https://psd2.eika.no/api-sandbox", ""),
		"another bank's sandbox":       entry("eika-skue", "https://psd2.eika.no/api-sandbox", "https://psd2.skue.example/api-sandbox", ""),
		"a new id, said moved":         entry("eika-skue", "https://psd2.eika.no/api", "https://psd2.eika.no/api-sandbox", `,"hostMoved":true`),
		"two new ids at one new place": entry("a", "https://a.example/api", "https://a.example/api-sandbox", "") + "," + entry("b", "https://a.example/api", "https://b.example/api-sandbox", ""),
	} {
		_, err := banks.Load(writeOwn(t, tc))
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), "same place", name)
		}
	}
	_, err := banks.Parse([]byte(`{"banks":[` + entry("a", "https://a.example/api", "https://a.example/api-sandbox", "") + "," +
		entry("b", "https://a.example/api", "https://b.example/api-sandbox", "") + `]}`))
	require.Error(t, err, "Parse: two ids at one place")
	assert.True(t, strings.HasPrefix(err.Error(), "banks: "), err)

	// The Eika entry itself may be replaced, and another path of the
	// same host is another place.
	d, err := banks.Load(writeOwn(t, entry("eika", "https://psd2.eika.no/api", "https://psd2.eika.no/api-sandbox", `,"consentDays":180`),
		entry("eika-v2", "https://psd2.eika.no/api/v2", "https://psd2.eika.no/api-sandbox/v2", "")))
	require.NoError(t, err)
	assert.Equal(t, banks.Default().Len()+1, d.Len())
	// Two banks of the directory merging onto one host, each said moved,
	// keep their ids (each keeps its own budget and journal entries).
	_, err = banks.Load(writeOwn(t,
		`{"id":"sor","name":"Sparebanken Norge","group":"other","production":"https://psd2.sbnorge.example/api","sandbox":"https://psd2.sbnorge.example/api-sandbox","hostMoved":true,"source":"notice","verified":"2026-11"}`,
		`{"id":"oslofjordsparebank","name":"Sparebanken Norge","group":"other","production":"https://psd2.sbnorge.example/api","sandbox":"https://psd2.sbnorge.example/api-sandbox","hostMoved":true,"source":"notice","verified":"2026-11"}`))
	require.NoError(t, err)
	// A bank of the directory said moved onto another bank's host.
	_, err = banks.Load(writeOwn(t,
		`{"id":"oslofjordsparebank","name":"Oslofjord","group":"other","production":"https://openbanking.sor.no/api","sandbox":"https://openbanking.sor.no/api-sandbox","hostMoved":true,"source":"notice","verified":"2026-11"}`))
	require.NoError(t, err)
}
