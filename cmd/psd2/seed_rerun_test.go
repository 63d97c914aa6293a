package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSandboxSeedRerunCompletesOrSaysWhat: a seed that failed after
// making a customer but before its accounts is completed by a re-run
// (the accounts made, exit 0), not skipped "with its accounts"; a
// customer with only some of its entry's accounts cannot be told apart
// and is named, exit non-zero; two entries with one customer number are
// refused before anything is made.
func TestSandboxSeedRerunCompletesOrSaysWhat(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, caFile := tppFiles(t)
	conn := []string{"-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	const cust = `"customerType":"PRIVATE","customerName":"Seed Kunde"`
	acc := `{"currency":"NOK","name":"Brukskonto","balance":1000}`
	// The first run stopped after the customer: as if its account failed.
	bare := write("bare.json", `[{"customerNumber":"01017054321",`+cust+`},{"customerNumber":"01017054322",`+cust+`,"accounts":[`+acc+`]}]`)
	_, errOut, code := psd2(t, append([]string{"sandbox", "seed", bare, "--json"}, conn...)...)
	require.Equal(t, exitOK, code, errOut)

	full := write("full.json", `[{"customerNumber":"01017054321",`+cust+`,"accounts":[`+acc+`]}]`)
	out, errOut, code := psd2(t, append([]string{"sandbox", "seed", full, "--json"}, conn...)...)
	require.Equal(t, exitOK, code, errOut)
	var rep seedReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, 1, rep.Accounts, "the missing account made")
	assert.Empty(t, rep.Skipped)

	// One of two accounts there: which one cannot be told.
	partial := write("partial.json", `[{"customerNumber":"01017054322",`+cust+`,"accounts":[`+acc+`,`+acc+`]}]`)
	out, errOut, code = psd2(t, append([]string{"sandbox", "seed", partial}, conn...)...)
	assert.NotEqual(t, exitOK, code, out)
	assert.Contains(t, errOut, "entry 0")
	assert.Contains(t, errOut, "01017054322")
	assert.Contains(t, errOut, "1 of its 2 accounts")

	twice := write("twice.json", `[{"customerNumber":"01017054323",`+cust+`},{"customerNumber":"01017054323",`+cust+`}]`)
	out, errOut, code = psd2(t, append([]string{"sandbox", "seed", twice}, conn...)...)
	assert.NotEqual(t, exitOK, code, out)
	assert.Contains(t, errOut, "entries 0 and 1")
	listed, _, _ := psd2(t, append([]string{"sandbox", "list", "--json"}, conn...)...)
	assert.NotContains(t, listed, "01017054323", "nothing made")
}
