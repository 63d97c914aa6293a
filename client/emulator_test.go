package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

// These tests run the client against the emulator over real TLS sockets
// (issue 8): the emulator signs its answers (emulator.WithResponseSigning)
// and a man in the middle, a RoundTripper wrapped around the emulator's
// transport, tampers with them on the way back.

// tamperer rewrites answers after the emulator signed them, and records
// the TPP-Signature-Certificate of every request that reached the server.
type tamperer struct {
	base   http.RoundTripper
	change func(h http.Header, body []byte) []byte // nil: pass through

	mu    sync.Mutex
	certs map[string]int // base64 certificate -> requests answered 2xx
	sent  atomic.Int64
}

func (m *tamperer) RoundTrip(req *http.Request) (*http.Response, error) {
	m.sent.Add(1)
	resp, err := m.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 300 {
		m.mu.Lock()
		if m.certs == nil {
			m.certs = map[string]int{}
		}
		m.certs[req.Header.Get("TPP-Signature-Certificate")]++
		m.mu.Unlock()
	}
	if m.change != nil {
		body = m.change(resp.Header, body)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return resp, nil
}

func (m *tamperer) answered(c *signing.Credentials) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.certs[base64.StdEncoding.EncodeToString(c.Certificate.Raw)]
}

func emulatorClient(t *testing.T, s *emulator.Server, creds *signing.Credentials, m *tamperer, opts ...Option) *Client {
	t.Helper()
	m.base = s.Client().Transport
	hc := &http.Client{Transport: m, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	c, err := New(s.URL, creds, append([]Option{testDefaults, WithHTTPClient(hc), WithRetryPolicy(RetryPolicy{})}, opts...)...)
	require.NoError(t, err)
	return c
}

var listCustomers = Operation{Name: "sandbox.ListCustomers", Method: http.MethodGet, Path: "/v1/sandbox/customers"}

func TestEmulatorResponseSignatures(t *testing.T) {
	t.Parallel()
	s := emulator.NewServer(emulator.WithResponseSigning())
	t.Cleanup(s.Close)
	creds, err := s.NewTPP("Response Verifier AS")
	require.NoError(t, err)
	bankCert := s.ResponseCertificate()
	require.NotNil(t, bankCert)

	other := testKey(3)
	resignWithOtherKey := func(h http.Header, body []byte) []byte {
		p, err := signing.ParseSignature(h.Get("Signature"))
		require.NoError(t, err)
		signer, err := signing.NewSigner(other, p.KeyID, signing.WithHeaders(p.Headers...))
		require.NoError(t, err)
		require.NoError(t, signer.Sign(&http.Request{Header: h}))
		return body
	}
	flipSignature := func(h http.Header, body []byte) []byte {
		p, err := signing.ParseSignature(h.Get("Signature"))
		require.NoError(t, err)
		p.Signature[len(p.Signature)/2] ^= 0x01
		h.Set("Signature", `keyId="`+p.KeyID+`",algorithm="rsa-sha256",headers="date digest x-request-id",signature="`+base64.StdEncoding.EncodeToString(p.Signature)+`"`)
		return body
	}
	tests := []struct {
		name   string
		mode   VerifyMode
		change func(h http.Header, body []byte) []byte
		cause  error // nil: verified and decoded
	}{
		{name: "signed answer verifies", mode: VerifyIfPresent},
		{name: "signed answer verifies, required", mode: VerifyRequired},
		{name: "tampered body", mode: VerifyIfPresent, change: func(h http.Header, b []byte) []byte { return []byte(`[{"customerNumber":"forged"}]`) }, cause: signing.ErrDigestMismatch},
		{name: "tampered body with a fresh Digest", mode: VerifyIfPresent, change: func(h http.Header, _ []byte) []byte {
			b := []byte(`[{"customerNumber":"forged"}]`)
			h.Set("Digest", signing.Digest(b))
			return b
		}, cause: signing.ErrBadSignature},
		{name: "tampered signature", mode: VerifyIfPresent, change: flipSignature, cause: signing.ErrBadSignature},
		{name: "signed by another key", mode: VerifyIfPresent, change: resignWithOtherKey, cause: signing.ErrBadSignature},
		{name: "unsigned, required", mode: VerifyRequired, change: func(h http.Header, b []byte) []byte { h.Del("Signature"); return b }, cause: signing.ErrNoSignature},
		{name: "unsigned, if present", mode: VerifyIfPresent, change: func(h http.Header, b []byte) []byte { h.Del("Signature"); return b }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := &tamperer{change: tt.change}
			c := emulatorClient(t, s, creds, m, WithBankCertificates(bankCert), WithResponseVerification(tt.mode))
			var out []map[string]any
			_, err := c.Do(t.Context(), listCustomers, &out)
			assert.EqualValues(t, 1, m.sent.Load(), "sent once")
			if tt.cause == nil {
				require.NoError(t, err)
				assert.NotEmpty(t, out, "the sandbox customers")
				return
			}
			require.ErrorIs(t, err, ErrResponseSignature)
			require.ErrorIs(t, err, tt.cause)
			assert.Nil(t, out, "the body is not decoded")
		})
	}
}

