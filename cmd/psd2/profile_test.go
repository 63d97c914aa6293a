package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"software.sslmate.com/src/go-pkcs12"

	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// TestProfilesAndEnvironment: the settings of a command come from its
// flags, else PSD2_* variables, else the config file's profile; a group
// (-bank/-url, -cert/-key/-p12) comes from one source; no secret is
// printed, and a config file holding one is refused.
func TestProfilesAndEnvironment(t *testing.T) {
	t.Parallel()
	s, creds, certFile, keyFile, caFile := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	id := inDoubt(t, s, creds, st)
	p12, err := pkcs12.Modern.Encode(creds.Key, creds.Certificate, nil, "p12-s3cret")
	require.NoError(t, err)
	p12File := filepath.Join(t.TempDir(), "tpp.p12")
	require.NoError(t, os.WriteFile(p12File, p12, 0o600))

	cfgDir := t.TempDir()
	cfg := filepath.Join(cfgDir, "config.json")
	require.NoError(t, os.WriteFile(cfg, fmt.Appendf(nil, `{"profile": "emu", "profiles": {
	  "emu": {"url": %q, "ca": %q, "cert": %q, "key": %q, "store": %q},
	  "p12": {"url": %q, "ca": %q, "p12": %q, "passwordEnv": "TEST_P12_PW", "store": %q},
	  "prod": {"bank": "sor", "env": "production", "cert": %q, "key": %q, "store": "/nonexistent/store"}}}`,
		s.URL, caFile, certFile, keyFile, dir, s.URL, caFile, p12File, dir, certFile, keyFile), 0o600))
	withCfg := []string{envConfig + "=" + cfg}
	run := func(env []string, args ...string) (string, string, int) {
		t.Helper()
		return psd2In(t, t.TempDir(), append(append([]string{}, withCfg...), env...), args...)
	}

	// The file's default profile gives the store, the bank and the
	// certificate.
	out, errOut, code := run(nil, "journal", "list", "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, id)
	out, errOut, code = run(nil, "sandbox", "list")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Kari Testperson")

	// -profile and $PSD2_PROFILE choose another.
	_, errOut, code = run(nil, "journal", "list", "-profile", "prod")
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "/nonexistent/store does not exist")
	_, errOut, code = run([]string{"PSD2_PROFILE=prod"}, "journal", "list")
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "/nonexistent/store does not exist")
	// ... and a flag still wins over the profile.
	out, errOut, code = run([]string{"PSD2_PROFILE=prod"}, "journal", "list", "-store", dir)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, id)

	// A variable wins over the profile, a flag over the variable.
	_, errOut, code = run([]string{"PSD2_STORE=" + filepath.Join(cfgDir, "typo")}, "journal", "list")
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "typo does not exist")
	out, errOut, code = run([]string{"PSD2_STORE=" + filepath.Join(cfgDir, "typo")}, "journal", "list", "-store", dir)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, id)

	// A group comes from one source: -bank on the command line is not
	// mixed with the profile's -url (which would be "not both").
	out, errOut, code = run(nil, "profile", "--json", "-bank", "sor")
	require.Equal(t, exitOK, code, errOut)
	var rep profileReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, source{"sor", "flag -bank"}, rep.Settings["bank"])
	assert.Equal(t, source{"", "default"}, rep.Settings["url"])
	assert.Equal(t, source{certFile, "profile emu"}, rep.Settings["cert"])
	assert.Equal(t, source{dir, "profile emu"}, rep.Settings["store"])
	assert.Equal(t, []string{"emu", "p12", "prod"}, rep.Profiles)
	// A -p12 from the environment takes the place of the profile's -cert and -key.
	out, errOut, code = run([]string{"PSD2_P12=" + p12File}, "profile", "--json")
	require.Equal(t, exitOK, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, source{p12File, "$PSD2_P12"}, rep.Settings["p12"])
	assert.Equal(t, source{"", "default"}, rep.Settings["cert"])

	// A PKCS#12 profile: the password comes from the variable it names,
	// and is never printed.
	pw := []string{"TEST_P12_PW=p12-s3cret"}
	out, errOut, code = run(pw, "keyid", "-profile", "p12", "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, strings.ReplaceAll(signing.KeyID(creds.Certificate), `\`, `\\`))
	out, errOut, code = run(pw, "journal", "resolve", "-profile", "p12", id)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "scaRedirect: https://")
	out, errOut, code = run(append(pw, "PSD2_STORE=postgres://tpp:pg-s3cret@db.internal/tpp"), "profile", "-profile", "p12")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "$TEST_P12_PW is set")
	assert.Contains(t, out, "postgres://tpp:xxxxx@db.internal/tpp")
	for _, secret := range []string{"p12-s3cret", "pg-s3cret"} {
		assert.NotContains(t, out+errOut, secret)
	}
	noSecret(t, keyFile, out)

	// A config file holding a secret, or something else than its form,
	// is refused, without quoting the secret.
	bad := map[string]string{
		"a store password":     `{"profiles": {"x": {"store": "postgres://tpp:pg-s3cret@db/tpp"}}}`,
		"a key=value password": `{"profiles": {"x": {"store": "host=db user=tpp password=pg-s3cret"}}}`,
		"a key itself":         `{"profiles": {"x": {"key": "-----BEGIN PRIVATE KEY-----\npg-s3cret"}}}`,
		"a password member":    `{"profiles": {"x": {"password": "pg-s3cret"}}}`,
		"an unknown default":   `{"profile": "y", "profiles": {"x": {}}}`,
	}
	for name, content := range bad {
		f := filepath.Join(t.TempDir(), "config.json")
		require.NoError(t, os.WriteFile(f, []byte(content), 0o600))
		out, errOut, code := psd2In(t, t.TempDir(), []string{envConfig + "=" + f}, "journal", "list", "-store", dir)
		assert.Equal(t, exitRuntime, code, "%s: %s", name, errOut)
		assert.Empty(t, out, name)
		assert.Contains(t, errOut, "config file", name)
		assert.NotContains(t, errOut, "pg-s3cret", name)
	}
	_, errOut, code = run(nil, "journal", "list", "-profile", "nosuch")
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, `no profile "nosuch" in the config file`)
	_, errOut, code = psd2In(t, t.TempDir(), []string{envConfig + "=" + filepath.Join(cfgDir, "missing.json")}, "journal", "list", "-store", dir)
	assert.Equal(t, exitRuntime, code, "a config file named by PSD2_CONFIG must exist")
	assert.Contains(t, errOut, "missing.json")
}
