package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// newBareClient returns a client for baseURL without default options.
func newBareClient(t *testing.T, baseURL string, opts ...Option) *Client {
	t.Helper()
	c, err := New(baseURL, testCreds(t, 0), append([]Option{WithRetryPolicy(fastRetry)}, opts...)...)
	require.NoError(t, err)
	return c
}

func TestRedirectURIRequiredButOnSandbox(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	c := newBareClient(t, b.URL+"/api")
	ctx := context.Background()

	for _, op := range []Operation{
		{Name: "accounts.List", Method: http.MethodGet, Path: "/v1/accounts"},
		{Name: "payments.Create", Method: http.MethodPost, Path: "/v1/payments/sepa-credit-transfers", Body: map[string]string{"a": "b"}},
		{Name: "tpp.Contact", Method: http.MethodGet, Path: b.URL + "/api/v1/tpps/x/contact-information"},
	} {
		_, err := c.Do(ctx, op, nil)
		require.Error(t, err, op.Name)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, op.Name)
		assert.Equal(t, "TPP-Redirect-URI", ve.Field)
		assert.Contains(t, ve.Reason, "client.WithRedirectURI")
		assert.Contains(t, ve.Reason, "client.WithDefaults")
		assert.ErrorIs(t, err, ErrNotSent, op.Name)
		assert.ErrorIs(t, err, ErrValidation, op.Name)
	}
	assert.Zero(t, b.count.Load(), "nothing leaves without TPP-Redirect-URI")

	_, err := c.Do(ctx, Operation{Method: http.MethodGet, Path: "/v1/sandbox/customers"}, nil)
	require.NoError(t, err, "the sandbox's mock-data calls need no redirect URI")
	_, err = c.Do(ctx, Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil, WithRedirectURI("https://tpp.example/cb"))
	require.NoError(t, err)
	assert.EqualValues(t, 2, b.count.Load())
}

func TestRequireNamesEveryMissingHeader(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	c := newTestClient(t, b.URL)
	op := Operation{Name: "basket.Create", Method: http.MethodPost, Path: "/v1/signing-baskets", Body: map[string]any{"paymentIds": []string{"p"}},
		Require: []string{"PSU-ID", "PSU-IP-Address", "TPP-Session-ID", "PSU-Context", "X-Custom"}}
	_, err := c.Do(context.Background(), op, nil, WithPSU(PSU{ID: "3f2f2ff5-2f5c-4f7e-9d3f-8a6a1b2c3d4e"}))
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{"PSU-IP-Address", "client.WithPSU (IPAddress)", "TPP-Session-ID", "client.WithTPPSessionID", "PSU-Context", "client.WithPSUContext", `client.WithHeader("X-Custom"`} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "PSU-ID;", "PSU-ID was given")
	assert.Zero(t, b.count.Load())

	// WithoutValidation skips the operation's validation, not the headers
	// the interface requires.
	_, err = c.Do(context.Background(), op, nil, WithoutValidation())
	assert.ErrorIs(t, err, ErrValidation)
	assert.Zero(t, b.count.Load())
}

func TestValidateRunsOnTheResolvedCall(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	c := newTestClient(t, b.URL)
	var seen *Call
	refuse := errors.New("refused by the operation")
	op := Operation{Name: "x.Create", Method: http.MethodPost, Path: "/v1/x", Body: map[string]int{"n": 1},
		Validate: func(call *Call) error { seen = call; return &ValidationError{Field: "n", Reason: refuse.Error()} }}
	_, err := c.Do(context.Background(), op, nil, WithRequestID("order-17"))
	assert.ErrorIs(t, err, ErrValidation)
	assert.ErrorIs(t, err, ErrNotSent)
	require.NotNil(t, seen)
	assert.Equal(t, "order-17", seen.RequestID)
	assert.JSONEq(t, `{"n":1}`, string(seen.Body))
	assert.Equal(t, testRedirectURI, seen.Header.Get("TPP-Redirect-URI"), "defaults are part of the call")
	assert.Zero(t, b.count.Load())

	_, err = c.Do(context.Background(), op, nil, WithoutValidation())
	require.NoError(t, err)
	assert.EqualValues(t, 1, b.count.Load())
}

