package emulator

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

const redirectURI = "https://tpp.example/cb?state=abc"

func TestConsentFlow(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "AISP")
	sid := uuid.NewString()

	// First account call without a session: 401 with a scaRedirect.
	r := c.get("/v1/accounts", hdr("TPP-Session-ID", sid), hdr("TPP-Redirect-URI", redirectURI))
	require.Equal(t, http.StatusUnauthorized, r.status, string(r.body))
	href := r.scaRedirect(t)
	u, err := url.Parse(href)
	require.NoError(t, err)
	assert.Equal(t, strings.TrimSuffix(s.URL, "/api"), u.Scheme+"://"+u.Host)
	assert.Equal(t, scaPagePath, u.Path)
	assert.Equal(t, "1", u.Query().Get("route_secesb_id"))
	assert.Equal(t, "psd2", u.Query().Get("flow"))
	assert.Equal(t, "PRIVATE", u.Query().Get("context"))
	_, err = uuid.Parse(u.Query().Get("state"))
	assert.NoError(t, err)

	cb, err := s.Control().Authorize(t.Context(), href, CustomerKari)
	require.NoError(t, err)
	assert.Equal(t, "https://tpp.example/cb", cb.Scheme+"://"+cb.Host+cb.Path)
	assert.True(t, strings.HasPrefix(cb.RawQuery, "state=abc&psu-id="), cb.RawQuery)
	q := cb.Query()
	psuID := q.Get("psu-id")
	_, err = uuid.Parse(psuID)
	require.NoError(t, err)
	assert.Equal(t, sid, q.Get("tpp-session-id"))
	assert.Equal(t, "PRIVATE", q.Get("context"))
	assert.Empty(t, q.Get("psu-corporate-id"))

	ids := c.accountIDs(psuHeaders(psuID, sid)...)
	assert.Len(t, ids, 2)

	// The PSU-ID is stable per TPP and customer, and differs between TPPs.
	assert.Equal(t, psuID, c.login(CustomerKari, uuid.NewString()))
	assert.NotEqual(t, psuID, newTPPClient(t, s, "Other AISP").login(CustomerKari, uuid.NewString()))
	assert.NotEqual(t, psuID, c.login(CustomerOla, uuid.NewString()))
}

func TestDeprecatedConsentsEndpoint(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Old AISP")
	r := c.do(http.MethodPost, "/v1/consents", []byte(`{"access":{}}`), hdr("TPP-Session-ID", "s1"), hdr("TPP-Redirect-URI", redirectURI))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	assert.Equal(t, []string{"_links"}, keys(r.json(t)))
	assert.NotEmpty(t, r.scaRedirect(t))
}

func TestSCAPageOverHTTP(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Browser AISP")
	hc := s.Client()
	start := func() string {
		r := c.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", "sess-1"), hdr("TPP-Redirect-URI", redirectURI))
		require.Equal(t, http.StatusCreated, r.status)
		return r.scaRedirect(t)
	}

	href := start()
	resp, err := hc.Get(href)
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), `name="customerNumber"`)
	assert.Contains(t, string(page), `name="agreement"`)

	state, err := stateOf(href)
	require.NoError(t, err)
	post := func(form url.Values) *http.Response {
		resp, err := hc.PostForm(strings.Split(href, "?")[0], form)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	resp = post(url.Values{"state": {state}, "customerNumber": {CustomerOla}, "action": {"approve"}})
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	assert.Equal(t, "sess-1", loc.Query().Get("tpp-session-id"))
	assert.Equal(t, s.psuID(c.tpp(t).id, CustomerOla), loc.Query().Get("psu-id"))

	// The same page again: completed, 400.
	resp, err = hc.Get(href)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, http.StatusBadRequest, post(url.Values{"state": {state}, "customerNumber": {CustomerOla}}).StatusCode)

	// Cancel: failure redirect with system, status, code and message.
	href = start()
	state, _ = stateOf(href)
	resp = post(url.Values{"state": {state}, "action": {"cancel"}})
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc, err = url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	assert.Equal(t, "state=abc&system=sca-frontend&status=401&code=SCA_INVALID&message=The%20authentication%20was%20cancelled%20by%20the%20user", loc.RawQuery)
}

