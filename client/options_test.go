package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

func TestNew(t *testing.T) {
	t.Parallel()
	creds := testCreds(t, 0)
	ok := []string{
		"https://psd2.bank.example/api",
		"https://psd2.bank.example",
		"http://127.0.0.1:8080/api",
		"http://localhost:1234",
		"http://[::1]:1234",
	}
	for _, u := range ok {
		c, err := New(u, creds)
		require.NoError(t, err, u)
		assert.Equal(t, u, c.BaseURL())
		assert.Same(t, creds, c.Credentials())
	}
	bad := []string{
		"http://psd2.bank.example/api",
		"http://10.0.0.1/api",
		"ftp://psd2.bank.example",
		"psd2.bank.example/api",
		"https:///api",
		"https://:443/api", // a port, no host name: it would dial this machine
		"https://psd2.bank.example/api?x=1",
		"https://psd2.bank.example/api#f",
		"https://user:pw@psd2.bank.example/api",
		"://",
	}
	for _, u := range bad {
		_, err := New(u, creds)
		assert.Error(t, err, u)
	}
}

func TestNewRefusesBadCredentials(t *testing.T) {
	t.Parallel()
	good := testCreds(t, 0)
	for name, creds := range map[string]*signing.Credentials{
		"nil":          nil,
		"no key":       {Certificate: good.Certificate},
		"no cert":      {Key: good.Key},
		"key of other": {Certificate: good.Certificate, Key: testKey(1)},
	} {
		_, err := New("https://psd2.bank.example", creds)
		assert.Error(t, err, name)
	}
	_, err := New("https://psd2.bank.example", &signing.Credentials{Certificate: good.Certificate, Key: testKey(1)})
	assert.ErrorIs(t, err, signing.ErrKeyMismatch)
}

func TestOptionValidation(t *testing.T) {
	t.Parallel()
	bankCert := newCert(t, 2, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	tests := map[string]Option{
		"WithHTTPClient(nil)":         WithHTTPClient(nil),
		"WithQWAC empty":              WithQWAC(tls.Certificate{}),
		"WithRootCAs(nil)":            WithRootCAs(nil),
		"WithLogger(nil)":             WithLogger(nil),
		"negative retries":            WithRetryPolicy(RetryPolicy{MaxRetries: -1}),
		"max below min":               WithRetryPolicy(RetryPolicy{MinBackoff: time.Second, MaxBackoff: time.Millisecond}),
		"negative retry-after":        WithRetryPolicy(RetryPolicy{MaxRetryAfter: -1}),
		"WithClock(nil)":              WithClock(nil),
		"empty accept fix":            WithAcceptFix(""),
		"accept fix with comma":       WithAcceptFix("a,b"),
		"empty keyId":                 WithKeyID(""),
		"keyId not UTF-8":             WithKeyID("SN=1,CA=\xff"),
		"user agent with newline":     WithUserAgent("a\r\nX-Evil: 1"),
		"WithCredentialsSource(nil)":  WithCredentialsSource(nil),
		"negative expiry warning":     WithExpiryWarning(-time.Hour),
		"bad verify mode":             WithResponseVerification(VerifyMode(7)),
		"no bank certificates":        WithBankCertificates(),
		"nil bank certificate":        WithBankCertificates(bankCert, nil),
		"non-RSA bank certificate":    WithBankCertificates(&x509.Certificate{PublicKey: "x"}),
		"required without bank certs": WithResponseVerification(VerifyRequired),
	}
	for name, o := range tests {
		_, err := New("https://psd2.bank.example", testCreds(t, 0), o)
		assert.Error(t, err, name)
	}
	c, err := New("https://psd2.bank.example", testCreds(t, 0), nil,
		WithResponseVerification(VerifyRequired), WithBankCertificates(bankCert),
		WithAcceptFix(AcceptLongerNames), WithKeyID("SN=1,CA=x"), WithUserAgent("tpp/1.0"),
		WithExpiryWarning(0), WithRetryPolicy(RetryPolicy{}), WithClock(time.Now), WithRootCAs(x509.NewCertPool()))
	require.NoError(t, err)
	assert.Equal(t, VerifyRequired, c.cfg.verifyMode)
	assert.Equal(t, "VerifyRequired", VerifyRequired.String())
	assert.Equal(t, "VerifyMode(7)", VerifyMode(7).String())
}

func TestCredentialsSourceWithoutCredentials(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	creds := testCreds(t, 1)
	c, err := New(b.URL, nil, WithCredentialsSource(func(context.Context) (*signing.Credentials, error) { return creds, nil }), testDefaults)
	require.NoError(t, err)
	_, err = c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	require.NoError(t, err)
	assert.Same(t, creds, c.Credentials())
	require.NoError(t, b.requests()[0].VerifyErr)
}

func TestTransportSecurity(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "https://psd2.bank.example")
	tr, ok := c.hc.Transport.(*http.Transport)
	require.True(t, ok)
	assert.Equal(t, uint16(tls.VersionTLS12), tr.TLSClientConfig.MinVersion)
	assert.Nil(t, tr.Proxy, "no proxy from the environment")
	assert.NotSame(t, http.DefaultTransport, c.hc.Transport)
	assert.NotNil(t, c.hc.CheckRedirect)
}

