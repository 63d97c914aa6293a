package emulator

// How to add endpoints to the emulator (for payments.go, baskets.go, batch.go
// and faults.go). Everything below lives in this package, except the
// request rules: the pure checks of headers and bodies (what an operation
// requires, what form a value must have, what a payment body must
// satisfy) are in internal/rules and internal/paymentrules, know nothing
// of the Server, and return a *rules.Violation, which violation(v) turns
// into its 400 answer. A new rule that needs no state goes there, with a
// table test.
//
// Routes. Register in registerPaymentRoutes / registerBasketRoutes with
//
//	s.handle(mux, "POST /v1/payments/{product}", s.createPayment)
//
// The pattern is a Go 1.22 ServeMux pattern WITHOUT the /api prefix (handle
// adds it). r.PathValue("product") gives the unescaped segment, so ids in
// the enc!!... form work whether the client sent "!" or "%21". handle runs
// the common checks of every signed request first (X-Request-ID, the TPP
// certificate and its registration, Signature with keyId and header list,
// Date window, Digest, JSON body and its characters) and answers 400/401
// itself when they fail. The handler only runs for a verified request.
//
// Surface and model. The Server is the HTTP surface; the bank's model is
// the bank it embeds (bank.go), whose methods never see a request or an
// answer. A handler reads the call, asks the bank (s.storeOf,
// s.customerForPSU, s.finishSCA... are bank methods reached through the
// embedding) and answers. Model code goes in the bank_*.go files, data.go,
// batch.go and the like, as a method of *bank.
//
// Handlers. Every handler is a method of the Server taking the verified
// call, func (s *Server) name(c *call) error, registered as s.name; helpers
// it shares with other handlers take the call too (s.lookupPayment(c),
// s.sessionAccount(c)), and what a call carries is read through it
// (c.header, c.query, c.pathValue, c.decode). A handler runs WITH s.mu
// HELD (the write lock, or the read lock for the routes of handleRead;
// never lock it in a handler and never block in one). It answers with
//
//	return c.reply(http.StatusCreated, body)      // JSON body, any status
//	return c.replyEmpty(http.StatusNoContent)
//	return errFormat("creditorName", "creditorName is longer than 70 characters.")
//	return newError(http.StatusBadRequest, "KID_INVALID", "...").at("remittanceInformationStructured.reference")
//
// Returning an *apiError writes {"tppMessages":[...]} with its status; any
// other error is a 500 SYSTEM_ERROR. The response is written after s.mu is
// released. c.respHeader() sets response headers (e.g. Location).
//
// The verified call. c.body is the raw body (already checked: JSON,
// application/json, no character the bank cannot process); c.decode(&v) decodes it (unknown
// fields allowed; a type error gives 400 FORMAT_ERROR naming the field,
// rules.DecodeViolation).
// c.tpp is the TPP (c.tpp.id is its organisation, tppIdentity, the same
// across certificate renewals; c.tpp.name its name); c.now is the emulator clock for this request; c.requestID the
// X-Request-ID; c.header(name) a request header; c.query(name) a query value;
// c.psuPresent() reports PSU-IP-Address present (docs/interface.md section 5.14).
//
// Required headers. The headers an operation needs are declared once, in
// internal/rules (headers.go, rules.RequirementOf), and checked by handle
// before the handler runs (400 HTTP_HEADER_REQUIRED naming the first missing header); a
// handler checks only what the values must be (c.checkPSU for PSU-ID,
// PSU-Corporate-ID and PSU-Context on payment and basket creation).
//
// SCA. href, err := c.startSCA(scaPayment, func(res scaResult) error {...})
// registers an authorisation for this TPP (needs TPP-Redirect-URI and
// TPP-Session-ID on the request; checks them) and returns the absolute
// scaRedirect href for _links. When the PSU completes the page (or a test
// calls Authorize), the callback runs with s.mu held and res.OK true, with
// res.Customer (the customer who authenticated), res.PSUID, res.CorporateID,
// res.Context and res.Now: set the payments to ACTC/PDNG there. Returning a
// non-nil error from the callback on success turns the redirect into a
// failure (code = the *apiError's code, e.g. a PSU who does not own the
// debtor account). When the PSU cancels (Reject) the callback runs with
// res.OK false (res.Code, res.Message): keep RCVD or set RJCT. Each
// authorisation completes at most once.
//
// Accounts (s.mu held). s.accountByBBAN(bban), s.accountByIBAN(iban),
// s.accountByID(id) return *account or nil; s.cardByID(id) *cardAccount;
// s.cardByReference(identification) finds a card account by the reference
// NDCT debtorAccount.other.identification carries (its relatedAccount).
// a.owner is the customer id; s.customerByID(id), s.customerByNumber(n).
// a.available() is the available balance (booked + pending, a
// decimal.Decimal in a.currency); s.book(a, tx) adds a booked transaction
// and moves the balance (tx.amount negative for a debit): use it in the
// batch for ACSC.
//
// PSU sessions (s.mu held). s.customerForPSU(c.tpp.id, psuID) is the
// customer behind a PSU-ID for this TPP (nil when no SCA produced it);
// s.psuID(c.tpp.id, customerNumber) is the PSU-ID the redirect carries.
// c.aisSession(fresh bool) checks the PSU-ID / PSU-Corporate-ID /
// TPP-Session-ID session as an AIS call does (401 with scaRedirect, 403
// CONSENT_UNKNOWN, 400 for a corporate user without PSU-Corporate-ID) and
// returns the *session (sess.customer, sess.corporateID).
//
// Hooks the framework calls (B owns their files): registerPaymentRoutes,
// registerBasketRoutes (at NewServer); runScheduledBatchLocked(now) (before
// every signed request, with s.mu held, for the 5-times-a-day batch);
// takeFault(r) before routing every /api request (r.URL.Path still has the
// /api prefix; apiPath(r) strips it) and, when it returns a fault,
// serveFault(w, r, f, next) instead of next.ServeHTTP(w, r). State of B's
// files lives in s.pay (paymentState), s.baskets (basketState) and s.faults
// (faultState), zero values at start, guarded by s.mu.

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// apiPrefix is the base path of the API on the platform's hosts
// (https://psd2.<bank>.no/api/v1/...).
const apiPrefix = "/api"

