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

// TestDigestSentTwice: Digest is a list header (RFC 3230: Digest =
// "Digest" ":" #(instance-digest); docs/interface.md section 4.2 names
// RFC 3230 and RFC 5843), so two Digest fields are one Digest of two
// instance digests (RFC 7230 section 3.2.2), and the signature covers
// both ("digest: a, b", section 5.5). Each SHA-256 or SHA-512 digest must
// match the body, as in one field. On the code before, the emulator
// checked the first field only: a wrong digest in a second field was
// accepted, the same digests in one field refused.
func TestDigestSentTwice(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Digest Twice TPP")
	digests := func(vs ...string) reqOpt {
		return reqOpt{pre: func(r *http.Request) { r.Header["Digest"] = vs }}
	}
	// A GET's empty body: no state changes, so every case sends alike.
	good, wrong := signing.Digest(nil), signing.Digest([]byte(`{}`))
	for _, tt := range []struct {
		name string
		vs   []string
	}{
		{"one field", []string{good + ", " + wrong}},
		{"two fields", []string{good, wrong}},
		{"wrong first", []string{wrong, good}},
		{"SHA-512 wrong", []string{good, signing.DigestSHA512([]byte(`{}`))}},
	} {
		r := c.get("/v1/sandbox/customers", digests(tt.vs...))
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", tt.name, r.body)
		if r.status == http.StatusBadRequest {
			code, path := r.problem(t)
			assert.Equal(t, []string{"FORMAT_ERROR", "Digest"}, []string{code, path}, tt.name)
		}
	}
	// Both digests right, or a second in an algorithm the bank does not
	// check, pass; so does a body's.
	for _, vs := range [][]string{{good, signing.DigestSHA512(nil)}, {good, "MD5=1B2M2Y8AsgTpgAmY7PhCfg=="}} {
		r := c.get("/v1/sandbox/customers", digests(vs...))
		assert.Equal(t, http.StatusOK, r.status, "%q: %s", vs, r.body)
	}
	body := []byte(`{"customerNumber":"15867512399","customerType":"PRIVATE","customerName":"Kari To"}`)
	r := c.do(http.MethodPost, "/v1/sandbox/customers", body, digests(signing.Digest(body), signing.DigestSHA512(body)))
	assert.Equal(t, http.StatusCreated, r.status, string(r.body))
}
