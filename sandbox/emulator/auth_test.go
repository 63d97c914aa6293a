package emulator

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/signing"
)

func TestRequestChecks(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Checks TPP")
	other := newTPPClient(t, startServer(t), "Unregistered TPP")
	other.s, other.hc = s, s.Client() // talks to s, which does not know it
	customer := []byte(`{"customerNumber":"15867512345","customerType":"PRIVATE","customerName":"Kari Test"}`)

	headersOnly := func(names ...string) reqOpt {
		return reqOpt{pre: func(r *http.Request) {
			sg, err := signing.NewSigner(c.creds.Key, signing.KeyID(c.creds.Certificate), signing.WithHeaders(names...))
			require.NoError(t, err)
			require.NoError(t, sg.Sign(r))
		}}
	}
	tests := []struct {
		name   string
		method string
		path   string
		body   []byte
		opts   []reqOpt
		client *tppClient
		status int
		code   string
		at     string
	}{
		{name: "valid GET", status: 200},
		{name: "valid POST", method: "POST", path: "/v1/sandbox/customers", body: customer, status: 201},
		{name: "SHA-512 digest", method: "POST", path: "/v1/sandbox/customers", status: 201,
			body: []byte(`{"customerNumber":"15867512346","customerName":"B"}`),
			opts: []reqOpt{hdr("Digest", signing.DigestSHA512([]byte(`{"customerNumber":"15867512346","customerName":"B"}`)))}},
		{name: "plain UTF-8 Signature value", status: 200, opts: []reqOpt{after(func(r *http.Request) {
			v := r.Header.Get("Signature")
			require.True(t, strings.HasPrefix(v, "=?utf-8?B?"), v)
			raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(v, "=?utf-8?B?"), "?="))
			require.NoError(t, err)
			r.Header.Set("Signature", string(raw))
		})}},
		{name: "X-Request-ID missing", opts: []reqOpt{after(func(r *http.Request) { r.Header.Del("X-Request-ID") })},
			status: 400, code: "HTTP_HEADER_REQUIRED", at: "X-Request-ID"},
		{name: "X-Request-ID not a UUID", opts: []reqOpt{hdr("X-Request-ID", "request-1")},
			status: 400, code: "FORMAT_ERROR", at: "X-Request-ID"},
		{name: "certificate missing", opts: []reqOpt{after(func(r *http.Request) { r.Header.Del("TPP-Signature-Certificate") })},
			status: 400, code: "HTTP_HEADER_REQUIRED", at: "TPP-Signature-Certificate"},
		{name: "certificate not base64", opts: []reqOpt{hdr("TPP-Signature-Certificate", "not a certificate!")},
			status: 400, code: "FORMAT_ERROR", at: "TPP-Signature-Certificate"},
		{name: "certificate garbage DER", opts: []reqOpt{hdr("TPP-Signature-Certificate", base64.StdEncoding.EncodeToString([]byte("garbage")))},
			status: 400, code: "FORMAT_ERROR", at: "TPP-Signature-Certificate"},
		{name: "certificate not registered", client: other, status: 401, code: "CERTIFICATE_INVALID", at: "TPP-Signature-Certificate"},
		{name: "Signature missing", opts: []reqOpt{after(func(r *http.Request) { r.Header.Del("Signature") })},
			status: 400, code: "HTTP_HEADER_REQUIRED", at: "Signature"},
		{name: "Signature unparseable", opts: []reqOpt{hdr("Signature", "keyId=abc")},
			status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "Signature bad encoded word", opts: []reqOpt{hdr("Signature", "=?utf-8?B?***?=")},
			status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "keyId of another certificate", opts: []reqOpt{{pre: func(r *http.Request) {
			sg, err := signing.NewSigner(c.creds.Key, signing.KeyID(other.creds.Certificate))
			require.NoError(t, err)
			require.NoError(t, sg.Sign(r))
		}}}, status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "algorithm not rsa-sha256", opts: []reqOpt{after(func(r *http.Request) {
			p, err := signing.ParseSignature(r.Header.Get("Signature"))
			require.NoError(t, err)
			r.Header.Set("Signature", signing.EncodeWord(`keyId="`+p.KeyID+`",algorithm="hmac-sha256",headers="date x-request-id",signature="`+base64.StdEncoding.EncodeToString(p.Signature)+`"`))
		})}, status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "algorithm part missing", opts: []reqOpt{after(func(r *http.Request) {
			p, err := signing.ParseSignature(r.Header.Get("Signature"))
			require.NoError(t, err)
			r.Header.Set("Signature", signing.EncodeWord(`keyId="`+p.KeyID+`",headers="`+strings.Join(p.Headers, " ")+`",signature="`+base64.StdEncoding.EncodeToString(p.Signature)+`"`))
		})}, status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "x-request-id not signed", opts: []reqOpt{headersOnly("date")},
			status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "digest not signed", method: "POST", path: "/v1/sandbox/customers", body: customer,
			opts: []reqOpt{headersOnly("date", "x-request-id")}, status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "psu-id sent but not signed", opts: []reqOpt{hdr("PSU-ID", "0d8e6c4e-1f6a-4a4e-9a43-2d5b7f3f7a10"), headersOnly("date", "x-request-id")},
			status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "tpp-redirect-uri sent but not signed", opts: []reqOpt{hdr("TPP-Redirect-URI", "https://tpp.example/cb"), headersOnly("date", "x-request-id")},
			status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "signature does not verify", opts: []reqOpt{after(func(r *http.Request) { r.Header.Set("X-Request-ID", "0d8e6c4e-1f6a-4a4e-9a43-2d5b7f3f7a10") })},
			status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "Date missing", opts: []reqOpt{without("Date"), headersOnly("x-request-id")},
			status: 400, code: "HTTP_HEADER_REQUIRED", at: "Date"},
		{name: "Date not RFC 7231", opts: []reqOpt{hdr("Date", "2025-03-14T10:00:00Z")},
			status: 400, code: "FORMAT_ERROR", at: "Date"},
		{name: "Date 61 s behind", opts: []reqOpt{hdr("Date", s.now().Add(-61*time.Second).UTC().Format(http.TimeFormat))},
			status: 400, code: "FORMAT_ERROR", at: "Date"},
		{name: "Date 62 s ahead", opts: []reqOpt{hdr("Date", s.now().Add(62*time.Second).UTC().Format(http.TimeFormat))},
			status: 400, code: "FORMAT_ERROR", at: "Date"},
		{name: "Date 50 s behind is fine", opts: []reqOpt{hdr("Date", s.now().Add(-50*time.Second).UTC().Format(http.TimeFormat))},
			status: 200},
		{name: "Digest missing", method: "POST", path: "/v1/sandbox/customers", body: customer,
			opts: []reqOpt{without("Digest")}, status: 400, code: "HTTP_HEADER_REQUIRED", at: "Digest"},
		{name: "Digest wrong", method: "POST", path: "/v1/sandbox/customers", body: customer,
			opts: []reqOpt{hdr("Digest", signing.Digest([]byte("{}")))}, status: 400, code: "FORMAT_ERROR", at: "Digest"},
		{name: "Digest unknown algorithm", method: "POST", path: "/v1/sandbox/customers", body: customer,
			opts: []reqOpt{hdr("Digest", "MD5=abc")}, status: 400, code: "FORMAT_ERROR", at: "Digest"},
		{name: "XML body", method: "POST", path: "/v1/sandbox/customers", body: []byte(`<customer/>`),
			opts: []reqOpt{hdr("Content-Type", "application/xml")}, status: 400, code: "FORMAT_ERROR", at: "Content-Type"},
		{name: "text body", method: "POST", path: "/v1/sandbox/customers", body: []byte(`hello`),
			opts: []reqOpt{hdr("Content-Type", "text/plain")}, status: 400, code: "FORMAT_ERROR", at: "Content-Type"},
		{name: "JSON content type, body not JSON", method: "POST", path: "/v1/sandbox/customers", body: []byte(`{"a":`),
			status: 400, code: "FORMAT_ERROR"},
		{name: "emoji in body", method: "POST", path: "/v1/sandbox/customers",
			body:   []byte(`{"customerNumber":"15867512347","customerName":"Kari 😀"}`),
			status: 400, code: "FORMAT_ERROR", at: "customerName"},
		{name: "escaped emoji in body", method: "POST", path: "/v1/sandbox/customers",
			body:   []byte(`{"customerNumber":"15867512347","customerName":"Kari \ud83d\ude00"}`),
			status: 400, code: "FORMAT_ERROR", at: "customerName"},
		{name: "Norwegian letters are fine", method: "POST", path: "/v1/sandbox/customers",
			body: []byte(`{"customerNumber":"15867512348","customerName":"Kåre Ørn Æsop \\\\ud83d"}`), status: 201},
		{name: "unknown endpoint", path: "/v1/nothing", status: 404, code: "NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := c
			if tt.client != nil {
				cl = tt.client
			}
			method, path := tt.method, tt.path
			if method == "" {
				method = http.MethodGet
			}
			if path == "" {
				path = "/v1/sandbox/customers"
			}
			r := cl.do(method, path, tt.body, tt.opts...)
			require.Equal(t, tt.status, r.status, string(r.body))
			assert.NotEmpty(t, r.header.Get("Date"))
			if tt.code == "" {
				return
			}
			code, at := r.problem(t)
			assert.Equal(t, tt.code, code, string(r.body))
			if tt.at != "" {
				assert.Equal(t, tt.at, at, string(r.body))
			}
		})
	}
}

