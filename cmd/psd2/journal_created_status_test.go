package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/journal"
)

// A resend that the bank creates answers the payment's transactionStatus
// (docs/interface.md section 2.6: required, any status): psd2 journal
// resolve says what it is, never "waiting for your approval" over a
// payment the bank rejected at once, and a status psd2 does not know
// leaves it unknown (exit 3), as a status read does. On the code before
// it said "it waits for the PSU's approval (SCA)" and exited 0 whatever
// the status was, or without one. The approval link is printed in every
// case.
func TestJournalResolveCreatedSaysTheAnsweredStatus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, status, finding, want string }{
		{"RCVD", "RCVD", "awaiting-approval", "RCVD"},
		{"RJCT", "RJCT", "rejected", "RJCT"},
		{"XXXX", "XXXX", "status-unknown", "XXXX"},
		{"", "", "status-unknown", ""}, // no transactionStatus: required in the answer
		// No status code: recorded and shown as unreadable, never the
		// bank's text (it was printed whole, a line break included).
		{"long", strings.Repeat("ACSC", 500) + "\nforged", "status-unknown", journal.UnreadableStatus},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, creds, certFile, keyFile, _ := tppFiles(t)
			const product = "/v1/payments/norwegian-domestic-credit-transfers"
			var posts atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				if r.Method != http.MethodPost || r.URL.Path != "/api"+product {
					http.NotFound(w, r)
					return
				}
				if posts.Add(1) == 1 {
					// The first create's answer is lost: its outcome is unknown.
					conn, _, err := w.(http.Hijacker).Hijack()
					if err == nil {
						conn.Close()
					}
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				status := ""
				if c.status != "" {
					status = fmt.Sprintf(`"transactionStatus":%q,`, c.status)
				}
				fmt.Fprintf(w, `{"paymentId":"p-2",%s"_links":{"scaRedirect":{"href":"https://bank.example/sca/p-2"}}}`, status)
			}))
			t.Cleanup(srv.Close)
			dir, id, _, err := createJournaled(t, srv.URL, creds)
			require.Error(t, err)

			args := []string{"journal", "resolve", "--json", "-writers-stopped", "-store", dir, "-url", srv.URL + "/api", "-cert", certFile, "-key", keyFile, id}
			out, errOut, code := psd2(t, args...)
			t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			var rep resolveReport
			require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
			require.Equal(t, journal.ResolvedCreated, rep.Kind)
			assert.Equal(t, "p-2", rep.ID)
			assert.Equal(t, c.want, rep.Status)
			assert.NotContains(t, out+errOut, "ACSCACSC")
			assert.NotContains(t, out+errOut, "forged")
			assert.Equal(t, c.finding, rep.Finding)
			assert.Equal(t, "https://bank.example/sca/p-2", rep.SCARedirect, "the approval link is printed whatever the status")
			if c.status == "RCVD" {
				assert.Equal(t, exitOK, code)
				return
			}
			assert.NotContains(t, rep.Meaning, "waits for the PSU's approval")
			assert.NotContains(t, rep.TellPSU, "waiting for your approval")
			if c.finding == "status-unknown" {
				assert.Equal(t, exitRuntime, code)
				assert.Contains(t, errOut, "status is unknown")
			} else {
				assert.Equal(t, exitOK, code)
			}
		})
	}
}
