package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/emulatorcmd"
)

// startEmulator runs psd2 emulator with args and --json and returns what
// it printed.
func startEmulator(t *testing.T, args ...string) (emulatorInfo, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "em")
	cmd := exec.CommandContext(t.Context(), bin, append([]string{"emulator", "-out", out, "--json"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	var info emulatorInfo
	require.NoError(t, json.NewDecoder(bufio.NewReader(stdout)).Decode(&info))
	return info, out
}

// TestOutsiderDrivesAScenarioOverHTTP: a program that imports only Go's
// standard library (testdata/outsider, not the SDK) drives a whole
// scenario against psd2 emulator -control through HTTP alone: consent,
// the clock to day 89, renewal due, the consent's end, re-consent, and a
// 503 outage for a minute.
func TestOutsiderDrivesAScenarioOverHTTP(t *testing.T) {
	t.Parallel()
	deps, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./testdata/outsider").Output()
	require.NoError(t, err)
	assert.Equal(t, []string{"github.com/tppkit/psd2/cmd/psd2/testdata/outsider"}, strings.Fields(string(deps)),
		"the outsider imports only the standard library")
	prog := filepath.Join(t.TempDir(), "outsider")
	if runtime.GOOS == "windows" {
		prog += ".exe"
	}
	build, err := exec.CommandContext(t.Context(), "go", "build", "-o", prog, "./testdata/outsider").CombinedOutput()
	require.NoError(t, err, string(build))

	info, _ := startEmulator(t, "-control", "127.0.0.1:0")
	require.NotNil(t, info.Control)
	cmd := exec.CommandContext(t.Context(), prog, "-bank", info.URLs["emulator"], "-ca", info.CA,
		"-cert", info.TPPCert, "-key", info.TPPKey, "-control", info.Control.URL, "-token", info.Control.Token)
	out, err := cmd.CombinedOutput()
	t.Logf("outsider:\n%s", out)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	passed := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "ok ") {
			passed++
		}
	}
	assert.Equal(t, 14, passed, "steps passed")
	assert.Equal(t, "passed 14 of 14", lines[len(lines)-1])
}

// TestEmulatorCtl: psd2 emulator ctl calls the control API from a shell,
// reading the URL and token from the -out directory.
func TestEmulatorCtl(t *testing.T) {
	t.Parallel()
	info, out := startEmulator(t, "-control", "127.0.0.1:0", "-banks", "alpha,beta")
	require.NotNil(t, info.Control)
	st, err := os.Stat(filepath.Join(out, emulatorcmd.ControlFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "control.json holds the token")

	stdout, errOut, code := psd2(t, "emulator", "ctl", "-out", out, "-bank", "alpha", "Freeze")
	require.Equal(t, exitOK, code, errOut)
	var clock struct {
		Now    string `json:"now"`
		Frozen bool   `json:"frozen"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &clock))
	assert.True(t, clock.Frozen)

	stdout, errOut, code = psd2(t, "emulator", "ctl", "-out", out, "-bank", "alpha", "advance", "by=89d")
	require.Equal(t, exitOK, code, errOut)
	var moved struct {
		Now string `json:"now"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &moved))
	assert.NotEqual(t, clock.Now, moved.Now)

	_, errOut, code = psd2(t, "emulator", "ctl", "-out", out, "-bank", "alpha", "outage", `{"kind":"refused","for":"1m"}`)
	require.Equal(t, exitOK, code, errOut)
	_, errOut, code = psd2(t, "emulator", "ctl", "-out", out, "-bank", "alpha", "authorize", "scaRedirect=https://x/tap-sandbox/9999/?state=1", "customerNumber=13039319955")
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "404")
	_, errOut, code = psd2(t, "emulator", "ctl", "-out", out, "advance", "days=1")
	assert.Equal(t, exitRuntime, code, "several banks: -bank is needed")
	assert.Contains(t, errOut, "alpha, beta")

	stdout, _, code = psd2(t, "emulator", "ctl", "-out", out, "controls")
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, `"name": "rate-limit-storm"`)

	_, _, code = psd2(t, "emulator", "ctl", "-control", info.Control.URL, "-token", "wrong", "now")
	assert.Equal(t, exitRuntime, code, "a wrong token is refused")
}

// TestEmulatorControlIsLoopbackOnly: -control refuses an address beyond
// loopback, even with -public, and says so of -control: the refusal read
// `-control: -addr "0.0.0.0:0" is not a loopback address ... Pass
// -public to listen on "0.0.0.0:0" anyway`, advice that cannot work,
// about a flag not given.
func TestEmulatorControlIsLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, public := range []bool{true, false} {
		for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0"} {
			args := []string{"emulator", "-addr", "127.0.0.1:0", "-control", addr, "-out", filepath.Join(t.TempDir(), "em")}
			if public {
				args = append(args, "-public")
			}
			_, errOut, code := psd2(t, args...)
			assert.Equal(t, exitUsage, code, addr)
			assert.Contains(t, errOut, "loopback", addr)
			assert.Contains(t, errOut, `-control "`+addr+`" is not a loopback address`, addr)
			assert.NotContains(t, errOut, "-addr", "the refusal is of -control, not -addr: %s", errOut)
			assert.NotContains(t, errOut, "Pass -public", "-public does not let the control API listen beyond loopback: %s", errOut)
		}
	}
}

