package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// TestReconcileNamesADamagedJournalEntry: a journal entry psd2 cannot
// read among good ones ends psd2 reconcile with exit status 3, never a
// report without its payment, and the error says it is the journal's
// entry, which one, and that no report is given because of it. It said
// only "entry x unreadable: unexpected end of JSON input".
func TestReconcileNamesADamagedJournalEntry(t *testing.T) {
	t.Parallel()
	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	seedReconcile(t, st)
	const id = "7d0c6a52-3f1e-4d0b-9a51-2f6f2a1c9e10"
	require.NoError(t, st.Put(t.Context(), "journal/entry/"+id, []byte(`{"intent":`), 0))
	out, errOut, code := psd2(t, append([]string{"reconcile", "-store", dir}, seedPeriod(t)...)...)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.Equal(t, exitRuntime, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "the journal entry "+id+" could not be read")
	assert.Contains(t, errOut, "no report is given")
	assert.Contains(t, errOut, "psd2 journal list")
}
