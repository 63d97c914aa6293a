package main

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

// probeTPP is a TPP certificate whose serial has an odd number of hex
// digits (so a padded serial is a rendering of its own) and whose issuer
// has a non-ASCII letter and an organizationIdentifier, registered with a
// new emulator. It writes the certificate and key files.
func probeTPP(t *testing.T) (s *emulator.Server, cert *x509.Certificate, certFile, keyFile string) {
	t.Helper()
	now := time.Now()
	creds := testtpp.SelfSigned(t, &x509.Certificate{
		SerialNumber: big.NewInt(0x5A3C1),
		Subject: pkix.Name{Country: []string{"NO"}, Organization: []string{"Prøve TPP AS"}, CommonName: "Prøve TPP",
			ExtraNames: []pkix.AttributeTypeAndValue{{Type: asn1.ObjectIdentifier{2, 5, 4, 97}, Value: "PSDNO-FSA-912345678"}}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(365 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature,
	})
	s = emulator.NewServer(emulator.WithTrustedCertificates(creds.Certificate))
	t.Cleanup(s.Close)
	dir := t.TempDir()
	key, err := x509.MarshalPKCS8PrivateKey(creds.Key)
	require.NoError(t, err)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Certificate.Raw}), 0o600))
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600))
	return s, creds.Certificate, certFile, keyFile
}

// keyIDGate stands in front of the emulator as a bank that accepts exactly
// one keyId rendering, until the emulator can be told which renderings a
// bank accepts. A request whose keyId is another gets the emulator's own
// refusal (400 FORMAT_ERROR at Signature); the accepted one is written in
// the SDK's form, which the emulator reads, and the request goes on to the
// emulator, which checks everything else. The keyId is not part of the
// signing string (docs/interface.md section 5.5), so the signature still
// verifies.
func keyIDGate(t *testing.T, s *emulator.Server, cert *x509.Certificate, accept string) (baseURL, caFile string) {
	t.Helper()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := signing.ParseSignature(r.Header.Get("Signature"))
		if err != nil || p.KeyID != accept {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"Signature","text":"The keyId does not match the TPP-Signature-Certificate (expected SN=<serial>,CA=<issuer DN per RFC 2253>)."}]}`))
			return
		}
		v := fmt.Sprintf(`keyId="%s",algorithm="%s",headers="%s",signature="%s"`, signing.QuoteParam(signing.KeyID(cert)),
			p.Algorithm, strings.Join(p.Headers, " "), base64.StdEncoding.EncodeToString(p.Signature))
		r.Header.Set("Signature", signing.EncodeWord(v))
		s.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	caFile = filepath.Join(t.TempDir(), "gate-ca.pem")
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600))
	return ts.URL + "/api", caFile
}

// emulatorCA writes the emulator's CA certificate to a file.
func emulatorCA(t *testing.T, s *emulator.Server) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.CACertificate().Raw}), 0o600))
	return f
}

// runProbeBin runs psd2 probe --json and decodes its report.
func runProbeBin(t *testing.T, args ...string) (probeReport, string, int) {
	t.Helper()
	out, errOut, code := psd2(t, append([]string{"probe", "--json"}, args...)...)
	var rep probeReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), "stdout %q, stderr %q", out, errOut)
	return rep, errOut, code
}

// TestProbeNamesTheAcceptedForm runs psd2 probe against a bank that
// accepts one keyId rendering, for each rendering in turn, and checks
// that the probe names that one as verified and every other as refused.
// It logs the figure (forms named / forms).
func TestProbeNamesTheAcceptedForm(t *testing.T) {
	t.Parallel()
	s, cert, certFile, keyFile := probeTPP(t)
	forms := probeRenderings(cert)
	var names []string
	for _, r := range forms {
		names = append(names, r.Name)
	}
	// Every issuer form of psd2 keyid, each also with a padded serial.
	require.ElementsMatch(t, []string{"sdk", "openssl", "oid", "go", "padded-serial",
		"openssl+padded-serial", "oid+padded-serial", "go+padded-serial"}, names)
	named := 0
	for _, accept := range forms {
		base, ca := keyIDGate(t, s, cert, accept.KeyID)
		rep, errOut, code := runProbeBin(t, "-url", base, "-ca", ca, "-cert", certFile, "-key", keyFile)
		noSecret(t, keyFile, errOut)
		assert.Equal(t, exitOK, code, "%s: %s", accept.Name, errOut)
		if assert.Equal(t, []string{accept.Name}, rep.Accepted, accept.Name) {
			named++
		}
		require.Len(t, rep.Results, len(forms))
		for _, r := range rep.Results {
			want := verdictRefused
			if r.Rendering == accept.Name {
				want = verdictVerified
				assert.Equal(t, http.StatusUnauthorized, r.Status, "the account list without a PSU: 401 with scaRedirect")
			}
			assert.Equal(t, want, r.Verdict, "bank accepting %s, rendering %s: %s", accept.Name, r.Rendering, r.Reason)
			assert.NotEmpty(t, r.Reason)
		}
	}
	t.Logf("probe named the accepted form %d of %d times", named, len(forms))

	// The emulator itself takes every issuer form that parses as the
	// certificate's issuer in RFC 2253 order, with the serial as
	// signing.KeyID writes it.
	rep, errOut, code := runProbeBin(t, "-url", s.URL, "-ca", emulatorCA(t, s), "-cert", certFile, "-key", keyFile)
	assert.Equal(t, exitOK, code, errOut)
	assert.Equal(t, []string{"sdk", "openssl", "oid"}, rep.Accepted)

	// The text names the form too.
	base, ca := keyIDGate(t, s, cert, forms[1].KeyID)
	out, _, code := psd2(t, "probe", "-url", base, "-ca", ca, "-cert", certFile, "-key", keyFile)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "the bank accepts: "+forms[1].Name+"\n")
}

// TestProbeUndecided checks that answers which prove nothing about the
// signature leave every rendering undecided, with the reason, and that the
// probe then says it cannot answer (exit 3), never "verified".
func TestProbeUndecided(t *testing.T) {
	t.Parallel()
	s, _, certFile, keyFile, caFile := tppFiles(t)
	creds := []string{"-cert", certFile, "-key", keyFile}
	serverError := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"SYSTEM_ERROR","text":"down"}]}`))
	}))
	t.Cleanup(serverError.Close)
	seCA := filepath.Join(t.TempDir(), "se-ca.pem")
	require.NoError(t, os.WriteFile(seCA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: serverError.Certificate().Raw}), 0o600))
	stranger := testtpp.Credentials(t, "Unregistered TPP")
	strangerDir := t.TempDir()
	strangerCert, strangerKey := filepath.Join(strangerDir, "c.pem"), filepath.Join(strangerDir, "k.pem")
	der, err := x509.MarshalPKCS8PrivateKey(stranger.Key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(strangerCert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: stranger.Certificate.Raw}), 0o600))
	require.NoError(t, os.WriteFile(strangerKey, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600))

	cases := []struct {
		name   string
		args   []string
		reason string
	}{
		{"a path the bank does not serve (404)", append([]string{"-url", s.URL, "-ca", caFile, "-path", "/v1/nosuch"}, creds...), "404 NOT_FOUND"},
		{"a path below /v1/sandbox the bank does not serve", append([]string{"-url", s.URL, "-ca", caFile, "-path", "/v1/sandbox/nosuch"}, creds...), "404"},
		{"a 5xx", append([]string{"-url", serverError.URL + "/api", "-ca", seCA}, creds...), "500 SYSTEM_ERROR"},
		{"a TLS failure (the bank's CA not trusted)", append([]string{"-url", s.URL}, creds...), "TLS"},
		{"a certificate the bank does not know", []string{"-url", s.URL, "-ca", caFile, "-cert", strangerCert, "-key", strangerKey}, "CERTIFICATE_INVALID"},
	}
	for _, c := range cases {
		rep, errOut, code := runProbeBin(t, c.args...)
		assert.Equal(t, exitRuntime, code, c.name)
		assert.Contains(t, errOut, "undecided", c.name)
		assert.Empty(t, rep.Accepted, c.name)
		require.NotEmpty(t, rep.Results, c.name)
		undecided := 0
		for _, r := range rep.Results {
			if assert.Equal(t, verdictUndecided, r.Verdict, "%s: %s", c.name, r.Rendering) {
				undecided++
			}
			assert.Contains(t, r.Reason, c.reason, c.name)
		}
		t.Logf("%s: undecided %d of %d renderings", c.name, undecided, len(rep.Results))
	}
}

