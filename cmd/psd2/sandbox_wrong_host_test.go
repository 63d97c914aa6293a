package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSandboxListOfAnotherServerSaysSo: a -url that answers 200 with a
// web page, or with JSON of another shape (another server on loopback, a
// wrong path), ends psd2 sandbox list with exit status 3 and an error
// that says the answer is not the sandbox's and to check -url or -bank.
// It said only "decoding answer: invalid character '<' looking for
// beginning of value", or "json: cannot unmarshal object into Go value
// of type []sandbox.Customer".
func TestSandboxListOfAnotherServerSaysSo(t *testing.T) {
	t.Parallel()
	_, _, certFile, keyFile, _ := tppFiles(t)
	for name, answer := range map[string][2]string{
		"a web page":  {"text/html", "<html><body>Welcome</body></html>"},
		"other JSON":  {"application/json", `{"status":"ok"}`},
		"wrong shape": {"application/json", `[1,2,3]`},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", answer[0])
			fmt.Fprint(w, answer[1])
		}))
		out, errOut, code := psd2(t, "sandbox", "list", "-url", srv.URL+"/api", "-cert", certFile, "-key", keyFile)
		srv.Close()
		t.Logf("%s: exit %d\nstdout: %s\nstderr: %s", name, code, out, errOut)
		assert.Equal(t, exitRuntime, code, name)
		assert.Empty(t, out, name)
		assert.Contains(t, errOut, "not the sandbox's answer", name)
		assert.Contains(t, errOut, "check -url or -bank", name)
	}
}
