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

	"github.com/tppkit/psd2/sandbox/emulator"
)

// drive plays the PSU's browser once: home page, "Connect your bank", the
// bank's SCA page (approved with the emulator's Authorize, as a PSU typing
// the customer number would), the callback, and the accounts page. It
// prints what each page showed and fails unless the accounts were shown.
func drive(ctx context.Context, base string, bank *emulator.Server, out io.Writer) error {
	app, err := url.Parse(base)
	if err != nil {
		return err
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return err
	}
	browser := &http.Client{
		Jar:     jar,
		Timeout: 30 * time.Second,
		// Follow the app's own redirects; stop at the bank's SCA page.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Host != app.Host {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
	get := func(u string) (*http.Response, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, "", err
		}
		resp, err := browser.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp, text(string(body)), err
	}

	resp, shown, err := get(base + "/")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "GET /            %d  %s\n", resp.StatusCode, shown)
	if !strings.Contains(shown, "Connect your bank") {
		return errors.New("the home page offers no connect link")
	}

	resp, _, err = get(base + "/connect")
	if err != nil {
		return err
	}
	link := resp.Header.Get("Location")
	fmt.Fprintf(out, "GET /connect     %d  redirect to the bank's SCA page\n", resp.StatusCode)
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(link, "/tap-sandbox/") {
		return fmt.Errorf("connect answered %d without the bank's SCA link", resp.StatusCode)
	}

	callback, err := bank.Authorize(ctx, link, emulator.CustomerKari)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "bank SCA page         approved; the bank redirects to %s\n", callback.Path)

	resp, shown, err = get(callback.String())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "GET %-12s %d  %s\n", resp.Request.URL.Path, resp.StatusCode, shown)
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/accounts" || !strings.Contains(shown, "Brukskonto") {
		return fmt.Errorf("after the callback the app showed %q", shown)
	}

	// A second visit goes straight to the accounts: the session holds.
	resp, _, err = get(base + "/")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "GET /            %d  back at home: redirected to %s\n", resp.StatusCode, resp.Request.URL.Path)
	if resp.Request.URL.Path != "/accounts" {
		return errors.New("the session was not kept")
	}
	return nil
}

var (
	tags   = regexp.MustCompile(`<[^>]*>`)
	spaces = regexp.MustCompile(`\s+`)
)

// text is what a page shows, on one line.
func text(page string) string {
	if _, body, ok := strings.Cut(page, "<body>"); ok {
		page = body
	}
	page = tags.ReplaceAllString(page, " ")
	return strings.TrimSpace(spaces.ReplaceAllString(html.UnescapeString(page), " "))
}
