package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// An entry without an outcome whose open marker is missing (the store
// failed the marker's write, the create was sent, and the process died
// before recording the answer) is in doubt, though journal.InDoubt, which
// reads only markers, never yields it: journal list lists it. On the code
// before it printed "0 payment(s) in doubt" and exited 0.
func TestJournalListUnarmedNoAnswerIsNoAllClear(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := uuid.NewString()
	created := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	putRawEntry(t, st, id, map[string]any{
		"v": 1, "requestId": id, "operation": "payments.CreateNorwegianDomestic",
		"create": map[string]any{"resultId": "paymentId"},
		"url":    "https://psd2.bank.example/v1/payments/norwegian-domestic-credit-transfers", "body": []byte(`{}`),
		"scope": "x", "created": created, "until": created,
	})
	require.NoError(t, st.Delete(t.Context(), "journal/open/"+id))

	out, errOut, code := psd2(t, "journal", "list", "-store", dir)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.NotContains(t, out, "0 payment(s) in doubt")
	assert.Contains(t, out, id)
	assert.Contains(t, out, "1 payment(s) in doubt")
	assert.NotContains(t, errOut, "no journal entry at all")

	// A settled entry alone is nothing in doubt, and no empty journal.
	editEntry(t, st, id, func(rec map[string]any) { rec["outcome"] = "refused" })
	out, errOut, code = psd2(t, "journal", "list", "-store", dir)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "0 payment(s) in doubt")
	assert.NotContains(t, errOut, "no journal entry at all")
}
