package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// psd2 journal settle refused because a resend is on its way says what
// the journal holds: the settlement was not recorded as the entry's
// resolution, but the refusal is in the entry's trail. On the code
// before it said "nothing was changed or sent", and psd2 journal show
// then listed the refused settlement in the trail.
func TestJournalSettleWhileClaimedSaysWhatWasKept(t *testing.T) {
	t.Parallel()
	s, creds, _, _, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := inDoubt(t, s, creds, st)
	until := time.Now().Add(time.Hour).UTC()
	editEntry(t, st, id, func(rec map[string]any) {
		rec["claim"] = map[string]any{"token": "other-resolver", "requestId": "resend-0001", "until": until}
	})

	out, errOut, code := psd2(t, "journal", "settle", "-store", dir, "-by", "ops-anna", "-reason", "bank finds nothing", id)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "a resend of "+id+" is on its way right now (X-Request-ID resend-0001)")
	assert.NotContains(t, errOut, "nothing was changed")
	assert.Contains(t, errOut, "your settlement was not recorded")

	show, _, code := psd2(t, "journal", "show", "-store", dir, id)
	require.Equal(t, exitOK, code)
	assert.Contains(t, show, "refused while a Resolve was sending the create again: settled by ops-anna: bank finds nothing",
		"the trail keeps the refused settlement, as the message says")
}