// TestEmulatorCredentialRotation sends from 50 goroutines while the
// credentials change under them; the emulator knows both certificates
// (distinct keys) and verifies every request against the certificate it
// carries, so a request signed with one key but sent with the other's
// certificate would fail.
func TestEmulatorCredentialRotation(t *testing.T) {
	t.Parallel()
	a, b := testCreds(t, 0), testCreds(t, 1)
	s := emulator.NewServer(emulator.WithTrustedCertificates(a.Certificate, b.Certificate))
	t.Cleanup(s.Close)
	for _, mode := range []string{"SetCredentials", "CredentialsSource"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			var current atomic.Pointer[signing.Credentials]
			current.Store(a)
			var opts []Option
			if mode == "CredentialsSource" {
				opts = append(opts, WithCredentialsSource(func(context.Context) (*signing.Credentials, error) { return current.Load(), nil }))
			}
			m := &tamperer{}
			c := emulatorClient(t, s, a, m, opts...)

			const workers, perWorker = 50, 4
			var wg sync.WaitGroup
			var done atomic.Int64
			errs := make(chan error, workers*perWorker)
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range perWorker {
						if _, err := c.Do(t.Context(), listCustomers, nil); err != nil {
							errs <- err
						}
						done.Add(1)
					}
				}()
			}
			rotated := make(chan struct{})
			go func() {
				defer close(rotated)
				for i := 0; done.Load() < workers*perWorker; i++ {
					next := a
					if i%2 == 0 {
						next = b
					}
					current.Store(next)
					if mode == "SetCredentials" {
						assert.NoError(t, c.SetCredentials(next))
					}
					time.Sleep(200 * time.Microsecond)
				}
			}()
			wg.Wait()
			<-rotated
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			assert.EqualValues(t, workers*perWorker, m.sent.Load())
			assert.Equal(t, workers*perWorker, m.answered(a)+m.answered(b), "every request verified on the emulator")
			assert.NotZero(t, m.answered(b), "the new credentials were used")
		})
	}
}