// Server is an in-process bank sandbox serving the interface of
// docs/interface.md over HTTPS on the loopback interface. Start one with
// [NewServer] and stop it with [Server.Close]. All methods are safe for
// concurrent use. It closes slow and idle connections ([Timeouts]) and
// caps the state it keeps ([Limits]).
type Server struct {
	// URL is the base URL of the API, "https://127.0.0.1:PORT/api", to
	// pass to the SDK's client. Hrefs in _links are relative to it.
	URL string

	ts      *httptest.Server
	handler http.Handler

	*bank // the bank's model behind the HTTP surface (bank.go)

	certCache    sync.Map     // TPP-Signature-Certificate value -> *x509.Certificate (auth.go)
	certCacheLen atomic.Int64 // entries stored or refused, bounds certCache
	ca           *authority

	log *slog.Logger

	listener net.Listener
	timeouts Timeouts // WithTimeouts; zero fields take DefaultTimeouts

	host   string                       // the bank's host name in a MultiBank; "" for NewServer
	onStop func(host string, err error) // WithStopReport

	clientOnce sync.Once
	client     *http.Client

	keyOnce sync.Once
	tppKey  crypto.Signer
	keyErr  error

	signAnswers bool         // WithResponseSigning
	resp        *respSigning // the answers' signing key, when signAnswers

	requestIDs requestIDLog // X-Request-IDs seen (auth.go); has its own lock
	lk         lockState    // data.go: the read-only routes; lock-wait timing in tests
	apiRoutes  []string     // every pattern of handle, "METHOD /v1/...", in registration order (openapi_test.go)
	faults     faultState   // faults.go: guarded by the bank's mu
	out        outageState  // outages.go: its own lock
	closeOnce  sync.Once

	ctl Controls // Control: c.s is the server
}

