package emulator

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/signing"
)

func TestRequestChecks(t *testing.T) {
	t.Parallel()
	// A frozen clock: the Date cases below are exactly 61 and 62 s off
	// when they are sent, however long the cases before them take.
	s := startServer(t, WithClock(newFakeClock().Now))
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
		{name: "raw UTF-8 Signature value", status: 400, code: "FORMAT_ERROR", at: "Signature", opts: []reqOpt{after(func(r *http.Request) {
			v := r.Header.Get("Signature")
			require.True(t, strings.HasPrefix(v, "=?utf-8?B?"), v)
			raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(v, "=?utf-8?B?"), "?="))
			require.NoError(t, err)
			require.Contains(t, string(raw), "ØST")
			r.Header.Set("Signature", string(raw))
		})}},
		{name: "raw ISO-8859-1 Signature value", status: 400, code: "FORMAT_ERROR", at: "Signature", opts: []reqOpt{after(func(r *http.Request) {
			p, err := signing.ParseSignature(r.Header.Get("Signature"))
			require.NoError(t, err)
			var latin1 []byte
			for _, rn := range `keyId="` + p.KeyID + `",algorithm="rsa-sha256",headers="` + strings.Join(p.Headers, " ") + `",signature="` + base64.StdEncoding.EncodeToString(p.Signature) + `"` {
				latin1 = append(latin1, byte(rn))
			}
			r.Header.Set("Signature", string(latin1))
		})}},
		{name: "ISO-8859-1 encoded word", status: 200, opts: []reqOpt{after(func(r *http.Request) {
			p, err := signing.ParseSignature(r.Header.Get("Signature"))
			require.NoError(t, err)
			var latin1 []byte
			for _, rn := range `keyId="` + p.KeyID + `",algorithm="rsa-sha256",headers="` + strings.Join(p.Headers, " ") + `",signature="` + base64.StdEncoding.EncodeToString(p.Signature) + `"` {
				latin1 = append(latin1, byte(rn))
			}
			r.Header.Set("Signature", "=?iso-8859-1?B?"+base64.StdEncoding.EncodeToString(latin1)+"?=")
		})}},
		{name: "keyId in OpenSSL's form", status: 200, opts: []reqOpt{{pre: func(r *http.Request) {
			kid := signing.KeyIDOpenSSL(c.creds.Certificate)
			require.Contains(t, kid, "organizationIdentifier=")
			sg, err := signing.NewSigner(c.creds.Key, kid)
			require.NoError(t, err)
			require.NoError(t, sg.Sign(r))
		}}}},
		{name: "keyId with a lower-case serial", status: 400, code: "FORMAT_ERROR", at: "Signature", opts: []reqOpt{{pre: func(r *http.Request) {
			kid := "SN=" + strings.ToLower(c.creds.Certificate.SerialNumber.Text(16)) + ",CA=" + signing.IssuerDN(c.creds.Certificate)
			require.NotEqual(t, signing.KeyID(c.creds.Certificate), kid)
			sg, err := signing.NewSigner(c.creds.Key, kid)
			require.NoError(t, err)
			require.NoError(t, sg.Sign(r))
		}}}},
		{name: "(request-target) signed", opts: []reqOpt{headersOnly("(request-target)", "date", "x-request-id")},
			status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "content-type signed", method: "POST", path: "/v1/sandbox/customers", body: customer,
			opts: []reqOpt{headersOnly("date", "digest", "x-request-id", "content-type")}, status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "host signed", opts: []reqOpt{headersOnly("date", "x-request-id", "host")},
			status: 400, code: "FORMAT_ERROR", at: "Signature"},
		{name: "all eligible headers signed", opts: []reqOpt{hdr("PSU-ID", "0d8e6c4e-1f6a-4a4e-9a43-2d5b7f3f7a10"), hdr("PSU-Corporate-ID", "corp-1"),
			hdr("TPP-Redirect-URI", "https://tpp.example/cb"), headersOnly("date", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri")},
			status: 200},
		{name: "X-Request-ID missing", opts: []reqOpt{after(func(r *http.Request) { r.Header.Del("X-Request-ID") })},
			status: 400, code: "HTTP_HEADER_REQUIRED", at: "X-Request-ID"},
		{name: "X-Request-ID not a UUID", opts: []reqOpt{hdr("X-Request-ID", "order 4711/1")}, status: 200},
		{name: "X-Request-ID of 200 characters", opts: []reqOpt{hdr("X-Request-ID", strings.Repeat("r", 200))}, status: 200},
		{name: "X-Request-ID of 201 characters", opts: []reqOpt{hdr("X-Request-ID", strings.Repeat("s", 201))},
			status: 400, code: "FORMAT_ERROR", at: "X-Request-ID"},
		{name: "X-Request-ID not ASCII", opts: []reqOpt{hdr("X-Request-ID", "ordre-ø")},
			status: 400, code: "FORMAT_ERROR", at: "X-Request-ID"},
		{name: "X-Request-ID with a tab", opts: []reqOpt{hdr("X-Request-ID", "a\tb")},
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
		{name: "pictograph in the BMP in body", method: "POST", path: "/v1/sandbox/customers",
			body:   []byte(`{"customerNumber":"15867512347","customerName":"Kari ✅"}`),
			status: 400, code: "FORMAT_ERROR", at: "customerName"},
		{name: "escaped pictograph in body", method: "POST", path: "/v1/sandbox/customers",
			body:   []byte(`{"customerNumber":"15867512347","customerName":"Kari \u2615"}`),
			status: 400, code: "FORMAT_ERROR", at: "customerName"},
		{name: "pictograph in a key", method: "POST", path: "/v1/sandbox/customers",
			body:   []byte(`{"customerNumber":"15867512347","customerName":"Kari","❤":1}`),
			status: 400, code: "FORMAT_ERROR", at: "❤"},
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
	// Strict RFC 2253: organizationIdentifier as its OID and DER hex.
	assert.Contains(t, kid, "2.5.4.97=#"+hex.EncodeToString(append([]byte{0x13, 15}, "NTRNO-999999999"...)))
	assert.NotContains(t, kid, "organizationIdentifier")
	assert.Contains(t, kid, "Testbank Tillitstjenester ØST")
	assert.Regexp(t, `^SN=[0-9A-F]+,CA=`, kid)
	assert.Contains(t, signing.KeyIDOpenSSL(creds.Certificate), "organizationIdentifier=NTRNO-999999999")
	require.NoError(t, creds.Check(s.now()))
	_, err = s.NewTPP(" ")
	assert.Error(t, err)
}

// TestRequestIDUniquePerCall: an X-Request-ID is free-form but may name
// one call only; the same call again (a retry) passes.
func TestRequestIDUniquePerCall(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Unique TPP")
	other := newTPPClient(t, s, "Other TPP")
	customer := []byte(`{"customerNumber":"15867519999","customerType":"PRIVATE","customerName":"Kari Unik"}`)
	id := func(v string) reqOpt { return hdr("X-Request-ID", v) }
	status := func(r *response, want int, at string) {
		t.Helper()
		require.Equal(t, want, r.status, string(r.body))
		if at != "" {
			code, path := r.problem(t)
			assert.Equal(t, "FORMAT_ERROR", code)
			assert.Equal(t, at, path)
		}
	}

	status(c.do(http.MethodGet, "/v1/sandbox/customers", nil, id("order-1")), 200, "")
	status(c.do(http.MethodGet, "/v1/sandbox/customers", nil, id("order-1")), 200, "") // a retry
	status(c.do(http.MethodGet, "/v1/sandbox/customers?withAccounts=true", nil, id("order-1")), 400, "X-Request-ID")
	status(c.do(http.MethodPost, "/v1/sandbox/customers", customer, id("order-1")), 400, "X-Request-ID")
	status(other.do(http.MethodGet, "/v1/sandbox/customers?withAccounts=true", nil, id("order-1")), 200, "") // another TPP

	// A POST retried with the same body passes the check (the endpoint
	// itself then answers); another body under its id does not.
	status(c.do(http.MethodPost, "/v1/sandbox/customers", customer, id("order-2")), 201, "")
	r := c.do(http.MethodPost, "/v1/sandbox/customers", customer, id("order-2"))
	require.Equal(t, http.StatusConflict, r.status, "the endpoint answers the retry: the customer exists")
	_, at := r.problem(t)
	assert.Equal(t, "customerNumber", at)
	status(c.do(http.MethodPost, "/v1/sandbox/customers", []byte(`{"customerNumber":"15867519998","customerName":"B"}`), id("order-2")), 400, "X-Request-ID")

	// A request refused before it is verified does not use up its id.
	status(c.do(http.MethodGet, "/v1/sandbox/customers", nil, id("order-3"), hdr("Date", "yesterday")), 400, "Date")
	status(c.do(http.MethodGet, "/v1/sandbox/customers?withAgreements=true", nil, id("order-3")), 200, "")
}

// TestRequestIDLogBounded: the log forgets the oldest id once full.
func TestRequestIDLogBounded(t *testing.T) {
	t.Parallel()
	var l requestIDLog
	get := func(path string) *http.Request {
		r, err := http.NewRequest(http.MethodGet, "https://bank.example"+path, nil)
		require.NoError(t, err)
		return r
	}
	a, b := get("/a"), get("/b")
	for i := range maxRememberedRequestIDs + 1 {
		require.True(t, l.record("tpp", strconv.Itoa(i), a, nil))
	}
	assert.Len(t, l.calls, maxRememberedRequestIDs)
	assert.Len(t, l.order, maxRememberedRequestIDs)
	assert.True(t, l.record("tpp", "0", b, nil), "the oldest id is forgotten")
	assert.False(t, l.record("tpp", strconv.Itoa(maxRememberedRequestIDs), b, nil), "the newest is remembered")
	assert.True(t, l.record("tpp", strconv.Itoa(maxRememberedRequestIDs), a, nil))
	assert.False(t, l.record("tpp", "2", b, []byte("{}")))
	assert.Len(t, l.calls, maxRememberedRequestIDs)
}

// TestKeyIDWithQuoteAndBackslash: a TPP certificate whose issuer has a
// double quote and a backslash signs, and the emulator reads the keyId
// back through signing.ParseSignature (RFC 2253's escapes as they are,
// \" written \22) and matches it with the certificate in either
// rendering.
func TestKeyIDWithQuoteAndBackslash(t *testing.T) {
	t.Parallel()
	key, err := testKey()
	require.NoError(t, err)
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(77),
		Subject:               pkix.Name{CommonName: `Quote "CA" \ Backslash`, Organization: []string{`Smith, Jones + Co "Ltd"`}, Country: []string{"NO"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &key.PublicKey, key)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(0xBEEF),
		Subject:      pkix.Name{CommonName: "Quoted TPP"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(leafDER)
	require.NoError(t, err)

	s := startServer(t, WithTrustedCertificates(leaf))
	for _, kid := range []string{signing.KeyID(leaf), signing.KeyIDOpenSSL(leaf)} {
		require.Contains(t, kid, `\"Ltd\"`)
		require.Contains(t, kid, `\\`)
		signer, err := signing.NewSigner(key, kid)
		require.NoError(t, err)
		c := &tppClient{t: t, s: s, creds: &signing.Credentials{Certificate: leaf, Key: key}, signer: signer, hc: s.Client()}
		var sent string
		r := c.do(http.MethodGet, "/v1/sandbox/customers", nil, after(func(r *http.Request) { sent = r.Header.Get("Signature") }))
		assert.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.Contains(t, sent, `keyId="`+signing.QuoteParam(kid)+`"`)
		p, err := signing.ParseSignature(sent)
		require.NoError(t, err)
		assert.Equal(t, signing.QuoteParam(kid), p.KeyID, "the characters between the quotes")
		assert.Contains(t, p.KeyID, `Smith\, Jones`, "RFC 2253's escapes as they are")
	}
}