func TestAuthorizeErrors(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "AISP")
	start := func() string {
		r := c.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", "s"), hdr("TPP-Redirect-URI", redirectURI))
		require.Equal(t, http.StatusCreated, r.status)
		return r.scaRedirect(t)
	}
	href := start()
	cb, err := s.Control().Authorize(t.Context(), href, "00000000000")
	require.ErrorIs(t, err, ErrSCAFailed)
	assert.Equal(t, "PSU_CREDENTIALS_INVALID", cb.Query().Get("code"))
	assert.Equal(t, "401", cb.Query().Get("status"))
	assert.Equal(t, "sca-frontend", cb.Query().Get("system"))

	_, err = s.Control().Authorize(t.Context(), href, CustomerKari)
	assert.ErrorIs(t, err, ErrAuthorisationUnknown, "an authorisation completes once")
	_, err = s.Control().Authorize(t.Context(), "https://127.0.0.1/elsewhere/?state=x", CustomerKari)
	assert.ErrorIs(t, err, ErrAuthorisationUnknown)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = s.Control().Authorize(ctx, start(), CustomerKari)
	assert.ErrorIs(t, err, context.Canceled)

	cb, err = s.Control().AuthorizeCorporate(t.Context(), start(), CustomerFjordlys, uuid.NewString())
	require.ErrorIs(t, err, ErrSCAFailed)
	assert.Equal(t, "CORPORATE_ID_INVALID", cb.Query().Get("code"))

	cb, err = s.Control().Reject(t.Context(), start())
	require.NoError(t, err)
	assert.Equal(t, "SCA_INVALID", cb.Query().Get("code"))
	assert.Equal(t, "The authentication was cancelled by the user", cb.Query().Get("message"))
}

func TestSCACallbackHook(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "PISP")
	var got []scaResult
	start := func(fail error) string {
		req := c.build(http.MethodGet, "/v1/sandbox/customers", nil, hdr("TPP-Session-ID", "s"), hdr("TPP-Redirect-URI", redirectURI))
		req.Body = http.NoBody
		ca, aerr := s.verify(nopWriter{}, req, rules.BodyJSON)
		require.Nil(t, aerr)
		s.ensureStore(ca.tpp.id, ca.now)
		s.mu.Lock()
		defer s.mu.Unlock()
		href, err := ca.startSCA(scaPayment, func(res scaResult) error {
			got = append(got, res)
			return fail
		})
		require.NoError(t, err)
		return href
	}
	_, err := s.Control().Authorize(t.Context(), start(nil), CustomerKari)
	require.NoError(t, err)
	_, err = s.Control().Reject(t.Context(), start(nil))
	require.NoError(t, err)
	cb, err := s.Control().Authorize(t.Context(), start(newError(http.StatusBadRequest, "PAYMENT_FAILED", "not your account")), CustomerKari)
	require.ErrorIs(t, err, ErrSCAFailed)
	assert.Equal(t, "PAYMENT_FAILED", cb.Query().Get("code"))
	assert.Equal(t, "400", cb.Query().Get("status"))

	require.Len(t, got, 3) // success, cancel, refused success (not called again)
	assert.True(t, got[0].OK)
	assert.Equal(t, CustomerKari, got[0].Customer.number)
	assert.Equal(t, s.psuID(c.tpp(t).id, CustomerKari), got[0].PSUID)
	assert.Equal(t, "PRIVATE", got[0].Context)
	assert.False(t, got[1].OK)
	assert.Equal(t, "SCA_INVALID", got[1].Code)
	assert.True(t, got[2].OK)
}

func TestSCAExpiresAfterOneHour(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "AISP")
	sid := uuid.NewString()
	psuID := c.login(CustomerKari, sid)
	ids := c.accountIDs(psuHeaders(psuID, sid)...)

	clock.Add(59 * time.Minute)
	assert.Len(t, c.accountIDs(psuHeaders(psuID, sid)...), 2)
	r := c.get("/v1/accounts/"+ids[0]+"/transactions?bookingStatus=booked", psuHeaders(psuID, sid)...)
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, 30, len(bookedDates(t, r)), "full history within the hour")

	clock.Add(2 * time.Minute)
	r = c.get("/v1/accounts", psuHeaders(psuID, sid)...)
	require.Equal(t, http.StatusUnauthorized, r.status, string(r.body))
	code, _ := r.problem(t)
	assert.Equal(t, "SCA_EXPIRED", code)
	assert.NotEmpty(t, r.scaRedirect(t))
	assert.Equal(t, http.StatusUnauthorized, c.get("/v1/card-accounts", psuHeaders(psuID, sid)...).status)

	// Balances and transactions go on, with 90 days of history.
	assert.Equal(t, http.StatusOK, c.get("/v1/accounts/"+ids[0]+"/balances", psuHeaders(psuID, sid)...).status)
	r = c.get("/v1/accounts/"+ids[0]+"/transactions?bookingStatus=booked", psuHeaders(psuID, sid)...)
	require.Equal(t, http.StatusOK, r.status)
	dates := bookedDates(t, r)
	floor := rules.Today(clock.Now()).Add(-historyLimit).Format(time.DateOnly)
	assert.Less(t, len(dates), 30)
	for _, d := range dates {
		assert.GreaterOrEqual(t, d, floor)
	}
}

