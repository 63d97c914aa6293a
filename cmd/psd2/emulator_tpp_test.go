package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmulatorRefusesAnUnusableTPPName: a -tpp name that makes no TPP
// certificate a bank could issue (empty, past X.509's 64 characters of
// a commonName, a control character or line break) is a command-line
// mistake: exit 2 naming -tpp, before the -out directory is written. An
// empty one failed with exit 3 ("NewTPP: empty name") after the CA was
// written; a 5,000-character one or one with an escape sequence was
// issued as the TPP's certificate.
func TestEmulatorRefusesAnUnusableTPPName(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "   ", strings.Repeat("a", 65), "Local\nTPP", "Local\x1b[31mTPP"} {
		out := filepath.Join(t.TempDir(), "em")
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		var errb strings.Builder
		cmd := exec.CommandContext(ctx, bin, "emulator", "-out", out, "-tpp", name)
		cmd.Env, cmd.Stderr = cleanEnv(), &errb
		_ = cmd.Run() // an emulator that started runs until the timeout kills it
		cancel()
		code, errOut := cmd.ProcessState.ExitCode(), errb.String()
		assert.Equal(t, exitUsage, code, "%q: %s", name, errOut)
		assert.Contains(t, errOut, "-tpp", "%q", name)
		assert.NotContains(t, errOut, "\x1b", "%q", name)
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "%q: -out written", name)
	}
	// 64 characters are taken.
	info, _ := startEmulator(t, "-tpp", strings.Repeat("ø", 64))
	require.NotEmpty(t, info.TPPCert)
}
