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
	em := runEmulatorInProcess(t, "-banks", "alpha,beta")
	info := em.info

	shutListener(t, bankPort(t, port(info)))

	assert.Equal(t, exitRuntime, em.end(t, said))
	msg := em.errOut.String()
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

// runningEmulator is psd2 emulator --json run in-process by
// runEmulatorInProcess.
type runningEmulator struct {
	out    string       // its -out directory
	info   emulatorInfo // the document it printed
	errOut *bytes.Buffer
	done   chan int // its exit status
	cancel context.CancelFunc
}

// runEmulatorInProcess runs psd2 emulator --json with args in-process and
// returns once it printed its addresses; it is interrupted when the test
// ends.
func runEmulatorInProcess(t *testing.T, args ...string) *runningEmulator {
	t.Helper()
	em := &runningEmulator{out: filepath.Join(t.TempDir(), "em"), errOut: new(bytes.Buffer), done: make(chan int, 1)}
	ctx, cancel := context.WithCancel(t.Context())
	em.cancel = cancel
	t.Cleanup(cancel)
	pr, pw := io.Pipe()
	go func() {
		code := run(ctx, append([]string{"emulator", "-out", em.out, "--json"}, args...), pw, em.errOut)
		_ = pw.Close()
		em.done <- code
	}()
	require.NoError(t, json.NewDecoder(pr).Decode(&em.info))
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return em
}

// end waits up to 30 seconds for em to end by itself after what failed
// (said) and returns its exit status; one still serving then is
// interrupted and fails the test.
func (em *runningEmulator) end(t *testing.T, said string) int {
	t.Helper()
	select {
	case code := <-em.done:
		return code
	case <-time.After(30 * time.Second):
		em.cancel()
		code := <-em.done
		t.Fatalf("psd2 emulator went on serving after %s failed (exit %d when interrupted); stderr: %q", said, code, em.errOut.String())
		return code
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
	em := runEmulatorInProcess(t, "-control", "127.0.0.1:0")
	out, info := em.out, em.info

	for _, ctl := range [][]string{{"outage", "kind=refused", "for=1h"}, {"end-outages"}} {
		var ctlOut, ctlErr bytes.Buffer
		require.Equal(t, exitOK, run(t.Context(), append([]string{"emulator", "ctl", "-out", out}, ctl...), &ctlOut, &ctlErr), "%s: %s", ctl, ctlErr.String())
	}
	shutListener(t, bankPort(t, info.URLs["emulator"]))

	assert.Equal(t, exitRuntime, em.end(t, "the bank's listener"))
	msg := em.errOut.String()
	t.Logf("stderr: %s", msg)
	assert.Equal(t, 1, strings.Count(msg, "\n"), "one line: %q", msg)
	assert.Contains(t, msg, "the bank's listener: ")
	assert.Contains(t, msg, "invalid argument", "the listener's error")
}
