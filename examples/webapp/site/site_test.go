package site

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// psu is a browser without JavaScript: it keeps the cookie, follows the
// site's redirects and stops at the bank's SCA page.
type psu struct {
	t  *testing.T
	sb *Sandbox
	hc *http.Client
}

type shown struct {
	status   int
	path     string
	location string
	html     string
}

func newPSU(t *testing.T) *psu {
	t.Helper()
	sb, err := StartSandbox(SandboxOptions{BatchEvery: 50 * time.Millisecond, WaitTimeout: 5 * time.Second,
		PollMin: 10 * time.Millisecond, PollMax: 50 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(sb.Close)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if !strings.HasPrefix(req.URL.String(), sb.URL) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	return &psu{t: t, sb: sb, hc: hc}
}

func (p *psu) do(method, u string, form url.Values, hdr ...string) shown {
	p.t.Helper()
	if !strings.HasPrefix(u, "http") {
		u = p.sb.URL + u
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(p.t.Context(), method, u, body)
	require.NoError(p.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := p.hc.Do(req)
	require.NoError(p.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(p.t, err)
	return shown{status: resp.StatusCode, path: resp.Request.URL.Path, location: resp.Header.Get("Location"), html: string(b)}
}

func (p *psu) get(u string) shown { return p.do(http.MethodGet, u, nil) }

// bankLink returns the bank's SCA link a redirect of the site points to.
func (p *psu) bankLink(s shown) string {
	p.t.Helper()
	require.Equal(p.t, http.StatusSeeOther, s.status, s.html)
	require.Contains(p.t, s.location, "/tap-sandbox/")
	return s.location
}

// approve approves the SCA of the site's redirect s as customer and
// returns the callback URL (not loaded).
func (p *psu) approve(s shown, customer string) string {
	p.t.Helper()
	cb, err := p.sb.Bank.Control().Authorize(p.t.Context(), p.bankLink(s), customer)
	require.NoError(p.t, err)
	return cb.String()
}

// identify runs GET /v1/user's SCA as Kari and returns the payment form.
func (p *psu) identify() shown {
	p.t.Helper()
	s := p.get(p.approve(p.get("/identify"), emulator.CustomerKari))
	require.Equal(p.t, "/pay", s.path)
	return s
}

var tokenRE = regexp.MustCompile(`name="token" value="([0-9a-f]{32})"`)

func tokenOf(t *testing.T, s shown) string {
	t.Helper()
	m := tokenRE.FindStringSubmatch(s.html)
	require.NotNil(t, m, "no form token on %s", s.path)
	return m[1]
}

func payForm(token string, edit ...func(url.Values)) url.Values {
	v := url.Values{"amount": {"10.00"}, "creditorName": {"Nettbutikken AS"}, "creditorAccount": {"86011117947"},
		"message": {"Order 1"}, "debtorAccount": {"95312776066"}, "action": {"pay"}, "token": {token}}
	for _, e := range edit {
		e(v)
	}
	return v
}

func set(k, v string) func(url.Values) { return func(f url.Values) { f.Set(k, v) } }

// fieldError returns the error shown next to the form field, "" for none.
func fieldError(html, field string) string {
	re := regexp.MustCompile(`<span class="error" id="` + field + `-error">([^<]*)</span>`)
	if m := re.FindStringSubmatch(html); m != nil {
		return m[1]
	}
	return ""
}

func TestPayFormValidation(t *testing.T) {
	t.Parallel()
	p := newPSU(t)
	form := p.identify()
	tests := []struct {
		name string
		edit []func(url.Values)
		want map[string]string // field -> error text (HTML-escaped)
	}{
		{"empty", []func(url.Values){set("amount", ""), set("creditorName", ""), set("creditorAccount", ""), set("message", "")},
			map[string]string{"amount": "Enter the amount.", "creditorName": "Required.", "creditorAccount": "Required."}},
		{"amount with too many decimals", []func(url.Values){set("amount", "12.345")},
			map[string]string{"amount": "Write the amount in kroner and øre, for example 249.00."}},
		{"zero", []func(url.Values){set("amount", "0")},
			map[string]string{"amount": "Must be greater than zero."}},
		{"check digit", []func(url.Values){set("creditorAccount", "8601 11 17948")},
			map[string]string{"creditorAccount": "Not a valid Norwegian account number (MOD-11 check digit)."}},
		{"bad KID", []func(url.Values){set("message", ""), set("kid", "1234567890")},
			map[string]string{"kid": "Not a valid KID: check digit mismatch."}},
		{"message and KID", []func(url.Values){set("kid", "1234567897")},
			map[string]string{"kid": "Give a message or a KID, not both."}},
		{"emoji", []func(url.Values){set("creditorName", "Kafé ☕")},
			map[string]string{"creditorName": "Holds U&#43;2615, a character the bank cannot process"}},
	}
	for _, tt := range tests {
		s := p.do(http.MethodPost, "/pay", payForm(tokenOf(t, form), tt.edit...))
		require.Equal(t, http.StatusUnprocessableEntity, s.status, tt.name)
		assert.Contains(t, s.html, `role="alert"`, tt.name)
		for _, f := range formFields {
			got := fieldError(s.html, f.name)
			if want, ok := tt.want[f.name]; ok {
				assert.True(t, strings.HasPrefix(got, want), "%s: %s shows %q, want %q", tt.name, f.name, got, want)
				assert.Regexp(t, `id="`+f.name+`"[^>]*aria-describedby="[^"]*`+f.name+`-error" aria-invalid="true"`, s.html, "%s: %s", tt.name, f.name)
			} else {
				assert.Empty(t, got, "%s: %s", tt.name, f.name)
			}
		}
		form = s // the page carries a fresh token
	}
	assert.Empty(t, p.sb.Bank.Control().Payments(), "nothing reached the bank")
}

func TestPaymentToFinalStatus(t *testing.T) {
	t.Parallel()
	p := newPSU(t)
	form := p.identify()
	sent := p.do(http.MethodPost, "/pay", payForm(tokenOf(t, form), set("message", ""), set("kid", "1234 5678 97"),
		set("method", "BANKID_MOBIL"), set("app", "1")))
	// The bank's page names the payment, the method and the app flow the
	// site asked for.
	resp, err := p.sb.Bank.Client().Get(p.bankLink(sent))
	require.NoError(t, err)
	bankPage, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(bankPage), `<dd class="amount">10.00 NOK</dd>`)
	assert.Contains(t, string(bankPage), "Method: <strong>BankID on mobile</strong>, as Example TPP asked.")
	assert.Contains(t, string(bankPage), "Example TPP asked for the Testbank app")
	s := p.get(p.approve(sent, emulator.CustomerKari))
	require.Equal(t, http.StatusOK, s.status)
	assert.Contains(t, s.html, "<h1>Payment done</h1>")
	assert.Contains(t, s.html, "<dd>1234567897</dd>")
	assert.Contains(t, s.html, "<dd>ACSC</dd>")
	assert.NotContains(t, s.html, `http-equiv="refresh"`)
	home := p.get("/")
	assert.Contains(t, home.html, "<td>Paid</td>")
}

func TestCallbackFailures(t *testing.T) {
	t.Parallel()
	p := newPSU(t)
	form := p.identify()

	// Cancel: a sentence about the failed-SCA redirect's code, with its
	// code and status.
	s := p.do(http.MethodPost, "/pay", payForm(tokenOf(t, form), set("amount", "77,50")))
	cb, err := p.sb.Bank.Control().Reject(t.Context(), p.bankLink(s))
	require.NoError(t, err)
	s = p.get(cb.String())
	assert.Equal(t, http.StatusOK, s.status)
	assert.Contains(t, s.html, "Your payment of 77.50 NOK to Nettbutikken AS was not made.")
	assert.Contains(t, s.html, "The approval was cancelled at your bank, or it did not succeed.")
	assert.NotContains(t, s.html, "cancelled by the user", "the bank's message is for developers")
	assert.Contains(t, s.html, "<dd>SCA_INVALID</dd>")
	assert.Contains(t, s.html, "<dd>401</dd>")
	// The payment can be approved again from its page.
	pay := p.get(regexp.MustCompile(`href="(/payments/[0-9a-f]{32})"`).FindStringSubmatch(s.html)[1])
	assert.Contains(t, pay.html, "<h1>Payment not approved</h1>")
	again := p.do(http.MethodPost, pay.path+"/approve", url.Values{"token": {tokenOf(t, pay)}})
	s = p.get(p.approve(again, emulator.CustomerKari))
	assert.Contains(t, s.html, "<h1>Payment done</h1>")

	// Replayed: the callback of the completed SCA again.
	replayed := p.get(cb.String())
	assert.Equal(t, http.StatusBadRequest, replayed.status)
	assert.Contains(t, replayed.html, "This link cannot be used")

	// Forged: a made-up state.
	u, err := url.Parse(cb.String())
	require.NoError(t, err)
	q := u.Query()
	q.Set("state", "forged")
	u.RawQuery = q.Encode()
	forged := p.get(u.String())
	assert.Equal(t, http.StatusBadRequest, forged.status)
	assert.Contains(t, forged.html, "Nothing was changed.")

	// Unknown customer number at the bank: PSU_CREDENTIALS_INVALID.
	cb, err = p.sb.Bank.Control().Authorize(t.Context(), p.bankLink(p.get("/connect")), "00000000000")
	require.ErrorIs(t, err, emulator.ErrSCAFailed)
	s = p.get(cb.String())
	assert.Contains(t, s.html, "Your bank was not connected.")
	assert.Contains(t, s.html, "<dd>PSU_CREDENTIALS_INVALID</dd>")
	assert.Contains(t, s.html, "Your bank did not recognise you.")
}

func TestFormTokens(t *testing.T) {
	t.Parallel()
	p := newPSU(t)
	form := p.identify()
	v := payForm(tokenOf(t, form), set("action", "basket"))
	first := p.do(http.MethodPost, "/pay", v)
	assert.Equal(t, "/basket", first.path)
	second := p.do(http.MethodPost, "/pay", v)
	assert.Equal(t, http.StatusConflict, second.status)
	assert.Contains(t, second.html, "This form was already sent")
	assert.Len(t, p.sb.Bank.Control().Payments(), 1, "a double submit creates one payment")

	crossSite := p.do(http.MethodPost, "/pay", payForm(tokenOf(t, p.get("/pay"))), "Sec-Fetch-Site", "cross-site")
	assert.Equal(t, http.StatusForbidden, crossSite.status)
	otherOrigin := p.do(http.MethodPost, "/pay", payForm(tokenOf(t, p.get("/pay"))), "Origin", "http://evil.example")
	assert.Equal(t, http.StatusForbidden, otherOrigin.status)
	assert.Len(t, p.sb.Bank.Control().Payments(), 1)
}

func TestCorporateAgreement(t *testing.T) {
	t.Parallel()
	p := newPSU(t)
	cb, err := p.sb.Bank.Control().AuthorizeCorporate(t.Context(), p.bankLink(p.get("/connect")), emulator.CustomerFjordlys, "")
	require.NoError(t, err)
	s := p.get(cb.String())
	require.Equal(t, "/accounts", s.path)
	assert.Contains(t, s.html, "Company agreement: <strong>Fjordlys Bakeri AS</strong>")
	assert.Equal(t, 2, strings.Count(s.html, "<section"))

	company := p.get("/company")
	m := regexp.MustCompile(`value="([0-9a-f-]{36})"> <label for="ag-2"[^>]*>Fjordlys Bakeri AS avdeling Nord<`).FindStringSubmatch(company.html)
	require.NotNil(t, m, company.html)
	s = p.do(http.MethodPost, "/company", url.Values{"token": {tokenOf(t, company)}, "agreement": {m[1]}})
	// The new agreement needs its own consent: the bank's page, with the
	// agreement preselected.
	link := p.bankLink(s)
	bankPage, err := p.sb.Bank.Client().Get(link)
	require.NoError(t, err)
	b, _ := io.ReadAll(bankPage.Body)
	bankPage.Body.Close()
	assert.Contains(t, string(b), `value="`+m[1]+`"`)
	cb, err = p.sb.Bank.Control().AuthorizeCorporate(t.Context(), link, emulator.CustomerFjordlys, m[1])
	require.NoError(t, err)
	s = p.get(cb.String())
	assert.Contains(t, s.html, "Company agreement: <strong>Fjordlys Bakeri AS avdeling Nord</strong>")
	assert.Equal(t, 1, strings.Count(s.html, "<section"))
}

func TestFieldOf(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"instructedAmount.amount": "amount", "instructedAmount": "amount", "creditorName": "creditorName",
		"creditorAccount.bban": "creditorAccount", "debtorAccount": "debtorAccount",
		"remittanceInformationUnstructured": "message", "remittanceInformationStructuredArray[0].reference": "kid",
		"creditorAddress.country": "", "": "",
	} {
		assert.Equal(t, want, fieldOf(path), path)
	}
	joined := fmt.Errorf("payments.CreateNorwegianDomestic: %w", errors.Join(
		&client.ValidationError{Field: "creditorName", Reason: "required"},
		&client.ValidationError{Field: "creditorAccount.bban", Reason: "required"}))
	got := validationErrors(joined)
	require.Len(t, got, 2)
	assert.Equal(t, "creditorAccount.bban", got[1].Field)
	assert.Equal(t, "Required.", sentence("required"))
}

// TestPaymentJournaled: the site's payment create goes through a journal
// in its store, recorded as created once the bank answered, so that one
// whose outcome is unknown would stay in doubt there, never be sent
// blindly again. The site had no journal: its store held no entry.
func TestPaymentJournaled(t *testing.T) {
	t.Parallel()
	p := newPSU(t)
	form := p.identify()
	p.bankLink(p.do(http.MethodPost, "/pay", payForm(tokenOf(t, form))))
	jr, err := journal.New(p.sb.Site.st)
	require.NoError(t, err)
	var outcomes []journal.Outcome
	for e, err := range jr.Entries(t.Context()) {
		require.NoError(t, err)
		outcomes = append(outcomes, e.Outcome)
	}
	assert.Equal(t, []journal.Outcome{journal.OutcomeCreated}, outcomes)
	for _, err := range jr.InDoubt(t.Context()) {
		require.NoError(t, err)
		t.Error("a create in doubt")
	}
}
