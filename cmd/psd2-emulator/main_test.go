package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/internal/emulatorcmd"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

// runMainEnv makes the test binary run main() instead of the tests, so the
// tests can check exit statuses and output of the real command.
const runMainEnv = "PSD2_EMULATOR_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// command runs the command in a child process with args and returns its
// exit status, stdout and stderr.
func command(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		require.NoError(t, err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

func TestMainExitStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"help", []string{"-h"}, 0, []string{"Usage of psd2-emulator", "-public", "-read-header-timeout", "-limit"}},
		{"help long", []string{"--help"}, 0, []string{"Usage of psd2-emulator"}},
		{"all interfaces", []string{"-addr", ":0"}, 2, []string{"not a loopback address", "-public"}},
		{"any IPv4", []string{"-addr", "0.0.0.0:0"}, 2, []string{"not a loopback address", "-public"}},
		{"any IPv6", []string{"-addr", "[::]:0"}, 2, []string{"not a loopback address", "-public"}},
		{"other host", []string{"-addr", "192.0.2.1:8443"}, 2, []string{"not a loopback address", "-public"}},
		{"unknown flag", []string{"-unknown-flag"}, 2, []string{"flag provided but not defined"}},
		{"bad limit", []string{"-limit", "planets=3"}, 2, []string{"payments"}},
		{"missing trust file", []string{"-trust", "missing.pem"}, 1, []string{"missing.pem"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := command(t, tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			for _, s := range tc.stderr {
				assert.Contains(t, stderr, s)
			}
			assert.NotContains(t, stdout, "listening")
		})
	}
}

func TestCheckAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr   string
		public bool
		ok     bool
	}{
		{"127.0.0.1:8443", false, true},
		{"127.0.0.2:0", false, true},
		{"[::1]:8443", false, true},
		{"localhost:8443", false, true},
		{"LOCALHOST:0", false, true},
		{":8443", false, false},
		{"0.0.0.0:8443", false, false},
		{"[::]:8443", false, false},
		{"10.1.2.3:8443", false, false},
		{"emulator.example:8443", false, false},
		{":8443", true, true},
		{"0.0.0.0:8443", true, true},
		{"emulator.example:8443", true, true},
		{"no port", true, false},
		{"127.0.0.1:99999", false, false},
		{"0.0.0.0:-1", true, false},
		{"127.0.0.1:", false, true},
	} {
		err := emulatorcmd.CheckAddr(tc.addr, tc.public)
		if tc.ok {
			assert.NoError(t, err, tc.addr)
		} else {
			assert.Error(t, err, tc.addr)
		}
	}
}

// started is a command run in-process by start.
type started struct {
	url    string
	dir    string
	cancel context.CancelFunc
	done   chan error
}

// start runs the command with args in-process until the test ends and
// returns once it has printed its URL.
func start(t *testing.T, args ...string) *started {
	t.Helper()
	st := &started{dir: t.TempDir(), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(t.Context())
	st.cancel = cancel
	pr, pw := io.Pipe()
	go func() {
		st.done <- run(ctx, append([]string{"-out", st.dir}, args...), pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "URL:"); ok {
			st.url = strings.TrimSpace(v)
		}
		if strings.HasPrefix(line, "customers:") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	t.Cleanup(func() {
		cancel()
		<-st.done
	})
	require.NotEmpty(t, st.url, "the command printed no URL")
	return st
}

func (st *started) read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(st.dir, name))
	require.NoError(t, err)
	return b
}

// client returns an HTTP client that trusts the command's CA.
func (st *started) client(t *testing.T) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(st.read(t, "ca.pem")))
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
}

