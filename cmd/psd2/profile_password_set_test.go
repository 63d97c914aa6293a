package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProfileEmptyPasswordVariableIsSet: a PKCS#12 password variable set
// to the empty string (a file exported without a password) is set:
// psd2 profile says so, as the PKCS#12 loading reads it (it names an
// unset variable only when it is not set at all). profile said "is not
// set" of it.
func TestProfileEmptyPasswordVariableIsSet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  []string
		want bool
	}{
		{[]string{"TEST_P12_EMPTY="}, true},
		{[]string{"TEST_P12_EMPTY=pw"}, true},
		{nil, false},
	} {
		args := []string{"profile", "-p12", "/tmp/tpp.p12", "-password-env", "TEST_P12_EMPTY"}
		out, errOut, code := psd2In(t, t.TempDir(), tc.env, args...)
		require.Equal(t, exitOK, code, errOut)
		state := map[bool]string{true: "is set", false: "is not set"}[tc.want]
		assert.Contains(t, out, "$TEST_P12_EMPTY "+state, "%v", tc.env)
		out, errOut, code = psd2In(t, t.TempDir(), tc.env, append(args, "--json")...)
		require.Equal(t, exitOK, code, errOut)
		var rep profileReport
		require.NoError(t, json.Unmarshal([]byte(out), &rep))
		assert.Equal(t, tc.want, rep.PasswordSet, "%v", tc.env)
	}
}
