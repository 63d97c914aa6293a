package faultmatrix_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/faultnet"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
)

const (
	kariBruk = "95312776066"     // Kari's current account in the emulator's default data
	external = "91026527436"     // another bank's account
	kariIBAN = "NO8495312776066" // the same account as an IBAN
)

// class is what the caller learns from a failed call.
type class string

const (
	unknown class = "ErrOutcomeUnknown"
	notSent class = "ErrNotSent"
	refused class = "refused (*client.Error)"
	success class = "success"
	other   class = "other"
)

func classify(err error) class {
	var e *client.Error
	switch {
	case err == nil:
		return success
	case errors.Is(err, client.ErrOutcomeUnknown):
		return unknown
	case errors.Is(err, client.ErrNotSent):
		return notSent
	case errors.As(err, &e):
		return refused
	}
	return other
}

// fault is one column of the matrix.
type fault struct {
	name    string
	f       faultnet.Fault
	h2only  bool
	base    string // "refused" or "tls": another base URL instead of the front
	want    class
	created int // objects the bank creates for the faulted call
}

func faults() []fault {
	fs := []fault{
		{name: "reset before read", f: faultnet.Fault{Kind: faultnet.ResetBefore}, want: unknown},
		{name: "reset after read", f: faultnet.Fault{Kind: faultnet.ResetAfter}, want: unknown, created: 1},
		{name: "GOAWAY after read", f: faultnet.Fault{Kind: faultnet.GoAwayAfter}, h2only: true, want: unknown, created: 1},
		{name: "hang, caller gives up", f: faultnet.Fault{Kind: faultnet.Hang}, want: unknown},
		{name: "429", f: faultnet.Fault{Kind: faultnet.Status, Status: 429, RetryAfter: "1"}, want: refused},
		{name: "refused connection", base: "refused", want: notSent},
		{name: "TLS failure", base: "tls", want: notSent},
		{name: "truncated body", f: faultnet.Fault{Kind: faultnet.Truncate}, want: unknown, created: 1},
	}
	for _, code := range []int{500, 502, 503, 504} {
		fs = append(fs,
			fault{name: fmt.Sprint(code), f: faultnet.Fault{Kind: faultnet.Status, Status: code}, want: unknown},
			fault{name: fmt.Sprint(code) + " Retry-After", f: faultnet.Fault{Kind: faultnet.Status, Status: code, RetryAfter: "1"}, want: unknown})
	}
	for name, body := range map[string]string{"empty": "", "null": "null", "{}": "{}", "no id": `{"transactionStatus":"RCVD","_links":{}}`,
		"cut JSON": `{"paymentId":"p-1","basketId":"b-1","scaStatus":"star`, "not JSON": "<html>Created</html>"} {
		fs = append(fs, fault{name: "2xx " + name, f: faultnet.Fault{Kind: faultnet.Rewrite, Body: body}, want: unknown, created: 1})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].name < fs[j].name })
	return fs
}

// patience bounds a call that should be answered: only a hang reaches
// it, so no cell depends on how fast a loaded machine runs.
const patience = time.Minute

// env is one emulator behind one front, with a TPP's services over it.
type env struct {
	t      *testing.T
	s      *emulator.Server
	front  *faultnet.Front
	armed  atomic.Pointer[faultnet.Fault]
	hung   chan struct{} // the front holds a request (Hang)
	creds  *signing.Credentials
	opts   []client.Option // of every client but its response timeout
	pay    *payments.Service
	bsk    *basket.Service
	n      atomic.Int64 // makes every payment's content unique
	others map[string]*payments.Service
	kari   *sca.Session // the PSU the payments are made for
}

