package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"software.sslmate.com/src/go-pkcs12"
)

// TestSignVerifyRoundTrip signs requests with psd2 sign and checks that
// psd2 verify reads what it printed, from a file and from a pipe, and
// finds nothing wrong.
func TestSignVerifyRoundTrip(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, _ := tppFiles(t)
	bodyFile := filepath.Join(t.TempDir(), "body.json")
	require.NoError(t, os.WriteFile(bodyFile, []byte("{\"a\":\"line\\nbreak\"}\n"), 0o600))
	cases := []struct {
		name string
		args []string
	}{
		{"a payment with a body and PSU headers", []string{"-X", "POST", "-url", s.URL + "/v1/payments/norwegian-domestic-credit-transfers", "-d", `{"a":1}`,
			"-H", "PSU-ID: 6f1c3c1e-1111-4aaa-8bbb-123456789abc", "-H", "TPP-Redirect-URI: https://tpp.example/cb"}},
		{"a GET without a body", []string{"-url", s.URL + "/v1/accounts?withBalance=true", "-H", "TPP-Redirect-URI: https://tpp.example/cb"}},
		{"a body from a file ending in a line break", []string{"-X", "POST", "-url", s.URL + "/v1/signing-baskets", "-body-file", bodyFile}},
		{"the OpenSSL keyId form", []string{"-url", s.URL + "/v1/accounts", "-keyid-form", "openssl"}},
	}
	for _, c := range cases {
		out, errOut, code := psd2(t, append([]string{"sign", "-cert", certFile, "-key", keyFile}, c.args...)...)
		require.Equal(t, exitOK, code, "%s: %s", c.name, errOut)
		noSecret(t, keyFile, out+errOut)
		assert.NotContains(t, out, "curl", c.name)

		f := filepath.Join(t.TempDir(), "req.http")
		require.NoError(t, os.WriteFile(f, []byte(out), 0o600))
		vout, verr, code := psd2(t, "verify", f)
		want := exitOK
		if strings.Contains(c.name, "OpenSSL") {
			want = exitFailed // verify names the form: KEYID_FORM, and nothing else
			assert.Equal(t, "KEYID_FORM", strings.Fields(vout)[0], c.name)
			assert.Equal(t, 1, strings.Count(vout, "\n"), "%s: %s", c.name, vout)
		}
		assert.Equal(t, want, code, "%s: %s%s", c.name, vout, verr)

		cmd := exec.CommandContext(t.Context(), bin, "verify", "--json", "-")
		cmd.Stdin = strings.NewReader(out)
		piped, err := cmd.Output()
		if want == exitOK {
			require.NoError(t, err, c.name)
		}
		var rep verifyReport
		require.NoError(t, json.Unmarshal(piped, &rep), c.name)
		assert.Equal(t, want == exitOK, rep.OK, c.name)
	}
	// The GET has no Digest (docs/design.md section 3: only with a body).
	out, _, _ := psd2(t, "sign", "-cert", certFile, "-key", keyFile, "-url", s.URL+"/v1/accounts")
	assert.NotContains(t, out, "Digest:")
}

// curlStatus matches the status line curl -i prints.
var curlStatus = regexp.MustCompile(`(?m)^HTTP/[0-9.]+ ([0-9]{3})`)

// TestSignCurlAgainstEmulator runs the curl command psd2 sign -curl -ca
// prints, as printed, against the emulator, and checks the 2xx.
func TestSignCurlAgainstEmulator(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on this machine")
	}
	if v := os.Getenv("PSD2_CLOCK_SHIFT_SECONDS"); v != "" && v != "0" {
		// curl checks the emulator's certificate, made on the moved
		// clock, against the machine's.
		t.Skip(".ci/clockshift moves the clock of Go programs, not curl's")
	}
	s, _, certFile, keyFile, caFile := tppFiles(t)
	bodyFile := filepath.Join(t.TempDir(), "customer.json")
	require.NoError(t, os.WriteFile(bodyFile, []byte(`{"customerNumber":"01017054321","customerType":"PRIVATE","customerName":"Fil Kunde"}`), 0o600))
	cases := []struct {
		name   string
		args   []string
		status string
	}{
		{"create a sandbox customer, the body inline", []string{"-X", "POST", "-url", s.URL + "/v1/sandbox/customers", "-d", `{"customerNumber":"01017012345","customerType":"PRIVATE","customerName":"Ny Kunde"}`}, "201"},
		{"create a sandbox customer, the body from a file", []string{"-X", "POST", "-url", s.URL + "/v1/sandbox/customers", "-body-file", bodyFile}, "201"},
		{"list the sandbox customers", []string{"-url", s.URL + "/v1/sandbox/customers?withAccounts=true"}, "200"},
	}
	for _, c := range cases {
		out, errOut, code := psd2(t, append([]string{"sign", "-curl", "-ca", caFile, "-cert", certFile, "-key", keyFile}, c.args...)...)
		require.Equal(t, exitOK, code, "%s: %s", c.name, errOut)
		require.True(t, strings.HasPrefix(out, "curl "), out)
		cmd := exec.CommandContext(t.Context(), "sh", "-c", out)
		cmd.Dir = t.TempDir() // the printed paths are absolute
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		require.NoError(t, err, "%s: the printed curl failed: %s %s", c.name, stdout.String(), stderr.String())
		m := curlStatus.FindStringSubmatch(stdout.String())
		require.NotNil(t, m, stdout.String())
		assert.Equal(t, c.status, m[1], "%s: %s", c.name, stdout.String())
	}
	out, _, _ := psd2(t, "sandbox", "list", "-url", s.URL, "-ca", caFile, "-cert", certFile, "-key", keyFile, "--json")
	assert.Contains(t, out, "Fil Kunde", "the customer the curl created is there")

	// Without -ca the curl is refused by TLS; a -ca that is no certificate
	// is refused by sign.
	out, _, code := psd2(t, "sign", "-curl", "-cert", certFile, "-key", keyFile, "-url", s.URL+"/v1/sandbox/customers")
	require.Equal(t, exitOK, code)
	assert.NotContains(t, out, "--cacert")
	assert.Error(t, exec.CommandContext(t.Context(), "sh", "-c", out).Run())
	_, errOut, code := psd2(t, "sign", "-curl", "-ca", keyFile, "-cert", certFile, "-key", keyFile, "-url", s.URL+"/v1/sandbox/customers")
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "no PEM certificate")
	noSecret(t, keyFile, errOut)
}

