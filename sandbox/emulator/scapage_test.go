package emulator

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// scaPageText GETs an authorisation page and returns its status and HTML.
func scaPageText(t *testing.T, s *Server, href string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, href, nil)
	require.NoError(t, err)
	resp, err := s.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// TestSCAPageShowsWhatIsAuthorised: the page names what the PSU approves
// for each kind of SCA, and the method and app flow the TPP asked for.
func TestSCAPageShowsWhatIsAuthorised(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Nettbutikken AS")

	t.Run("consent", func(t *testing.T) {
		r := c.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", "page-1"), hdr("TPP-Redirect-URI", redirectURI))
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		status, page := scaPageText(t, s, r.scaRedirect(t))
		assert.Equal(t, http.StatusOK, status)
		assert.Contains(t, page, `<html lang="en">`)
		assert.Contains(t, page, "<h1>Share account information</h1>")
		assert.Contains(t, page, "<strong>Nettbutikken AS</strong> asks you to approve")
		assert.Contains(t, page, "their balances and their transactions, for 90 days")
		assert.Contains(t, page, "Method: customer number (sandbox).")
		assert.Contains(t, page, `<label for="customerNumber">`)
		assert.Contains(t, page, `value="approve"`)
		assert.Contains(t, page, `value="cancel" formnovalidate`)
	})

	t.Run("user", func(t *testing.T) {
		r := c.get("/v1/user", hdr("TPP-Session-ID", "page-2"), hdr("X-PSU-IDENTITY", CustomerOla))
		require.Equal(t, http.StatusUnauthorized, r.status, string(r.body))
		_, page := scaPageText(t, s, r.scaRedirect(t))
		assert.Contains(t, page, "<h1>Identify yourself</h1>")
		assert.Contains(t, page, "so that it can initiate payments for you")
		assert.Contains(t, page, `value="`+CustomerOla+`"`, "X-PSU-IDENTITY preselects the PSU")
	})

	t.Run("payment with method and app flow", func(t *testing.T) {
		got := c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, external, "42.50"),
			hdr("X-PSU-AuthMethod-Preferred", "BANKID_MOBIL"), hdr("TPP-Redirect-Preferred", "false"))
		_, page := scaPageText(t, s, got.Links["scaRedirect"].Href)
		assert.Contains(t, page, "<h1>Approve payment</h1>")
		assert.Contains(t, page, `<dd class="amount">42.50 NOK</dd>`)
		assert.Contains(t, page, "<dd>Ola Eksempel</dd>")
		assert.Contains(t, page, "<dd>"+external+"</dd>")
		assert.Contains(t, page, "<dd>"+kariBruk+"</dd>")
		assert.Contains(t, page, "Method: <strong>BankID on mobile</strong>, as Nettbutikken AS asked.")
		assert.Contains(t, page, "asked for the Testbank app")

		// A method the interface does not list is refused (docs/interface.md
		// section 5.11); starting the authorisation again with a listed one
		// names the same payment.
		r := c.do(http.MethodPost, got.Links["startAuthorisation"].Href, nil, c.payHeaders(hdr("X-PSU-AuthMethod-Preferred", "FINGER_PAINT"))...)
		require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
		assert.Contains(t, string(r.body), `"code":"FORMAT_ERROR","path":"X-PSU-AuthMethod-Preferred"`)
		r = c.do(http.MethodPost, got.Links["startAuthorisation"].Href, nil, c.payHeaders(hdr("X-PSU-AuthMethod-Preferred", "HA2"))...)
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		_, page = scaPageText(t, s, r.scaRedirect(t))
		assert.Contains(t, page, `<dd class="amount">42.50 NOK</dd>`)
		assert.Contains(t, page, "Method: <strong>HA2 (code device or SMS)</strong>")
		assert.NotContains(t, page, "asked for the Testbank app")
	})

	t.Run("basket", func(t *testing.T) {
		ids, _ := c.newPayments(3)
		r := c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids...), c.basketHeaders()...)
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		_, page := scaPageText(t, s, r.scaRedirect(t))
		assert.Contains(t, page, "<h1>Approve 3 payments</h1>")
		assert.Equal(t, 3, strings.Count(page, `<dl class="payment">`))
		byID := map[string]Payment{}
		for _, p := range s.Control().Payments() {
			byID[p.ID] = p
		}
		total := decimal.Zero
		for _, id := range ids {
			assert.Contains(t, page, `<dd class="amount">`+byID[id].Amount.String()+`</dd>`)
			total = total.Add(byID[id].Amount.Value)
		}
		want, err := money.New(total, byID[ids[0]].Amount.Currency)
		require.NoError(t, err)
		assert.Contains(t, page, "Total: <strong>"+want.String()+"</strong>")
	})
}

// TestSCAPageEscapes: text from the TPP reaches the page escaped.
func TestSCAPageEscapes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, `<script>alert("x")</script> & Co`)
	r := c.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", "esc"), hdr("TPP-Redirect-URI", redirectURI),
		hdr("X-PSU-IDENTITY", `" autofocus onfocus="x`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	_, page := scaPageText(t, s, r.scaRedirect(t))
	assert.NotContains(t, page, "<script>")
	assert.NotContains(t, page, `" autofocus`)
	assert.Contains(t, page, "&lt;script&gt;")
}

// TestSCAPageCancelAfterShowing: a PSU who saw the page and pressed
// cancel comes back with the failed-SCA redirect; Authorize of the same
// link then fails as completed.
func TestSCAPageCancelAfterShowing(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Canceller")
	got := c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, external, "17.00"))
	href := got.Links["scaRedirect"].Href
	status, _ := scaPageText(t, s, href)
	require.Equal(t, http.StatusOK, status)
	state, err := stateOf(href)
	require.NoError(t, err)

	hc := s.Client()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.PostForm(strings.Split(href, "?")[0], url.Values{"state": {state}, "action": {"cancel"}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	assert.Equal(t, "SCA_INVALID", loc.Query().Get("code"))
	assert.Equal(t, "401", loc.Query().Get("status"))
	assert.Equal(t, "The authentication was cancelled by the user", loc.Query().Get("message"))

	_, err = s.Control().Authorize(t.Context(), href, CustomerKari)
	assert.ErrorIs(t, err, ErrAuthorisationUnknown)
	status, page := scaPageText(t, s, href)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, page, "unknown or already completed")
}