// TestProbeWebPageIsNoBank: a -url that serves a web page for every path
// (a bank's developer portal, a proxy's landing page) answers the probe's
// GET with 200 and HTML. That proves nothing about the signature: every
// rendering is undecided (exit 3), never "the bank accepts" them all.
func TestProbeWebPageIsNoBank(t *testing.T) {
	t.Parallel()
	_, _, certFile, keyFile, _ := tppFiles(t)
	portal := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>Developer portal</title>"))
	}))
	t.Cleanup(portal.Close)
	ca := filepath.Join(t.TempDir(), "portal-ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: portal.Certificate().Raw}), 0o600))
	rep, errOut, code := runProbeBin(t, "-url", portal.URL+"/api", "-ca", ca, "-cert", certFile, "-key", keyFile)
	assert.Equal(t, exitRuntime, code, errOut)
	assert.Empty(t, rep.Accepted)
	assert.Contains(t, errOut, "undecided")
	require.NotEmpty(t, rep.Results)
	for _, r := range rep.Results {
		assert.Equal(t, verdictUndecided, r.Verdict, r.Rendering)
		assert.Contains(t, r.Reason, "text/html", r.Rendering)
	}
}

// TestProbePrintsNoControlCharacters: a bank's codes and texts are
// printed without their control characters (an escape sequence would
// drive the operator's terminal), and a text is cut on a character, never
// inside one.
func TestProbePrintsNoControlCharacters(t *testing.T) {
	t.Parallel()
	_, _, certFile, keyFile, _ := tppFiles(t)
	bank := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		text := "\x1b]0;owned\x07bad\rkeyId " + strings.Repeat("ø", 150)
		quoted, _ := json.Marshal(text)
		_, _ = fmt.Fprintf(w, `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"Signature","text":%s},{"code":"X\u001b[31m"}]}`, quoted)
	}))
	t.Cleanup(bank.Close)
	ca := filepath.Join(t.TempDir(), "bank-ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: bank.Certificate().Raw}), 0o600))
	for _, json := range []bool{false, true} {
		args := []string{"probe", "-url", bank.URL + "/api", "-ca", ca, "-cert", certFile, "-key", keyFile}
		if json {
			args = append(args, "--json")
		}
		out, errOut, code := psd2(t, args...)
		assert.NotEqual(t, exitOK, code)
		assert.NotContains(t, out+errOut, "\x1b", "json %v", json)
		assert.NotContains(t, out+errOut, "\r", "json %v", json)
		assert.NotContains(t, out+errOut, "\x07", "json %v", json)
		assert.True(t, utf8.ValidString(out+errOut), "json %v", json)
	}
}

