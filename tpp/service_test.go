package tpp_test

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/metatest"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/tpp"
)

// testTPPID is the organizationIdentifier of testtpp.Credentials.
const testTPPID = "PSDNO-FSA-TEST1"

const contactPath = testtpp.BaseURL + "/v1/tpps/" + testTPPID + "/contact-information"

// newMockService returns a Service on a client whose transport is
// httpmock; httpmock's state is shared, so its tests do not run in
// parallel.
func newMockService(t *testing.T, opts ...tpp.Option) *tpp.Service {
	t.Helper()
	c := testtpp.MockClient(t, client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	s, err := tpp.New(c, opts...)
	require.NoError(t, err)
	return s
}

func jsonResponse(status int, body string) *http.Response {
	r := httpmock.NewStringResponse(status, body)
	r.Header.Set("Content-Type", "application/json")
	return r
}

func TestSetContact(t *testing.T) {
	svc := newMockService(t)
	var sent []byte
	httpmock.RegisterResponder(http.MethodPut, contactPath, func(req *http.Request) (*http.Response, error) {
		b, err := io.ReadAll(req.Body)
		require.NoError(t, err)
		sent = b
		assert.Equal(t, "application/json", req.Header.Get("Content-Type"))
		assert.Equal(t, signing.Digest(b), req.Header.Get("Digest"))
		assert.NotEmpty(t, req.Header.Get("Signature"))
		assert.NotEmpty(t, req.Header.Get("TPP-Signature-Certificate"))
		assert.Empty(t, req.Header.Get("PSU-ID"), "no PSU takes part")
		return jsonResponse(http.StatusOK, string(b)), nil
	})

	got, err := svc.SetContact(t.Context(), "tpp.contact@tpp.example.com")
	require.NoError(t, err)
	assert.Equal(t, &tpp.Contact{Email: "tpp.contact@tpp.example.com"}, metatest.Strip(got))
	assert.JSONEq(t, `{"email":"tpp.contact@tpp.example.com"}`, string(sent))
	assert.Equal(t, 1, httpmock.GetTotalCallCount())
}

// A PUT is repeatable: after a 503 the client sends it again.
func TestSetContactIsRepeatable(t *testing.T) {
	svc := newMockService(t)
	httpmock.RegisterResponder(http.MethodPut, contactPath,
		httpmock.ResponderFromMultipleResponses([]*http.Response{
			jsonResponse(http.StatusServiceUnavailable, `{"tppMessages":[{"category":"ERROR","code":"SYSTEM_ERROR"}]}`),
			httpmock.NewStringResponse(http.StatusOK, ""),
		}))
	got, err := svc.SetContact(t.Context(), "tpp.contact@tpp.example.com")
	require.NoError(t, err)
	assert.Equal(t, "tpp.contact@tpp.example.com", got.Email, "an answer without a body gives the address sent")
	assert.Equal(t, 2, httpmock.GetTotalCallCount())
}

func TestSetContactValidation(t *testing.T) {
	svc := newMockService(t)
	httpmock.RegisterResponder(http.MethodPut, contactPath, httpmock.NewStringResponder(http.StatusOK, `{"email":"not an address"}`))

	_, err := svc.SetContact(t.Context(), "not an address")
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "email", ve.Field)
	assert.ErrorIs(t, err, client.ErrValidation)
	assert.Zero(t, httpmock.GetTotalCallCount(), "nothing is sent")

	_, err = svc.SetContact(t.Context(), "not an address", client.WithoutValidation())
	require.NoError(t, err)
	assert.Equal(t, 1, httpmock.GetTotalCallCount())
}

func TestContact(t *testing.T) {
	svc := newMockService(t)
	httpmock.RegisterResponder(http.MethodGet, contactPath, func(req *http.Request) (*http.Response, error) {
		assert.Empty(t, req.Header.Get("Digest"), "no body")
		return jsonResponse(http.StatusOK, `{"email":"tpp.contact@tpp.example.com"}`), nil
	})
	got, err := svc.Contact(t.Context())
	require.NoError(t, err)
	assert.Equal(t, &tpp.Contact{Email: "tpp.contact@tpp.example.com"}, metatest.Strip(got))
}