// TestSignRefusesContradictoryFlags: -key with -p12 (the key is in the
// PKCS#12 file: one of them would be ignored), and a -H whose name is no
// header name or whose value holds a line break (it would print a request
// with a header the operator did not ask for) are command-line mistakes
// (exit 2), and nothing is printed. A PKCS#12 file whose password
// variable is unset says so.
func TestSignRefusesContradictoryFlags(t *testing.T) {
	t.Parallel()
	_, creds, certFile, keyFile, _ := tppFiles(t)
	der, err := pkcs12.Modern.Encode(creds.Key, creds.Certificate, nil, "s3cret-pw")
	require.NoError(t, err)
	p12 := filepath.Join(t.TempDir(), "tpp.p12")
	require.NoError(t, os.WriteFile(p12, der, 0o600))
	url := "https://psd2.bank.example/api/v1/accounts"
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"-key with -p12", []string{"-p12", p12, "-password-env", "TEST_P12_PW", "-key", keyFile, "-url", url}, "-key"},
		{"a line break in a header value", []string{"-cert", certFile, "-key", keyFile, "-url", url, "-H", "X-Note: a\r\nPSU-ID: someone-else"}, "-H"},
		{"a line feed in a header value", []string{"-cert", certFile, "-key", keyFile, "-url", url, "-H", "X-Note: a\nb"}, "-H"},
		{"a space in a header name", []string{"-cert", certFile, "-key", keyFile, "-url", url, "-H", "PSU ID: x"}, "-H"},
		{"a line break in -date", []string{"-cert", certFile, "-key", keyFile, "-url", url, "-date", "Mon, 02 Mar 2026 10:00:00 GMT\r\nPSU-ID: someone-else"}, "-date"},
	} {
		out, errOut, code := psd2In(t, t.TempDir(), []string{"TEST_P12_PW=s3cret-pw"}, append([]string{"sign"}, c.args...)...)
		assert.Equal(t, exitUsage, code, "%s: %s", c.name, errOut)
		assert.Empty(t, out, c.name)
		assert.Contains(t, errOut, c.says, c.name)
		assert.NotContains(t, errOut, "someone-else", c.name)
	}

	_, errOut, code := psd2(t, "keyid", "-p12", p12, "-password-env", "TEST_P12_UNSET")
	assert.Equal(t, exitRuntime, code)
	assert.Contains(t, errOut, "TEST_P12_UNSET is not set")
}

// TestKeyIDRefusesACAFirst: a PEM bundle with its CA's certificate
// before the TPP's (a chain file in the other order) gave the CA's keyId
// as the TPP's, exit 0; sign refuses the same file (the key is not the
// certificate's). keyid now names the mistake, exit 3.
func TestKeyIDRefusesACAFirst(t *testing.T) {
	t.Parallel()
	_, _, certFile, keyFile, caFile := tppFiles(t)
	leaf, err := os.ReadFile(certFile)
	require.NoError(t, err)
	ca, err := os.ReadFile(caFile)
	require.NoError(t, err)
	bundle := filepath.Join(t.TempDir(), "chain.pem")
	require.NoError(t, os.WriteFile(bundle, append(append([]byte{}, ca...), leaf...), 0o600))
	out, errOut, code := psd2(t, "keyid", "-cert", bundle)
	assert.Equal(t, exitRuntime, code, out)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "a CA's certificate")
	_, _, code = psd2(t, "sign", "-cert", bundle, "-key", keyFile, "-url", "https://psd2.bank.example/api/v1/accounts")
	assert.Equal(t, exitRuntime, code, "sign refuses the bundle too")

	out, errOut, code = psd2(t, "keyid", "-cert", certFile)
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "keyId:")
}
