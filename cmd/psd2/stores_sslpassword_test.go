package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSSLPasswordIsNeverPrinted: sslpassword, the passphrase of the
// client's TLS key (libpq, pgx), is a password like password: psd2
// profile shows it as xxxxx, in a key=value string and in a URL, and a
// profile that holds one is refused. On the code before, psd2 profile
// printed "sslpassword=MARK-SSLPW-1" as it was, and a config file
// holding it was taken.
func TestSSLPasswordIsNeverPrinted(t *testing.T) {
	t.Parallel()
	const planted = "MARK-SSLPW-1"
	for _, conn := range []string{
		"host=127.0.0.1 port=1 user=psd2 sslkey=/k.pem sslpassword=" + planted + " dbname=nowhere",
		"sslpassword = '" + planted + " x' host=127.0.0.1 port=1 user=psd2 dbname=nowhere",
		"HOST=127.0.0.1 SSLPASSWORD=" + planted,
		"postgres://psd2@127.0.0.1:1/nowhere?sslkey=/k.pem&sslpassword=" + planted,
	} {
		for _, args := range [][]string{{"profile"}, {"profile", "--json"}} {
			out, errOut, code := psd2In(t, t.TempDir(), []string{envStore + "=" + conn}, args...)
			require.Equal(t, exitOK, code, errOut)
			assert.NotContains(t, out+errOut, planted, "%s %v: psd2 profile never prints the sslpassword", conn, args)
			assert.Contains(t, out, "xxxxx", "%s %v", conn, args)
		}

		cfg := filepath.Join(t.TempDir(), "config.json")
		b, err := json.Marshal(map[string]any{"profiles": map[string]any{"ops": map[string]string{"store": conn}}})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(cfg, b, 0o600))
		out, errOut, code := psd2In(t, t.TempDir(), []string{envConfig + "=" + cfg}, "journal", "list", "-profile", "ops")
		assert.Equal(t, exitRuntime, code, "%s: a profile holding an sslpassword is refused: %s", conn, errOut)
		assert.Empty(t, out, conn)
		assert.Contains(t, errOut, "holds a password", conn)
		assert.NotContains(t, out+errOut, planted, conn)
	}
}