// No registered address is ErrNotRegistered, whether the bank answers 404
// or an empty address; the bank's 404 stays reachable.
func TestContactNotRegistered(t *testing.T) {
	for name, resp := range map[string]*http.Response{
		"404":   jsonResponse(http.StatusNotFound, `{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN"}]}`),
		"empty": jsonResponse(http.StatusOK, `{"email":""}`),
		"none":  jsonResponse(http.StatusOK, `{}`),
	} {
		t.Run(name, func(t *testing.T) {
			svc := newMockService(t)
			httpmock.RegisterResponder(http.MethodGet, contactPath, httpmock.ResponderFromResponse(resp))
			got, err := svc.Contact(t.Context())
			assert.Nil(t, got)
			require.ErrorIs(t, err, tpp.ErrNotRegistered)
			var ce *client.Error
			if name == "404" {
				require.ErrorAs(t, err, &ce)
				assert.True(t, ce.HasCode("RESOURCE_UNKNOWN"))
			} else {
				assert.False(t, errors.As(err, &ce))
			}
		})
	}
	// Other errors are not ErrNotRegistered.
	svc := newMockService(t)
	httpmock.RegisterResponder(http.MethodGet, contactPath,
		httpmock.ResponderFromResponse(jsonResponse(http.StatusForbidden, `{"tppMessages":[{"category":"ERROR","code":"FORBIDDEN"}]}`)))
	_, err := svc.Contact(t.Context())
	require.Error(t, err)
	assert.NotErrorIs(t, err, tpp.ErrNotRegistered)
}

// The tppId defaults to the certificate's organizationIdentifier;
// WithTPPID overrides it and is escaped as a path segment.
func TestTPPID(t *testing.T) {
	svc := newMockService(t)
	id, err := svc.ID()
	require.NoError(t, err)
	assert.Equal(t, testTPPID, id)

	svc = newMockService(t, tpp.WithTPPID("NO-FSA-987/654"))
	id, err = svc.ID()
	require.NoError(t, err)
	assert.Equal(t, "NO-FSA-987/654", id)
	httpmock.RegisterResponder(http.MethodGet, testtpp.BaseURL+"/v1/tpps/NO-FSA-987%2F654/contact-information",
		httpmock.ResponderFromResponse(jsonResponse(http.StatusOK, `{"email":"a@b.example"}`)))
	_, err = svc.Contact(t.Context())
	require.NoError(t, err)

	for _, bad := range []string{"", " PSDNO-FSA-1", "PSDNO-FSA-1\n"} {
		_, err := tpp.New(testtpp.MockClient(t), tpp.WithTPPID(bad))
		assert.Error(t, err, "%q", bad)
	}
	_, err = tpp.New(nil)
	assert.Error(t, err)
}

// A certificate without organizationIdentifier names no default tppId:
// the call fails before sending and asks for WithTPPID.
func TestNoDefaultTPPID(t *testing.T) {
	creds := testtpp.SelfSigned(t, &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "No org id"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature})

	_, err := tpp.DefaultTPPID(creds.Certificate)
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "tppId", ve.Field)

	hc := &http.Client{}
	httpmock.ActivateNonDefault(hc)
	t.Cleanup(httpmock.DeactivateAndReset)
	c, err := client.New(testtpp.BaseURL, creds, client.WithHTTPClient(hc),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	svc, err := tpp.New(c)
	require.NoError(t, err)
	_, err = svc.SetContact(t.Context(), "tpp.contact@tpp.example.com")
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "tppId", ve.Field)
	assert.ErrorIs(t, err, client.ErrNotSent, "the client refused it")
	_, err = svc.Contact(t.Context())
	require.ErrorIs(t, err, client.ErrValidation)
	assert.Zero(t, httpmock.GetTotalCallCount())
}

// Without TPP-Redirect-URI (no client default, no per-call option) every
// call of the TPP dialogue is refused before it is sent, naming the
// option that sets it; the per-call option alone is enough.
func TestRedirectURIRequired(t *testing.T) {
	hc := &http.Client{}
	httpmock.ActivateNonDefault(hc)
	t.Cleanup(httpmock.DeactivateAndReset)
	c, err := client.New(testtpp.BaseURL, testtpp.Credentials(t, "Test TPP"), client.WithHTTPClient(hc))
	require.NoError(t, err)
	svc, err := tpp.New(c)
	require.NoError(t, err)
	httpmock.RegisterResponder(http.MethodGet, contactPath,
		httpmock.ResponderFromResponse(jsonResponse(http.StatusOK, `{"email":"tpp.contact@tpp.example.com"}`)))

	for name, call := range map[string]func() error{
		"Contact":    func() error { _, err := svc.Contact(t.Context()); return err },
		"SetContact": func() error { _, err := svc.SetContact(t.Context(), "tpp.contact@tpp.example.com"); return err },
	} {
		err := call()
		require.ErrorIs(t, err, client.ErrNotSent, name)
		require.ErrorIs(t, err, client.ErrValidation, name)
		var ve *client.ValidationError
		require.ErrorAs(t, err, &ve, name)
		assert.Equal(t, "TPP-Redirect-URI", ve.Field, name)
		assert.Contains(t, ve.Reason, "client.WithRedirectURI", name)
	}
	assert.Zero(t, httpmock.GetTotalCallCount(), "nothing is sent")

	got, err := svc.Contact(t.Context(), client.WithRedirectURI(testtpp.RedirectURI))
	require.NoError(t, err)
	assert.Equal(t, "tpp.contact@tpp.example.com", got.Email)
	assert.Equal(t, 1, httpmock.GetTotalCallCount())
}
