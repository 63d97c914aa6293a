package emulator

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSCAPageHeaders: the authorisation page cannot be framed by another
// site (its approve button clickjacked) nor sniffed as another type, on
// GET and HEAD.
func TestSCAPageHeaders(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Nettbutikken AS")
	r := c.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", "headers-1"), hdr("TPP-Redirect-URI", redirectURI))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	href := r.scaRedirect(t)
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		req, err := http.NewRequestWithContext(t.Context(), method, href, nil)
		require.NoError(t, err)
		resp, err := s.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, method)
		assert.Equal(t, "frame-ancestors 'none'", resp.Header.Get("Content-Security-Policy"), method)
		assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), method)
		assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"), method)
		assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"), method)
	}
}
