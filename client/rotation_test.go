package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// registeredBank knows several TPP certificates by keyId, as the bank does
// after registration, and verifies each request with the one its keyId
// names; it counts requests per certificate.
func registeredBank(t *testing.T, creds ...*signing.Credentials) (*httptest.Server, map[string]*atomic.Int64, *atomic.Int64) {
	byKeyID := map[string]*x509.Certificate{}
	seen := map[string]*atomic.Int64{}
	for _, c := range creds {
		id := signing.KeyID(c.Certificate)
		byKeyID[id] = c.Certificate
		seen[id] = new(atomic.Int64)
	}
	var failures atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		err := func() error {
			p, err := signing.ParseSignature(r.Header.Get("Signature"))
			if err != nil {
				return err
			}
			cert, ok := byKeyID[p.KeyID]
			if !ok {
				return errors.New("unknown keyId")
			}
			if r.Header.Get("TPP-Signature-Certificate") != base64.StdEncoding.EncodeToString(cert.Raw) {
				return errors.New("certificate header does not match keyId")
			}
			if err := p.Verify(r, cert.PublicKey); err != nil {
				return err
			}
			if err := signing.VerifyDigest(r.Header.Get("Digest"), body); err != nil {
				return err
			}
			seen[p.KeyID].Add(1)
			return nil
		}()
		if err != nil {
			failures.Add(1)
			w.WriteHeader(400)
			return
		}
		w.Write([]byte(`{"paymentId":"p1"}`))
	}))
	t.Cleanup(s.Close)
	return s, seen, &failures
}

func TestCredentialRotationUnderLoad(t *testing.T) {
	t.Parallel()
	a, b := testCreds(t, 0), testCreds(t, 1)
	for _, mode := range []string{"SetCredentials", "CredentialsSource"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv, seen, failures := registeredBank(t, a, b)
			var current atomic.Pointer[signing.Credentials]
			current.Store(a)
			opts := []Option{WithRetryPolicy(RetryPolicy{})}
			if mode == "CredentialsSource" {
				opts = append(opts, WithCredentialsSource(func(context.Context) (*signing.Credentials, error) { return current.Load(), nil }))
			}
			c, err := New(srv.URL, a, append(opts, testDefaults)...)
			require.NoError(t, err)

			const workers, perWorker = 50, 8
			var wg sync.WaitGroup
			var sent atomic.Int64
			errs := make(chan error, workers*perWorker)
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range perWorker {
						_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}}, nil)
						if err != nil {
							errs <- err
						}
						sent.Add(1)
					}
				}()
			}
			// Rotate back and forth while requests are in flight.
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i := 0; sent.Load() < workers*perWorker; i++ {
					next := a
					if i%2 == 0 {
						next = b
					}
					current.Store(next)
					if mode == "SetCredentials" {
						assert.NoError(t, c.SetCredentials(next))
					}
					time.Sleep(100 * time.Microsecond)
				}
			}()
			wg.Wait()
			<-done
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			assert.Zero(t, failures.Load())
			total := seen[signing.KeyID(a.Certificate)].Load() + seen[signing.KeyID(b.Certificate)].Load()
			assert.EqualValues(t, workers*perWorker, total)
			assert.NotZero(t, seen[signing.KeyID(b.Certificate)].Load(), "the new credentials were used")
		})
	}
}

func TestCredentialsSourceError(t *testing.T) {
	t.Parallel()
	srv, _, _ := registeredBank(t, testCreds(t, 0))
	boom := errors.New("vault sealed")
	c, err := New(srv.URL, nil, WithCredentialsSource(func(context.Context) (*signing.Credentials, error) { return nil, boom }), testDefaults)
	require.NoError(t, err)
	_, err = c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/x", Body: 1}, nil)
	require.ErrorIs(t, err, boom)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
}

func TestSetQWAC(t *testing.T) {
	t.Parallel()
	qa, qb := testCreds(t, 2), testCreds(t, 3)
	var mu sync.Mutex
	var presented []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		presented = append(presented, r.TLS.PeerCertificates[0].SerialNumber.String())
		mu.Unlock()
		if err := verifyRequest(r, nil); err != nil {
			w.WriteHeader(400)
			return
		}
		w.Write([]byte(`{"paymentId":"p1"}`))
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())

	c, err := New(srv.URL, testCreds(t, 0), WithRootCAs(roots), WithQWAC(tlsCert(qa)), testDefaults)
	require.NoError(t, err)
	get := func() {
		_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
		require.NoError(t, err)
	}
	get()
	get()
	require.NoError(t, c.SetQWAC(tlsCert(qb)))
	get()
	assert.Equal(t, []string{qa.Certificate.SerialNumber.String(), qa.Certificate.SerialNumber.String(), qb.Certificate.SerialNumber.String()}, presented)

	assert.Error(t, c.SetQWAC(tls.Certificate{}))
	other, err := New(srv.URL, testCreds(t, 0), WithHTTPClient(&http.Client{}))
	require.NoError(t, err)
	assert.Error(t, other.SetQWAC(tlsCert(qb)))
}

func TestTLSBelow12Refused(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.TLS = &tls.Config{MaxVersion: tls.VersionTLS11}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	c, err := New(srv.URL, testCreds(t, 0), WithRootCAs(roots), WithRetryPolicy(RetryPolicy{}), testDefaults)
	require.NoError(t, err)
	_, err = c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	require.Error(t, err)
	assert.ErrorContains(t, err, "protocol version")
}
