package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/signing"
)

func TestRunServesWithGeneratedTPP(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-out", dir, "-tpp", "Command TPP"}, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var url string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "URL:"); ok {
			url = strings.TrimSpace(v)
		}
		if strings.HasPrefix(line, "customers:") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	require.True(t, strings.HasPrefix(url, "https://127.0.0.1:"), url)
	assert.True(t, strings.HasSuffix(url, "/api"))

	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return b
	}
	st, err := os.Stat(filepath.Join(dir, "tpp-key.pem"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	creds, err := signing.LoadPEM(read("tpp-cert.pem"), read("tpp-key.pem"))
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(read("ca.pem")))
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}

	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"/v1/sandbox/customers", nil)
	require.NoError(t, err)
	req.Header.Set("X-Request-ID", uuid.NewString())
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString(creds.Certificate.Raw))
	signer, err := signing.NewSigner(creds.Key, signing.KeyID(creds.Certificate))
	require.NoError(t, err)
	require.NoError(t, signer.Sign(req))
	resp, err := hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	cancel()
	assert.NoError(t, <-done)
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pem")
	require.NoError(t, os.WriteFile(bad, []byte("no pem here"), 0o600))
	for _, args := range [][]string{
		{"-trust", bad},
		{"-trust", filepath.Join(dir, "missing.pem")},
		{"-addr", "not an address"},
		{"-unknown-flag"},
		{"extra"},
	} {
		err := run(t.Context(), append(args, "-out", dir), io.Discard)
		assert.Error(t, err, args)
	}
}
