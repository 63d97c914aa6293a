// Command webapp serves the example TPP web site (package
// examples/webapp/site of the core module) with the otel module's
// Observer on its client, and the SDK's metrics on /metrics of the same
// server, through OpenTelemetry's Prometheus exporter, against the
// embedded bank sandbox.
//
// Without flags it connects the bank once as a PSU would (the site's
// /connect, the bank's SCA page approved as the sandbox customer
// 13039319955, the accounts page), prints the psd2 lines of one scrape of
// /metrics and exits; with -serve it keeps serving the site and /metrics
// for a person and a Prometheus server:
//
//	go run ./webapp -serve -addr 127.0.0.1:8080
//	curl -s 127.0.0.1:8080/metrics | grep psd2_
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/examples/webapp/site"
	"github.com/tppkit/psd2/otel/examples/metrics/promexp"
	"github.com/tppkit/psd2/sandbox/emulator"
)

func main() {
	serve := flag.Bool("serve", false, "keep serving the site and /metrics instead of connecting once")
	addr := flag.String("addr", "127.0.0.1:0", "listen address of the site and /metrics (loopback)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := run(ctx, os.Stdout, *addr, *serve, ""); err != nil {
		log.Fatal(err)
	}
}

// run starts the bank sandbox and the site with /metrics on addr; then it
// serves until ctx ends (serve) or connects the bank once as a browser
// sending userAgent would and prints the psd2 lines of a scrape, which it
// returns whole.
func run(ctx context.Context, out io.Writer, addr string, serve bool, userAgent string) (string, error) {
	pe, err := promexp.New()
	if err != nil {
		return "", err
	}
	defer func() { _ = pe.Close() }()
	sb, err := site.StartSandbox(site.SandboxOptions{Addr: addr,
		ClientOptions: []client.Option{client.WithObserver(pe.Observer)},
		Routes:        map[string]http.Handler{"GET /metrics": pe.Handler}})
	if err != nil {
		return "", err
	}
	defer sb.Close()
	if serve {
		fmt.Fprintf(out, "TPP web app on %s/ and its metrics on %s/metrics (bank sandbox at %s)\n", sb.URL, sb.URL, sb.Bank.URL)
		return "", sb.Wait(ctx)
	}
	hc, err := browser(sb.URL, userAgent)
	if err != nil {
		return "", err
	}
	if err := connect(ctx, hc, sb); err != nil {
		return "", err
	}
	return promexp.Scrape(ctx, hc, out, sb.URL+"/metrics")
}

// browser returns an http.Client that keeps the site's cookie, follows the
// site's own redirects but not those to the bank, and sends userAgent
// (when set) as a browser would.
func browser(base, userAgent string) (*http.Client, error) {
	app, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: agent{userAgent},
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			if req.URL.Host != app.Host {
				return http.ErrUseLastResponse
			}
			return nil
		}}, nil
}

// agent sets the User-Agent of every request.
type agent struct{ name string }

func (a agent) RoundTrip(r *http.Request) (*http.Response, error) {
	if a.name != "" {
		r = r.Clone(r.Context())
		r.Header.Set("User-Agent", a.name)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connect plays the PSU connecting the bank: the site's /connect sends
// the browser to the bank's SCA page, approved as the sandbox customer
// Kari, whose callback leads to the accounts page.
func connect(ctx context.Context, hc *http.Client, sb *site.Sandbox) error {
	resp, err := get(ctx, hc, sb.URL+"/connect")
	if err != nil {
		return err
	}
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || loc == "" {
		return fmt.Errorf("/connect answered %d without the bank's SCA link", resp.StatusCode)
	}
	cb, err := sb.Bank.Control().Authorize(ctx, loc, emulator.CustomerKari)
	if err != nil {
		return err
	}
	resp, err = get(ctx, hc, cb.String())
	if err != nil {
		return err
	}
	if resp.Request.URL.Path != "/accounts" || !strings.Contains(resp.body, "Brukskonto") {
		return errors.New("after connecting, the site did not show the accounts")
	}
	return nil
}

type page struct {
	*http.Response
	body string
}

func get(ctx context.Context, hc *http.Client, u string) (*page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return &page{Response: resp, body: string(b)}, err
}
