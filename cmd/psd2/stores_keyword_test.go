package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeyValueStoreOfAnyKeywordIsNeverQuoted: a key=value connection
// string is one whatever libpq or pgx keyword it starts with (gssencmode,
// channel_binding, keepalives, sslpassword, pgxpool's pool_max_conns...):
// it is opened as PostgreSQL, its password is never printed (by journal,
// reconcile, or psd2 profile), and a profile that holds one is refused.
// On the code before, such a string was taken for a directory: "no store
// at -store gssencmode=disable ... password=s3cret does not exist", and
// psd2 profile printed it as it is.
func TestKeyValueStoreOfAnyKeywordIsNeverQuoted(t *testing.T) {
	t.Parallel()
	for _, first := range []string{"gssencmode=disable", "channel_binding=disable", "keepalives=1", "sslpassword=x",
		"require_auth=password", "load_balance_hosts=disable", "pool_max_conns=2", "krbsrvname = postgres"} {
		conn := first + " host=127.0.0.1 port=1 user=psd2 password=s3cret dbname=nowhere connect_timeout=5"
		for _, cmd := range [][]string{{"journal", "list"}, {"journal", "list", "--json"}, {"reconcile"}} {
			out, errOut, code := psd2(t, append(cmd, "-store", conn)...)
			assert.Equal(t, exitRuntime, code, "%s %v: %s", first, cmd, errOut)
			assert.Empty(t, out, "%s %v", first, cmd)
			assert.Contains(t, errOut, "PostgreSQL of -store", "%s %v: read as PostgreSQL, not as a directory", first, cmd)
			assert.NotContains(t, errOut, "s3cret", "%s %v: the password is never printed", first, cmd)
		}
		out, errOut, code := psd2In(t, t.TempDir(), []string{envStore + "=" + conn}, "profile", "--json")
		require.Equal(t, exitOK, code, errOut)
		assert.NotContains(t, out+errOut, "s3cret", "%s: psd2 profile never prints the password", first)
		assert.Contains(t, out, "password=xxxxx", first)

		cfg := filepath.Join(t.TempDir(), "config.json")
		b, err := json.Marshal(map[string]any{"profiles": map[string]any{"ops": map[string]string{"store": conn}}})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(cfg, b, 0o600))
		out, errOut, code = psd2In(t, t.TempDir(), []string{envConfig + "=" + cfg}, "journal", "list", "-profile", "ops")
		assert.Equal(t, exitRuntime, code, "%s: a profile holding a password is refused: %s", first, errOut)
		assert.Empty(t, out, first)
		assert.Contains(t, errOut, "holds a password", first)
		assert.NotContains(t, errOut, "s3cret", first)
	}
}
