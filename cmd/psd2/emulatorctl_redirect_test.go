package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEmulatorCtlFollowsNoRedirect: the control API never redirects; an
// answer that does is another server's (a proxy, another service on the
// port), and ctl fails (exit 3) without following it. It followed it:
// the token went to whatever server the Location named on the same host
// (any port), a 303 turned "advance" into a GET of another URL, and that
// URL's 200 JSON was printed with exit 0, as if the bank's clock had
// moved.
func TestEmulatorCtlFollowsNoRedirect(t *testing.T) {
	t.Parallel()
	var reached atomic.Int64
	var token atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		token.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"frozen":false,"now":"2026-05-30T10:12:03+02:00"}`)
	}))
	t.Cleanup(other.Close)
	for _, status := range []int{http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusFound} {
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/controls/now", status)
		}))
		stdout, errOut, code := psd2(t, "emulator", "ctl", "-control", proxy.URL, "-token", "secret-token", "advance", "days=89")
		proxy.Close()
		assert.Equal(t, exitRuntime, code, "%d: %s", status, errOut)
		assert.Empty(t, stdout, "%d", status)
		assert.Contains(t, errOut, "redirect", "%d", status)
		assert.NotContains(t, errOut, "secret-token", "%d", status)
	}
	assert.Zero(t, reached.Load(), "the redirect was followed (Authorization %q)", token.Load())
}
