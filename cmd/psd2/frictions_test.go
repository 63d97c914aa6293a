package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// TestBanksTakesBankAndPositionalIDs: psd2 banks sor, psd2 banks -bank
// sor and the old -id show one bank; several ids show several.
func TestBanksTakesBankAndPositionalIDs(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"banks", "sor"}, {"banks", "-bank", "sor"}, {"banks", "-id", "sor"}, {"banks", "sor", "--json"}} {
		out, errOut, code := psd2(t, args...)
		require.Equal(t, exitOK, code, "%v: %s", args, errOut)
		assert.Contains(t, out, "https://openbanking.sor.no/api", args)
		assert.NotContains(t, out, "sr-bank", args)
	}
	out, errOut, code := psd2(t, "banks", "sor", "sr-bank", "--json")
	require.Equal(t, exitOK, code, errOut)
	var list []struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	assert.Equal(t, []struct{ ID string }{{"sor"}, {"sr-bank"}}, list)
	_, errOut, code = psd2(t, "banks", "nosuch")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "psd2 banks: no bank \"nosuch\" in the directory (psd2 banks lists them)\n", errOut)
}

// stutter matches a part of a message said twice in a row ("journal:
// journal:"), or Go's syntax for a value.
var stutter = regexp.MustCompile(`(?i)\b(\w+): (\w+):|[a-z]\.[A-Z]\w*\{`)

