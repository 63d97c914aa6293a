package emulator

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/signing"
)

// A Digest that is sent covers the exact bytes sent, the empty body of a
// GET included, and is a signed header (docs/interface.md section 5.5):
// the emulator refuses a Digest that does not match an empty body, as
// its rule says of any Digest sent. On the code before, it checked a
// Digest only beside a body, and a wrong one on a GET was accepted.
func TestDigestOnEmptyBodyIsChecked(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Digest TPP")
	wrong := signing.Digest([]byte(`{"not":"the body"}`))
	r := c.get("/v1/sandbox/customers", hdr("Digest", wrong))
	assert.Equal(t, http.StatusBadRequest, r.status, string(r.body))
	if r.status == http.StatusBadRequest {
		code, path := r.problem(t)
		assert.Equal(t, "FORMAT_ERROR", code)
		assert.Equal(t, "Digest", path)
	}
	// The Digest of the empty body passes.
	ok := c.get("/v1/sandbox/customers", hdr("Digest", signing.Digest(nil)))
	assert.Equal(t, http.StatusOK, ok.status, string(ok.body))
}
