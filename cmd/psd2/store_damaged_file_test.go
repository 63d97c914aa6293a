package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// valueFileOf is the path of the file store's value file that holds
// key (its name is a hash of the key; the key is in its content).
func valueFileOf(t *testing.T, dir, key string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".val") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		if bytes.Contains(b, []byte(key)) {
			return filepath.Join(dir, e.Name())
		}
	}
	t.Fatalf("no value file of %s in %s", key, dir)
	return ""
}

// TestDamagedStoreFileIsNamed: one value file of the store damaged (cut
// short, as a full disk or a copy cut off leaves it) among good ones
// stops journal list and reconcile with exit status 3, never a listing
// without it, and the error names that file: its name is a hash, and
// the commands read every file of the directory (a damaged reconcile
// file stops the journal's listing too). It said only "file store entry
// is not readable: slots cut short", naming no file.
func TestDamagedStoreFileIsNamed(t *testing.T) {
	t.Parallel()
	s, creds, _, _, _ := tppFiles(t)
	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := inDoubt(t, s, creds, st)
	seedReconcile(t, st)
	damaged := valueFileOf(t, dir, "reconcile/account/"+string(reconcileAccount))
	require.NoError(t, os.Truncate(damaged, 20))

	for _, args := range [][]string{
		{"journal", "list", "-store", dir},
		{"journal", "list", "-all", "--json", "-store", dir},
		append([]string{"reconcile", "-store", dir}, seedPeriod(t)...),
	} {
		out, errOut, code := psd2(t, args...)
		t.Logf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
		assert.Equal(t, exitRuntime, code, "%v", args)
		assert.Contains(t, errOut, damaged, "%v: the damaged file is named", args)
		assert.NotContains(t, out, "0 payment(s)", "%v", args)
	}
	// The entry of the payment in doubt is readable by itself.
	out, errOut, code := psd2(t, "journal", "show", "-store", dir, id)
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, id)
}
