package site

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// Defaults of [Config].
const (
	// DefaultWaitTimeout is how long a status page waits for the bank
	// before it answers.
	DefaultWaitTimeout = 3 * time.Second
	// DefaultRefresh is how soon a status page that is not final asks
	// the browser to load it again.
	DefaultRefresh = 2 * time.Second
)

// Config is what [New] needs. Client and Sessions are required.
type Config struct {
	// Client is the TPP's client for the bank. Its clock is the site's.
	Client *client.Client
	// Sessions keeps the PSUs' sessions and pending SCAs; its Flow's
	// redirect URI must lead to the site's /callback. The site keeps its
	// own records (payments, baskets, form tokens) in the same store.
	Sessions *sca.Manager
	// WaitTimeout bounds how long a status page waits for a final status
	// (payments.Service.Wait) before it answers; DefaultWaitTimeout when
	// zero.
	WaitTimeout time.Duration
	// Refresh is the delay of the status page's <meta http-equiv=refresh>
	// while the payment is not final; DefaultRefresh when zero. Whole
	// seconds, at least one.
	Refresh time.Duration
	// PollMin and PollMax are the status polling delays of
	// payments.WithPolling; the payments package's defaults when zero.
	PollMin, PollMax time.Duration
	// Secure says the site is served over https, through a proxy that
	// terminates TLS: the user cookie is then Secure and named
	// "__Host-tpp_user", as it is for a request that reached the site over
	// TLS itself.
	Secure bool
	// Logger receives the site's errors (the SDK's errors carry no PSU
	// data); nothing is logged when nil.
	Logger *slog.Logger
}

// Site is the TPP's web application. It is an http.Handler.
type Site struct {
	c        *client.Client
	ais      *accounts.Service
	pis      *payments.Service
	baskets  *basket.Service
	sessions *sca.Manager
	st       store.Store
	log      *slog.Logger
	https    bool
	wait     time.Duration
	refresh  int // seconds
	pages    map[string]*template.Template
	mux      *http.ServeMux
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New returns the site for cfg.
func New(cfg Config) (*Site, error) {
	if cfg.Client == nil || cfg.Sessions == nil {
		return nil, errors.New("site: New needs a Client and Sessions")
	}
	if cfg.WaitTimeout < 0 || cfg.Refresh < 0 {
		return nil, errors.New("site: negative WaitTimeout or Refresh")
	}
	s := &Site{
		c: cfg.Client, sessions: cfg.Sessions, st: cfg.Sessions.Store(), log: cfg.Logger, https: cfg.Secure,
		wait: cfg.WaitTimeout, refresh: int(cfg.Refresh / time.Second),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.wait == 0 {
		s.wait = DefaultWaitTimeout
	}
	if cfg.Refresh == 0 {
		s.refresh = int(DefaultRefresh / time.Second)
	}
	if s.refresh < 1 {
		s.refresh = 1
	}
	var err error
	if s.ais, err = accounts.New(cfg.Client); err != nil {
		return nil, err
	}
	// Every payment and basket create is journaled in the sessions'
	// store before it is sent: one whose outcome is unknown stays in
	// doubt there until psd2 journal resolve (journal.Journal.Resolve)
	// finds out whether the bank has it; it is never sent blindly again.
	jr, err := journal.New(s.st, journal.WithClient(cfg.Client))
	if err != nil {
		return nil, err
	}
	popts := []payments.Option{payments.WithJournal(jr)}
	if cfg.PollMin > 0 || cfg.PollMax > 0 {
		popts = append(popts, payments.WithPolling(cfg.PollMin, cfg.PollMax))
	}
	if s.pis, err = payments.New(cfg.Client, popts...); err != nil {
		return nil, err
	}
	if s.baskets, err = basket.New(cfg.Client, basket.WithJournal(jr)); err != nil {
		return nil, err
	}
	if s.pages, err = parsePages(); err != nil {
		return nil, err
	}
	s.mux = s.routes()
	return s, nil
}

// ServeHTTP serves the site's pages.
func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if r.Method == http.MethodPost && !sameOrigin(r) {
		s.message(w, r, http.StatusForbidden, messagePage{Heading: "Request refused", Problem: true,
			Text: "This form was sent from another site."})
		return
	}
	s.mux.ServeHTTP(w, r)
}

// routes mounts the pages and the SCA callback at the Flow's redirect URI.
func (s *Site) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.home)
	mux.HandleFunc("GET /connect", s.connect)
	mux.HandleFunc("GET /accounts", s.accounts)
	mux.HandleFunc("GET /identify", s.identify)
	mux.HandleFunc("GET /pay", s.payForm)
	mux.HandleFunc("POST /pay", s.pay)
	mux.HandleFunc("GET /basket", s.basket)
	mux.HandleFunc("POST /basket/sign", s.signBasket)
	mux.HandleFunc("GET /payments/{ref}", s.payment)
	mux.HandleFunc("POST /payments/{ref}/approve", s.approvePayment)
	mux.HandleFunc("GET /baskets/{ref}", s.signedBasket)
	mux.HandleFunc("GET /company", s.company)
	mux.HandleFunc("POST /company", s.useAgreement)
	// Bound to the browser: an SCA link approved in another user's browser
	// completes nothing (sca.ErrWrongBrowser).
	mux.Handle("GET /callback", s.sessions.HandlerFor(s.userKey, s.callback))
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	return mux
}