func TestRequestOptionHeaders(t *testing.T) {
	t.Parallel()
	const psuID = "5b8e8a0e-4a4f-4a8e-9c39-6a4b5f6a7b8c"
	const device = "1b8e8a0e-4a4f-4a8e-9c39-6a4b5f6a7b8d"
	h, err := headersOf(
		WithPSU(PSU{ID: psuID, CorporateID: "corp-1", IPAddress: "192.0.2.10", IPPort: "443", UserAgent: "Mozilla/5.0", HTTPMethod: "POST", DeviceID: device, GeoLocation: "GEO:59.9;10.7"}),
		Combine(WithTPPSessionID("sess-1"), nil, WithRedirectURI("https://tpp.example/cb")),
		WithRedirectPreferred(false),
		WithPSUIdentity("01017012345"),
		WithAuthMethodPreferred("HA2"),
		WithPSUContext("CORPORATE"),
		WithBrandLoggingInformation("Brand"),
		WithHeader("X-Custom", "1"),
		nil,
	)
	require.NoError(t, err)
	assert.Equal(t, http.Header{
		"Psu-Id":                        {psuID},
		"Psu-Corporate-Id":              {"corp-1"},
		"Psu-Ip-Address":                {"192.0.2.10"},
		"Psu-Ip-Port":                   {"443"},
		"Psu-User-Agent":                {"Mozilla/5.0"},
		"Psu-Http-Method":               {"POST"},
		"Psu-Device-Id":                 {device},
		"Psu-Geo-Location":              {"GEO:59.9;10.7"},
		"Tpp-Session-Id":                {"sess-1"},
		"Tpp-Redirect-Uri":              {"https://tpp.example/cb"},
		"Tpp-Redirect-Preferred":        {"false"},
		"X-Psu-Identity":                {"01017012345"},
		"X-Psu-Authmethod-Preferred":    {"HA2"},
		"Psu-Context":                   {"CORPORATE"},
		"Tpp-Brand-Logging-Information": {"Brand"},
		"X-Custom":                      {"1"},
	}, h)

	bad := map[string]RequestOption{
		"PSU-ID not a UUID":       WithPSU(PSU{ID: "123"}),
		"device not a UUID":       WithPSU(PSU{DeviceID: "x"}),
		"bad PSU-HTTP-Method":     WithPSU(PSU{HTTPMethod: "TRACE"}),
		"line break":              WithPSU(PSU{UserAgent: "a\nb"}),
		"empty session":           WithTPPSessionID(""),
		"relative redirect":       WithRedirectURI("/cb"),
		"http redirect":           WithRedirectURI("http://tpp.example/cb"),
		"request id not ASCII":    WithRequestID("ordre-ø"),
		"bad context":             WithPSUContext("HOME"),
		"reserved header":         WithHeader("Signature", "x"),
		"reserved header (lower)": WithHeader("digest", "x"),
		"empty accept fix":        WithCallAcceptFix(""),
		"combined error":          Combine(WithTPPSessionID("ok"), WithPSUContext("x")),
	}
	for name, o := range bad {
		_, err := headersOf(o)
		assert.Error(t, err, name)
	}
}

