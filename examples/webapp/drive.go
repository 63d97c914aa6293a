package main

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/tppkit/psd2/examples/webapp/site"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// browser plays the PSU's browser against the site: it keeps the cookie,
// follows the site's own redirects and stops at the bank's SCA page,
// which the emulator's Authorize approves as the PSU would.
type browser struct {
	ctx  context.Context
	base string
	hc   *http.Client
	out  io.Writer
}

// page is one page the browser loaded.
type page struct {
	status int
	path   string
	loc    string // Location of a redirect to the bank
	html   string
	text   string
}

func newBrowser(ctx context.Context, base string, out io.Writer) (*browser, error) {
	app, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			if req.URL.Host != app.Host {
				return http.ErrUseLastResponse
			}
			return nil
		}}
	return &browser{ctx: ctx, base: base, hc: hc, out: out}, nil
}

func (b *browser) do(method, u string, form url.Values) (*page, error) {
	if !strings.HasPrefix(u, "http") {
		u = b.base + u
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(b.ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	p := &page{status: resp.StatusCode, path: resp.Request.URL.Path, loc: resp.Header.Get("Location"), html: string(raw), text: text(string(raw))}
	shown := p.text
	if p.loc != "" {
		shown = "redirect to the bank's SCA page"
	}
	if len(shown) > 110 {
		shown = shown[:110] + "…"
	}
	path := p.path
	if strings.HasPrefix(path, "/payments/") {
		path = "/payments/{ref}"
	}
	fmt.Fprintf(b.out, "%-4s %-16s %d  %s\n", method, path, p.status, shown)
	return p, nil
}

// approve approves the bank's SCA page the site redirected to and loads
// the callback.
func (b *browser) approve(bank *emulator.Server, p *page, customer string) (*page, error) {
	if p.status != http.StatusSeeOther || !strings.Contains(p.loc, "/tap-sandbox/") {
		return nil, fmt.Errorf("%s answered %d without the bank's SCA link", p.path, p.status)
	}
	cb, err := bank.Control().Authorize(b.ctx, p.loc, customer)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(b.out, "bank SCA page         approved as the PSU; back to %s\n", cb.Path)
	return b.do(http.MethodGet, cb.String(), nil)
}

var tokenRE = regexp.MustCompile(`name="token" value="([0-9a-f]{32})"`)

func token(p *page) string {
	if m := tokenRE.FindStringSubmatch(p.html); m != nil {
		return m[1]
	}
	return ""
}

// drive plays one PSU through connecting the bank and paying: accounts
// with balances and transactions, a form refused by the SDK's validation
// next to the field, the payment approved at the bank and followed to its
// final status. It fails unless each page showed what it should.
func drive(ctx context.Context, sb *site.Sandbox, out io.Writer) error {
	b, err := newBrowser(ctx, sb.URL, out)
	if err != nil {
		return err
	}
	expect := func(want ...string) func(p *page, err error) (*page, error) {
		return func(p *page, err error) (*page, error) {
			if err != nil {
				return nil, err
			}
			for _, w := range want {
				if !strings.Contains(p.text, w) {
					return nil, fmt.Errorf("%s shows %q, want %q", p.path, p.text, w)
				}
			}
			return p, nil
		}
	}

	if _, err := expect()(b.do(http.MethodGet, "/", nil)); err != nil {
		return err
	}
	p, err := b.do(http.MethodGet, "/connect", nil)
	if err != nil {
		return err
	}
	p, err = expect("Brukskonto", "Latest transactions")(b.approve(sb.Bank, p, emulator.CustomerKari))
	if err != nil {
		return err
	}
	if p.path != "/accounts" {
		return errors.New("after connecting, the accounts were not shown")
	}

	p, err = expect("Pay someone")(b.do(http.MethodGet, "/pay", nil))
	if err != nil {
		return err
	}
	form := url.Values{"amount": {"249,00"}, "creditorName": {"Nettbutikken AS"}, "creditorAccount": {"8601 11 17948"},
		"message": {"Order 2026-118"}, "debtorAccount": {"95312776066"}, "action": {"pay"}, "token": {token(p)}}
	p, err = expect("There is a problem with the payment", "Not a valid Norwegian account number")(b.do(http.MethodPost, "/pay", form))
	if err != nil {
		return err
	}
	form.Set("creditorAccount", "8601 11 17947")
	form.Set("token", token(p))
	p, err = b.do(http.MethodPost, "/pay", form)
	if err != nil {
		return err
	}
	if _, err := expect("Payment done", "249.00 NOK", "Nettbutikken AS")(b.approve(sb.Bank, p, emulator.CustomerKari)); err != nil {
		return err
	}
	return nil
}

var (
	tags   = regexp.MustCompile(`(?s)<head>.*?</head>|<[^>]*>`)
	spaces = regexp.MustCompile(`\s+`)
)

// text is what a page shows in its main part, on one line.
func text(page string) string {
	if _, main, ok := strings.Cut(page, "<main"); ok {
		page, _, _ = strings.Cut("<main"+main, "</main>")
	}
	page = tags.ReplaceAllString(page, " ")
	return strings.TrimSpace(spaces.ReplaceAllString(html.UnescapeString(page), " "))
}