// TestProbeJSONAPIIsNoBank: a -url that is another JSON API (a status
// endpoint, a gateway's health check, another service) answers the
// probe's GET with 200 and JSON. Only an answer shaped as the
// interface's answer to the call ({"accounts":[...]} for GET
// /v1/accounts, each entry with a resourceId) proves the bank served it:
// every other 2xx leaves each rendering undecided with the reason (exit
// 3). Before, any 2xx JSON was "verified", and the probe said the bank
// accepted every rendering. The platform's own answers (the accounts and
// card accounts of accounts/testdata) are verified.
func TestProbeJSONAPIIsNoBank(t *testing.T) {
	t.Parallel()
	_, _, certFile, keyFile, _ := tppFiles(t)
	accountsAnswer, err := os.ReadFile(filepath.Join("..", "..", "accounts", "testdata", "accounts.json"))
	require.NoError(t, err)
	cardsAnswer, err := os.ReadFile(filepath.Join("..", "..", "accounts", "testdata", "card-accounts.json"))
	require.NoError(t, err)
	// answering serves body with 200 and Content-Type ct for every path.
	answering := func(ct, body string) (url, ca string) {
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", ct)
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		ca = filepath.Join(t.TempDir(), "ca.pem")
		require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600))
		return srv.URL + "/api", ca
	}
	const json = "application/json"
	cases := []struct {
		name, ct, body, path string
		verified             bool
		reason               string
	}{
		{"a status endpoint", json, `{"status":"ok","version":"1.4.2"}`, "", false, `no "accounts" member`},
		{"a top-level list", json, `[{"resourceId":"enc!!abc="}]`, "", false, "not a JSON object"},
		{"accounts not a list", json, `{"accounts":"none"}`, "", false, `"accounts" is not a list`},
		{"accounts null", json, `{"accounts":null}`, "", false, `"accounts" is not a list`},
		{"an entry without resourceId", json, `{"accounts":[{"id":"a1","name":"Main"}]}`, "", false, `entry 0 of "accounts"`},
		{"an entry null", json, `{"accounts":[null]}`, "", false, `entry 0 of "accounts"`},
		{"an empty resourceId", json, `{"accounts":[{"resourceId":""}]}`, "", false, `entry 0 of "accounts"`},
		{"an empty body", json, ``, "", false, "an empty body"},
		{"a body that is not JSON", json, `<html>`, "", false, "does not decode as JSON"},
		{"a +json type, not the shape", "application/problem+json", `{"title":"ok"}`, "", false, `no "accounts" member`},
		{"a path whose answer the probe does not know", json, `{"agreements":[]}`, "/v1/agreements", false, "does not know"},
		{"the platform's account list", json, string(accountsAnswer), "", true, "the interface's answer"},
		{"an empty account list", json, `{"accounts":[]}`, "", true, "the interface's answer"},
		{"the platform's card account list", json, string(cardsAnswer), "/v1/card-accounts", true, "the interface's answer"},
	}
	for _, c := range cases {
		base, ca := answering(c.ct, c.body)
		args := []string{"-url", base, "-ca", ca, "-cert", certFile, "-key", keyFile}
		if c.path != "" {
			args = append(args, "-path", c.path)
		}
		rep, errOut, code := runProbeBin(t, args...)
		require.NotEmpty(t, rep.Results, c.name)
		want := verdictUndecided
		if c.verified {
			want = verdictVerified
			assert.Equal(t, exitOK, code, "%s: %s", c.name, errOut)
			assert.Len(t, rep.Accepted, len(rep.Results), c.name)
		} else {
			assert.Equal(t, exitRuntime, code, "%s: %s", c.name, errOut)
			assert.Empty(t, rep.Accepted, c.name)
			assert.Contains(t, errOut, "undecided", c.name)
		}
		for _, r := range rep.Results {
			assert.Equal(t, want, r.Verdict, "%s: %s: %s", c.name, r.Rendering, r.Reason)
			assert.Contains(t, r.Reason, c.reason, c.name)
			assert.Equal(t, http.StatusOK, r.Status, c.name)
		}
	}
}