func TestConsentExpiresAfter90Days(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "AISP")
	sid := uuid.NewString()
	psuID := c.login(CustomerOla, sid)
	ids := c.accountIDs(psuHeaders(psuID, sid)...)

	clock.Add(89 * 24 * time.Hour)
	assert.Equal(t, http.StatusOK, c.get("/v1/accounts/"+ids[0]+"/balances", psuHeaders(psuID, sid)...).status)
	clock.Add(2 * 24 * time.Hour)
	r := c.get("/v1/accounts/"+ids[0]+"/balances", psuHeaders(psuID, sid)...)
	require.Equal(t, http.StatusUnauthorized, r.status)
	code, _ := r.problem(t)
	assert.Equal(t, "CONSENT_EXPIRED", code)
	href := r.scaRedirect(t)

	_, err := s.Control().Authorize(t.Context(), href, CustomerOla)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, c.get("/v1/accounts/"+ids[0]+"/balances", psuHeaders(psuID, sid)...).status)
}

func TestRevokeConsent(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "AISP")
	sid := uuid.NewString()
	psuID := c.login(CustomerKari, sid)
	ids := c.accountIDs(psuHeaders(psuID, sid)...)

	s.Control().RevokeConsent(CustomerKari)
	s.Control().RevokeConsent("no such customer")
	for _, p := range []string{"/v1/accounts", "/v1/accounts/" + ids[0] + "/balances", "/v1/accounts/" + ids[0] + "/transactions?bookingStatus=both"} {
		r := c.get(p, psuHeaders(psuID, sid)...)
		require.Equal(t, http.StatusForbidden, r.status, p)
		code, _ := r.problem(t)
		assert.Equal(t, "CONSENT_UNKNOWN", code)
	}
	// A new consent restores access.
	assert.Equal(t, psuID, c.login(CustomerKari, sid))
	assert.Len(t, c.accountIDs(psuHeaders(psuID, sid)...), 2)
}

func TestSessionSwitch(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "AISP")
	oldSID, newSID := "session-old", "session-new"
	psuID := c.login(CustomerKari, oldSID)
	require.Len(t, c.accountIDs(psuHeaders(psuID, oldSID)...), 2)

	// A new session id needs a new SCA.
	r := c.get("/v1/accounts", psuHeaders(psuID, newSID)...)
	require.Equal(t, http.StatusUnauthorized, r.status)
	// Aborted: the old session stays valid, the new one is still refused.
	_, err := s.Control().Reject(t.Context(), r.scaRedirect(t))
	require.NoError(t, err)
	assert.Len(t, c.accountIDs(psuHeaders(psuID, oldSID)...), 2)
	r = c.get("/v1/accounts", psuHeaders(psuID, newSID)...)
	require.Equal(t, http.StatusUnauthorized, r.status)

	// Completed: the new session works and the old one is invalid.
	cb, err := s.Control().Authorize(t.Context(), r.scaRedirect(t), CustomerKari)
	require.NoError(t, err)
	assert.Equal(t, newSID, cb.Query().Get("tpp-session-id"))
	assert.Len(t, c.accountIDs(psuHeaders(psuID, newSID)...), 2)
	r = c.get("/v1/accounts", psuHeaders(psuID, oldSID)...)
	require.Equal(t, http.StatusUnauthorized, r.status)
	assert.NotEmpty(t, r.scaRedirect(t))
}

func TestSessionHeaders(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "AISP")
	psuID := c.login(CustomerKari, "s")
	tests := []struct {
		name   string
		opts   []reqOpt
		status int
		code   string
		at     string
	}{
		{"TPP-Redirect-URI missing", []reqOpt{hdr("PSU-ID", psuID), hdr("TPP-Session-ID", "s"), without("TPP-Redirect-URI")}, 400, "HTTP_HEADER_REQUIRED", "TPP-Redirect-URI"},
		{"TPP-Session-ID missing", []reqOpt{hdr("PSU-ID", psuID), hdr("TPP-Redirect-URI", redirectURI)}, 400, "HTTP_HEADER_REQUIRED", "TPP-Session-ID"},
		{"PSU-ID not a UUID", psuHeaders("12345", "s"), 400, "FORMAT_ERROR", "PSU-ID"},
		{"unknown PSU-ID", psuHeaders(uuid.NewString(), "s"), 401, "CONSENT_INVALID", ""},
		{"private user with PSU-Corporate-ID", append(psuHeaders(psuID, "s"), hdr("PSU-Corporate-ID", uuid.NewString())), 401, "CORPORATE_ID_INVALID", "PSU-Corporate-ID"},
		{"relative TPP-Redirect-URI", []reqOpt{hdr("TPP-Session-ID", "s"), hdr("TPP-Redirect-URI", "/cb")}, 400, "FORMAT_ERROR", "TPP-Redirect-URI"},
		{"valid", psuHeaders(psuID, "s"), 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.get("/v1/accounts", tt.opts...)
			require.Equal(t, tt.status, r.status, string(r.body))
			if tt.code != "" {
				code, at := r.problem(t)
				assert.Equal(t, tt.code, code)
				assert.Equal(t, tt.at, at)
			}
		})
	}
}

