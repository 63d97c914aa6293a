package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A payment whose status read answers a transactionStatus psd2 does not
// know ("XXXX", or a known code in another case) has a status nobody
// read: psd2 journal resolve says so, and exits 3 (the bank's answer is
// unusable, as for an answer without a transactionStatus), as text and
// as --json, never 0. On the code before it printed "a status psd2 does
// not know" and exited 0, so a script took the payment as resolved.
// PART (some payments of a bulk accepted) is a status psd2 knows, and
// is said so, exit 0.
func TestJournalResolveOfAnUnknownStatusIsNoAllClear(t *testing.T) {
	t.Parallel()
	for _, status := range []string{"XXXX", "acsc", "PART"} {
		t.Run(status, func(t *testing.T) {
			t.Parallel()
			_, creds, certFile, keyFile, _ := tppFiles(t)
			const product = "/v1/payments/norwegian-domestic-credit-transfers"
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				switch {
				case r.Method == http.MethodPost && r.URL.Path == "/api"+product:
					w.WriteHeader(http.StatusCreated)
					fmt.Fprint(w, `{"paymentId":"p-1","transactionStatus":"RCVD"}`)
				case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/p-1/status"):
					fmt.Fprintf(w, `{"transactionStatus":%q}`, status)
				default:
					http.NotFound(w, r)
				}
			}))
			t.Cleanup(srv.Close)
			dir, id, _, err := createJournaled(t, srv.URL, creds)
			require.NoError(t, err)

			args := []string{"journal", "resolve", "-store", dir, "-url", srv.URL + "/api", "-cert", certFile, "-key", keyFile, id}
			out, errOut, code := psd2(t, args...)
			t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			jsonOut, _, jsonCode := psd2(t, append([]string{"journal", "resolve", "--json"}, args[2:]...)...)
			var rep resolveReport
			require.NoError(t, json.Unmarshal([]byte(jsonOut), &rep), jsonOut)
			assert.Equal(t, status, rep.Status)
			if status == "PART" {
				assert.Equal(t, exitOK, code)
				assert.Equal(t, exitOK, jsonCode)
				assert.Equal(t, "partially-accepted", rep.Finding)
				assert.NotContains(t, out, "does not know")
				return
			}
			assert.Equal(t, exitRuntime, code, "a status nobody knows is no all-clear")
			assert.Equal(t, exitRuntime, jsonCode)
			assert.Contains(t, out, "Payment id: p-1", "what the bank said is still printed")
			assert.Contains(t, errOut, "status is unknown")
			assert.Equal(t, "status-unknown", rep.Finding)
		})
	}
}
