package main

import (
	"bufio"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmulatorCtlRedirectPrintsBounded: a redirect's Location and status
// line are another server's text: ctl prints them clipped (at most 200
// bytes each) and with their control characters replaced, never whole.
// It printed the Location with %q in full (a 60 kB Location, 60 kB on the
// terminal) and the status line's reason raw, its escape sequences
// reaching the terminal.
func TestEmulatorCtlRedirectPrintsBounded(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	long := "http://other.example/" + strings.Repeat("a", 60_000)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for { // the request's head
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				_, _ = c.Write([]byte("HTTP/1.1 302 Found \x1b]0;owned\x07" + strings.Repeat("x", 5000) + "\r\nLocation: " + long + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			}()
		}
	}()
	_, errOut, code := psd2(t, "emulator", "ctl", "-control", "http://"+l.Addr().String(), "-token", "t", "now")
	assert.Equal(t, exitRuntime, code, errOut)
	assert.Contains(t, errOut, "redirect")
	assert.Less(t, len(errOut), 2000, "bounded")
	assert.NotContains(t, errOut, "\x1b")
	assert.NotContains(t, errOut, "\x07")
}
