package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// TestJournalUnreadableEntryAdviceLeadsSomewhere: journal list told of an
// entry it cannot read "... then psd2 journal settle", and settle (show,
// resolve) of it said only "entry ID unreadable: unexpected end of JSON
// input": the advice led to a refusal that did not say why. Show,
// resolve and settle now say the entry could not be read, that psd2
// cannot act on it, and what to do; list no longer sends the operator to
// settle it.
func TestJournalUnreadableEntryAdviceLeadsSomewhere(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	const id = "5b1f0c7e-2a7d-4c3e-8f4a-9d2e6b1a7c55"
	require.NoError(t, st.Put(t.Context(), "journal/entry/"+id, []byte(`{"intent":`), 0))
	require.NoError(t, st.Put(t.Context(), "journal/open/"+id, []byte("2026-12-04T10:00:00Z"), 0))

	out, _, code := psd2(t, "journal", "list", "-store", dir)
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, out, "ENTRY UNREADABLE")
	assert.NotContains(t, out, "then psd2 journal settle.", "settle cannot act on an entry psd2 cannot read")
	assert.NotContains(t, out, "Next: psd2 journal resolve", "nor can resolve")

	for _, args := range [][]string{
		{"journal", "show", id},
		{"journal", "settle", "-by", "ops", "-reason", "checked", id},
		{"journal", "resolve", "-url", s.URL, "-cert", certFile, "-key", keyFile, id},
	} {
		out, errOut, code := psd2(t, append(args, "-store", dir)...)
		t.Logf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
		assert.Equal(t, exitRuntime, code, "%v", args)
		assert.Contains(t, errOut, "the journal entry of "+id+" could not be read", "%v", args)
		assert.Contains(t, errOut, "psd2 can neither resolve nor settle it", "%v", args)
	}
}
