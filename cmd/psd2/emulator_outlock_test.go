package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/emulatorcmd"
)

// TestEmulatorRefusesAnOutInUse: a second psd2 emulator on the -out
// directory of one still running is refused before it writes anything.
// It started, and wrote its own ca.pem, TPP credentials and control.json
// over the running emulator's: psd2 emulator ctl -out and a suite reading
// control.json then drove the second bank, and the running bank's users
// got a CA and a TPP certificate it does not know.
func TestEmulatorRefusesAnOutInUse(t *testing.T) {
	if !outLocks() {
		t.Skip("no flock on this system: -out is not locked")
	}
	t.Parallel()
	info, _ := startEmulator(t, "-control", "127.0.0.1:0")
	require.NotNil(t, info.Control)
	dir := filepath.Dir(info.CA)
	files := []string{"ca.pem", "tpp-cert.pem", "tpp-key.pem", emulatorcmd.ControlFile}
	before := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		before[f] = b
	}

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "emulator", "-out", dir, "-control", "127.0.0.1:0")
	cmd.Env = cleanEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	require.Error(t, err, "the second emulator ran: %s", out.String())
	assert.NoError(t, ctx.Err(), "the second emulator ran until killed:\n%s", out.String())
	assert.Contains(t, errb.String(), "in use by another emulator")
	assert.NotContains(t, out.String(), "listening")
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Equal(t, string(before[f]), string(b), "%s is the running emulator's", f)
	}

	// The running emulator's control API still answers with its token.
	got, errOut, code := psd2(t, "emulator", "ctl", "-out", dir, "now")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, got, `"now"`)
}

// outLocks reports whether psd2 emulator locks its -out directory on
// this system (internal/emulatorcmd's lock_flock.go).
func outLocks() bool {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd", "netbsd", "openbsd", "dragonfly":
		return true
	}
	return false
}
