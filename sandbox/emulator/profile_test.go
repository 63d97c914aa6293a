package emulator

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
	"github.com/tppkit/psd2/signing"
)

func TestParseProfile(t *testing.T) {
	t.Parallel()
	p, err := ParseProfile("consent=180, create=start-authorisation,keyid=openssl,caps=shared")
	require.NoError(t, err)
	assert.Equal(t, Profile{ConsentDays: 180, PaymentSCA: StartAuthorisationOnly, KeyIDs: KeyIDOpenSSL, SharedCaps: true}, p)
	back, err := ParseProfile(p.String())
	require.NoError(t, err)
	assert.Equal(t, p, back)
	def, err := ParseProfile("")
	require.NoError(t, err)
	assert.Equal(t, Profile{}, def)
	assert.Equal(t, "consent=90,create=sca-redirect,keyid=any,caps=per-tpp", def.String())
	for _, bad := range []string{"consent=181", "consent=-1", "consent=ninety", "create=later", "keyid=java", "caps=none", "colour=red", "consent"} {
		_, err := ParseProfile(bad)
		assert.Error(t, err, bad)
	}
	assert.Error(t, startServer(t).Control().SetProfile(Profile{ConsentDays: 365}))
}

// TestProfileConsentDays: a bank of 180-day consents answers on day 179
// and expires the consent after day 180; seeded sessions say so.
func TestProfileConsentDays(t *testing.T) {
	t.Parallel()
	wire := newFakeClock()
	s := startServer(t, WithClock(wire.Now), WithProfile(Profile{ConsentDays: 180}))
	c := newTPPClient(t, s, "180 TPP")
	sid := uuid.NewString()
	psu := c.login(CustomerKari, sid)
	id := c.accountIDs(psuHeaders(psu, sid)...)[0]
	balances := func() *response {
		return c.get("/v1/accounts/"+id+"/balances", hdr("PSU-ID", psu), hdr("TPP-Session-ID", sid))
	}
	consents := s.Control().Consents(c.creds.Certificate, CustomerKari)
	require.Len(t, consents, 1)
	assert.Equal(t, 180*24*time.Hour, consents[0].Expires.Sub(consents[0].Given))

	s.Control().Advance(179 * 24 * time.Hour)
	assert.Equal(t, http.StatusOK, balances().status)
	s.Control().Advance(2 * 24 * time.Hour)
	r := balances()
	require.Equal(t, http.StatusUnauthorized, r.status)
	code, _ := r.problem(t)
	assert.Equal(t, "CONSENT_EXPIRED", code)
	assert.Contains(t, string(r.body), "180 days")

	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{{Consent: &SeedConsent{}}}})
	require.NoError(t, err)
	sess := res.Customers[0].Session
	assert.Equal(t, 180*24*time.Hour, sess.ConsentExpiresAt.Sub(sess.SCAAt))
}

// TestProfileStartAuthorisationOnly: the creation answer has
// startAuthorisation and no scaRedirect, as recorded; POST on the link
// answers the scaRedirect, and its SCA approves the payment.
func TestProfileStartAuthorisationOnly(t *testing.T) {
	t.Parallel()
	s := startServer(t, WithClock(fixedClock(checkToday).Now), WithProfile(Profile{PaymentSCA: StartAuthorisationOnly}))
	c := newTPPClient(t, s, "Recorded TPP")
	created := c.createPayment("/v1/payments/"+rules.ProductSEPA, sepaWith(set("debtorAccount.iban", ibanOf(kariBruk))))
	assert.Equal(t, []string{"self", "startAuthorisation", "status"}, keysOf(created.Links))
	assert.Empty(t, s.Control().Authorisations(c.creds.Certificate), "no SCA started at create")

	r := c.do(http.MethodPost, created.Links["startAuthorisation"].Href, nil, c.payHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	approve(t, s, r.scaRedirect(t), CustomerKari)
	assert.Equal(t, "ACTC", c.statusOf(created.Links["self"].Href))
}

// TestProfileKeyIDForms: a bank that verifies one keyId rendering
// refuses the other with 400 FORMAT_ERROR on Signature; the default
// takes both.
func TestProfileKeyIDForms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		forms        KeyIDForms
		strict, ossl int
		name         string
	}{
		{KeyIDAnyForm, http.StatusOK, http.StatusOK, "any"},
		{KeyIDRFC2253, http.StatusOK, http.StatusBadRequest, "rfc2253"},
		{KeyIDOpenSSL, http.StatusBadRequest, http.StatusOK, "openssl"},
	} {
		s := startServer(t, WithProfile(Profile{KeyIDs: tc.forms}))
		c := newTPPClient(t, s, "KeyID TPP")
		strict := c.get("/v1/sandbox/customers")
		var err error
		c.signer, err = signing.NewSigner(c.creds.Key, signing.KeyIDOpenSSL(c.creds.Certificate))
		require.NoError(t, err)
		ossl := c.get("/v1/sandbox/customers")
		assert.Equal(t, []int{tc.strict, tc.ossl}, []int{strict.status, ossl.status}, tc.name)
		for _, r := range []*response{strict, ossl} {
			if r.status != http.StatusOK {
				code, path := r.problem(t)
				assert.Equal(t, []string{"FORMAT_ERROR", "Signature"}, []string{code, path}, tc.name)
			}
		}
		assert.NotEqual(t, signing.KeyID(c.creds.Certificate), signing.KeyIDOpenSSL(c.creds.Certificate), "the two renderings differ")
	}
}

// TestProfileSharedCaps: with per-TPP caps (the default) a TPP past its
// share of waiting SCAs gets 507 while another goes on; with shared caps
// one TPP may take the whole server's.
func TestProfileSharedCaps(t *testing.T) {
	t.Parallel()
	start := func(c *tppClient) int {
		return c.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", uuid.NewString())).status
	}
	s := startServer(t, WithLimits(Limits{AuthorisationsPerTPP: 1}))
	a, b := newTPPClient(t, s, "TPP A"), newTPPClient(t, s, "TPP B")
	assert.Equal(t, []int{201, 507, 201}, []int{start(a), start(a), start(b)}, "per TPP")

	s = startServer(t, WithLimits(Limits{AuthorisationsPerTPP: 1}), WithProfile(Profile{SharedCaps: true}))
	a = newTPPClient(t, s, "TPP A")
	assert.Equal(t, []int{201, 201, 201}, []int{start(a), start(a), start(a)}, "shared")
}

func keysOf(m map[string]link) []string { return slices.Sorted(maps.Keys(m)) }

// A profile's error quotes what it could not read clipped: a profile is
// read from a command line, a file or the control API (up to its body's
// 32 MiB), and its error goes into an answer and a log. On the code
// before, the whole value came back in the error.
func TestParseProfileErrorIsClipped(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	for _, in := range []string{huge, "consent=" + huge, "create=" + huge, "keyid=" + huge, "caps=" + huge, huge + "=1"} {
		_, err := ParseProfile(in)
		require.Error(t, err)
		assert.Less(t, len(err.Error()), 1000, "the error of %q...", in[:12])
	}
}