func newEnv(t *testing.T, h2 bool) *env {
	e := &env{t: t, s: testtpp.Server(t), others: map[string]*payments.Service{}, hung: make(chan struct{}, 1)}
	decide := func(*http.Request, int) faultnet.Fault {
		f := e.armed.Swap(nil)
		if f == nil {
			return faultnet.Fault{}
		}
		if f.Kind == faultnet.Hang {
			select {
			case e.hung <- struct{}{}:
			default:
			}
		}
		return *f
	}
	creds, err := e.s.NewTPP("Fault matrix TPP")
	require.NoError(t, err)
	e.creds = creds
	opts := []client.Option{
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRetryAfter: 2 * time.Second}),
		// The matrix injects fault after fault into one bank: each cell
		// must meet its own fault, not a breaker its neighbours opened.
		client.WithBreaker(client.BreakerPolicy{Off: true}),
	}
	if h2 {
		front, pool, err := faultnet.NewHTTP2(e.s.Handler(), decide)
		require.NoError(t, err)
		e.front = front
		opts = append(opts, client.WithRootCAs(pool))
	} else {
		e.front = faultnet.NewHTTP1(e.s.Handler(), decide)
	}
	t.Cleanup(e.front.Close)
	e.opts = opts
	opts = append(opts[:len(opts):len(opts)], client.WithResponseTimeout(patience))
	c, err := client.New(e.front.URL+"/api", creds, opts...)
	require.NoError(t, err)
	e.pay, err = payments.New(c)
	require.NoError(t, err)
	e.bsk, err = basket.New(c)
	require.NoError(t, err)
	e.kari = testpsu.Login(t, e.s, c, emulator.CustomerKari)

	refusedAddr, err := faultnet.Refused()
	require.NoError(t, err)
	tlsURL, _, closeTLS := faultnet.UntrustedTLS()
	t.Cleanup(closeTLS)
	for name, base := range map[string]string{"refused": "http://" + refusedAddr + "/api", "tls": tlsURL + "/api"} {
		c, err := client.New(base, creds, opts...)
		require.NoError(t, err)
		e.others[name], err = payments.New(c)
		require.NoError(t, err)
	}
	return e
}

// psu are the headers of a call with Kari present: her session's PSU-ID,
// PSU-Context and TPP-Session-ID, her IP address and the redirect URI.
func (e *env) psu() []client.RequestOption {
	return []client.RequestOption{
		e.kari.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"}),
		client.WithRedirectURI("https://tpp.example/cb?state=matrix"),
	}
}

// amount is unique per call, so that no create is a logical duplicate of
// another.
func (e *env) amount() money.Amount {
	n := e.n.Add(1)
	return money.MustParse(fmt.Sprintf("%d.%02d", 1+n/100, n%100), "NOK")
}

func (e *env) ndct() *payments.NorwegianDomestic {
	return &payments.NorwegianDomestic{
		InstructedAmount: e.amount(),
		CreditorName:     "Ola Eksempel",
		CreditorAccount:  payments.AccountReference{BBAN: external, Currency: "NOK"},
		CreditorAddress:  &payments.Address{Country: "NO"},
		DebtorAccount:    payments.AccountReference{BBAN: kariBruk, Currency: "NOK"},
	}
}

// call runs one call with f armed at the front (none when f is nil).
// When the front holds the request (Hang), the caller gives up: the
// call's context ends. It returns what the bank created and saw
// meanwhile, and the call's error.
func (e *env) call(f *faultnet.Fault, run func(context.Context) error) (created, seen int, err error) {
	created0, seen0 := e.front.Created(), e.front.Seen()
	ctx, cancel := context.WithCancel(e.t.Context())
	defer cancel()
	go func() {
		select {
		case <-e.hung:
			cancel()
		case <-ctx.Done():
		}
	}()
	if f != nil {
		e.armed.Store(f)
	}
	err = run(ctx)
	e.armed.Store(nil)
	return e.front.Created() - created0, e.front.Seen() - seen0, err
}

// create makes a payment through the front with no fault armed.
func (e *env) create() string {
	init, err := e.pay.CreateNorwegianDomestic(e.t.Context(), e.ndct(), e.psu()...)
	require.NoError(e.t, err)
	return init.PaymentID
}

// call is one row of the matrix: prepare (no fault) and then the call
// under test, through svc (the front's or another base URL's).
type call struct {
	name string
	run  func(e *env, pay *payments.Service, bsk *basket.Service) func(ctx context.Context) error
}

