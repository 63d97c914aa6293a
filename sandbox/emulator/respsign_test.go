package emulator

import (
	"net/http"
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
