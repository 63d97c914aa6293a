package site

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator"
)

// cookieOf returns the value of the site's cookie name in the browser's
// jar, "" when there is none.
func (p *psu) cookieOf(name string) string {
	p.t.Helper()
	u, err := url.Parse(p.sb.URL)
	require.NoError(p.t, err)
	for _, c := range p.hc.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// plant puts a cookie in the browser's jar, as a page of another site on
// the same host or a shared computer can.
func (p *psu) plant(name, value string) {
	p.t.Helper()
	u, err := url.Parse(p.sb.URL)
	require.NoError(p.t, err)
	p.hc.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}

// Session fixation: the attacker gets a cookie from the site and plants
// it in the victim's browser; she connects her bank. The attacker's copy
// of the cookie must read nothing of hers, and her browser goes on with a
// cookie the attacker does not know.
func TestPlantedCookieReadsNothing(t *testing.T) {
	t.Parallel()
	attacker := newPSU(t)
	attacker.get("/")
	planted := attacker.cookieOf(userCookie)
	require.NotEmpty(t, planted)

	victim := attacker.otherBrowser()
	victim.plant(userCookie, planted)
	mine := victim.get(victim.approve(victim.get("/connect"), emulator.CustomerKari))
	require.Equal(t, "/accounts", mine.path, mine.html)
	numbers := accountNumberRE.FindAllStringSubmatch(mine.html, -1)
	require.NotEmpty(t, numbers, mine.html)
	assert.NotEqual(t, planted, victim.cookieOf(userCookie), "a completed SCA renews the cookie")

	acc := attacker.get("/accounts")
	for _, n := range numbers {
		assert.NotContains(t, acc.html, n[1], "the planted cookie reads the victim's accounts")
	}
	assert.Equal(t, http.StatusSeeOther, acc.status, "the planted cookie has no session: SCA again")
	home := attacker.get("/")
	assert.NotContains(t, home.html, "Connected")

	// The victim's own browser still reads her accounts.
	again := victim.get("/accounts")
	assert.Equal(t, http.StatusOK, again.status)
	assert.Contains(t, again.html, numbers[0][1])
}

// A cookie value the site did not issue is refused: the browser gets a
// new one, standing for a new PSU, and the callback of an SCA is not
// completed for it.
func TestUnissuedCookieRefused(t *testing.T) {
	t.Parallel()
	p := newPSU(t)
	made := strings.Repeat("ab", 16)
	p.plant(userCookie, made)
	p.get("/")
	got := p.cookieOf(userCookie)
	assert.NotEqual(t, made, got, "a made-up cookie value was taken as the PSU's key")
	assert.Len(t, got, 32)

	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.AddCookie(&http.Cookie{Name: userCookie, Value: made})
	_, err := p.sb.Site.userKey(req)
	assert.ErrorIs(t, err, errNoUser)
	req = httptest.NewRequest(http.MethodGet, "/", nil)
	req.AddCookie(&http.Cookie{Name: userCookie, Value: got})
	key, err := p.sb.Site.userKey(req)
	require.NoError(t, err)
	assert.NotEqual(t, got, key, "the PSU's key is not the cookie's value")
}

// Over https the cookie is Secure and __Host- prefixed; a cookie of the
// http name is not read there.
func TestSecureCookie(t *testing.T) {
	t.Parallel()
	p := newPSU(t)
	serve := func(req *http.Request) *http.Cookie {
		rec := httptest.NewRecorder()
		p.sb.Site.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code)
		cs := rec.Result().Cookies()
		require.Len(t, cs, 1)
		return cs[0]
	}
	c := serve(httptest.NewRequest(http.MethodGet, "https://tpp.example/", nil))
	assert.Equal(t, secureUserCookie, c.Name)
	assert.True(t, c.Secure)
	assert.True(t, c.HttpOnly)
	assert.Equal(t, "/", c.Path)
	assert.Empty(t, c.Domain)

	// A cookie value issued over http is not read over https.
	plain := serve(httptest.NewRequest(http.MethodGet, "http://tpp.example/", nil))
	assert.Equal(t, userCookie, plain.Name)
	assert.False(t, plain.Secure)
	req := httptest.NewRequest(http.MethodGet, "https://tpp.example/", nil)
	req.AddCookie(plain)
	_, err := p.sb.Site.userKey(req)
	assert.ErrorIs(t, err, errNoUser)

	// Behind a TLS-terminating proxy, Config.Secure says so.
	site, err := New(Config{Client: p.sb.Site.c, Sessions: p.sb.Site.sessions, Secure: true})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	site.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://tpp.example/", nil))
	cs := rec.Result().Cookies()
	require.Len(t, cs, 1)
	assert.Equal(t, secureUserCookie, cs[0].Name)
	assert.True(t, cs[0].Secure)
}

// A payment the bank refuses shows the PSU a sentence, never the bank's
// text for developers ("Set allowLogicalDuplicate=true ...").
func TestBankRefusalInWords(t *testing.T) {
	t.Parallel()
	p := newPSU(t)
	form := p.identify()
	v := payForm(tokenOf(t, form), set("action", "basket"))
	first := p.do(http.MethodPost, "/pay", v)
	require.Equal(t, "/basket", first.path, first.html)
	v.Set("token", tokenOf(t, p.get("/pay")))
	s := p.do(http.MethodPost, "/pay", v)
	require.Equal(t, http.StatusUnprocessableEntity, s.status, s.html)
	assert.NotContains(t, s.html, "allowLogicalDuplicate")
	assert.NotContains(t, s.html, "logical duplicate")
	assert.Contains(t, s.html, "Your bank already has a payment like this one today")
	assert.Len(t, p.sb.Bank.Control().Payments(), 1)
}
