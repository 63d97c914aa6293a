package emulatorcmd

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startBanks starts the emulator of the command line args (flags of
// Register) for hosts, its -out a new directory.
func startBanks(t *testing.T, hosts []string, args ...string) *Running {
	t.Helper()
	fs := flag.NewFlagSet("emulator", flag.ContinueOnError)
	cfg := Register(fs)
	require.NoError(t, fs.Parse(append([]string{"-out", filepath.Join(t.TempDir(), "em")}, args...)))
	require.NoError(t, cfg.Check())
	r, err := Start(cfg, hosts)
	require.NoError(t, err)
	t.Cleanup(r.Close)
	return r
}

// banksFileEntry is what a test reads of an entry of banks.json.
type banksFileEntry struct {
	ID          string `json:"id"`
	Notes       string `json:"notes"`
	ConsentDays int    `json:"consentDays"`
}

// readBanksFile reads banks.json by bank id.
func readBanksFile(t *testing.T, file string) map[string]banksFileEntry {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var dir struct {
		Banks []banksFileEntry `json:"banks"`
	}
	require.NoError(t, json.Unmarshal(data, &dir))
	out := map[string]banksFileEntry{}
	for _, b := range dir.Banks {
		out[b.ID] = b
	}
	return out
}

// control calls the control API's control name for bank with args and
// returns the status and answer.
func control(t *testing.T, r *Running, name, bank, args string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, r.Control.URL+"/controls/"+name+"?bank="+bank, strings.NewReader(args))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+r.Control.Token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// TestBanksFileFollowsTheControlAPI: a profile changed through the
// control API (set-profile) shows in banks.json once the control has
// answered, as -profile does at the start: the consent days and the
// profile in notes. banks.json was written once, at the start, and kept
// saying what the profiles had been then.
func TestBanksFileFollowsTheControlAPI(t *testing.T) {
	t.Parallel()
	r := startBanks(t, []string{"alpha.localhost", "beta.localhost"}, "-control", "127.0.0.1:0", "-profile", "beta:consent=180")
	require.NotNil(t, r.Control)
	require.NotEmpty(t, r.BanksFile)
	start := readBanksFile(t, r.BanksFile)
	assert.Zero(t, start["alpha"].ConsentDays, "the default: not written")
	assert.Equal(t, 180, start["beta"].ConsentDays)

	status, body := control(t, r, "set-profile", "alpha", `{"profile":"consent=180,keyid=openssl"}`)
	require.Equal(t, http.StatusOK, status, body)
	now := readBanksFile(t, r.BanksFile)
	assert.Equal(t, 180, now["alpha"].ConsentDays, "set-profile's consent days")
	assert.Contains(t, now["alpha"].Notes, "consent=180,create=sca-redirect,keyid=openssl", "the profile")
	assert.Equal(t, start["beta"], now["beta"], "the other bank as it was")

	status, body = control(t, r, "set-profile", "beta", `{"profile":""}`)
	require.Equal(t, http.StatusOK, status, body)
	now = readBanksFile(t, r.BanksFile)
	assert.Zero(t, now["beta"].ConsentDays, "back to the default")
	assert.Contains(t, now["beta"].Notes, "consent=90")

	// A refused control changes nothing: the file stays.
	before, err := os.ReadFile(r.BanksFile)
	require.NoError(t, err)
	status, _ = control(t, r, "set-profile", "alpha", `{"profile":"consent=365"}`)
	assert.Equal(t, http.StatusBadRequest, status)
	after, err := os.ReadFile(r.BanksFile)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

// TestDirectoryFileRewriteAfter: the control's answer goes out after the
// file is written, unchanged; a file that cannot be written turns it into
// a 500 saying so; a directory that did not change is not written again.
func TestDirectoryFileRewriteAfter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	says := "one"
	d := &directoryFile{path: filepath.Join(dir, BanksFile), describe: func() []byte { return []byte(`{"banks":"` + says + `"}`) }}
	require.NoError(t, d.write())
	var seen string
	h := d.rewriteAfter(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if data, err := os.ReadFile(d.path); err == nil {
			seen = string(data) // the file while the control runs
		}
		says += "+" // the control changes what the directory says
		w.Header().Set("X-Control", "yes")
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/controls/x", nil))
	assert.Equal(t, `{"banks":"one"}`+"\n", seen)
	data, err := os.ReadFile(d.path)
	require.NoError(t, err)
	assert.Equal(t, `{"banks":"one+"}`+"\n", string(data))
	assert.Equal(t, http.StatusAccepted, rec.Code)
	assert.Equal(t, "yes", rec.Header().Get("X-Control"))
	assert.JSONEq(t, `{"ok":true}`, rec.Body.String())

	// Unchanged: not written again (a file put in its place stays).
	require.NoError(t, os.WriteFile(d.path, []byte("planted"), 0o644))
	require.NoError(t, d.write())
	data, err = os.ReadFile(d.path)
	require.NoError(t, err)
	assert.Equal(t, "planted", string(data))

	// Cannot be written: a 500 that says so.
	d.path = filepath.Join(dir, "missing", BanksFile)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/controls/x", nil))
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	var e struct{ Error, Code string }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
	assert.Equal(t, "BANKS_FILE", e.Code)
	assert.Contains(t, e.Error, "the control answered 202")
	assert.Contains(t, e.Error, BanksFile)
	_, err = os.Stat(d.path)
	assert.True(t, errors.Is(err, os.ErrNotExist))
}
