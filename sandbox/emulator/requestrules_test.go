package emulator

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// The emulator refuses only what the bank refuses (issue: a production
// TPP agent's requests, as the platform was recorded accepting them).

func TestPaymentWithoutPSUContextIsCreated(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "No Context TPP")
	r := c.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, validNDCT().Bytes(), c.payHeaders(without("PSU-Context"))...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	assert.Len(t, s.Control().Payments(), 1)
	// A PSU-Context that is sent is still checked.
	r = c.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, validNDCT().Bytes(), c.payHeaders(hdr("PSU-Context", "BUSINESS"))...)
	code, at := r.problem(t)
	assert.Equal(t, problem{400, "FORMAT_ERROR", "PSU-Context"}, problem{r.status, code, at})
}

func TestPSUIDComparedAsUUID(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Upper Case TPP")
	upper := strings.ToUpper(c.pisPSU())
	require.NotEqual(t, c.pisPSU(), upper)
	c.createPayment("/v1/payments/"+rules.ProductNDCT, validNDCT().Bytes(), hdr("PSU-ID", upper))

	// AIS calls too: the session of an upper-cased PSU-ID is the PSU's.
	psu := c.login(CustomerOla, "ais-upper")
	r := c.get("/v1/accounts", psuHeaders(strings.ToUpper(psu), "ais-upper")...)
	assert.Equal(t, http.StatusOK, r.status, string(r.body))
}

func TestOptionalHeaderForms(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Forms TPP")
	good := []reqOpt{
		hdr("PSU-Device-ID", strings.ToUpper(uuid.NewString())),
		hdr("PSU-HTTP-Method", "PATCH"),
		hdr("TPP-Redirect-Preferred", "false"),
	}
	c.createPayment("/v1/payments/"+rules.ProductNDCT, validNDCT().Bytes(), good...)

	bad := []struct {
		opt  reqOpt
		path string
	}{
		{hdr("PSU-Device-ID", "device-1"), "PSU-Device-ID"},
		{hdr("PSU-Device-ID", "{"+uuid.NewString()+"}"), "PSU-Device-ID"},
		{hdr("PSU-HTTP-Method", "get"), "PSU-HTTP-Method"},
		{hdr("PSU-HTTP-Method", "HEAD"), "PSU-HTTP-Method"},
		{hdr("TPP-Redirect-Preferred", "1"), "TPP-Redirect-Preferred"},
		{hdr("TPP-Redirect-Preferred", ""), "TPP-Redirect-Preferred"},
	}
	psu := c.login(CustomerOla, "forms")
	for _, b := range bad {
		// On a payment, a basket and an AIS call alike.
		r := c.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, validNDCT().Bytes(), c.payHeaders(b.opt)...)
		code, at := r.problem(t)
		assert.Equal(t, problem{400, "FORMAT_ERROR", b.path}, problem{r.status, code, at}, "payment, %s", b.path)
		r = c.get("/v1/accounts", append(psuHeaders(psu, "forms"), b.opt)...)
		code, at = r.problem(t)
		assert.Equal(t, problem{400, "FORMAT_ERROR", b.path}, problem{r.status, code, at}, "accounts, %s", b.path)
	}
	assert.Len(t, s.Control().Payments(), 1)
}

func TestBasketDigestOptionalButChecked(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Basket Digest TPP")
	ids, _ := c.newPayments(2)

	r := c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids[0]), c.basketHeaders(without("Digest"))...)
	require.Equal(t, http.StatusCreated, r.status, "section 4.1 lists no Digest: %s", r.body)

	wrong := hdr("Digest", "SHA-256="+strings.Repeat("A", 43)+"=")
	r = c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids[1]), c.basketHeaders(wrong)...)
	code, at := r.problem(t)
	assert.Equal(t, problem{400, "FORMAT_ERROR", "Digest"}, problem{r.status, code, at}, "a Digest that is sent is checked")

	// A payment still needs one.
	r = c.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, validNDCT().Bytes(), c.payHeaders(without("Digest"))...)
	code, at = r.problem(t)
	assert.Equal(t, problem{400, "HTTP_HEADER_REQUIRED", "Digest"}, problem{r.status, code, at})
}

func TestDeprecatedConsentIgnoresBody(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Old Consent TPP")
	for _, tt := range []struct {
		name string
		body []byte
		opts []reqOpt
	}{
		{"xml", []byte(`<consent/>`), []reqOpt{hdr("Content-Type", "application/xml")}},
		{"not json", []byte(`{"access":`), nil},
		{"emoji", []byte(`{"access":"\u2705 😀"}`), nil},
		{"no digest", []byte(`{"access":{}}`), []reqOpt{without("Digest")}},
		{"no content type", []byte(`anything`), []reqOpt{without("Content-Type")}},
	} {
		opts := append([]reqOpt{hdr("TPP-Session-ID", "old-"+tt.name)}, tt.opts...)
		r := c.do(http.MethodPost, "/v1/consents", tt.body, opts...)
		require.Equal(t, http.StatusCreated, r.status, "%s: %s", tt.name, r.body)
		assert.NotEmpty(t, r.scaRedirect(t), tt.name)
	}
	// A Digest that is sent still covers the body.
	r := c.do(http.MethodPost, "/v1/consents", []byte(`{}`), hdr("TPP-Session-ID", "old-digest"),
		hdr("Digest", "SHA-256="+strings.Repeat("A", 43)+"="))
	code, at := r.problem(t)
	assert.Equal(t, problem{400, "FORMAT_ERROR", "Digest"}, problem{r.status, code, at})
}
