package banks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/banks"
)

// TestProductionURLIsNoSandbox: a bank's production base is
// https://<host>/api and its sandbox base https://<host>/api-sandbox
// (package doc; docs/interface.md). A production base URL under
// /api-sandbox names the bank's sandbox, so a production client made from
// it ([banks.Bank.NewClient]) would send the TPP's production calls to
// the sandbox, and an entry with the two URLs swapped would send the
// sandbox client's calls, with test data, to production. Parse and Load
// refuse such an entry, naming the bank. Before the fix both took it: Load
// compares only the hosts of a bank it knows, and the host of a swapped
// entry is the bank's own.
func TestProductionURLIsNoSandbox(t *testing.T) {
	t.Parallel()
	const entry = `{"id":%q,"name":"X","group":"other","production":%q,"sandbox":%q,"source":"own","verified":"2026-11"}`
	for name, tc := range map[string]struct{ id, production, sandbox string }{
		"sor swapped":              {"sor", "https://openbanking.sor.no/api-sandbox", "https://openbanking.sor.no/api"},
		"sor production=sandbox":   {"sor", "https://openbanking.sor.no/api-sandbox", "https://openbanking.sor.no/api-sandbox/v2"},
		"new bank swapped":         {"newbank", "https://psd2.newbank.example/api-sandbox", "https://psd2.newbank.example/api"},
		"trailing slash":           {"newbank", "https://psd2.newbank.example/api-sandbox/", "https://psd2.newbank.example/api"},
		"percent-encoded":          {"newbank", "https://psd2.newbank.example/api%2Dsandbox", "https://psd2.newbank.example/api"},
		"below the sandbox":        {"newbank", "https://psd2.newbank.example/api-sandbox/v2", "https://psd2.newbank.example/api/v2"},
		"sandbox base in capitals": {"newbank", "https://psd2.newbank.example/API-SANDBOX", "https://psd2.newbank.example/api"},
	} {
		js := fmt.Sprintf(entry, tc.id, tc.production, tc.sandbox)
		_, err := banks.Load(writeOwn(t, js))
		if assert.Error(t, err, "Load: %s", name) {
			assert.Contains(t, err.Error(), tc.id, name)
			assert.Contains(t, err.Error(), "production", name)
		}
		_, err = banks.Parse([]byte(`{"banks":[` + js + `]}`))
		assert.Error(t, err, "Parse: %s", name)
	}

	// The forms the directory uses, a path of the bank's own and a test
	// bank whose sandbox is an emulator under /api are taken.
	for _, tc := range [][2]string{
		{"https://psd2.newbank.example/api", "https://psd2.newbank.example/api-sandbox"},
		{"https://psd2.newbank.example/api/v2", "https://psd2.newbank.example/api-sandbox/v2"},
		{"https://psd2.newbank.example/psd2-api-sandboxed", "https://psd2.newbank.example/api-sandbox"},
		{"https://newbank.example/api", "https://newbank.localhost:8443/api"},
	} {
		d, err := banks.Parse([]byte(`{"banks":[` + fmt.Sprintf(entry, "newbank", tc[0], tc[1]) + `]}`))
		require.NoError(t, err, tc)
		b, _ := d.Lookup("newbank")
		assert.Equal(t, tc[0], b.Production)
	}
	for _, b := range banks.Default().All() {
		assert.False(t, strings.Contains(b.Production, "sandbox"), b.ID)
	}
}