func calls() []call {
	tomorrow := time.Now().AddDate(0, 0, 2).Format(time.DateOnly)
	return []call{
		{"NDCT", func(e *env, pay *payments.Service, _ *basket.Service) func(context.Context) error {
			p := e.ndct()
			return func(ctx context.Context) error { _, err := pay.CreateNorwegianDomestic(ctx, p, e.psu()...); return err }
		}},
		{"SEPA", func(e *env, pay *payments.Service, _ *basket.Service) func(context.Context) error {
			a := e.amount()
			p := &payments.SEPA{InstructedAmount: money.MustParse(a.Value.StringFixed(2), "EUR"), CreditorName: "Muster GmbH",
				CreditorAccount: payments.AccountReference{IBAN: "DE89370400440532013000", Currency: "EUR"},
				DebtorAccount:   payments.AccountReference{IBAN: kariIBAN, Currency: "NOK"}}
			return func(ctx context.Context) error { _, err := pay.CreateSEPA(ctx, p, e.psu()...); return err }
		}},
		{"generic", func(e *env, pay *payments.Service, _ *basket.Service) func(context.Context) error {
			p := e.ndct()
			return func(ctx context.Context) error {
				_, err := pay.Create(ctx, payments.ProductInstantNorwegianDomestic, p, e.psu()...)
				return err
			}
		}},
		{"periodic", func(e *env, pay *payments.Service, _ *basket.Service) func(context.Context) error {
			body := map[string]any{"instructedAmount": e.amount(), "creditorName": "Ola Eksempel",
				"creditorAccount": map[string]string{"bban": external, "currency": "NOK"}, "creditorAddress": map[string]string{"country": "NO"},
				"debtorAccount": map[string]string{"bban": kariBruk, "currency": "NOK"}, "startDate": tomorrow, "frequency": "Monthly"}
			return func(ctx context.Context) error {
				_, err := pay.CreatePeriodic(ctx, payments.ProductNorwegianDomestic, body, e.psu()...)
				return err
			}
		}},
		{"bulk", func(e *env, pay *payments.Service, _ *basket.Service) func(context.Context) error {
			body := map[string]any{"debtorAccount": map[string]string{"bban": kariBruk, "currency": "NOK"},
				"payments": []map[string]any{{"instructedAmount": e.amount(), "creditorName": "Ola Eksempel",
					"creditorAccount": map[string]string{"bban": external, "currency": "NOK"}, "creditorAddress": map[string]string{"country": "NO"}}}}
			return func(ctx context.Context) error {
				_, err := pay.CreateBulk(ctx, payments.ProductNorwegianDomestic, body, e.psu()...)
				return err
			}
		}},
		{"basket", func(e *env, _ *payments.Service, bsk *basket.Service) func(context.Context) error {
			ids := []string{e.create()}
			return func(ctx context.Context) error { _, err := bsk.Create(ctx, ids, e.psu()...); return err }
		}},
		{"payment start authorisation", func(e *env, pay *payments.Service, _ *basket.Service) func(context.Context) error {
			id := e.create()
			return func(ctx context.Context) error {
				_, err := pay.StartAuthorisation(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: id}, e.psu()...)
				return err
			}
		}},
		{"basket start authorisation", func(e *env, _ *payments.Service, bsk *basket.Service) func(context.Context) error {
			b, err := e.bsk.Create(e.t.Context(), []string{e.create()}, e.psu()...)
			require.NoError(e.t, err)
			return func(ctx context.Context) error {
				_, err := bsk.StartAuthorisation(ctx, b.BasketID, e.psu()...)
				return err
			}
		}},
	}
}

