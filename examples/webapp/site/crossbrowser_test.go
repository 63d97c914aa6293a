package site

import (
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator"
)

// otherBrowser is a second browser, with a cookie jar of its own, on the
// same site.
func (p *psu) otherBrowser() *psu {
	p.t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(p.t, err)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: p.hc.CheckRedirect}
	return &psu{t: p.t, sb: p.sb, hc: hc}
}

// key returns the PSU's key the site keeps for the browser's cookie.
func (p *psu) key() string {
	p.t.Helper()
	req, err := http.NewRequestWithContext(p.t.Context(), http.MethodGet, p.sb.URL, nil)
	require.NoError(p.t, err)
	for _, c := range p.hc.Jar.Cookies(req.URL) {
		req.AddCookie(c)
	}
	key, err := p.sb.Site.userKey(req)
	require.NoError(p.t, err, "no cookie the site issued")
	return key
}

var accountNumberRE = regexp.MustCompile(`<dt>Account number</dt><dd>([^<]+)</dd>`)

// The attacker starts /connect in their browser and sends the bank's SCA
// link to the victim, who approves it at the bank as herself; her
// browser brings the callback. The site must not connect her accounts to
// the attacker's session: she gets the wrong-browser page, the attacker
// sees no account of hers, and her own session still holds.
func TestCallbackFromAnotherBrowser(t *testing.T) {
	t.Parallel()
	attacker := newPSU(t)
	victim := attacker.otherBrowser()

	// The victim has connected her bank at the site before.
	mine := victim.get(victim.approve(victim.get("/connect"), emulator.CustomerKari))
	require.Equal(t, "/accounts", mine.path, mine.html)
	numbers := accountNumberRE.FindAllStringSubmatch(mine.html, -1)
	require.NotEmpty(t, numbers, mine.html)
	before, err := attacker.sb.Site.sessions.Session(t.Context(), victim.key())
	require.NoError(t, err)

	attacker.get("/")
	link := attacker.bankLink(attacker.get("/connect"))
	cb, err := attacker.sb.Bank.Control().Authorize(t.Context(), link, emulator.CustomerKari)
	require.NoError(t, err)

	s := victim.get(cb.String())
	assert.Equal(t, http.StatusForbidden, s.status, s.path)
	assert.Equal(t, "/callback", s.path)
	assert.Contains(t, s.html, "started in another browser")
	assert.Contains(t, s.html, "Nothing was changed.")

	// The attacker's browser is not connected: /accounts sends it to the
	// bank, and no account number of the victim's shows.
	acc := attacker.get("/accounts")
	for _, n := range numbers {
		assert.NotContains(t, acc.html, n[1])
	}
	assert.Equal(t, http.StatusSeeOther, acc.status, "the attacker has no session: SCA again")
	assert.True(t, strings.Contains(acc.location, "/tap-sandbox/"), acc.location)

	// The callback is used up: not even the attacker's browser completes it.
	replay := attacker.get(cb.String())
	assert.Equal(t, http.StatusBadRequest, replay.status)
	acc = attacker.get("/accounts")
	assert.Equal(t, http.StatusSeeOther, acc.status)

	// The victim's own session is untouched at the site. (The bank itself
	// ended her old TPP-Session-ID when she approved the new one, so her
	// next account call may ask for SCA again; it never shows another
	// PSU's accounts.)
	after, err := attacker.sb.Site.sessions.Session(t.Context(), victim.key())
	require.NoError(t, err)
	assert.Equal(t, before.TPPSessionID, after.TPPSessionID)
	assert.Equal(t, before.PSUID, after.PSUID)
	assert.True(t, before.ConsentExpiresAt().Equal(after.ConsentExpiresAt()))

	// A browser with no cookie at all is refused the same way.
	link = attacker.bankLink(attacker.get("/connect"))
	cb, err = attacker.sb.Bank.Control().Authorize(t.Context(), link, emulator.CustomerKari)
	require.NoError(t, err)
	fresh := attacker.otherBrowser()
	s = fresh.get(cb.String())
	assert.Equal(t, http.StatusForbidden, s.status)
	assert.Contains(t, s.html, "started in another browser")
	acc = attacker.get("/accounts")
	assert.Equal(t, http.StatusSeeOther, acc.status)
}
