package main

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveEnv names the environment variables of TestRunLiveSandbox.
var liveEnv = []string{"PSD2_SANDBOX_URL", "PSD2_CERT", "PSD2_KEY", "PSD2_CUSTOMER", "PSD2_REDIRECT_URI"}

// TestRunLiveSandbox runs the walk-through against a real bank's sandbox.
// It needs a person: each SCA prints a link to open and waits (at most
// PSD2_SCA_TIMEOUT, default 5 minutes) for the bank's redirect to
// PSD2_REDIRECT_URI, which the test catches with an HTTP server on that
// URI's host and port. Without the variables it is skipped.
//
//	PSD2_SANDBOX_URL=https://psd2.bank.example/api PSD2_CERT=qseal.pem PSD2_KEY=qseal.key \
//	PSD2_CUSTOMER=13039319955 PSD2_REDIRECT_URI=http://localhost:8765/callback \
//	go test -v -run TestRunLiveSandbox -timeout 1h ./examples/quickstart
func TestRunLiveSandbox(t *testing.T) {
	for _, v := range liveEnv {
		if os.Getenv(v) == "" {
			t.Skipf("set %v to run against a real bank's sandbox (%s is not set)", liveEnv, v)
		}
	}
	cfg := config{
		baseURL:     os.Getenv("PSD2_SANDBOX_URL"),
		certFile:    os.Getenv("PSD2_CERT"),
		keyFile:     os.Getenv("PSD2_KEY"),
		customer:    os.Getenv("PSD2_CUSTOMER"),
		redirectURI: os.Getenv("PSD2_REDIRECT_URI"),
		scaTimeout:  5 * time.Minute,
	}
	if d := os.Getenv("PSD2_SCA_TIMEOUT"); d != "" {
		var err error
		cfg.scaTimeout, err = time.ParseDuration(d)
		require.NoError(t, err, "PSD2_SCA_TIMEOUT")
	}
	// The person needs the links as they come: print straight to stdout.
	var out bytes.Buffer
	res, err := run(t.Context(), cfg, io.MultiWriter(os.Stdout, &out))
	require.NoError(t, err, out.String())
	assert.Empty(t, res.Failed)
	for _, s := range res.Steps {
		assert.True(t, s.OK, "step %q: %s", s.Name, s.Detail)
	}
}