// TestFaultMatrix: no cell creates more than one object, every cell whose
// request may have been acted on returns ErrOutcomeUnknown, and every cell
// in which nothing left returns ErrNotSent.
func TestFaultMatrix(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"HTTP/1.1", "HTTP/2"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			h2 := proto == "HTTP/2"
			e := newEnv(t, h2)
			var rows []string
			for _, c := range calls() {
				// Without faults first: the call itself works.
				run := c.run(e, e.pay, e.bsk)
				require.NoError(t, run(t.Context()), "%s without a fault", c.name)
				for _, f := range faults() {
					if f.h2only && !h2 {
						continue
					}
					pay, bsk := e.pay, e.bsk
					if f.base != "" {
						pay = e.others[f.base]
						bsk = nil
					}
					run := c.run(e, pay, bsk)
					if bsk == nil && strings.HasPrefix(c.name, "basket") {
						// basket calls over the other base URLs.
						run = basketElsewhere(e, c, f.base)
					}
					var armed *faultnet.Fault
					if f.base == "" {
						ft := f.f
						armed = &ft
					}
					dCreated, dSeen, err := e.call(armed, run)
					got := classify(err)
					rows = append(rows, fmt.Sprintf("%-28s %-22s %-24s created %d, requests %d", c.name, f.name, got, dCreated, dSeen))
					assert.Equal(t, f.want, got, "%s / %s: %v", c.name, f.name, err)
					assert.Equal(t, f.created, dCreated, "%s / %s: objects created", c.name, f.name)
					if f.base != "" {
						assert.Zero(t, dSeen, "%s / %s", c.name, f.name)
					} else {
						assert.Equal(t, 1, dSeen, "%s / %s: the request reached the bank once, never twice", c.name, f.name)
					}
					if got == unknown {
						var ou *client.OutcomeUnknownError
						require.ErrorAs(t, err, &ou)
						assert.NotEmpty(t, ou.RequestID)
					}
				}
			}
			t.Logf("%s fault matrix (%d cells):\n%s", proto, len(rows), strings.Join(rows, "\n"))
			hangPastResponseTimeout(t, e)
		})
	}
}

// hangPastResponseTimeout: a payment create the bank holds past the
// client's response timeout ends with ErrOutcomeUnknown, the timeout
// inside, and is not sent again. The timeout runs from before the
// request leaves, so on a loaded machine a short one may end the call
// before the request reaches the bank: then nothing left (ErrNotSent),
// and the check runs again with twice the timeout, up to patience.
func hangPastResponseTimeout(t *testing.T, e *env) {
	t.Helper()
	for d := 250 * time.Millisecond; d <= patience; d *= 2 {
		c, err := client.New(e.front.URL+"/api", e.creds, append(e.opts[:len(e.opts):len(e.opts)], client.WithResponseTimeout(d))...)
		require.NoError(t, err)
		pay, err := payments.New(c)
		require.NoError(t, err)
		p := e.ndct()
		created, seen := e.front.Created(), e.front.Seen()
		e.armed.Store(&faultnet.Fault{Kind: faultnet.Hang})
		_, err = pay.CreateNorwegianDomestic(t.Context(), p, e.psu()...)
		e.armed.Store(nil)
		select {
		case <-e.hung: // held by the front, not to end a later call
		default:
		}
		dCreated, dSeen := e.front.Created()-created, e.front.Seen()-seen
		assert.Zero(t, dCreated, "response timeout %v: objects created", d)
		switch {
		case dSeen == 0:
			assert.Equal(t, notSent, classify(err), "response timeout %v, nothing reached the bank: %v", d, err)
			continue
		case dSeen > 1:
			t.Fatalf("response timeout %v: the request reached the bank %d times", d, dSeen)
		}
		require.Equal(t, unknown, classify(err), "response timeout %v: %v", d, err)
		var ne net.Error
		require.ErrorAs(t, err, &ne)
		assert.True(t, ne.Timeout(), "%v", err)
		t.Logf("held past a response timeout of %v: %v", d, err)
		return
	}
	t.Errorf("the held request never reached the bank within a response timeout of %v", patience)
}

// basketElsewhere runs a basket call through a client on another base URL
// (a refused port, an untrusted TLS server).
func basketElsewhere(e *env, c call, base string) func(context.Context) error {
	creds, err := e.s.NewTPP("Fault matrix TPP " + base + uuid.NewString())
	require.NoError(e.t, err)
	var url string
	switch base {
	case "refused":
		addr, err := faultnet.Refused()
		require.NoError(e.t, err)
		url = "http://" + addr + "/api"
	default:
		u, _, closeTLS := faultnet.UntrustedTLS()
		e.t.Cleanup(closeTLS)
		url = u + "/api"
	}
	cl, err := client.New(url, creds, client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	require.NoError(e.t, err)
	pay, err := payments.New(cl)
	require.NoError(e.t, err)
	bsk, err := basket.New(cl)
	require.NoError(e.t, err)
	return c.run(e, pay, bsk)
}