func TestExpiredCertificate(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "Old TPP")
	clock.Add(3 * 365 * 24 * time.Hour)
	r := c.get("/v1/sandbox/customers")
	require.Equal(t, http.StatusUnauthorized, r.status, string(r.body))
	code, _ := r.problem(t)
	assert.Equal(t, "CERTIFICATE_EXPIRED", code)
}

func TestTrustedCertificates(t *testing.T) {
	t.Parallel()
	issuer := startServer(t)
	c := newTPPClient(t, issuer, "Portable TPP")

	s := startServer(t, WithTrustedCertificates(c.creds.Certificate))
	c.s, c.hc = s, s.Client()
	assert.Equal(t, http.StatusOK, c.get("/v1/sandbox/customers").status)

	s2 := startServer(t)
	c.s, c.hc = s2, s2.Client()
	assert.Equal(t, http.StatusUnauthorized, c.get("/v1/sandbox/customers").status)
	s2.Trust(c.creds.Certificate)
	assert.Equal(t, http.StatusOK, c.get("/v1/sandbox/customers").status)
}

func TestKeyIDHasOrganizationIdentifierAndNonASCII(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	creds, err := s.NewTPP("Key TPP")
	require.NoError(t, err)
	kid := signing.KeyID(creds.Certificate)
	assert.Contains(t, kid, "organizationIdentifier=NTRNO-999999999")
	assert.Contains(t, kid, "Testbank Tillitstjenester ØST")
	assert.Regexp(t, `^SN=[0-9A-F]+,CA=`, kid)
	require.NoError(t, creds.Check(s.now()))
	_, err = s.NewTPP(" ")
	assert.Error(t, err)
}
