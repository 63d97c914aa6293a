package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// TestJournalListReportsALostEntry: a payment in doubt whose journal
// entry is gone, only its open marker left, is listed as lost (never
// dropped: the payment may exist), and the listing exits 3, as text and
// as JSON, with and without -all; show and resolve say it is lost; a
// person's settle records it, and the listing is then clear.
func TestJournalListReportsALostEntry(t *testing.T) {
	t.Parallel()
	s, creds, certFile, keyFile, caFile := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := inDoubt(t, s, creds, st)
	require.NoError(t, st.Delete(t.Context(), "journal/entry/"+id))
	storeArgs := []string{"-store", dir}

	for _, all := range []bool{false, true} {
		args := append([]string{"journal", "list"}, storeArgs...)
		if all {
			args = append(args, "-all")
		}
		out, errOut, code := psd2In(t, t.TempDir(), nil, args...)
		assert.Equal(t, exitRuntime, code, "a payment in doubt the journal lost is no all-clear: %s%s", out, errOut)
		assert.Contains(t, out, id)
		assert.Contains(t, out, "ENTRY LOST")
		assert.Contains(t, out, "LOST: 1 of them")
		assert.NotContains(t, out, "0 payment(s) in doubt")
		assert.Contains(t, errOut, "lost")

		out, errOut, code = psd2In(t, t.TempDir(), nil, append(args, "--json")...)
		assert.Equal(t, exitRuntime, code, errOut)
		var rows []entryRow
		require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
		require.Len(t, rows, 1)
		assert.Equal(t, id, rows[0].RequestID)
		assert.True(t, rows[0].Lost)
		assert.True(t, rows[0].InDoubt)
		assert.Equal(t, stateLost, rows[0].State)
	}

	_, errOut, code := psd2In(t, t.TempDir(), nil, append([]string{"journal", "show", id}, storeArgs...)...)
	assert.Equal(t, exitRuntime, code, errOut)
	assert.Contains(t, errOut, "lost")
	assert.NotContains(t, errOut, "no journal entry")
	// --json prints a document saying it is lost (it printed nothing).
	out, errOut, code := psd2In(t, t.TempDir(), nil, append([]string{"journal", "show", "--json", id}, storeArgs...)...)
	assert.Equal(t, exitRuntime, code, errOut)
	assert.Contains(t, errOut, "lost")
	var row entryRow
	require.NoError(t, json.Unmarshal([]byte(out), &row), out)
	assert.Equal(t, id, row.RequestID)
	assert.True(t, row.Lost)
	assert.True(t, row.InDoubt)
	assert.Equal(t, stateLost, row.State)
	_, errOut, code = psd2In(t, t.TempDir(), nil, append([]string{"journal", "resolve", id, "-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile}, storeArgs...)...)
	assert.Equal(t, exitRuntime, code, errOut)
	assert.Contains(t, errOut, "lost")

	out, errOut, code = psd2In(t, t.TempDir(), nil, append([]string{"journal", "settle", "-by", "ops-anna", "-reason", "the bank has no such payment", id}, storeArgs...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "ops-anna")
	out, errOut, code = psd2In(t, t.TempDir(), nil, append([]string{"journal", "list"}, storeArgs...)...)
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "0 payment(s) in doubt")
	out, errOut, code = psd2In(t, t.TempDir(), nil, append([]string{"journal", "list", "-all"}, storeArgs...)...)
	assert.Equal(t, exitOK, code, errOut)
	assert.True(t, strings.Contains(out, id) && strings.Contains(out, "ops-anna"), "the settlement is kept: %s", out)
}
