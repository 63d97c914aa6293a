package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnparsedURLPasswordIsNeverPrinted: a postgres URL whose password
// holds a character it should have escaped ("#", "/", "?", a space)
// does not parse as a URL; psd2 profile still shows its password as
// xxxxx, and a profile holding one is refused. psd2 profile printed
// such a URL as it was, password and all, and a config file holding
// one was taken: both read the password only from a URL that parsed.
func TestUnparsedURLPasswordIsNeverPrinted(t *testing.T) {
	t.Parallel()
	const planted = "MARK-PW"
	for _, conn := range []string{
		"postgres://psd2:" + planted + "#1@127.0.0.1:1/nowhere",
		"postgresql://psd2:" + planted + "/1@127.0.0.1:1/nowhere",
		"postgres://psd2:" + planted + " 1@127.0.0.1:1/nowhere",
		"POSTGRES://psd2:" + planted + "?@127.0.0.1:1/nowhere",
		"postgres://psd2@127.0.0.1:1:2/nowhere?password=" + planted,
		"postgres://psd2:123/" + planted + "@127.0.0.1:1/nowhere",
	} {
		for _, args := range [][]string{{"profile"}, {"profile", "--json"}} {
			out, errOut, code := psd2In(t, t.TempDir(), []string{envStore + "=" + conn}, args...)
			require.Equal(t, exitOK, code, errOut)
			assert.NotContains(t, out+errOut, planted, "%s %v: psd2 profile never prints the password", conn, args)
			assert.Contains(t, out, "xxxxx", "%s %v", conn, args)
		}

		cfg := filepath.Join(t.TempDir(), "config.json")
		b, err := json.Marshal(map[string]any{"profiles": map[string]any{"ops": map[string]string{"store": conn}}})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(cfg, b, 0o600))
		out, errOut, code := psd2In(t, t.TempDir(), []string{envConfig + "=" + cfg}, "journal", "list", "-profile", "ops")
		assert.Equal(t, exitRuntime, code, "%s: a profile holding a password is refused: %s", conn, errOut)
		assert.Empty(t, out, conn)
		assert.Contains(t, errOut, "holds a password", conn)
		assert.NotContains(t, out+errOut, planted, conn)
	}
}
