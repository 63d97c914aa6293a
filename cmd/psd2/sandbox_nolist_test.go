package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A sandbox that answers the customers' list 200 with no list (an empty
// body, or null) said nothing of its customers: psd2 sandbox list must
// not read that as an empty sandbox. On the code before it printed
// "0 customer(s)" (--json: []) and the note that the sandbox holds no
// customer at all, exit 0; an empty list ([]) is still that claim.
func TestSandboxListOfNoListIsNoAllClear(t *testing.T) {
	t.Parallel()
	_, _, certFile, keyFile, _ := tppFiles(t)
	for name, body := range map[string]string{"empty body": "", "null": "null", "empty list": "[]"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				if r.Method != http.MethodGet || r.URL.Path != "/api/v1/sandbox/customers" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, body)
			}))
			t.Cleanup(srv.Close)
			for _, json := range []bool{false, true} {
				args := []string{"sandbox", "list", "-url", srv.URL + "/api", "-cert", certFile, "-key", keyFile}
				if json {
					args = append(args, "--json")
				}
				out, errOut, code := psd2(t, args...)
				t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
				if body == "[]" {
					assert.Equal(t, exitOK, code, "an empty list is the sandbox's claim")
					assert.Contains(t, errOut, "holds no customer at all")
					continue
				}
				assert.Equal(t, exitRuntime, code, "no list is no empty sandbox")
				assert.Empty(t, out)
				assert.NotContains(t, errOut, "holds no customer at all")
				assert.Contains(t, errOut, "no list of customers")
			}
		})
	}
}
