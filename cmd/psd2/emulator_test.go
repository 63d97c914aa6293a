package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmulatorServesSeveralBanks runs psd2 emulator -banks and talks to
// each bank with the other commands, by its own host name.
func TestEmulatorServesSeveralBanks(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "em")
	cmd := exec.CommandContext(t.Context(), bin, "emulator", "-banks", "alpha,beta", "-out", out, "--json")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	var info emulatorInfo
	require.NoError(t, json.NewDecoder(bufio.NewReader(stdout)).Decode(&info))
	require.Len(t, info.URLs, 2)
	assert.Contains(t, info.URLs["alpha"], "https://alpha.localhost:")
	st, err := os.Stat(info.TPPKey)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	conn := func(id string) []string {
		return []string{"-url", info.URLs[id], "-ca", info.CA, "-cert", info.TPPCert, "-key", info.TPPKey}
	}
	seed := filepath.Join(t.TempDir(), "seed.json")
	require.NoError(t, os.WriteFile(seed, []byte(`[{"customerNumber":"01017012345","customerType":"PRIVATE","customerName":"Bare Alfa"}]`), 0o600))
	_, errOut, code := psd2(t, append(append([]string{"sandbox", "seed"}, conn("alpha")...), seed)...)
	require.Equal(t, exitOK, code, errOut)
	alpha, _, code := psd2(t, append([]string{"sandbox", "list"}, conn("alpha")...)...)
	require.Equal(t, exitOK, code)
	beta, _, code := psd2(t, append([]string{"sandbox", "list"}, conn("beta")...)...)
	require.Equal(t, exitOK, code)
	assert.Contains(t, alpha, "Bare Alfa")
	assert.NotContains(t, beta, "Bare Alfa", "each bank has its own data")

	// The one TPP certificate is registered at both banks.
	for _, id := range []string{"alpha", "beta"} {
		_, errOut, code := psd2(t, append([]string{"probe"}, conn(id)...)...)
		assert.Equal(t, exitOK, code, errOut)
	}
}
