//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmulatorBankListenerFailureEndsIt: with -banks, a bank whose own
// listener fails while it serves (here its socket shut down under it,
// so that accept fails with EINVAL and that bank's server stops) ends
// psd2 emulator at once: one line on stderr naming the bank and the
// error, the other banks shut down, exit status 3. It went on serving
// the others and said nothing, the bank's port refusing connections.
// The shared host-name listener failing ends it so too. The command
// runs in-process: only so can the test reach its sockets.
func TestEmulatorBankListenerFailureEndsIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, said string
		port       func(emulatorInfo) string // the URL or address whose listener fails
	}{
		{"bank", "bank alpha's listener (alpha.localhost)", func(i emulatorInfo) string { return i.URLs["alpha"] }},
		{"shared", "the banks' listener on ", func(i emulatorInfo) string { return "https://" + i.Addr }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testListenerFailure(t, tc.said, tc.port)
		})
	}
}

// testListenerFailure runs psd2 emulator -banks alpha,beta in-process,
// makes the listener at port(info) fail, and checks it ends so.
func testListenerFailure(t *testing.T, said string, port func(emulatorInfo) string) {
	out := filepath.Join(t.TempDir(), "em")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"emulator", "-out", out, "--json", "-banks", "alpha,beta"}, pw, &errOut)
		_ = pw.Close()
		done <- code
	}()
	var info emulatorInfo
	require.NoError(t, json.NewDecoder(pr).Decode(&info))
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	shutListener(t, bankPort(t, port(info)))

	var code int
	select {
	case code = <-done:
	case <-time.After(30 * time.Second):
		cancel()
		code = <-done
		t.Fatalf("psd2 emulator went on serving after %s failed (exit %d when interrupted); stderr: %q", said, code, errOut.String())
	}
	assert.Equal(t, exitRuntime, code)
	msg := errOut.String()
	t.Logf("stderr: %s", msg)
	assert.Equal(t, 1, strings.Count(msg, "\n"), "one line: %q", msg)
	assert.True(t, strings.HasPrefix(msg, "psd2 emulator: "), msg)
	assert.Contains(t, msg, said)
	assert.Contains(t, msg, "invalid argument", "the listener's error")
	assert.NotContains(t, msg, "beta")

	for _, u := range []string{info.URLs["alpha"], info.URLs["beta"], "https://" + info.Addr} {
		c, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(u, "/api"), "https://"))
		if err == nil {
			c.Close()
		}
		assert.Error(t, err, "%s is shut down with the command", u)
	}
}

// bankPort is the port of a bank's URL.
func bankPort(t *testing.T, u string) int {
	t.Helper()
	pu, err := url.Parse(u)
	require.NoError(t, err)
	p, err := strconv.Atoi(pu.Port())
	require.NoError(t, err)
	return p
}

// shutListener shuts down, in this process, the listening socket on
// port: its Accept then fails for good (EINVAL), as a failed listener's.
func shutListener(t *testing.T, port int) {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err != nil || !strings.HasPrefix(l, "socket:") {
			continue
		}
		if v, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ACCEPTCONN); err != nil || v != 1 {
			continue
		}
		sa, err := syscall.Getsockname(fd)
		if err != nil {
			continue
		}
		if a, ok := sa.(*syscall.SockaddrInet4); ok && a.Port == port {
			require.NoError(t, syscall.Shutdown(fd, syscall.SHUT_RDWR))
			return
		}
	}
	t.Fatalf("no listening socket on port %d in this process", port)
}

// TestEmulatorListenerFailureAfterOutage: one bank (no -banks) whose
// listener an outage shut and opened again (a new socket) is still
// watched: its failure ends psd2 emulator with exit status 3 and a line
// naming the bank's listener. Only the first socket was watched, and
// the command went on, the bank's port refusing.
func TestEmulatorListenerFailureAfterOutage(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "em")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"emulator", "-out", out, "--json", "-control", "127.0.0.1:0"}, pw, &errOut)
		_ = pw.Close()
		done <- code
	}()
	var info emulatorInfo
	require.NoError(t, json.NewDecoder(pr).Decode(&info))
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	for _, ctl := range [][]string{{"outage", "kind=refused", "for=1h"}, {"end-outages"}} {
		var ctlOut, ctlErr bytes.Buffer
		require.Equal(t, exitOK, run(t.Context(), append([]string{"emulator", "ctl", "-out", out}, ctl...), &ctlOut, &ctlErr), "%s: %s", ctl, ctlErr.String())
	}
	shutListener(t, bankPort(t, info.URLs["emulator"]))

	var code int
	select {
	case code = <-done:
	case <-time.After(30 * time.Second):
		cancel()
		code = <-done
		t.Fatalf("psd2 emulator went on serving after the bank's listener failed (exit %d when interrupted); stderr: %q", code, errOut.String())
	}
	assert.Equal(t, exitRuntime, code)
	msg := errOut.String()
	t.Logf("stderr: %s", msg)
	assert.Equal(t, 1, strings.Count(msg, "\n"), "one line: %q", msg)
	assert.Contains(t, msg, "the bank's listener: ")
	assert.Contains(t, msg, "invalid argument", "the listener's error")
}
