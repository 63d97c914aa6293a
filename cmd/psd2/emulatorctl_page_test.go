package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// TestEmulatorCtlPrintsNoForeignPage: an error answer that is not JSON
// (another server on the port, a proxy's error page) fails the command
// (exit 3) saying so, and its body is not copied to the operator's
// terminal: no control character (an escape sequence would drive the
// terminal), no invalid UTF-8, and not megabytes of a page. ctl wrote the
// body to stderr as it came, escape sequences and all, up to 64 MiB.
func TestEmulatorCtlPrintsNoForeignPage(t *testing.T) {
	t.Parallel()
	page := "<html>\x1b]0;owned\x07\x1b[31mboom\r\xff" + strings.Repeat("<p>filler</p>\n", 100_000) + "</html>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, page)
	}))
	t.Cleanup(srv.Close)
	stdout, errOut, code := psd2(t, "emulator", "ctl", "-control", srv.URL, "-token", "t", "now")
	assert.Equal(t, exitRuntime, code, errOut)
	assert.Empty(t, stdout)
	assert.Contains(t, errOut, "502")
	assert.Contains(t, errOut, "not JSON")
	for _, c := range []string{"\x1b", "\x07", "\r"} {
		assert.NotContains(t, errOut, c)
	}
	assert.True(t, utf8.ValidString(errOut))
	assert.Less(t, len(errOut), 4096, "bytes of the page printed")
}
