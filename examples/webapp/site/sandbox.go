package site

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// TPPName is the name of the sandbox TPP's certificate, which the bank's
// SCA page shows ("Example TPP asks you to approve").
const TPPName = "Example TPP"

// SandboxOptions configures [StartSandbox]. The zero value is usable.
type SandboxOptions struct {
	// Addr is the site's listen address; "127.0.0.1:0" when empty. The
	// redirect URI is http on it: the SDK allows http on loopback hosts
	// only.
	Addr string
	// BatchEvery is how often the bank's payment batch runs, which takes
	// approved payments to their final status; 3 seconds when zero.
	BatchEvery time.Duration
	// WaitTimeout, Refresh, PollMin, PollMax and Logger are those of
	// [Config].
	WaitTimeout, Refresh time.Duration
	PollMin, PollMax     time.Duration
	Logger               *slog.Logger
	// ClientOptions are added to the options of the site's client, such
	// as an observer (client.WithObserver, the otel module's).
	ClientOptions []client.Option
	// Routes are served on the site's server beside the site, by
	// http.ServeMux pattern ("GET /metrics" for a metrics exporter); the
	// site serves every other path. "/" and an invalid pattern are
	// refused.
	Routes map[string]http.Handler

	readTimeout time.Duration // the server's ReadTimeout; tests shorten it
}

// Sandbox is the site serving over an in-process bank sandbox (package
// sandbox/emulator, with its self-signed TLS certificate): what
// `go run ./examples/webapp` runs and the browser tests drive.
type Sandbox struct {
	// Bank is the bank sandbox. Its SCA page is at the scaRedirect links.
	Bank *emulator.Server
	// URL is the site's base URL, http://127.0.0.1:PORT.
	URL string
	// Site is the web application.
	Site *Site

	srv    *http.Server
	served chan error
	stop   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
}

// StartSandbox starts the bank sandbox, a TPP it trusts (named
// [TPPName]), and the site on opts.Addr. Close stops both.
func StartSandbox(opts SandboxOptions) (*Sandbox, error) {
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	every := opts.BatchEvery
	if every <= 0 {
		every = 3 * time.Second
	}
	bank := emulator.NewServer()
	creds, err := bank.NewTPP(TPPName)
	if err != nil {
		bank.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		bank.Close()
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	fail := func(err error) (*Sandbox, error) {
		ln.Close()
		bank.Close()
		return nil, err
	}
	// The redirect URI is set once on the client; the Flow appends its
	// state to it on every SCA.
	c, err := client.New(bank.URL, creds, append([]client.Option{client.WithHTTPClient(bank.Client()),
		client.WithDefaults(client.WithRedirectURI(base + "/callback"))}, opts.ClientOptions...)...)
	if err != nil {
		return fail(err)
	}
	flow, err := sca.NewFlow(base+"/callback", sca.WithClient(c))
	if err != nil {
		return fail(err)
	}
	sessions, err := sca.NewManager(flow, store.NewMemoryStore())
	if err != nil {
		return fail(err)
	}
	site, err := New(Config{Client: c, Sessions: sessions, WaitTimeout: opts.WaitTimeout, Refresh: opts.Refresh,
		PollMin: opts.PollMin, PollMax: opts.PollMax, Logger: opts.Logger})
	if err != nil {
		return fail(err)
	}
	handler, err := withRoutes(site, opts.Routes)
	if err != nil {
		return fail(err)
	}
	readTimeout := cmp.Or(opts.readTimeout, 30*time.Second)
	// ReadHeaderTimeout alone leaves a request's body and an idle
	// keep-alive connection without a deadline: a client that sends the
	// headers of a POST and never its body holds a connection and a
	// goroutine for ever. ReadTimeout bounds the whole request (a form
	// is at most 16 KiB), IdleTimeout the wait for the next one. No
	// WriteTimeout: a status page waits for the bank up to WaitTimeout,
	// and the accounts page makes several bank calls, each bounded by the
	// client's own timeouts; the pages are small.
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: min(10*time.Second, readTimeout),
		ReadTimeout: readTimeout, IdleTimeout: 2 * readTimeout}
	sb := &Sandbox{Bank: bank, URL: base, Site: site, served: make(chan error, 1), stop: make(chan struct{}), srv: srv}
	go func() { sb.served <- sb.srv.Serve(ln) }()
	sb.wg.Add(1)
	go func() {
		defer sb.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-sb.stop:
				return
			case <-t.C:
				bank.Control().RunBatch()
			}
		}
	}()
	return sb, nil
}

// withRoutes returns site alone without routes, else a mux serving
// routes and the site at "/". An invalid pattern (http.ServeMux panics on
// one) is an error.
func withRoutes(site http.Handler, routes map[string]http.Handler) (h http.Handler, err error) {
	if len(routes) == 0 {
		return site, nil
	}
	mux := http.NewServeMux()
	defer func() {
		if v := recover(); v != nil {
			h, err = nil, fmt.Errorf("site: SandboxOptions.Routes: %v", v)
		}
	}()
	for pattern, route := range routes {
		if route == nil || strings.TrimSpace(pattern) == "/" {
			return nil, fmt.Errorf("site: SandboxOptions.Routes: %q: the site serves /, and a route needs a handler", pattern)
		}
		mux.Handle(pattern, route)
	}
	mux.Handle("/", site)
	return mux, nil
}

// Wait blocks until ctx ends or the site's server fails.
func (sb *Sandbox) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-sb.served:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// Close stops the site, the batch and the bank.
func (sb *Sandbox) Close() {
	sb.once.Do(func() {
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sb.srv.Shutdown(shut)
		close(sb.stop)
		sb.wg.Wait()
		sb.Bank.Close()
	})
}
