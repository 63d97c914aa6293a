package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bank that answers a payment's status read 200 with no
// transactionStatus told nothing of the payment: psd2 journal resolve
// must not read that as a status, least of all as "not approved by the
// PSU yet" (an empty status means that only for a bank that answers 404
// until the PSU approved, journal.Create.NotFoundUntilApproved). On the
// code before it printed "not approved by the PSU yet" and "Tell the
// PSU: Your payment is waiting for your approval at your bank", exit 0,
// and recorded the entry as resolved.
func TestJournalResolveOfAnAnswerWithoutStatus(t *testing.T) {
	t.Parallel()
	for name, answer := range map[string]string{"empty object": `{}`, "empty status": `{"transactionStatus":""}`} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
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
					fmt.Fprint(w, answer)
				default:
					http.NotFound(w, r)
				}
			}))
			t.Cleanup(srv.Close)
			dir, id, j, err := createJournaled(t, srv.URL, creds)
			require.NoError(t, err)

			args := []string{"journal", "resolve", "-store", dir, "-url", srv.URL + "/api", "-cert", certFile, "-key", keyFile, id}
			out, errOut, code := psd2(t, args...)
			t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
			assert.Equal(t, exitRuntime, code, "a status answer without a status is no finding")
			assert.NotContains(t, out, "waiting for your approval")
			assert.NotContains(t, out, "not approved")
			assert.Contains(t, errOut, "no transactionStatus")
			en, err := j.Entry(ctx, id)
			require.NoError(t, err)
			assert.Nil(t, en.Resolution, "nothing is recorded of an answer that said nothing")

			out, _, code = psd2(t, append([]string{"journal", "resolve", "--json"}, args[2:]...)...)
			assert.Equal(t, exitRuntime, code)
			assert.NotContains(t, out, "awaiting-approval")
		})
	}
}