func TestWithDefaults(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	c := newBareClient(t, b.URL, WithDefaults(WithRedirectURI("https://tpp.example/a"), WithBrandLoggingInformation("Brand")),
		WithDefaults(WithPSUContext(Corporate)))
	_, err := c.Do(context.Background(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil)
	require.NoError(t, err)
	_, err = c.Do(context.Background(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil, WithRedirectURI("https://tpp.example/b"))
	require.NoError(t, err)
	reqs := b.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "https://tpp.example/a", reqs[0].Header.Get("TPP-Redirect-URI"))
	assert.Equal(t, "Brand", reqs[0].Header.Get("TPP-Brand-Logging-Information"))
	assert.Equal(t, "CORPORATE", reqs[0].Header.Get("PSU-Context"))
	assert.Equal(t, "https://tpp.example/b", reqs[1].Header.Get("TPP-Redirect-URI"), "a call's option replaces the default")
	assert.NoError(t, reqs[1].VerifyErr)

	for name, opt := range map[string]RequestOption{
		"request id":    WithRequestID("same-every-time"),
		"invalid":       WithRedirectURI("ftp://x"),
		"no host name":  WithRedirectURI("https://:443/cb"),
		"bad context":   WithPSUContext("SOLE"),
		"empty session": WithTPPSessionID(""),
	} {
		_, err := New(b.URL, testCreds(t, 0), WithDefaults(opt))
		assert.Error(t, err, name)
	}
}

func TestHookIsToldWhetherTheCallWasSent(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/v1/created":
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"paymentId":"p-1"}`))
		case "/v1/refused":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`))
		default:
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())

	type seen struct {
		call   *Call
		result Result
		n      int
	}
	run := func(base, path string) (seen, error) {
		var s seen
		var mu sync.Mutex
		c := newTestClient(t, base, WithRetryPolicy(RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
		op := Operation{Name: "payments.Create", Method: http.MethodPost, Path: path, Body: map[string]string{"x": "y"}, ResultID: "paymentId",
			Hook: func(ctx context.Context, call *Call) (func(Result), error) {
				s.call = call
				return func(r Result) { mu.Lock(); s.result = r; s.n++; mu.Unlock() }, nil
			}}
		_, err := c.Do(context.Background(), op, nil)
		return s, err
	}

	s, err := run(b.URL, "/v1/created")
	require.NoError(t, err)
	assert.Equal(t, 1, s.n)
	assert.Equal(t, Result{Sent: true, Attempts: 1, StatusCode: 201, ResultID: "p-1"}, s.result)
	assert.False(t, s.call.Repeatable)
	assert.NotEmpty(t, s.call.RequestID)

	s, err = run(b.URL, "/v1/refused")
	require.Error(t, err)
	assert.True(t, s.result.Sent)
	assert.Equal(t, 400, s.result.StatusCode)
	assert.Equal(t, err, s.result.Err)

	s, err = run(b.URL, "/v1/broken")
	assert.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.True(t, s.result.Sent, "a 500 may have created the payment")
	assert.Equal(t, 1, s.result.Attempts, "a payment is never sent again")

	s, err = run(closed, "/v1/created")
	assert.ErrorIs(t, err, ErrNotSent)
	assert.Equal(t, 1, s.n)
	assert.False(t, s.result.Sent)
	assert.Zero(t, s.result.Attempts)
	assert.Zero(t, s.result.StatusCode)

	// A hook that refuses stops the call: nothing is sent, after is not called.
	before := b.count.Load()
	c := newTestClient(t, b.URL)
	called := false
	_, err = c.Do(context.Background(), Operation{Method: http.MethodGet, Path: "/v1/created",
		Hook: func(context.Context, *Call) (func(Result), error) {
			return func(Result) { called = true }, errors.New("budget spent")
		}}, nil)
	assert.ErrorIs(t, err, ErrNotSent)
	assert.True(t, strings.Contains(err.Error(), "budget spent"))
	assert.False(t, called)
	assert.Equal(t, before, b.count.Load())
}

func TestCredentialsOutsideValidityRefused(t *testing.T) {
	t.Parallel()
	now := time.Now()
	expired := &signing.Credentials{Certificate: newCert(t, 1, now.Add(-48*time.Hour), now.Add(-time.Hour)), Key: testKey(1)}
	future := &signing.Credentials{Certificate: newCert(t, 2, now.Add(time.Hour), now.Add(48*time.Hour)), Key: testKey(2)}

	_, err := New("https://bank.example", expired)
	assert.ErrorIs(t, err, signing.ErrCertExpired)
	_, err = New("https://bank.example", future)
	assert.ErrorIs(t, err, signing.ErrCertNotYetValid)

	good := testCreds(t, 0)
	c, err := New("https://bank.example", good)
	require.NoError(t, err)
	assert.ErrorIs(t, c.SetCredentials(expired), signing.ErrCertExpired)
	assert.ErrorIs(t, c.SetCredentials(future), signing.ErrCertNotYetValid)
	assert.Same(t, good, c.Credentials(), "a refused certificate replaces nothing")

	// On the client's own clock, the same certificate is fine.
	_, err = New("https://bank.example", expired, WithClock(func() time.Time { return now.Add(-24 * time.Hour) }))
	assert.NoError(t, err)
}

func TestDigestCheckedWithoutBankCertificates(t *testing.T) {
	t.Parallel()
	body := `{"ok":true}`
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/v1/good" {
			w.Header().Set("Digest", signing.Digest([]byte(body)))
		} else {
			w.Header().Set("Digest", signing.Digest([]byte(`{"ok":false}`)))
		}
		if r.URL.Query().Get("signed") != "" {
			w.Header().Set("Signature", `keyId="SN=1,CA=CN=x",algorithm="rsa-sha256",headers="digest",signature="AAAA"`)
		}
		_, _ = w.Write([]byte(body))
	})
	c := newTestClient(t, b.URL)
	for _, q := range []string{"", "?signed=1"} {
		_, err := c.Do(context.Background(), Operation{Method: http.MethodGet, Path: "/v1/good" + q}, nil)
		assert.NoError(t, err, q)
		_, err = c.Do(context.Background(), Operation{Method: http.MethodGet, Path: "/v1/bad" + q}, nil)
		assert.ErrorIs(t, err, ErrResponseSignature, q)
		assert.ErrorIs(t, err, signing.ErrDigestMismatch, q)
	}
	off := newTestClient(t, b.URL, WithResponseVerification(VerifyOff))
	_, err := off.Do(context.Background(), Operation{Method: http.MethodGet, Path: "/v1/bad"}, nil)
	assert.NoError(t, err, "VerifyOff checks nothing")
}

