package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSandboxSeedRefusesAnUnknownKey: a key of the seed file that no
// entry takes (a misspelt "acounts", "transations", "balanse") fails
// the command before any request (exit 3, naming the key), as the
// control API's seed refuses one. It was dropped without a word: the
// customer was made without its accounts, or an account without its
// transactions or its balance, and the command exited 0.
func TestSandboxSeedRefusesAnUnknownKey(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, caFile := tppFiles(t)
	conn := []string{"-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile}
	countCustomers := func() int {
		out, errOut, code := psd2(t, append([]string{"sandbox", "list", "--json"}, conn...)...)
		require.Equal(t, exitOK, code, errOut)
		var list []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(out), &list))
		return len(list)
	}
	before := countCustomers()
	for key, body := range map[string]string{
		"acounts": `[{"customerNumber":"03017012345","customerType":"PRIVATE","customerName":"Skrivefeil",
		  "acounts":[{"currency":"NOK","balance":1000}]}]`,
		"transations": `[{"customerNumber":"04017012345","customerType":"PRIVATE","customerName":"Skrivefeil",
		  "accounts":[{"currency":"NOK","transations":[{"bookingDate":"2026-01-02","transactionAmount":{"amount":-5,"currency":"NOK"}}]}]}]`,
		"balanse": `[{"customerNumber":"05017012345","customerType":"PRIVATE","customerName":"Skrivefeil",
		  "accounts":[{"currency":"NOK","balanse":1000}]}]`,
	} {
		file := filepath.Join(t.TempDir(), key+".json")
		require.NoError(t, os.WriteFile(file, []byte(body), 0o600))
		out, errOut, code := psd2(t, append(append([]string{"sandbox", "seed"}, conn...), file)...)
		assert.Equal(t, exitRuntime, code, "%s: %s", key, out)
		assert.Contains(t, errOut, key, key)
		assert.Empty(t, out, key)
	}
	assert.Equal(t, before, countCustomers(), "customers made")
}
