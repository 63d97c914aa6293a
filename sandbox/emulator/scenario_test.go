package emulator

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

func TestSetRolesRefusesTheOtherRole(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	aisp := newTPPClient(t, s, "AISP only")
	pisp := newTPPClient(t, s, "PISP only")
	s.Control().SetRoles(aisp.creds.Certificate, RoleAISP)
	s.Control().SetRoles(pisp.creds.Certificate, RolePISP)
	refused := func(r *response) {
		t.Helper()
		code, at := r.problem(t)
		assert.Equal(t, problem{401, "CERTIFICATE_INVALID", "TPP-Signature-Certificate"}, problem{r.status, code, at}, string(r.body))
	}

	// The AISP reads accounts but initiates nothing.
	sid := uuid.NewString()
	psu := psuHeaders(aisp.login(CustomerKari, sid), sid)
	assert.Equal(t, http.StatusOK, aisp.get("/v1/accounts", psu...).status)
	refused(aisp.get("/v1/user", hdr("TPP-Session-ID", "u")))
	refused(aisp.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, validNDCT().Bytes(), psu...))
	refused(aisp.do(http.MethodPost, "/v1/signing-baskets", basketBody("x"), psu...))

	// The PISP pays but reads no account.
	pisp.createPayment("/v1/payments/"+rules.ProductNDCT, validNDCT().Bytes())
	refused(pisp.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", "c")))
	refused(pisp.get("/v1/accounts", psuHeaders(pisp.pisPSU(), pisSession)...))

	// Both reach the mock data; the default is both roles.
	for _, c := range []*tppClient{aisp, pisp} {
		assert.Equal(t, http.StatusOK, c.get("/v1/sandbox/customers").status)
	}
	s.Control().SetRoles(aisp.creds.Certificate, RoleAISP|RolePISP)
	assert.Equal(t, http.StatusCreated, aisp.do(http.MethodPost, "/v1/payments/"+rules.ProductNDCT, validNDCT().Bytes(), aisp.payHeaders()...).status)
}

func TestRemovePaymentPermission(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Permission TPP")
	psu := psuHeaders(c.login(CustomerKari, pisSession), pisSession) // the payments' session
	before := c.accountIDs(psu...)

	approved := c.createPayment("/v1/payments/"+rules.ProductSEPA, sepaWith(set("debtorAccount.iban", ibanOf(kariBruk)), set("instructedAmount.amount", "21.00")))
	approve(t, s, approved.Links["scaRedirect"].Href, CustomerKari)
	require.Equal(t, "ACTC", c.statusOf(approved.Links["self"].Href))

	s.Control().RemovePaymentPermission(kariBruk)
	assert.Equal(t, before, c.accountIDs(psu...), "the account is still listed")
	got := c.createPayment("/v1/payments/"+rules.ProductSEPA, sepaWith(set("debtorAccount.iban", ibanOf(kariBruk)), set("instructedAmount.amount", "22.00")))
	u, err := s.Control().Authorize(t.Context(), got.Links["scaRedirect"].Href, CustomerKari)
	require.ErrorIs(t, err, ErrSCAFailed)
	assert.Equal(t, "PAYMENT_FAILED", u.Query().Get("code"))
	assert.Equal(t, "RJCT", c.statusOf(got.Links["self"].Href))
	s.Control().RunBatch()
	assert.Equal(t, "RJCT", c.statusOf(approved.Links["self"].Href), "approved before, refused by the batch")

	s.Control().RestorePaymentPermission(kariBruk)
	again := c.createPayment("/v1/payments/"+rules.ProductSEPA, sepaWith(set("debtorAccount.iban", ibanOf(kariBruk)), set("instructedAmount.amount", "23.00")))
	approve(t, s, again.Links["scaRedirect"].Href, CustomerKari)
	s.Control().RunBatch()
	assert.Equal(t, "ACSC", c.statusOf(again.Links["self"].Href))
}

