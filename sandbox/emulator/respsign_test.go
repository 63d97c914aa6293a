package emulator

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

func TestResponseSigning(t *testing.T) {
	t.Parallel()
	s := startServer(t, WithResponseSigning())
	cert := s.ResponseCertificate()
	require.NotNil(t, cert)
	c := newTPPClient(t, s, "Verifier AS")
	tests := []struct {
		name   string
		path   string
		status int
	}{
		{name: "success", path: "/v1/sandbox/customers", status: http.StatusOK},
		{name: "error answer", path: "/v1/no-such-endpoint", status: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := c.build(http.MethodGet, tt.path, nil)
			r := c.send(req)
			assert.Equal(t, tt.status, r.status)
			require.NoError(t, signing.VerifyHeader(r.header, cert.PublicKey))
			require.NoError(t, signing.VerifyDigest(r.header.Get("Digest"), r.body))
			p, err := signing.ParseSignature(r.header.Get("Signature"))
			require.NoError(t, err)
			assert.Equal(t, signing.KeyID(cert), p.KeyID)
			assert.Equal(t, []string{"date", "digest", "x-request-id"}, p.Headers)
			assert.Equal(t, req.Header.Get("X-Request-ID"), r.header.Get("X-Request-ID"))
		})
	}

	plain := startServer(t)
	assert.Nil(t, plain.ResponseCertificate())
	r := newTPPClient(t, plain, "Plain AS").get("/v1/sandbox/customers")
	assert.Equal(t, http.StatusOK, r.status)
	assert.Empty(t, r.header.Get("Signature"), "unsigned by default")
}

func TestCorruptedAnswerFaults(t *testing.T) {
	t.Parallel()
	s := startServer(t, WithResponseSigning())
	pub := s.ResponseCertificate().PublicKey
	c := newTPPClient(t, s, "Verifier AS")

	s.Control().InjectFault(Fault{Kind: FaultCorruptSignature, Method: http.MethodGet, PathPrefix: "/v1/sandbox/customers"})
	r := c.send(c.build(http.MethodGet, "/v1/sandbox/customers", nil))
	assert.Equal(t, http.StatusOK, r.status, "the request itself is processed")
	require.NoError(t, signing.VerifyDigest(r.header.Get("Digest"), r.body), "only the signature is corrupted")
	require.ErrorIs(t, signing.VerifyHeader(r.header, pub), signing.ErrBadSignature)

	s.Control().InjectFault(Fault{Kind: FaultCorruptDigest, Method: http.MethodGet, PathPrefix: "/v1/sandbox/customers"})
	r = c.send(c.build(http.MethodGet, "/v1/sandbox/customers", nil))
	assert.Equal(t, http.StatusOK, r.status)
	require.NoError(t, signing.VerifyHeader(r.header, pub), "the signature over the headers still holds")
	require.ErrorIs(t, signing.VerifyDigest(r.header.Get("Digest"), r.body), signing.ErrDigestMismatch)

	// The faults are used up: the next answer verifies again.
	r = c.send(c.build(http.MethodGet, "/v1/sandbox/customers", nil))
	require.NoError(t, signing.VerifyHeader(r.header, pub))
	require.NoError(t, signing.VerifyDigest(r.header.Get("Digest"), r.body))
}

func TestCorruptSignatureKeepsTheValueWellFormed(t *testing.T) {
	t.Parallel()
	for _, v := range []string{`keyId="k",algorithm="rsa-sha256",headers="date",signature="AAAA"`, `keyId="k",signature="QUJD"`} {
		got := corruptSignature(v)
		assert.NotEqual(t, v, got)
		assert.Len(t, got, len(v))
		p, err := signing.ParseSignature(got)
		require.NoError(t, err)
		assert.NotEmpty(t, p.Signature)
	}
	// An encoded word (a keyId with non-ASCII characters) stays one.
	plain := `keyId="SN=1,CA=CN=Bank Sør",algorithm="rsa-sha256",headers="date",signature="QUJD"`
	got := corruptSignature(signing.EncodeWord(plain))
	assert.True(t, strings.HasPrefix(got, "=?utf-8?B?"), got)
	p, err := signing.ParseSignature(got)
	require.NoError(t, err)
	assert.Equal(t, "SN=1,CA=CN=Bank Sør", p.KeyID)
	assert.NotEqual(t, signing.EncodeWord(plain), got)
	assert.Equal(t, []byte(" "), corruptBody(nil))
	body := []byte(`{"a":"b"}`)
	assert.NotEqual(t, body, corruptBody(body))
	assert.Equal(t, []byte(`{"a":"b"}`), body, "the original body is not changed")
}