// NewServer starts an emulator on 127.0.0.1 with a fresh certificate
// authority and the default sandbox data (docs/interface.md section 1.5),
// with [DefaultTimeouts] and [DefaultLimits] unless options say otherwise.
// It panics only if the loopback listener cannot be created, like
// httptest.NewServer.
func NewServer(opts ...Option) *Server {
	s := newServer(opts...)
	s.serve(s.listener, s.ca.tls)
	return s
}

// serve starts the server on l (nil: a new listener on a random loopback
// port) with the TLS certificate cert, and sets URL.
func (s *Server) serve(l net.Listener, cert tls.Certificate) {
	s.ts = httptest.NewUnstartedServer(s.handler)
	if l != nil {
		_ = s.ts.Listener.Close()
		s.ts.Listener = l
	}
	s.out.gate = newGate(s.ts.Listener) // outages shut it (outages.go)
	s.ts.Listener = s.out.gate
	if s.onStop != nil {
		// Outside the gate: an outage's shutting of the socket is no
		// stop, and the gate passes on only the errors that end Serve.
		s.ts.Listener = &stopWatch{Listener: s.out.gate, host: s.host, report: s.onStop}
	}
	s.out.closing = s.ts.CloseClientConnections
	s.timeouts.configure(s.ts.Config, s.log)
	s.ts.TLS = &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{cert},
	}
	s.ts.StartTLS()
	s.URL = s.ts.URL + apiPrefix
}

// newServer builds a server without a listener (for Handler-only use and
// tests).
func newServer(opts ...Option) *Server {
	s := &Server{bank: newBank(), log: slog.New(slog.DiscardHandler)}
	s.out.done = make(chan struct{})
	s.ctl.s = s
	for _, o := range opts {
		o(s)
	}
	s.limits = s.limits.withDefaults()
	ca, err := newAuthority(s.wireNow())
	if err != nil {
		panic(fmt.Sprintf("emulator: cannot create the certificate authority: %v", err))
	}
	s.ca = ca
	if s.signAnswers {
		if s.resp, err = s.newRespSigning(); err != nil {
			panic(fmt.Sprintf("emulator: cannot create the response signing key: %v", err))
		}
	}
	s.handler = s.routes()
	return s
}

// wireNow is the server's own clock ([WithClock], else time.Now): the
// Date header, the Date window and certificates follow it (clock.go).
func (s *Server) wireNow() time.Time { return s.clock.wire() }

// Close shuts the server down and blocks until all requests have finished.
// Hanging requests of injected faults are released.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.out.done) }) // outages.go: held requests, the doorman
	s.clientOnce.Do(func() {})                   // no client made after Close
	if s.client != nil {
		s.client.CloseIdleConnections()
	}
	if s.ts != nil {
		s.ts.CloseClientConnections()
		s.ts.Close()
	}
}

// Client returns an HTTP client (the same one on every call) that trusts
// the server's certificate and speaks TLS 1.2 or higher. It does not follow
// redirects. It does not sign requests: use the SDK's client
// (or the signing package) with credentials from [Server.NewTPP].
func (s *Server) Client() *http.Client {
	s.clientOnce.Do(func() {
		pool := x509.NewCertPool()
		pool.AddCert(s.ca.cert)
		s.client = &http.Client{
			Transport: &http.Transport{
				TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
				ForceAttemptHTTP2:   true,
				MaxIdleConnsPerHost: 64,
			},
			// Never follow redirects: the SCA page's 302 goes to the TPP.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
	return s.client
}

// Handler returns the emulator as an http.Handler, to mount in a server of
// your own. It expects the API under /api (as on the platform's hosts) and
// serves the SCA page under /tap-sandbox/. The scaRedirect links it writes
// point at the host of the request.
func (s *Server) Handler() http.Handler { return s.handler }

// routes builds the handler tree: the API mux behind the fault hook, and
// the authorisation page.
func (s *Server) routes() http.Handler {
	api := http.NewServeMux()
	s.registerAccountRoutes(api)
	s.registerSandboxRoutes(api)
	s.registerPaymentRoutes(api)
	s.registerBasketRoutes(api)
	s.registerTPPRoutes(api)
	api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.setCommonHeaders(w, r)
		if allow := allowedMethods(api, r); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			writeError(w, newError(http.StatusMethodNotAllowed, "SERVICE_INVALID", "The method %s is not allowed here.", clip(r.Method)))
			return
		}
		writeError(w, newError(http.StatusNotFound, "NOT_FOUND", "No such endpoint: %s %s.", clip(r.Method), clip(apiPath(r))))
	})

	var answers http.Handler = api
	if s.resp != nil {
		answers = s.signedAnswers(api)
	}
	faulted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := s.takeFault(r); f != nil {
			s.serveFault(w, r, f, answers)
			return
		}
		answers.ServeHTTP(w, r)
	})
	root := http.NewServeMux()
	root.Handle(apiPrefix+"/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d, _ := s.out.current(s.now()); d != nil { // outages.go
			s.serveOutage(w, r, d, faulted)
			return
		}
		faulted.ServeHTTP(w, r)
	}))
	root.HandleFunc(scaPagePath, s.serveSCAPage)
	root.HandleFunc(OpenAPIPath, s.serveOpenAPI)
	return s.logged(s.dated(s.refusing(root)))
}