func TestLastOnlineSCA180Days(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s, c, ids, psu := aisSetup(t, WithClock(clock.Now))
	absent := append(slices.Clone(psu[:3]), without("PSU-IP-Address"))
	tx := "/v1/accounts/" + ids[0] + "/transactions?bookingStatus=booked"
	require.Equal(t, http.StatusOK, c.get(tx, absent...).status, "by default the PSU counts as recently authenticated")

	s.Control().SetLastOnlineSCA(CustomerKari, clock.Now().Add(-onlineSCAWindow+time.Hour))
	assert.Equal(t, http.StatusOK, c.get(tx, absent...).status, "179 days and 23 hours")
	clock.Add(2 * time.Hour)
	r := c.get(tx, absent...)
	require.Equal(t, http.StatusUnauthorized, r.status, string(r.body))
	code, _ := r.problem(t)
	assert.Equal(t, "SCA_EXPIRED", code)
	assert.NotEmpty(t, r.scaRedirect(t))
	assert.Equal(t, http.StatusOK, c.get("/v1/accounts/"+ids[0]+"/balances", absent...).status, "balances still answer")
	assert.Equal(t, http.StatusOK, c.get(tx, psu...).status, "with the PSU present")

	// A new SCA through the TPP counts.
	approve(t, s, r.scaRedirect(t), CustomerKari)
	assert.Equal(t, http.StatusOK, c.get(tx, absent...).status)
	s.Control().SetLastOnlineSCA(CustomerKari, time.Time{})
	assert.Equal(t, http.StatusOK, c.get(tx, absent...).status)
}

// TestPSUChoosesContext: a private PSU given access to a company's
// agreement chooses PRIVATE or CORPORATE during SCA and sees its own
// accounts or the agreement's; a corporate customer cannot choose PRIVATE.
func TestPSUChoosesContext(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Context TPP")
	var ag agreementJSON
	for _, cu := range listCustomers(t, c) {
		if cu.CustomerNumber == CustomerFjordlys {
			ag = cu.Agreements[0]
		}
	}
	require.NoError(t, s.Control().GrantAgreement(c.creds.Certificate, ag.ID, CustomerKari))
	assert.Error(t, s.Control().GrantAgreement(c.creds.Certificate, ag.ID, "00000000000"))
	assert.Error(t, s.Control().GrantAgreement(c.creds.Certificate, uuid.NewString(), CustomerKari))

	consent := func(sid, contextName, agreement, customer string) (*response, error) {
		href := c.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", sid)).scaRedirect(t)
		u, err := s.Control().AuthorizeInContext(t.Context(), href, customer, contextName, agreement)
		if err != nil {
			return nil, err
		}
		q := u.Query()
		assert.Equal(t, contextName, q.Get("context"))
		h := psuHeaders(q.Get("psu-id"), sid)
		if id := q.Get("psu-corporate-id"); id != "" {
			h = append(h, hdr("PSU-Corporate-ID", id))
		}
		return c.get("/v1/accounts", h...), nil
	}
	ids := func(r *response) []string {
		var out struct {
			Accounts []struct {
				ResourceID string `json:"resourceId"`
			} `json:"accounts"`
		}
		require.NoError(t, jsonUnmarshal(r.body, &out))
		var ids []string
		for _, a := range out.Accounts {
			ids = append(ids, a.ResourceID)
		}
		return ids
	}

	private, err := consent("kari-private", contextPrivate, "", CustomerKari)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, private.status, string(private.body))
	corporate, err := consent("kari-corporate", contextCorporate, ag.ID, CustomerKari)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, corporate.status, string(corporate.body))
	assert.Len(t, ids(private), 2)
	assert.ElementsMatch(t, ag.Engagements, ids(corporate), "the agreement's accounts only")
	assert.Empty(t, slices.DeleteFunc(ids(private), func(id string) bool { return !slices.Contains(ag.Engagements, id) }))

	_, err = consent("fjordlys-private", contextPrivate, "", CustomerFjordlys)
	assert.ErrorIs(t, err, ErrSCAFailed, "a corporate customer has no private accounts")
	_, err = consent("ola-corporate", contextCorporate, ag.ID, CustomerOla)
	assert.ErrorIs(t, err, ErrSCAFailed, "an agreement Ola was not given")
}
