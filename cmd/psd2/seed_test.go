package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox"
)

// TestSandboxSeedsAccountsAndTransactions: sandbox seed makes the
// customer, its account and the account's transactions, and the account
// information service shows them after the customer's SCA.
func TestSandboxSeedsAccountsAndTransactions(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, caFile := tppFiles(t)
	conn := []string{"-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile}
	day := time.Now().UTC().AddDate(0, 0, -3).Format(time.DateOnly)
	seed := filepath.Join(t.TempDir(), "seed.json")
	require.NoError(t, os.WriteFile(seed, fmt.Appendf(nil, `[{"customerNumber":"01017012345","customerType":"PRIVATE","customerName":"Seed Kunde",
	  "accounts":[{"currency":"NOK","name":"Brukskonto","balance":1000,"transactions":[
	    {"bookingDate":%[1]q,"valueDate":%[1]q,"transactionAmount":{"amount":-120.5,"currency":"NOK"},"creditorName":"Kiosk"},
	    {"bookingDate":%[1]q,"valueDate":%[1]q,"transactionAmount":{"amount":300,"currency":"NOK"},"debtorName":"Arbeidsgiver"}]}]}]`, day), 0o600))
	out, errOut, code := psd2(t, append(append([]string{"sandbox", "seed", "--json"}, conn...), seed)...)
	require.Equal(t, exitOK, code, errOut)
	var rep seedReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Len(t, rep.Created, 1)
	assert.Equal(t, 1, rep.Accounts)
	assert.Equal(t, 2, rep.Transactions)

	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	ais, err := accounts.New(c)
	require.NoError(t, err)
	sess := testpsu.Consent(t, s, ais, "01017012345")
	psu := sess.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"})
	list, err := ais.List(ctx, nil, psu)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "Brukskonto", list[0].Name)
	page, err := ais.Transactions(ctx, list[0].ResourceID, nil, psu)
	require.NoError(t, err)
	assert.Len(t, page.Booked, 2)

	// A refused transaction names its entry and fails with exit status 3.
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`[{"customerNumber":"02017012345","customerType":"PRIVATE","customerName":"Andre",
	  "accounts":[{"currency":"NOK","transactions":[{"bookingDate":"2026-13-45","transactionAmount":{"amount":5,"currency":"NOK"}}]}]}]`), 0o600))
	_, errOut, code = psd2(t, append(append([]string{"sandbox", "seed"}, conn...), bad)...)
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, errOut, "customer 0, account 0, transactions")
}

// TestExampleSeedFile: the seed file the README points to is one the
// sandbox takes whole.
func TestExampleSeedFile(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, caFile := tppFiles(t)
	conn := []string{"-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile}
	raw, err := os.ReadFile(filepath.Join("testdata", "seed.example.json"))
	require.NoError(t, err)
	var seed []seedCustomer
	require.NoError(t, json.Unmarshal(raw, &seed))
	accountsIn, txIn := 0, 0
	for _, c := range seed {
		accountsIn += len(c.Accounts)
		for _, a := range c.Accounts {
			txIn += len(a.Transactions)
		}
	}
	out, errOut, code := psd2(t, append(append([]string{"sandbox", "seed", "--json"}, conn...), filepath.Join("testdata", "seed.example.json"))...)
	require.Equal(t, exitOK, code, errOut)
	var rep seedReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Len(t, rep.Created, len(seed))
	assert.Equal(t, accountsIn, rep.Accounts)
	assert.Equal(t, txIn, rep.Transactions)
}

// TestSandboxSeedUnreadableFile: a seed file past maxSeedFile or one
// that is JSON null fails before the bank is called (the first was read
// whole, however large: /dev/zero without end; the second seeded nothing
// and exited 0).
func TestSandboxSeedUnreadableFile(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, caFile := tppFiles(t)
	conn := []string{"-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile}
	null := filepath.Join(t.TempDir(), "null.json")
	require.NoError(t, os.WriteFile(null, []byte("null\n"), 0o600))
	large := filepath.Join(t.TempDir(), "large.json")
	require.NoError(t, os.WriteFile(large, bytes.Repeat([]byte(" "), maxSeedFile+1), 0o600))
	for file, want := range map[string]string{large: "larger than", null: "no list of customers"} {
		out, errOut, code := psd2(t, append(append([]string{"sandbox", "seed"}, conn...), file)...)
		assert.NotEqual(t, exitOK, code, file)
		assert.Contains(t, errOut, want, file)
		assert.Empty(t, out, file)
	}
}

// TestSandboxListOfNoCustomerSaysSo: a sandbox whose every customer was
// deleted lists none. sandbox list printed nothing at all for it, the
// same as for a listing that never ran; it now says "0 customer(s)" on
// stdout and why that may be on stderr (one line, exit 0), and --json
// prints an empty list, not null. A sandbox with customers has no note.
func TestSandboxListOfNoCustomerSaysSo(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, creds, certFile, keyFile, caFile := tppFiles(t)
	args := []string{"sandbox", "list", "-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile}
	out, errOut, code := psd2(t, args...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Kari Testperson")
	assert.Contains(t, out, "4 customer(s)\n")
	assert.Empty(t, errOut)

	c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()))
	require.NoError(t, err)
	sb, err := sandbox.New(c)
	require.NoError(t, err)
	list, err := sb.Customers(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, list)
	for _, cu := range list {
		require.NoError(t, sb.DeleteCustomer(ctx, cu.CustomerID))
	}

	for _, json := range []bool{false, true} {
		a := args
		if json {
			a = append(slices.Clone(args), "--json")
		}
		out, errOut, code := psd2(t, a...)
		require.Equal(t, exitOK, code, errOut)
		if json {
			assert.Equal(t, "[]\n", out)
		} else {
			assert.Equal(t, "0 customer(s)\n", out)
		}
		assert.Contains(t, errOut, "holds no customer at all")
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line")
	}
}