func TestRequestHeadersOnTheWire(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	c := newTestClient(t, b.URL, WithAcceptFix(AcceptLongerNames), WithUserAgent("tpp/1.0"))
	const id = "3f0a8c1e-7d0b-4c41-9a4e-2b7f0c3d4e5f"
	_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/x", Body: map[string]string{"a": "ø"}}, nil,
		WithRequestID(id), WithCallAcceptFix(AcceptLongerNames, AcceptGroupBatchTransactions), WithTPPSessionID("s"))
	require.NoError(t, err)
	r := b.requests()[0]
	require.NoError(t, r.VerifyErr)
	assert.Equal(t, `{"a":"ø"}`, string(r.Body))
	assert.Equal(t, id, r.Header.Get("X-Request-ID"))
	assert.Equal(t, "amount-as-string,longer-names,groupBatchTransactions", r.Header.Get("X-Accept-Fix"))
	assert.Equal(t, "tpp/1.0", r.Header.Get("User-Agent"))
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Equal(t, signing.Digest(r.Body), r.Header.Get("Digest"))
	assert.Equal(t, "s", r.Header.Get("TPP-Session-ID"))
	p, err := signing.ParseSignature(r.Header.Get("Signature"))
	require.NoError(t, err)
	assert.Equal(t, []string{"date", "digest", "x-request-id", "tpp-redirect-uri"}, p.Headers)
	assert.Equal(t, signing.KeyID(c.Credentials().Certificate), p.KeyID)

	// A GET has no body, no Digest and no Content-Type.
	_, err = c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/x"}, nil)
	require.NoError(t, err)
	r = b.requests()[1]
	assert.Empty(t, r.Body)
	assert.Empty(t, r.Header.Get("Digest"))
	assert.Empty(t, r.Header.Get("Content-Type"))
	assert.Equal(t, "amount-as-string,longer-names", r.Header.Get("X-Accept-Fix"))
}

func TestDecodeFailure(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte(`{"n":"x"}`)) })
	c := newTestClient(t, b.URL)
	var out struct{ N int }
	resp, err := c.Do(t.Context(), Operation{Name: "op", Method: "GET", Path: "/v1/x"}, &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "op: decoding answer")
	require.NotNil(t, resp)
	assert.Equal(t, 200, resp.StatusCode)

	_, err = c.Do(t.Context(), Operation{Name: "op", Method: "POST", Path: "/v1/x", Body: make(chan int)}, nil)
	assert.ErrorContains(t, err, "op: not sent: invalid body: encoding body")
	assert.ErrorIs(t, err, ErrNotSent)
	assert.ErrorIs(t, err, ErrValidation)
	assert.EqualValues(t, 1, b.count.Load())
}

// The options' header values share one backing array (callConfig.setKey),
// each slice capped at its own value: adding a value to one header never
// writes over another's.
func TestOptionHeadersIndependent(t *testing.T) {
	h, err := headersOf(WithTPPSessionID("s-1"), WithHeader("X-Custom", "c-1"), WithBrandLoggingInformation("Brand"))
	require.NoError(t, err)
	h.Add("Tpp-Session-Id", "s-2")
	h["X-Custom"] = append(h["X-Custom"], "c-2")
	assert.Equal(t, []string{"s-1", "s-2"}, h.Values("TPP-Session-ID"))
	assert.Equal(t, []string{"c-1", "c-2"}, h.Values("X-Custom"))
	assert.Equal(t, []string{"Brand"}, h.Values("TPP-Brand-Logging-Information"))
}

// An option checked once as it is made (preset) still fails every call
// it is given to, each with an error of its own.
func TestPresetOptionFailsEachCall(t *testing.T) {
	for _, opt := range []RequestOption{WithRedirectURI("http://tpp.example/cb"), WithTPPSessionID(""), WithPSUContext("")} {
		_, err1 := headersOf(opt)
		_, err2 := headersOf(opt)
		var v1, v2 *ValidationError
		require.ErrorAs(t, err1, &v1)
		require.ErrorAs(t, err2, &v2)
		assert.NotSame(t, v1, v2)
		assert.Equal(t, *v1, *v2)
		assert.Contains(t, v1.Field, "header ")
	}
	h, err := headersOf(WithRedirectURI("https://tpp.example/cb"), WithRedirectPreferred(false))
	require.NoError(t, err)
	assert.Equal(t, "https://tpp.example/cb", h.Get("TPP-Redirect-URI"))
	assert.Equal(t, "false", h.Get("TPP-Redirect-Preferred"))
}
