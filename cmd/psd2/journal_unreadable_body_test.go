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

// TestJournalListSaysABodyIsUnreadable: an entry whose recorded body
// psd2 cannot decode is listed with its amount and creditor as
// unreadable, never as "-" (a create without them), the listing says
// how many it could not read, and it exits 3 (it cannot tell what they
// are), as text and as JSON; show says so too.
func TestJournalListSaysABodyIsUnreadable(t *testing.T) {
	t.Parallel()
	s, creds, _, _, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := inDoubt(t, s, creds, st)
	editEntry(t, st, id, func(rec map[string]any) { rec["body"] = []byte("<Document>not JSON</Document>") })

	out, errOut, code := psd2In(t, t.TempDir(), nil, "journal", "list", "-store", dir)
	assert.Equal(t, exitRuntime, code, "a listing with an entry it could not read is not whole: %s%s", out, errOut)
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, id) {
			row = l
		}
	}
	require.NotEmpty(t, row, out)
	assert.Contains(t, row, unreadableAmount)
	assert.NotContains(t, row, " - ", "no dash for an amount or creditor psd2 could not read")
	assert.Contains(t, out, "1 payment(s) in doubt")
	assert.Contains(t, out, "UNREADABLE: 1 of them")
	assert.Contains(t, errOut, "could not be read")

	out, errOut, code = psd2In(t, t.TempDir(), nil, "journal", "list", "--json", "-store", dir)
	assert.Equal(t, exitRuntime, code, errOut)
	var rows []entryRow
	require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
	require.Len(t, rows, 1)
	assert.NotEmpty(t, rows[0].BodyUnreadable)
	assert.NotContains(t, rows[0].BodyUnreadable, "Document", "the reason holds none of the body")
	assert.Empty(t, rows[0].Amount)

	out, errOut, code = psd2In(t, t.TempDir(), nil, "journal", "show", id, "-store", dir)
	assert.Equal(t, exitRuntime, code, errOut)
	assert.Contains(t, out, "UNREADABLE")
	assert.Contains(t, out, unreadableAmount)
}

// TestJournalListSaysABodyWithoutAmountIsUnreadable: a payment's create
// whose recorded body decodes but names no amount ({}, null) is shown
// as unreadable too, never with "-" as its amount.
func TestJournalListSaysABodyWithoutAmountIsUnreadable(t *testing.T) {
	t.Parallel()
	s, creds, _, _, _ := tppFiles(t)
	for _, body := range []string{"{}", "null"} {
		dir := filepath.Join(t.TempDir(), "store")
		st, err := store.NewFileStore(dir)
		require.NoError(t, err)
		id := inDoubt(t, s, creds, st)
		editEntry(t, st, id, func(rec map[string]any) { rec["body"] = []byte(body) })
		out, errOut, code := psd2In(t, t.TempDir(), nil, "journal", "list", "--json", "-store", dir)
		assert.Equal(t, exitRuntime, code, "%s: %s%s", body, out, errOut)
		var rows []entryRow
		require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
		require.Len(t, rows, 1)
		assert.NotEmpty(t, rows[0].BodyUnreadable, body)
	}
}
