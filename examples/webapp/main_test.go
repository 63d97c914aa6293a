package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/examples/internal/demo"
)

// TestRun drives the site once, as `go run ./examples/webapp` does.
func TestRun(t *testing.T) {
	t.Parallel()
	text := demo.Run(t, func(ctx context.Context, out io.Writer) error {
		return run(ctx, "127.0.0.1:0", false, out)
	})
	assert.Contains(t, text, "GET  /                200  Your bank, in one place")
	assert.Contains(t, text, "GET  /connect         303  redirect to the bank's SCA page")
	assert.Contains(t, text, "GET  /accounts        200  Your accounts Brukskonto")
	assert.Contains(t, text, "POST /pay             422  ")
	assert.Contains(t, text, "POST /pay             303  redirect to the bank's SCA page")
	assert.Contains(t, text, "GET  /payments/{ref}  200  Payment done Your bank has paid 249.00 NOK to Nettbutikken AS.")
	assert.NotContains(t, text, "psu-id")
}

// TestServe starts the site for a person and stops it with the context.
func TestServe(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, "127.0.0.1:0", true, w); w.Close() }()

	line, err := readLine(r)
	require.NoError(t, err)
	addr, _, ok := strings.Cut(strings.TrimPrefix(line, "TPP web app on "), " ")
	require.True(t, ok, line)
	go func() { _, _ = io.Copy(io.Discard, r) }()

	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(addr)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(b), "Connect your bank")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop")
	}
}

func readLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		if _, err := r.Read(one); err != nil {
			return string(b), err
		}
		if one[0] == '\n' {
			return string(b), nil
		}
		b = append(b, one[0])
	}
}
