package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// psd2 journal resolve that cannot tell whether the payment exists
// (NeedsPerson: here a create with allowLogicalDuplicate, which a resend
// could duplicate) leaves it in doubt: it says so and exits non-zero, as
// text and as JSON, so that no script reads "resolved" into it. On the
// code before it exited 0.
func TestJournalResolveNeedsPersonIsNoSuccess(t *testing.T) {
	t.Parallel()
	s, creds, certFile, keyFile, caFile := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := inDoubt(t, s, creds, st)
	editEntry(t, st, id, func(rec map[string]any) { rec["allowLogicalDuplicate"] = true })
	args := []string{"journal", "resolve", "-store", dir, "-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile, id}

	out, errOut, code := psd2(t, args...)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	assert.Equal(t, exitFailed, code, "a payment left in doubt is no success")
	assert.Contains(t, out, "Tell the PSU: We are checking whether your payment went through")
	assert.Contains(t, errOut, "still in doubt")

	out, _, code = psd2(t, append(append([]string{}, args[:2]...), append([]string{"--json"}, args[2:]...)...)...)
	assert.Equal(t, exitFailed, code)
	var rep resolveReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, journal.NeedsPerson, rep.Kind)
	assert.True(t, rep.Entry.InDoubt)
}
