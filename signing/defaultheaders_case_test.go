package signing

import (
	"net/http"
	"net/http/httptest"
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

// TestHeaderUnderTwoSpellings: a header to be signed that the request's
// map holds under two spellings of its name ("Psu-Corporate-Id" and
// "PSU-Corporate-ID") goes out as two header fields, so the value the
// bank rebuilds the signing string from is both, joined by ", "
// (docs/interface.md section 5.5: one line per listed header, with its
// value), in an order net/http does not fix (HTTP/1.1 sorts the keys,
// HTTP/2 writes them in map order). On the code before, Sign signed one
// spelling's value alone and the bank refused the request. No order can
// be promised, so Sign refuses such a request with ErrInvalidHeader,
// before anything is sent; a header under one non-canonical key is
// still signed (TestDefaultHeadersNonCanonicalKeys).
func TestHeaderUnderTwoSpellings(t *testing.T) {
	key := testKey(0)
	verified := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		verified <- Verify(r, &key.PublicKey) // the server's view: one canonical key, both values
	}))
	t.Cleanup(srv.Close)

	for _, tt := range []struct {
		name string
		opts []Option
	}{
		{name: "default headers"},
		{name: "WithHeaders", opts: []Option{WithHeaders("date", "x-request-id", "psu-corporate-id")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSigner(key, "SN=1,CA=CN=Test", tt.opts...)
			require.NoError(t, err)
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/accounts", nil)
			require.NoError(t, err)
			req.Header.Set("Date", "Thu, 03 Dec 2026 10:05:57 GMT")
			req.Header.Set("X-Request-ID", "0d9f3a4e-6b1c-4c55-9a57-2f0e8a6b1c11")
			req.Header["Psu-Corporate-Id"] = []string{"corp-a"}
			req.Header["PSU-Corporate-ID"] = []string{"corp-b"}
			err = s.Sign(req)
			if err == nil {
				resp, derr := srv.Client().Do(req)
				require.NoError(t, derr)
				resp.Body.Close()
				require.NoError(t, <-verified, "signed %q, but the wire carries both values", req.Header.Get("Signature"))
			}
			require.ErrorIs(t, err, ErrInvalidHeader)
			assert.Empty(t, req.Header.Get("Signature"))
			_, err = SigningString(req, []string{"psu-corporate-id"})
			assert.ErrorIs(t, err, ErrInvalidHeader)
		})
	}
}