// TestFlagsAfterArgumentsAndErrorsInWords: flags after a positional
// argument are parsed; errors say what is wrong in one line, without a
// package name said twice or Go syntax.
func TestFlagsAfterArgumentsAndErrorsInWords(t *testing.T) {
	t.Parallel()
	s, creds, certFile, keyFile, caFile := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := inDoubt(t, s, creds, st)

	// Flags after the request id.
	out, errOut, code := psd2(t, "journal", "show", id, "-store", dir, "--json")
	require.Equal(t, exitOK, code, errOut)
	var row entryRow
	require.NoError(t, json.Unmarshal([]byte(out), &row))
	assert.Equal(t, id, row.RequestID)
	out, errOut, code = psd2(t, "journal", "settle", id, "-store", dir, "-by", "ops-anna", "-reason", "the bank says no payment", "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"settled-by-person"`)
	seed := filepath.Join(t.TempDir(), "seed.json")
	require.NoError(t, os.WriteFile(seed, []byte(`[{"customerNumber":"03017012345","customerType":"PRIVATE","customerName":"Etter Flagg"}]`), 0o600))
	out, errOut, code = psd2(t, "sandbox", "seed", seed, "-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile, "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"created"`)
	// "--" ends the flags: what follows is an argument even if it looks like one.
	_, errOut, code = psd2(t, "journal", "show", "-store", dir, "--", "-not-a-flag")
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "no journal entry with request id -not-a-flag")

	_, _, otherCert, otherKey, _ := tppFiles(t) // another TPP
	cases := []struct {
		args []string
		code int
		says string
	}{
		{[]string{"journal", "show", "nosuch", "-store", dir}, exitRuntime, "psd2 journal: no journal entry with request id nosuch in this store (psd2 journal list -all shows them)"},
		{[]string{"journal", "settle", "nosuch", "-store", dir, "-by", "a", "-reason", "b"}, exitRuntime, "psd2 journal: no journal entry with request id nosuch"},
		{[]string{"journal", "settle", id, "-store", dir, "-by", "a", "-reason", "b"}, exitRuntime, "psd2 journal: " + id + " is not in doubt"},
		{[]string{"journal", "settle", id, "-store", dir, "-by", "a", "-reason", "two\nlines"}, exitRuntime, "reason holds a line break"},
		{[]string{"journal", "resolve", id, "-store", dir, "-url", s.URL, "-ca", caFile, "-cert", otherCert, "-key", otherKey}, exitRuntime, "was made with another bank or certificate than this command's"},
		{[]string{"journal", "resolve", id, "-store", dir, "-bank", "sor", "-cert", certFile, "-key", keyFile}, exitRuntime, "was made with another bank or certificate than this command's"},
		{[]string{"journal", "resolve", id, "-store", dir, "-bank", "nosuch", "-cert", certFile, "-key", keyFile}, exitUsage, `no bank "nosuch" in the directory`},
		{[]string{"sandbox", "list", "-url", s.URL, "-cert", certFile, "-key", keyFile}, exitRuntime, "give -ca"},
		{[]string{"sandbox", "list", "-url", s.URL, "-ca", caFile, "-cert", otherCert, "-key", otherKey}, exitRuntime, "certificate"},
		{[]string{"keyid", "-cert", filepath.Join(dir, "missing.pem")}, exitRuntime, "missing.pem: no such file"},
	}
	for _, c := range cases {
		out, errOut, code := psd2(t, c.args...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, errOut)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, errOut, c.says, "%v", c.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line: %s", c.args, errOut)
		msg := strings.TrimPrefix(errOut, "psd2 "+c.args[0]+": ")
		for _, m := range stutter.FindAllStringSubmatch(msg, -1) {
			assert.False(t, m[1] != "" && strings.EqualFold(m[1], m[2]), "%v: stutter %q in %s", c.args, m[0], errOut)
			assert.NotRegexp(t, `[a-z]\.[A-Z]\w*\{`, m[0], "%v: Go syntax in %s", c.args, errOut)
		}
		for _, pkg := range []string{"journal: journal", "store: store", "client: client", "journal.Resolve:", "banks: "} {
			assert.NotContains(t, errOut, pkg, "%v", c.args)
		}
	}
}

// TestSandboxRefusesAProductionHost: sandbox refuses a base URL the
// directory lists as a production API, and one it does not know that is
// not on loopback, unless -force; before any request.
func TestSandboxRefusesAProductionHost(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, caFile := tppFiles(t)
	banksFile := filepath.Join(t.TempDir(), "banks.json")
	require.NoError(t, os.WriteFile(banksFile, fmt.Appendf(nil, `{"banks":[{"id":"testbank","name":"Test Bank","group":"other",
	  "production":%q,"sandbox":"https://psd2.testbank.example/api-sandbox","source":"test","verified":"2026"}]}`, s.URL), 0o600))
	creds := []string{"-ca", caFile, "-cert", certFile, "-key", keyFile}
	for _, sub := range []string{"reset", "list"} {
		for _, target := range [][]string{
			{"-bank", "testbank", "-env", "production", "-banks-file", banksFile},
			{"-url", s.URL, "-banks-file", banksFile},
			{"-bank", "sr-bank", "-env", "production"},
			{"-url", "https://psd2.sr-bank.no/api"},
		} {
			out, errOut, code := psd2(t, append(append([]string{"sandbox", sub}, target...), creds...)...)
			assert.Equal(t, exitUsage, code, "%s %v: %s", sub, target, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "production API, not a sandbox", "%s %v", sub, target)
		}
		_, errOut, code := psd2(t, append([]string{"sandbox", sub, "-url", "https://psd2.unknown.example/api"}, creds...)...)
		assert.Equal(t, exitUsage, code, errOut)
		assert.Contains(t, errOut, "is not a sandbox the bank directory knows")
	}
	// The emulator's customers are still there: nothing was reset.
	out, errOut, code := psd2(t, append([]string{"sandbox", "list", "-url", s.URL, "--json"}, creds...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, 4, strings.Count(out, `"customerNumber"`))
	// -force: the operator says it is a sandbox.
	out, errOut, code = psd2(t, append([]string{"sandbox", "list", "-bank", "testbank", "-env", "production", "-banks-file", banksFile, "-force"}, creds...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Kari Testperson")
}

// TestSandboxSeedTwice: seeding the same file twice makes its customers
// once; the second run says it skipped them.
func TestSandboxSeedTwice(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, caFile := tppFiles(t)
	conn := []string{"-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile}
	file := filepath.Join("testdata", "seed.example.json")
	out, errOut, code := psd2(t, append([]string{"sandbox", "seed", file, "--json"}, conn...)...)
	require.Equal(t, exitOK, code, errOut)
	var first seedReport
	require.NoError(t, json.Unmarshal([]byte(out), &first))
	require.NotEmpty(t, first.Created)
	assert.Empty(t, first.Skipped)
	listed, _, _ := psd2(t, append([]string{"sandbox", "list", "--json"}, conn...)...)

	out, errOut, code = psd2(t, append([]string{"sandbox", "seed", file, "--json"}, conn...)...)
	require.Equal(t, exitOK, code, errOut)
	var second seedReport
	require.NoError(t, json.Unmarshal([]byte(out), &second))
	assert.Empty(t, second.Created)
	assert.Len(t, second.Skipped, len(first.Created))
	assert.Zero(t, second.Accounts)
	again, _, _ := psd2(t, append([]string{"sandbox", "list", "--json"}, conn...)...)
	assert.JSONEq(t, listed, again, "nothing made twice")
	text, _, code := psd2(t, append([]string{"sandbox", "seed", file}, conn...)...)
	require.Equal(t, exitOK, code)
	assert.Contains(t, text, fmt.Sprintf("created 0 customer(s), 0 account(s), 0 transaction(s); skipped %d customer(s) the sandbox has already", len(first.Created)))
}
