package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// TestJournalListGoesPastADamagedEntry: an entry the journal cannot read
// is listed as such, in doubt (its payment may exist), and the payments
// in doubt after it are listed too, as text and as JSON, with and without
// -all; the listing exits 3. It stopped at the damaged entry, with an
// error and nothing of the others.
func TestJournalListGoesPastADamagedEntry(t *testing.T) {
	t.Parallel()
	s, creds, _, _, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	a, b := inDoubt(t, s, creds, st), inDoubt(t, s, creds, st)
	damaged, other := min(a, b), max(a, b) // the other comes after it in key order
	require.NoError(t, st.Put(t.Context(), "journal/entry/"+damaged, []byte(`{"intent":`), 0))

	for _, all := range []bool{false, true} {
		args := []string{"journal", "list", "-store", dir}
		if all {
			args = append(args, "-all")
		}
		out, errOut, code := psd2In(t, t.TempDir(), nil, args...)
		assert.Equal(t, exitRuntime, code, "a journal entry no one can read is no all-clear: %s%s", out, errOut)
		assert.Contains(t, out, damaged)
		assert.Contains(t, out, "ENTRY UNREADABLE")
		assert.Contains(t, out, other, "the payment in doubt after the damaged entry is listed")
		assert.Contains(t, errOut, "could not be read at all")

		out, errOut, code = psd2In(t, t.TempDir(), nil, append(args, "--json")...)
		assert.Equal(t, exitRuntime, code, errOut)
		var rows []entryRow
		require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
		require.Len(t, rows, 2, out)
		states := map[string]string{}
		for _, r := range rows {
			assert.True(t, r.InDoubt, r.RequestID)
			states[r.RequestID] = r.State
		}
		assert.Equal(t, stateUnreadable, states[damaged])
		assert.NotEqual(t, stateUnreadable, states[other])
	}
}