// sameOrigin reports whether a POST comes from the site's own pages:
// browsers send Sec-Fetch-Site (and Origin) on form posts.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		return o == "http://"+r.Host || o == "https://"+r.Host
	}
	return true
}

// present is the PSU's request data: the PSU is at the TPP's site now
// (docs/interface.md section 5.14).
func present(r *http.Request) *client.PSU {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return &client.PSU{IPAddress: host, UserAgent: r.UserAgent()}
}

// session returns the PSU's stored session, nil when there is none.
func (s *Site) session(r *http.Request, key string) (*sca.Session, error) {
	sess, err := s.sessions.Session(r.Context(), key)
	if errors.Is(err, store.ErrNotStored) {
		return nil, nil
	}
	return sess, err
}

// toBank saves the pending SCA of call, remembers what it is for, and
// redirects the browser to the bank's SCA page.
func (s *Site) toBank(w http.ResponseWriter, r *http.Request, call *sca.Prepared, answer any, p purpose) {
	if err := s.savePurpose(r.Context(), call.Pending.TPPSessionID, p); err != nil {
		s.fail(w, r, err)
		return
	}
	link, ok, err := call.Redirect(r.Context(), answer)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !ok {
		s.fail(w, r, errors.New("the bank sent no SCA link"))
		return
	}
	http.Redirect(w, r, link.String(), http.StatusSeeOther)
}

// fail shows a generic error page and logs the details (the SDK's errors
// name the operation and the bank's codes, never PSU data).
func (s *Site) fail(w http.ResponseWriter, r *http.Request, err error) {
	s.log.Error("webapp: bank call failed", "path", r.URL.Path, "err", err)
	s.message(w, r, http.StatusBadGateway, messagePage{Heading: "The bank could not be reached", Problem: true,
		Text: "Something went wrong between us and your bank. Nothing was paid. Try again later."})
}

// messagePage is a page with one message.
type messagePage struct {
	Heading, Text, More string
	Problem             bool
}

func (s *Site) message(w http.ResponseWriter, r *http.Request, status int, p messagePage) {
	s.render(w, r, status, "message", frame{Title: p.Heading}, p)
}

// frame is the layout's data around a page.
type frame struct {
	Title       string
	Nav         string
	Refresh     int
	Connected   bool
	Corporate   bool
	BasketCount int
	Page        any
}

// pageNames are the templates/*.html files besides the layout.
var pageNames = []string{"home", "accounts", "identify", "pay", "basket", "payment", "basketstatus", "company", "failed", "message"}

func parsePages() (map[string]*template.Template, error) {
	layout, err := template.ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// render writes page name inside the layout. The navigation shows the
// basket's size and the Company link from the PSU's stored state.
func (s *Site) render(w http.ResponseWriter, r *http.Request, status int, name string, f frame, page any) {
	if key, err := s.userKey(r); err == nil {
		if sess, err := s.session(r, key); err == nil && sess != nil {
			f.Connected = true
			f.Corporate = sess.Context == client.Corporate
		}
		if b, err := s.loadDraft(r.Context(), key); err == nil {
			f.BasketCount = len(b.Refs)
		}
	}
	f.Page = page
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := s.pages[name].ExecuteTemplate(w, "layout", f); err != nil {
		s.log.Error("webapp: template", "page", name, "err", err)
	}
}
