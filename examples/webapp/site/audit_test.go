package site

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator"
)

// A payment approved at the bank stays approved: the PSU starts a second
// approval of the same payment (the page's Approve button while the first
// SCA page is still open in another tab), approves one of them and
// cancels the other. The cancelled SCA must not mark the paid payment
// "Not approved ... nothing was paid", which invites the PSU to pay again.
func TestLateCancelKeepsApproval(t *testing.T) {
	t.Parallel()
	p := newPSU(t)
	form := p.identify()
	first := p.do(http.MethodPost, "/pay", payForm(tokenOf(t, form)))
	firstLink := p.bankLink(first)
	home := p.get("/")
	m := regexp.MustCompile(`href="(/payments/[0-9a-f]{32})"`).FindStringSubmatch(home.html)
	require.NotNil(t, m, home.html)
	payPath := m[1]
	page := p.get(payPath)
	require.Contains(t, page.html, "Waiting for your approval")
	second := p.do(http.MethodPost, payPath+"/approve", url.Values{"token": {tokenOf(t, page)}})
	done := p.get(p.approve(second, emulator.CustomerKari))
	require.Contains(t, done.html, "<h1>Payment done</h1>", done.html)

	cb, err := p.sb.Bank.Control().Reject(t.Context(), firstLink)
	require.NoError(t, err)
	late := p.get(cb.String())
	assert.NotContains(t, late.html, "was not made", "a paid payment is reported as not made")
	after := p.get(payPath)
	assert.Contains(t, after.html, "<h1>Payment done</h1>", "a paid payment is shown as not approved")
	assert.NotContains(t, after.html, "nothing was paid")
	home = p.get("/")
	assert.Contains(t, home.html, "<td>Paid</td>")
}

// An amount written with a thousands separator ("1,000" or "1.000", one
// thousand kroner) must not be read as 1.00 NOK: the form refuses a
// fraction of more digits than øre have, as it refuses "12.345".
func TestAmountWithThousandsSeparatorRefused(t *testing.T) {
	t.Parallel()
	p := newPSU(t)
	form := p.identify()
	for _, amount := range []string{"1,000", "1.000", "2.500", "10,0000"} {
		s := p.do(http.MethodPost, "/pay", payForm(tokenOf(t, form), set("amount", amount)))
		require.Equal(t, http.StatusUnprocessableEntity, s.status, "%s was taken as an amount: %s", amount, s.location)
		assert.Equal(t, "Write the amount in kroner and øre, for example 249.00.", fieldError(s.html, "amount"), amount)
		form = s
	}
	assert.Empty(t, p.sb.Bank.Control().Payments(), "nothing reached the bank")
}

// A client that sends a request's headers and then trickles (or never
// sends) its body must not hold a connection and a goroutine of the site
// for ever: the server has a read timeout for the whole request, not only
// for its headers.
func TestSlowBodyTimesOut(t *testing.T) {
	t.Parallel()
	sb, err := StartSandbox(SandboxOptions{readTimeout: time.Second})
	require.NoError(t, err)
	t.Cleanup(sb.Close)
	conn, err := net.Dial("tcp", strings.TrimPrefix(sb.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /pay HTTP/1.1\r\nHost: "+strings.TrimPrefix(sb.URL, "http://")+
		"\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\namount=1")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(15*time.Second)))
	start := time.Now()
	_, err = io.ReadAll(conn) // the server's answer, then its close
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server still holds a connection whose body never came after %s", time.Since(start).Round(time.Second))
	}
	assert.Less(t, time.Since(start), 10*time.Second)

	// An idle keep-alive connection is closed too.
	conn2, err := net.Dial("tcp", strings.TrimPrefix(sb.URL, "http://"))
	require.NoError(t, err)
	defer conn2.Close()
	_, err = io.WriteString(conn2, "GET /static/site.css HTTP/1.1\r\nHost: "+strings.TrimPrefix(sb.URL, "http://")+"\r\n\r\n")
	require.NoError(t, err)
	require.NoError(t, conn2.SetReadDeadline(time.Now().Add(15*time.Second)))
	_, err = io.ReadAll(conn2)
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the server keeps an idle connection open for ever")
	}
}
