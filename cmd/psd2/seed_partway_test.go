package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSandboxSeedPartWaySaysWhatItMade: a seed that stops part-way (an
// account the sandbox refuses) exits non-zero and says which customers
// it made before (their entries and ids), where it stopped, and that
// the customer of that entry is there without all its accounts; as
// text and as JSON.
func TestSandboxSeedPartWaySaysWhatItMade(t *testing.T) {
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
	// The second entry's account names a customer the sandbox does not
	// have: refused, after that entry's customer was made.
	bad := `{"currency":"NOK","name":"Feil","balance":1,"customerNumber":"09099999999"}`
	file := func(a, b string) string {
		return `[{"customerNumber":"` + a + `",` + cust + `,"accounts":[` + acc + `]},` +
			`{"customerNumber":"` + b + `",` + cust + `,"accounts":[` + bad + `]},` +
			`{"customerNumber":"01017054399",` + cust + `}]`
	}

	out, errOut, code := psd2(t, append([]string{"sandbox", "seed", write("text.json", file("01017054331", "01017054332"))}, conn...)...)
	assert.Equal(t, exitRuntime, code, errOut)
	assert.Contains(t, errOut, "customer 1, account 0")
	assert.Contains(t, out, "STOPPED PART-WAY at entry 1, account 0")
	assert.Contains(t, out, "created 2 customer(s) (entries 0, 1 of the file")
	assert.Contains(t, out, "1 account(s)")
	assert.Contains(t, out, "Entry 1's customer is in the sandbox without all its accounts")

	out, errOut, code = psd2(t, append([]string{"sandbox", "seed", "--json", write("json.json", file("01017054341", "01017054342"))}, conn...)...)
	assert.Equal(t, exitRuntime, code, errOut)
	var rep seedReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Len(t, rep.Created, 2)
	assert.Equal(t, []int{0, 1}, rep.CreatedEntries)
	assert.Equal(t, 1, rep.Accounts)
	require.NotNil(t, rep.Stopped)
	assert.Equal(t, 1, rep.Stopped.Entry)
	require.NotNil(t, rep.Stopped.Account)
	assert.Equal(t, 0, *rep.Stopped.Account)
	assert.True(t, rep.Stopped.CustomerMade)
	assert.NotEmpty(t, rep.Stopped.Error)
	listed, _, _ := psd2(t, append([]string{"sandbox", "list", "--json"}, conn...)...)
	for _, id := range rep.Created {
		assert.Contains(t, listed, id, "what it says it made is there")
	}
	assert.NotContains(t, listed, "01017054399", "nothing made after it stopped")
}
