package main

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestProbeRefusesAPathItCannotSend: a -path the client refuses to send
// (a fragment, a space, a control character, a path that names another
// host, a template's braces) is a command-line mistake: exit 2 with the
// flag named, before any request. The probe tried each rendering, got
// "not sent: invalid path" for every one, and reported them undecided
// with exit status 3, as if the bank had answered nothing useful.
func TestProbeRefusesAPathItCannotSend(t *testing.T) {
	t.Parallel()
	_, _, certFile, keyFile, _ := tppFiles(t)
	var calls atomic.Int64
	bank := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(bank.Close)
	for _, path := range []string{
		"/v1/accounts#x", "/v1/acc ounts", "/v1/\x1b[31maccounts", "/v1/accounts\t",
		"//evil.example/v1/accounts", "/v1/accounts/{id}", "/v1/%zz",
	} {
		out, errOut, code := psd2(t, "probe", "--json", "-url", bank.URL+"/api", "-cert", certFile, "-key", keyFile, "-path", path)
		assert.Equal(t, exitUsage, code, "%q: %s", path, errOut)
		assert.Contains(t, errOut, "-path", "%q", path)
		assert.NotContains(t, errOut, "\x1b", "%q", path)
		assert.Empty(t, out, "%q", path)
	}
	assert.Zero(t, calls.Load(), "requests sent")
	// A path with a query is one the client sends.
	_, errOut, code := psd2(t, "probe", "--json", "-url", bank.URL+"/api", "-cert", certFile, "-key", keyFile, "-path", "/v1/accounts?withBalance=true")
	assert.Equal(t, exitRuntime, code, errOut)
	assert.NotZero(t, calls.Load())
}