func TestCorporateSession(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Corporate AISP")
	sid := uuid.NewString()
	cb := c.consent(sid, func(href string) (*url.URL, error) {
		return s.Control().Authorize(t.Context(), href, CustomerFjordlys)
	})
	q := cb.Query()
	psuID, corp := q.Get("psu-id"), q.Get("psu-corporate-id")
	assert.Equal(t, "CORPORATE", q.Get("context"))
	_, err := uuid.Parse(corp)
	require.NoError(t, err, "psu-corporate-id is a UUID")

	// Without PSU-Corporate-ID: 400.
	r := c.get("/v1/accounts", psuHeaders(psuID, sid)...)
	require.Equal(t, http.StatusBadRequest, r.status)
	code, at := r.problem(t)
	assert.Equal(t, "HTTP_HEADER_REQUIRED", code)
	assert.Equal(t, "PSU-Corporate-ID", at)

	withCorp := func(id string) []reqOpt { return append(psuHeaders(psuID, sid), hdr("PSU-Corporate-ID", id)) }
	assert.Len(t, c.accountIDs(withCorp(corp)...), 2)
	r = c.get("/v1/accounts", withCorp(uuid.NewString())...)
	require.Equal(t, http.StatusUnauthorized, r.status)
	code, _ = r.problem(t)
	assert.Equal(t, "CORPORATE_ID_INVALID", code)

	// The agreements list needs no PSU-Corporate-ID.
	r = c.get("/v1/agreements", psuHeaders(psuID, sid)...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var ags struct {
		Agreements []struct{ ID, Name string } `json:"agreements"`
	}
	require.NoError(t, jsonUnmarshal(r.body, &ags))
	require.Len(t, ags.Agreements, 2)
	assert.Equal(t, corp, ags.Agreements[0].ID)
	second := ags.Agreements[1].ID

	// Choosing the other agreement starts a new consent flow.
	r = c.get("/v1/accounts", withCorp(second)...)
	require.Equal(t, http.StatusUnauthorized, r.status)
	href := r.scaRedirect(t)
	assert.Contains(t, href, "context=CORPORATE")
	cb, err = s.Control().AuthorizeCorporate(t.Context(), href, CustomerFjordlys, second)
	require.NoError(t, err)
	assert.Equal(t, second, cb.Query().Get("psu-corporate-id"))
	assert.Len(t, c.accountIDs(withCorp(second)...), 1)
	assert.Len(t, c.accountIDs(withCorp(corp)...), 2)
}

func TestUserEndpoint(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "PISP")
	opts := []reqOpt{hdr("TPP-Session-ID", "p1"), hdr("TPP-Redirect-URI", redirectURI)}
	r := c.get("/v1/user", opts...)
	require.Equal(t, http.StatusUnauthorized, r.status)
	cb, err := s.Control().Authorize(t.Context(), r.scaRedirect(t), CustomerTestfirma)
	require.NoError(t, err)
	psuID, corp := cb.Query().Get("psu-id"), cb.Query().Get("psu-corporate-id")
	require.NotEmpty(t, corp)

	withPSU := append(opts, hdr("PSU-ID", psuID), hdr("PSU-Corporate-ID", corp))
	r = c.get("/v1/user", withPSU...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, map[string]any{"psuId": psuID, "psuCorporateId": corp, "context": "CORPORATE"}, r.json(t))

	// A PISP's SCA gives no AIS consent.
	r = c.get("/v1/accounts", withPSU...)
	assert.Equal(t, http.StatusUnauthorized, r.status)

	clock.Add(61 * time.Minute)
	r = c.get("/v1/user", withPSU...)
	assert.Equal(t, http.StatusUnauthorized, r.status)
}

// nopWriter is a ResponseWriter for calling verify directly.
type nopWriter struct{}

func (nopWriter) Header() http.Header         { return http.Header{} }
func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (nopWriter) WriteHeader(int)             {}
