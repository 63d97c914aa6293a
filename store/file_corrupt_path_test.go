package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFileStoreCorruptNamesTheFile: the error of a value file the store
// cannot read names that file, from Get, Take, Update and Keys, so that
// an operator whose tool stops on it (psd2 journal list stops at the
// first, as Keys's contract has it) can find it among the hashed names
// of the directory. It said only "not in the store's format".
func TestFileStoreCorruptNamesTheFile(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := newFileStore(t)
	require.NoError(t, st.Put(ctx, "journal/entry/a", []byte("a's value"), 0))
	require.NoError(t, st.Put(ctx, "reconcile/account/x", []byte("x's value"), 0))
	name, _ := st.name("reconcile/account/x")
	path := filepath.Join(st.Dir(), name)
	for what, content := range map[string][]byte{"foreign": []byte("garbage, not a value file at all"), "cut short": []byte(fileMagic + "\x00")} {
		require.NoError(t, os.WriteFile(path, content, 0o600))
		_, err := st.Get(ctx, "reconcile/account/x")
		require.ErrorIs(t, err, ErrCorrupt, what)
		assert.Contains(t, err.Error(), path, "%s: Get names the file", what)
		_, err = st.Take(ctx, "reconcile/account/x")
		require.ErrorIs(t, err, ErrCorrupt, what)
		assert.Contains(t, err.Error(), path, "%s: Take names the file", what)
		err = st.Update(ctx, "reconcile/account/x", func([]byte, bool) ([]byte, time.Duration, error) { return []byte("y"), 0, nil })
		require.ErrorIs(t, err, ErrCorrupt, what)
		assert.Contains(t, err.Error(), path, "%s: Update names the file", what)
		var keysErr error
		for _, err := range st.Keys(ctx, "journal/") {
			if err != nil {
				keysErr = err
			}
		}
		require.ErrorIs(t, keysErr, ErrCorrupt, what)
		assert.Contains(t, keysErr.Error(), path, "%s: Keys names the file", what)
	}
}