// dated gives every answer a Date from the server's clock (wireNow),
// the one rule of every answer's Date: the API's, the SCA page's, the
// OpenAPI document's and a 404 outside them (net/http would date those
// by the machine's clock). A handler that sets Date sets it from the
// same clock (setCommonHeaders); none dates an answer by the bank's
// clock, which the clock controls move.
func (s *Server) dated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", s.wireNow().UTC().Format(http.TimeFormat))
		next.ServeHTTP(w, r)
	})
}

// allowedMethods lists the methods that have an endpoint at r's path.
func allowedMethods(mux *http.ServeMux, r *http.Request) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		r2 := r.Clone(r.Context())
		r2.Method = m
		if _, p := mux.Handler(r2); p != "" && p != "/" {
			out = append(out, m)
		}
	}
	return out
}

// apiPath returns the request path without the /api prefix ("/v1/...").
func apiPath(r *http.Request) string {
	return strings.TrimPrefix(r.URL.Path, apiPrefix)
}

// setCommonHeaders writes the headers every answer carries: Date from the
// emulator clock (clients learn the server's clock from it) and the
// request's X-Request-ID.
func (s *Server) setCommonHeaders(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Date", s.wireNow().UTC().Format(http.TimeFormat))
	if id := echoedRequestID(r); id != "" {
		h.Set("X-Request-ID", id)
	}
}

// echoedRequestID is the request's X-Request-ID as answers echo it (and
// a signed answer signs it, respsign.go): any id up to the length verify
// accepts (rules.MaxRequestIDLen), so that a TPP checking that the signed
// answer names its request finds it whatever the length of its id; ""
// for none or a longer one.
func echoedRequestID(r *http.Request) string {
	id := r.Header.Get("X-Request-ID")
	if len(id) > rules.MaxRequestIDLen {
		return ""
	}
	return id
}

// statusRecorder remembers the status for the request log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (faults hijack it).
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// logged logs method, path and status of each request, never headers,
// query values or bodies (they carry PSU data).
func (s *Server) logged(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "emulator request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", rec.status))
	})
}

// stopWatch is a server's listener whose end other than by Close is
// reported (WithStopReport): an Accept error that http.Server does not
// retry (a net.Error that is Temporary) ends its Serve, which
// httptest.Server does not tell.
type stopWatch struct {
	net.Listener
	host    string
	report  func(host string, err error)
	closing atomic.Bool
	once    sync.Once
}

func (w *stopWatch) Accept() (net.Conn, error) {
	c, err := w.Listener.Accept()
	if err != nil && !w.closing.Load() {
		//lint:ignore SA1019 http.Server.Serve retries the errors Temporary reports, and returns on the others
		if ne, ok := err.(net.Error); !ok || !ne.Temporary() {
			w.once.Do(func() { w.report(w.host, err) })
		}
	}
	return c, err
}

// Close closes the listener: the Accept error that follows is the
// server's closing, not reported.
func (w *stopWatch) Close() error {
	w.closing.Store(true)
	return w.Listener.Close()
}