// do sends a request signed with the generated TPP credentials.
func (st *started) do(t *testing.T, method, path string, body []byte) *http.Response {
	t.Helper()
	creds, err := signing.LoadPEM(st.read(t, "tpp-cert.pem"), st.read(t, "tpp-key.pem"))
	require.NoError(t, err)
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, st.url+path, rd)
	require.NoError(t, err)
	req.Header.Set("X-Request-ID", uuid.NewString())
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(creds.Certificate.Raw))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Digest", signing.Digest(body))
	}
	signer, err := signing.NewSigner(creds.Key, signing.KeyID(creds.Certificate))
	require.NoError(t, err)
	require.NoError(t, signer.Sign(req))
	resp, err := st.client(t).Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestRunServesWithGeneratedTPP(t *testing.T) {
	t.Parallel()
	st := start(t, "-tpp", "Command TPP")
	require.True(t, strings.HasPrefix(st.url, "https://127.0.0.1:"), st.url)
	assert.True(t, strings.HasSuffix(st.url, "/api"))

	fi, err := os.Stat(filepath.Join(st.dir, "tpp-key.pem"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	resp := st.do(t, http.MethodGet, "/v1/sandbox/customers", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	st.cancel()
	assert.NoError(t, <-st.done)
	st.done <- nil // for the cleanup
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pem")
	require.NoError(t, os.WriteFile(bad, []byte("no pem here"), 0o600))
	for _, args := range [][]string{
		{"-trust", bad},
		{"-trust", filepath.Join(dir, "missing.pem")},
		{"-addr", "not an address"},
		{"-addr", "0.0.0.0:0"},
		{"-unknown-flag"},
		{"-limit", "payments"},
		{"-limit", "payments=0"},
		{"-limit", "payments=many"},
		{"extra"},
	} {
		err := run(t.Context(), append(args, "-out", dir), io.Discard, io.Discard)
		assert.Error(t, err, args)
	}
}

func TestLimitFlag(t *testing.T) {
	t.Parallel()
	// The four default customers fill a cap of four.
	st := start(t, "-limit", "customers=4", "-limit", "payments=7")
	resp := st.do(t, http.MethodPost, "/v1/sandbox/customers",
		[]byte(`{"customerNumber":"15867512345","customerType":"PRIVATE","customerName":"Nina Testdatter"}`))
	assert.Equal(t, http.StatusInsufficientStorage, resp.StatusCode)
	var body struct {
		TPPMessages []struct{ Code, Path, Text string } `json:"tppMessages"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Len(t, body.TPPMessages, 1)
	assert.Equal(t, "SYSTEM_ERROR", body.TPPMessages[0].Code)
	assert.Equal(t, "Limits.Customers", body.TPPMessages[0].Path)

	cfg, err := parseFlags([]string{"-limit", "payments=7", "-limit", "Sessions=3"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, emulator.Limits{Payments: 7, Sessions: 3}, cfg.Limits)
}

// TestKnownIssuesFlag: without -known-issues the emulator keeps its
// default (the bank's sandbox); the flag sets production (true) or none
// (false).
func TestKnownIssuesFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want *bool
	}{
		{nil, nil},
		{[]string{"-known-issues"}, ptr(true)},
		{[]string{"-known-issues=true"}, ptr(true)},
		{[]string{"-known-issues=false"}, ptr(false)},
	} {
		cfg, err := parseFlags(tt.args, io.Discard)
		require.NoError(t, err, tt.args)
		assert.Equal(t, tt.want, cfg.KnownIssues, tt.args)
	}
	_, err := parseFlags([]string{"-known-issues=maybe"}, io.Discard)
	assert.Error(t, err)
}

func ptr[T any](v T) *T { return &v }

func TestTimeoutFlags(t *testing.T) {
	t.Parallel()
	cfg, err := parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, emulator.DefaultTimeouts, cfg.Timeouts)
	cfg, err = parseFlags([]string{"-read-header-timeout", "2s", "-idle-timeout", "0"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, cfg.Timeouts.ReadHeader)
	assert.Negative(t, cfg.Timeouts.Idle, "0 switches the timeout off")
}

// TestSlowConnectionsAreClosed opens connections that never finish their
// TLS handshake or their request headers (a slowloris client) and checks
// that the server closes every one of them after its read-header timeout.
// Each read has a far longer deadline of its own: hitting it means the
// server kept the connection open.
func TestSlowConnectionsAreClosed(t *testing.T) {
	t.Parallel()
	const (
		conns      = 50
		readHeader = 200 * time.Millisecond
		patience   = 30 * time.Second // only against a hanging test
	)
	st := start(t, "-read-header-timeout", readHeader.String())
	u, err := url.Parse(st.url)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(st.read(t, "ca.pem")))

	// closed reads from c until the server closes it; it reports false
	// when the test's own deadline ends the read instead.
	closed := func(c net.Conn) (bool, error) {
		if err := c.SetDeadline(time.Now().Add(patience)); err != nil {
			return false, err
		}
		_, err := io.Copy(io.Discard, c)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return false, nil
		}
		return true, nil // EOF, or a reset: the server closed it
	}
	var wg sync.WaitGroup
	results := make([]bool, conns)
	errs := make([]error, conns)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, err := net.Dial("tcp", u.Host)
			if err != nil {
				errs[i] = err
				return
			}
			defer raw.Close()
			c := raw
			if i%2 == 1 {
				// Finish the handshake, then stall in the middle of the headers.
				tc := tls.Client(raw, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12})
				if err := tc.HandshakeContext(t.Context()); err != nil {
					// On a loaded machine the server may already have
					// given up on this connection: that is what is tested.
					results[i], errs[i] = closedByPeer(err)
					return
				}
				if _, err := io.WriteString(tc, "GET /api/v1/sandbox/customers HTTP/1.1\r\nHost: "+u.Host+"\r\nX-Slow: "); err != nil {
					results[i], errs[i] = closedByPeer(err)
					return
				}
				c = tc
			} // else: connect and send nothing, not even a ClientHello
			results[i], errs[i] = closed(c)
		}()
	}
	wg.Wait()
	for i := range conns {
		require.NoError(t, errs[i], "connection %d", i)
		assert.True(t, results[i], "connection %d was still open when the test gave up", i)
	}

	// The server still serves well-behaved clients.
	assert.Equal(t, http.StatusOK, st.do(t, http.MethodGet, "/v1/sandbox/customers", nil).StatusCode)
}

// closedByPeer reads an error of a write or handshake on a connection the
// test keeps slow: the server closing it (EOF, reset, broken pipe) is the
// behaviour under test; any other error is returned.
func closedByPeer(err error) (bool, error) {
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true, nil
	}
	return false, err
}
