package sca_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// TestStartRefusesUnstorableKey: Flow.Start refuses a session key that
// SaveSession (and every store) refuses, with an error matching
// store.ErrInvalidKey that quotes nothing of it, and starts no SCA.
// Before, it checked only the key's length: an SCA for a key with a line
// break, a path traversal or a leading "/" was started, its state sent
// to the bank, and the session the PSU's callback gave could not be
// stored.
func TestStartRefusesUnstorableKey(t *testing.T) {
	t.Parallel()
	f, err := sca.NewFlow("https://tpp.example/psd2/callback")
	require.NoError(t, err)
	for _, key := range []string{"", "user\n42", "user\x1b[2J", "../user-42", "/user-42", `user\42`, "user\xff", strings.Repeat("k", store.MaxKeyLen)} {
		p, ro, err := f.Start(key)
		assert.Nil(t, p, "%q", key)
		assert.Nil(t, ro, "%q", key)
		require.ErrorIs(t, err, store.ErrInvalidKey, "%.20q", key)
		assert.NotContains(t, err.Error(), "user", "%q", key)
	}
	p, _, err := f.Start("user-42")
	require.NoError(t, err)
	assert.Equal(t, "user-42", p.Key)
}
