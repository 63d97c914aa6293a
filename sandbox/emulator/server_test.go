package emulator

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServerBasics(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	u, err := url.Parse(s.URL)
	require.NoError(t, err)
	assert.Equal(t, "https", u.Scheme)
	assert.Equal(t, "127.0.0.1", u.Hostname())
	assert.Equal(t, "/api", u.Path)
	assert.True(t, s.CACertificate().IsCA)

	// The CA verifies the server; TLS below 1.2 is refused.
	pool := x509.NewCertPool()
	pool.AddCert(s.CACertificate())
	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: pool, MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11,
	}}}
	_, err = old.Get(s.URL + "/v1/sandbox/customers")
	assert.Error(t, err)
	resp, err := s.Client().Get(s.URL + "/v1/sandbox/customers")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "unsigned")
	assert.GreaterOrEqual(t, resp.TLS.Version, uint16(tls.VersionTLS12))
}

func TestHandlerMountedElsewhere(t *testing.T) {
	t.Parallel()
	key, err := testKey()
	require.NoError(t, err)
	s := NewServer(WithTPPKey(key))
	s.Close() // only the handler is used below
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	c := newTPPClient(t, s, "Mounted")
	s.URL = hs.URL + "/api"
	c.hc = hs.Client()

	r := c.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", "s"), hdr("TPP-Redirect-URI", redirectURI))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	href := r.scaRedirect(t)
	assert.True(t, strings.HasPrefix(href, hs.URL+scaPagePath), href)
	_, err = s.Control().Authorize(t.Context(), href, CustomerKari)
	assert.NoError(t, err)
}

func TestLoggerNeverSeesSecrets(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := startServer(t, WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	c := newTPPClient(t, s, "Logged")
	sid := uuid.NewString()
	psuID := c.login(CustomerKari, sid)
	c.accountIDs(psuHeaders(psuID, sid)...)
	c.get("/v1/accounts?secret=x", hdr("PSU-ID", "not-a-uuid-secret"))
	log := buf.String()
	assert.Contains(t, log, "path=/api/v1/accounts")
	assert.Contains(t, log, "status=200")
	for _, secret := range []string{psuID, "not-a-uuid-secret", "192.0.2.10", "secret=x", CustomerKari, "Signature", "signature="} {
		assert.NotContains(t, log, secret)
	}
}

func TestErrorTextsCarryNoPSUData(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "AISP")
	psu := "7f7c3c10-5b7a-4e1d-9a8b-1c2d3e4f5a6b"
	for _, opts := range [][]reqOpt{
		psuHeaders(psu, "s"),
		psuHeaders("PSU-secret-value", "s"),
		append(psuHeaders(psu, "s"), hdr("PSU-Corporate-ID", "corp-secret")),
	} {
		r := c.get("/v1/accounts", opts...)
		assert.NotContains(t, string(r.body), psu)
		assert.NotContains(t, string(r.body), "secret")
	}
}

func TestServerTimeouts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opt  Timeouts
		want Timeouts
	}{
		{"defaults", Timeouts{}, DefaultTimeouts},
		{"set", Timeouts{ReadHeader: time.Second, Read: 2 * time.Second, Write: 3 * time.Second, Idle: 4 * time.Second},
			Timeouts{ReadHeader: time.Second, Read: 2 * time.Second, Write: 3 * time.Second, Idle: 4 * time.Second}},
		{"off", Timeouts{ReadHeader: -1, Read: -1, Write: -1, Idle: time.Second},
			Timeouts{Idle: time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, WithTimeouts(tc.opt))
			hs := s.ts.Config
			assert.Equal(t, tc.want, Timeouts{ReadHeader: hs.ReadHeaderTimeout, Read: hs.ReadTimeout, Write: hs.WriteTimeout, Idle: hs.IdleTimeout})
			assert.Equal(t, maxHeaderBytes, hs.MaxHeaderBytes)
		})
	}
}
