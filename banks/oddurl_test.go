package banks_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/banks"
)

// TestParseRefusesOddBaseURLs checks that every base URL of a directory
// names a bank host, as the package doc says (banks/doc.go: "its
// production and sandbox base URLs", https://<host>/api and
// /api-sandbox, docs/interface.md), and that a sandbox URL naming the
// production URL is refused however it is spelt. Before the fix Parse
// took a URL with a port but no host name ("https://:443/api", which the
// client dials on the local machine), a port out of range (99999, 0),
// and a sandbox URL that is the production one with a letter
// percent-encoded ("https://x.example/%61pi" is /api to the server), so
// one bank's two scopes shared one place.
func TestParseRefusesOddBaseURLs(t *testing.T) {
	t.Parallel()
	good := `{"id":"x","name":"X","group":"other","production":"https://x.example/api","sandbox":"https://x.example/api-sandbox","source":"s","verified":"2026-01"}`
	for _, u := range []string{
		"https://:443/api",
		"https://:8443/api-sandbox",
		"https://x.example:99999/api-sandbox",
		"https://x.example:0/api-sandbox",
		"https://x.example/%61pi",
		"https://x.example/ap%69/",
	} {
		_, err := banks.Parse([]byte(`{"banks":[` + strings.Replace(good, `https://x.example/api-sandbox`, u, 1) + `]}`))
		assert.Error(t, err, u)
	}
	_, err := banks.Parse([]byte(`{"banks":[` + strings.Replace(good, `https://x.example/api-sandbox`, "https://x.example:8443/api-sandbox", 1) + `]}`))
	assert.NoError(t, err, "a port of its own is a place of its own")
}
