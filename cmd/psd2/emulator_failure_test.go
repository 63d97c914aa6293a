package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/emulatorcmd"
)

// TestEmulatorFailureIsNoCleanExit: a failure of the running emulator
// (here banks.json, which it could not rewrite after a control) is said
// on stderr when it happens, and the command, interrupted after it,
// exits 3, not 0 as if all went well.
func TestEmulatorFailureIsNoCleanExit(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "em")
	cmd := exec.CommandContext(t.Context(), bin, "emulator", "-out", out, "--json", "-control", "127.0.0.1:0", "-banks", "alpha,beta")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var errOut strings.Builder
	cmd.Stderr = &errOut
	require.NoError(t, cmd.Start())
	var info emulatorInfo
	require.NoError(t, json.NewDecoder(bufio.NewReader(stdout)).Decode(&info))

	// banks.json can no longer be replaced: a directory stands in its way.
	require.NoError(t, os.Remove(info.BanksFile))
	require.NoError(t, os.Mkdir(info.BanksFile, 0o700))
	_, ctlErr, code := psd2(t, "emulator", "ctl", "-out", out, "-bank", "alpha", "set-profile", "profile=consent=180")
	require.Equal(t, exitRuntime, code, "the control's caller is told: %s", ctlErr)
	assert.Contains(t, ctlErr, "BANKS_FILE")

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "an emulator that failed while it served exits non-zero; stderr: %s", errOut.String())
	assert.Equal(t, exitRuntime, ee.ExitCode())
	assert.Contains(t, errOut.String(), emulatorcmd.BanksFile+" could not be rewritten")
	assert.Contains(t, errOut.String(), "failed 1 time(s)")
}

// TestEmulatorCtlUnreadableControlFile: a control.json psd2 cannot read
// (a directory, a file too large) is no command-line mistake: exit 3;
// one that is not there (no -control given, no emulator with -control
// wrote one) is: exit 2.
func TestEmulatorCtlUnreadableControlFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, errOut, code := psd2(t, "emulator", "ctl", "-out", dir, "controls")
	assert.Equal(t, exitUsage, code, errOut)

	require.NoError(t, os.Mkdir(filepath.Join(dir, emulatorcmd.ControlFile), 0o700))
	_, errOut, code = psd2(t, "emulator", "ctl", "-out", dir, "controls")
	assert.Equal(t, exitRuntime, code, errOut)
	assert.Contains(t, errOut, "could not be read")

	big := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(big, emulatorcmd.ControlFile), make([]byte, maxConfig+1), 0o600))
	_, errOut, code = psd2(t, "emulator", "ctl", "-out", big, "controls")
	assert.Equal(t, exitRuntime, code, errOut)

	empty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(empty, emulatorcmd.ControlFile), []byte("{}"), 0o600))
	_, errOut, code = psd2(t, "emulator", "ctl", "-out", empty, "controls")
	assert.Equal(t, exitRuntime, code, errOut)
	assert.Contains(t, errOut, "names no control API")
}