// TestEmulatorProfiles: -profile sets a bank's profile, for every bank
// or, with an id, for one of -banks; the bank directory the command
// writes (banks.json) says each bank's consent days, and says them again
// after ctl set-profile changed them.
func TestEmulatorProfiles(t *testing.T) {
	t.Parallel()
	info, out := startEmulator(t, "-control", "127.0.0.1:0", "-banks", "alpha,beta",
		"-profile", "keyid=any", "-profile", "beta:consent=180,create=start-authorisation")
	profile := func(id string) string {
		stdout, errOut, code := psd2(t, "emulator", "ctl", "-out", out, "-bank", id, "profile")
		require.Equal(t, exitOK, code, errOut)
		var p struct{ Profile string }
		require.NoError(t, json.Unmarshal([]byte(stdout), &p))
		return p.Profile
	}
	assert.Equal(t, "consent=90,create=sca-redirect,keyid=any,caps=per-tpp", profile("alpha"))
	assert.Equal(t, "consent=180,create=start-authorisation,keyid=any,caps=per-tpp", profile("beta"))
	consentDays := func() map[string]int {
		data, err := os.ReadFile(info.BanksFile)
		require.NoError(t, err)
		var dir struct {
			Banks []struct {
				ID          string `json:"id"`
				ConsentDays int    `json:"consentDays"`
			} `json:"banks"`
		}
		require.NoError(t, json.Unmarshal(data, &dir))
		days := map[string]int{}
		for _, b := range dir.Banks {
			days[b.ID] = b.ConsentDays
		}
		return days
	}
	assert.Equal(t, map[string]int{"alpha": 0, "beta": 180}, consentDays(), "0: the default, 90")
	_, errOut, code := psd2(t, "emulator", "ctl", "-out", out, "-bank", "alpha", "set-profile", "profile=consent=180")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, map[string]int{"alpha": 180, "beta": 180}, consentDays(), "banks.json after set-profile")

	_, errOut, code = psd2(t, "emulator", "-banks", "alpha", "-profile", "gamma:consent=180", "-out", filepath.Join(t.TempDir(), "em"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "gamma")
	_, errOut, code = psd2(t, "emulator", "-profile", "consent=365", "-out", filepath.Join(t.TempDir(), "em"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "ConsentDays")
}

// TestEmulatorCtlUnreadableAnswer: an answer ctl cannot take whole (past
// maxCtlAnswer) or that is not the control API's JSON fails the command
// (it printed the first 64 MiB, or a proxy's page, and exited 0).
func TestEmulatorCtlUnreadableAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		answer     func(w http.ResponseWriter)
	}{
		{"too large", "larger than", func(w http.ResponseWriter) {
			_, _ = io.WriteString(w, `{"payments":"`)
			_, _ = io.Copy(w, io.LimitReader(zeros{}, maxCtlAnswer))
			_, _ = io.WriteString(w, `"}`)
		}},
		{"not JSON", "not JSON", func(w http.ResponseWriter) {
			_, _ = io.WriteString(w, "<html>It works!</html>")
		}},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { tc.answer(w) }))
		stdout, errOut, code := psd2(t, "emulator", "ctl", "-control", srv.URL, "-token", "t", "payments")
		srv.Close()
		assert.Equal(t, exitRuntime, code, tc.name)
		assert.Contains(t, errOut, tc.want, tc.name)
		assert.Zero(t, len(stdout), "bytes printed: %s", tc.name)
	}
}

// zeros reads as an endless run of '0'.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// TestEmulatorCtlSetRolesRefusesTheCA: psd2 emulator ctl set-roles with
// the emulator's CA certificate as tpp fails (exit 3) and says why; the
// TPP's own certificate is taken. The control took the CA's and answered
// with success.
func TestEmulatorCtlSetRolesRefusesTheCA(t *testing.T) {
	t.Parallel()
	info, out := startEmulator(t, "-control", "127.0.0.1:0")
	ca, err := os.ReadFile(info.CA)
	require.NoError(t, err)
	tpp, err := os.ReadFile(info.TPPCert)
	require.NoError(t, err)
	stdout, stderr, code := psd2(t, "emulator", "ctl", "-out", out, "set-roles", `roles=["PISP"]`, "tpp="+string(ca))
	assert.Equal(t, exitRuntime, code, stderr)
	assert.Contains(t, stderr, "is a CA certificate")
	assert.Empty(t, stdout)
	_, stderr, code = psd2(t, "emulator", "ctl", "-out", out, "set-roles", `roles=["PISP"]`, "tpp="+string(tpp))
	assert.Equal(t, exitOK, code, stderr)
}
