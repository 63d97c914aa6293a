package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoStoreMessageReadsRight: the refusal of a -store that holds no
// store names the path and what is wrong with it in one plain clause. It
// read "no store at -store /x/stroe does not exist", a double negative
// that can be read as the store existing.
func TestNoStoreMessageReadsRight(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	missing := filepath.Join(base, "stroe")
	empty := filepath.Join(base, "empty")
	require.NoError(t, os.Mkdir(empty, 0o700))
	for path, says := range map[string]string{missing: " does not exist", empty: " is empty"} {
		_, errOut, code := psd2(t, "journal", "list", "-store", path)
		assert.Equal(t, exitRuntime, code, errOut)
		assert.Contains(t, errOut, "psd2 journal: -store holds no store of the SDK: "+path+says, errOut)
		assert.NotContains(t, errOut, "no store at -store", errOut)
	}
}
