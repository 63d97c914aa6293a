package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// psd2 health of a bank whose circuit breaker is open tells a script so:
// exit status 1 (the check ran and found the bank unavailable, as keyid
// exits 1 for a certificate not valid now), as text and as --json, with
// the state printed all the same. On the code before it printed
// "UNAVAILABLE" and exited 0, which a script reads as all well.
func TestHealthUnavailableExitsNonZero(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	_, creds, certFile, keyFile, _ := tppFiles(t)
	dir := filepath.Join(t.TempDir(), "store")
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	const down = "http://127.0.0.1:1" // nothing listens: connections refused
	c, err := client.New(down, creds, client.WithStore(st),
		client.WithRetryPolicy(client.RetryPolicy{}), client.WithDefaults(client.WithRedirectURI("https://tpp.example/cb")))
	require.NoError(t, err)
	for range 5 {
		_, _ = c.Do(ctx, client.Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	}
	require.Equal(t, client.BreakerOpen, c.BankHealth().State)

	args := []string{"-url", down, "-cert", certFile, "-key", keyFile, "-store", dir}
	out, errOut, code := psd2(t, append([]string{"health"}, args...)...)
	assert.Equal(t, exitFailed, code, "an unavailable bank is no all-clear: %s", out)
	assert.Contains(t, out, "UNAVAILABLE")
	assert.Contains(t, errOut, "unavailable")

	out, _, code = psd2(t, append([]string{"health", "--json"}, args...)...)
	assert.Equal(t, exitFailed, code)
	var h healthStatus
	require.NoError(t, json.Unmarshal([]byte(out), &h), out)
	assert.Equal(t, client.BreakerOpen, h.Breaker)
}
