package signing

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The headers list names each eligible header the request carries
// (docs/interface.md section 5.5: date, digest, x-request-id, psu-id,
// psu-corporate-id, tpp-redirect-uri), whatever the case of its key:
// net/http sends a header set under a non-canonical map key ("PSU-ID")
// as it is. On the code before, Sign chose the default headers by
// canonical key only, so PSU-ID went out unsigned and the bank refused
// the request.
func TestDefaultHeadersNonCanonicalKeys(t *testing.T) {
	s, err := NewSigner(testKey(0), "SN=1,CA=CN=Test")
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodGet, "https://bank.example/api/v1/accounts", nil)
	require.NoError(t, err)
	req.Header = http.Header{
		"Date":             {"Thu, 03 Dec 2026 10:05:57 GMT"},
		"X-Request-ID":     {"0d9f3a4e-6b1c-4c55-9a57-2f0e8a6b1c11"},
		"PSU-ID":           {"5b2a8f0c-3d4e-4f61-8a7b-9c0d1e2f3a4b"},
		"TPP-Redirect-URI": {"https://tpp.example/cb"},
	}
	require.NoError(t, s.Sign(req))
	p, err := ParseSignature(req.Header.Get("Signature"))
	require.NoError(t, err)
	assert.Equal(t, []string{"date", "x-request-id", "psu-id", "tpp-redirect-uri"}, p.Headers)
}
