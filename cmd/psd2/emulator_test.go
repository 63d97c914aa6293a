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
	assert.Contains(t, info.URLs["alpha"], "https://127.0.0.1:", "each bank on a loopback port of its own: no name to resolve")
	assert.Contains(t, info.HostURLs["alpha"], "https://alpha.localhost:")
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

	// The bank directory the command writes points at the banks.
	byDirectory, errOut, code := psd2(t, "sandbox", "list", "-banks-file", info.BanksFile, "-bank", "alpha", "-env", "sandbox",
		"-ca", info.CA, "-cert", info.TPPCert, "-key", info.TPPKey)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, byDirectory, "Bare Alfa")
	// By host name on the shared listener too.
	byHost, errOut, code := psd2(t, "sandbox", "list", "-url", info.HostURLs["beta"], "-ca", info.CA, "-cert", info.TPPCert, "-key", info.TPPKey)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, beta, byHost)
}

// TestEmulatorHasTheStandaloneFlags: psd2 emulator is cmd/psd2-emulator's
// command line (package emulatorcmd): its flags, the loopback rule and the
// -out checks, with psd2's exit statuses.
func TestEmulatorHasTheStandaloneFlags(t *testing.T) {
	t.Parallel()
	_, errOut, code := psd2(t, "emulator", "-h")
	assert.Equal(t, exitOK, code)
	for _, f := range []string{"-addr", "-public", "-trust", "-known-issues", "-limit", "-read-header-timeout", "-idle-timeout", "-banks"} {
		assert.Contains(t, errOut, f)
	}
	_, errOut, code = psd2(t, "emulator", "-addr", "0.0.0.0:0")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "not a loopback address")
	_, errOut, code = psd2(t, "emulator", "-limit", "planets=3")
	assert.Equal(t, exitUsage, code, errOut)

	base := t.TempDir()
	mine := filepath.Join(base, "mine")
	require.NoError(t, os.Mkdir(mine, 0o700))
	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(mine, link))
	shared := filepath.Join(base, "shared")
	require.NoError(t, os.Mkdir(shared, 0o700))
	require.NoError(t, os.Chmod(shared, 0o777))
	for _, dir := range []string{link, shared} {
		_, errOut, code = psd2(t, "emulator", "-out", dir)
		assert.Equal(t, exitRuntime, code, errOut)
		assert.NoFileExists(t, filepath.Join(dir, "tpp-key.pem"))
	}
}