// The resolved Call carries its path relative to the base URL and the
// client's scope, so hooks need not parse URLs; its printed forms show
// the path as a template.
func TestCallPathAndScope(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte(`{}`)) })
	c := newTestClient(t, b.URL+"/api")
	var got *Call
	hook := func(_ context.Context, call *Call) (func(Result), error) { got = call; return nil, nil }
	_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts/acc-secret-1/balances", Query: url.Values{"a": {"b"}}, Hook: hook}, nil)
	require.NoError(t, err)
	require.NotNil(t, got)
	assert.Equal(t, "/v1/accounts/acc-secret-1/balances", got.Path)
	assert.Equal(t, c.Scope(), got.Scope)
	assert.NotContains(t, got.String(), "acc-secret-1")
	assert.Contains(t, got.String(), "Scope:"+c.Scope())
}

// Result.Attempts counts every request of the call that may have reached
// the bank, the client's retries included: what the bank may count.
func TestResultCountsEveryAttempt(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{}`))
	})
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	var got Result
	op := Operation{Name: "accounts.Balances", Method: http.MethodGet, Path: "/v1/x",
		Hook: func(context.Context, *Call) (func(Result), error) {
			return func(r Result) { got = r }, nil
		}}
	_, err := c.Do(context.Background(), op, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(3), b.count.Load())
	assert.Equal(t, 3, got.Attempts, "two 503s and the answer")
}