// TestEmulatorExpiry: the client warns within the window and refuses to
// sign with an expired certificate, before anything reaches the emulator.
func TestEmulatorExpiry(t *testing.T) {
	t.Parallel()
	now := time.Now()
	soon := &signing.Credentials{Certificate: newCert(t, 1, now.Add(-time.Hour), now.Add(10*24*time.Hour)), Key: testKey(1)}
	expired := &signing.Credentials{Certificate: newCert(t, 1, now.Add(-48*time.Hour), now.Add(-time.Hour)), Key: testKey(1)}
	s := emulator.NewServer(emulator.WithTrustedCertificates(soon.Certificate, expired.Certificate))
	t.Cleanup(s.Close)

	var logs logBuffer
	m := &tamperer{}
	c := emulatorClient(t, s, soon, m, WithLogger(debugLogger(&logs)))
	for range 2 {
		_, err := c.Do(t.Context(), listCustomers, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, 1, logs.count("certificate expires soon"), "warned once within the default 30 days")
	assert.Equal(t, soon.Certificate.NotAfter, c.Credentials().ValidUntil())

	m = &tamperer{}
	var clock atomic.Int64 // made while valid, used after it expired
	clock.Store(now.Add(-2 * time.Hour).UnixNano())
	c = emulatorClient(t, s, expired, m, WithClock(func() time.Time { return time.Unix(0, clock.Load()) }))
	clock.Store(now.UnixNano())
	_, err := c.Do(t.Context(), listCustomers, nil)
	require.ErrorIs(t, err, signing.ErrCertExpired)
	assert.Zero(t, m.sent.Load(), "nothing signed or sent with an expired certificate")
}

// TestEmulatorCorruptedAnswers uses the emulator's own corrupting faults
// (no man in the middle): a GET whose signed answer does not verify is
// ErrResponseSignature with the cause, and its body is not decoded.
func TestEmulatorCorruptedAnswers(t *testing.T) {
	t.Parallel()
	s := emulator.NewServer(emulator.WithResponseSigning())
	t.Cleanup(s.Close)
	creds, err := s.NewTPP("Corruption Test AS")
	require.NoError(t, err)
	c := emulatorClient(t, s, creds, &tamperer{}, WithBankCertificates(s.ResponseCertificate()), WithResponseVerification(VerifyRequired))

	tests := []struct {
		name  string
		kind  emulator.FaultKind
		cause error
	}{
		{"signature", emulator.FaultCorruptSignature, signing.ErrBadSignature},
		{"digest", emulator.FaultCorruptDigest, signing.ErrDigestMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Control().InjectFault(emulator.Fault{Kind: tt.kind, Method: http.MethodGet, PathPrefix: "/v1/sandbox/customers"})
			var out json.RawMessage
			_, err := c.Do(t.Context(), listCustomers, &out)
			require.ErrorIs(t, err, ErrResponseSignature)
			require.ErrorIs(t, err, tt.cause)
			assert.NotErrorIs(t, err, ErrOutcomeUnknown)
			assert.Nil(t, out, "the body of an answer that does not verify is not decoded")
		})
	}

	// The faults are used up: the same call verifies and decodes.
	var out json.RawMessage
	_, err = c.Do(t.Context(), listCustomers, &out)
	require.NoError(t, err)
	assert.NotEmpty(t, out)
}

// TestEmulatorLongRequestIDVerified: a call whose X-Request-ID is
// anywhere within the 1 to MaxRequestIDLen characters WithRequestID and
// the emulator both accept gets a signed answer covering that id, so
// VerifyRequired (docs/interface.md section 5.7: the TPP verifies the
// bank's signed answers) accepts it. On the code before, the emulator
// echoed and signed X-Request-ID only up to 100 characters, a limit older
// than the 200 it accepts: every answer to a call with a longer id lacked
// it and VerifyRequired refused them all.
func TestEmulatorLongRequestIDVerified(t *testing.T) {
	t.Parallel()
	s := emulator.NewServer(emulator.WithResponseSigning())
	t.Cleanup(s.Close)
	creds, err := s.NewTPP("Long Id AS")
	require.NoError(t, err)
	c := emulatorClient(t, s, creds, &tamperer{}, WithBankCertificates(s.ResponseCertificate()), WithResponseVerification(VerifyRequired))
	for _, n := range []int{36, 101, MaxRequestIDLen} {
		id := strings.Repeat("r", n-4) + strconv.Itoa(1000+n)
		var out []map[string]any
		res, err := c.Do(t.Context(), listCustomers, &out, WithRequestID(id))
		require.NoError(t, err, "X-Request-ID of %d characters", n)
		assert.Equal(t, id, res.Header.Get("X-Request-ID"))
		assert.NotEmpty(t, out)
	}
}
