package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEmulatorRefusesAPortOutOfRange: an -addr or -control whose port is
// no TCP port (past 65535, negative, not a number) is a command-line
// mistake: exit 2 naming the flag, before the -out directory is written.
// It was exit 3 with the listener's "listen tcp: address 99999: invalid
// port", after the directory was made.
func TestEmulatorRefusesAPortOutOfRange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ flag, addr string }{
		{"-addr", "127.0.0.1:99999"},
		{"-addr", "127.0.0.1:65536"},
		{"-addr", "127.0.0.1:-1"},
		{"-addr", "[::1]:1e3"},
		{"-control", "127.0.0.1:99999"},
		{"-control", "localhost:-80"},
	} {
		out := filepath.Join(t.TempDir(), "em")
		args := []string{"emulator", "-out", out, tc.flag, tc.addr}
		_, errOut, code := psd2(t, args...)
		assert.Equal(t, exitUsage, code, "%s %s: %s", tc.flag, tc.addr, errOut)
		assert.Contains(t, errOut, tc.flag+` "`+tc.addr+`"`, "%s %s", tc.flag, tc.addr)
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "%s %s: -out written", tc.flag, tc.addr)
	}
}
