package emulator

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// scaPagePath is the sandbox authorisation site (the platform's:
// /tap-sandbox/ in the sandbox, /tap/ in production).
const scaPagePath = "/tap-sandbox/9999/"

// scaKind says what an authorisation is for.
type scaKind string

const (
	scaConsent scaKind = "consent" // AIS: grants the consent
	scaUser    scaKind = "user"    // GET /v1/user: identifies the PSU for a PISP
	scaPayment scaKind = "payment" // a payment (payments.go)
	scaBasket  scaKind = "basket"  // a signing basket (baskets.go)
)

// Errors of [Controls.Authorize], [Controls.AuthorizeCorporate] and
// [Controls.Reject].
var (
	// ErrAuthorisationUnknown means the scaRedirect is not a pending
	// authorisation of this server (unknown, or already completed).
	ErrAuthorisationUnknown = errors.New("emulator: unknown or completed authorisation")
	// ErrSCAFailed means the PSU's SCA failed (unknown customer number,
	// an agreement that is not the customer's, or the operation refused
	// it); the returned callback URL carries system, status, code and
	// message.
	ErrSCAFailed = errors.New("emulator: SCA failed")
)

// startSCA registers an authorisation of kind for the calling TPP and
// returns the absolute scaRedirect href. It needs TPP-Redirect-URI (an
// absolute http or https URL) and TPP-Session-ID on the request. onDone,
// if not nil, runs once when the PSU completes or cancels the page. Needs
// s.mu held.
func (c *call) startSCA(kind scaKind, onDone func(scaResult) error) (string, error) {
	if c.readOnly {
		return "", errNeedsWrite // run again under the write lock (data.go)
	}
	ru, v := rules.CheckSCAHeaders(c.r.Header)
	if v != nil {
		return "", violation(v)
	}
	sid := c.header("TPP-Session-ID")
	ctxName := contextPrivate
	if c.header("PSU-Corporate-ID") != "" || strings.EqualFold(c.header("PSU-Context"), contextCorporate) {
		ctxName = contextCorporate
	} else if cu := c.s.customerForPSU(c.tpp.id, c.header("PSU-ID")); cu != nil && cu.corporate() {
		ctxName = contextCorporate
	}
	f := &scaFlow{
		state:        uuid.NewString(),
		tpp:          c.tpp.id,
		kind:         kind,
		redirectURI:  ru.String(),
		tppSessionID: sid,
		context:      ctxName,
		created:      c.now,
		onDone:       onDone,
		details:      c.scaDetails(kind),
	}
	if err := c.s.roomForTPPAuthorisation(c.tpp.id, c.now); err != nil { // Limits.AuthorisationsPerTPP (tppcaps.go)
		return "", err
	}
	if err := c.s.roomForAuthorisation(c.now); err != nil { // Limits.Authorisations, Limits.Sessions (limits.go)
		return "", err
	}
	c.s.addFlowLocked(f)

	scheme := "https"
	if c.r.TLS == nil {
		scheme = "http"
	}
	q := "route_secesb_id=1&flow=psd2&state=" + f.state + "&context=" + ctxName
	return scheme + "://" + c.r.Host + scaPagePath + "?" + q, nil
}

// stateOf extracts the authorisation state from a scaRedirect href.
func stateOf(scaRedirect string) (string, error) {
	u, err := url.Parse(scaRedirect)
	if err != nil || !strings.HasSuffix(u.Path, scaPagePath) {
		return "", ErrAuthorisationUnknown
	}
	st := u.Query().Get("state")
	if st == "" {
		return "", ErrAuthorisationUnknown
	}
	return st, nil
}

// Authorize completes the authorisation page of scaRedirect as the PSU
// with customerNumber would (docs/interface.md section 5.13: the sandbox asks only for
// the customer number) and returns the callback URL the browser is sent
// to: TPP-Redirect-URI with its own query kept, then psu-id,
// tpp-session-id, context and, for a corporate customer, psu-corporate-id
// (the customer's first agreement). For an unknown customer number it
// returns the failure callback URL and an error wrapping [ErrSCAFailed].
// It goes through the same code as a POST of the page's form.
func (c *Controls) Authorize(ctx context.Context, scaRedirect, customerNumber string) (*url.URL, error) {
	return c.AuthorizeCorporate(ctx, scaRedirect, customerNumber, "")
}

// AuthorizeCorporate is [Controls.Authorize] for a corporate customer
// choosing the agreement agreementID (the id GET /v1/agreements lists, or
// the mock-data id the sandbox customer listing gives; empty means the
// first one). The callback's psu-corporate-id is the former.
func (c *Controls) AuthorizeCorporate(ctx context.Context, scaRedirect, customerNumber, agreementID string) (*url.URL, error) {
	s := c.s
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, err := stateOf(scaRedirect)
	if err != nil {
		return nil, err
	}
	return s.finishSCA(st, scaInput{customerNumber: customerNumber, agreementID: agreementID})
}

// Reject cancels the authorisation of scaRedirect as a PSU pressing
// "cancel" would and returns the failure callback URL: TPP-Redirect-URI
// with system, status, code (SCA_INVALID) and message (docs/interface.md section 6).
func (c *Controls) Reject(ctx context.Context, scaRedirect string) (*url.URL, error) {
	s := c.s
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, err := stateOf(scaRedirect)
	if err != nil {
		return nil, err
	}
	return s.finishSCA(st, scaInput{cancel: true})
}

// serveSCAPage is the sandbox authorisation site: GET shows what is being
// authorised and a form asking for the customer number (and an agreement
// for a corporate customer), with approve and cancel buttons (scapage.go);
// POST completes the authorisation and redirects (302) to the TPP.
func (s *Server) serveSCAPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Date", s.wireNow().UTC().Format(http.TimeFormat))
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		state := r.URL.Query().Get("state")
		s.mu.Lock()
		f := s.flows[state]
		var view scaView
		if f != nil {
			view = s.scaViewLocked(f)
		}
		s.mu.Unlock()
		if f == nil {
			pageError(w, http.StatusBadRequest, "This authorisation is unknown or already completed.")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'") // no clickjacking of the approve button
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_ = scaPage.Execute(w, view)
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil {
			pageError(w, http.StatusBadRequest, "The form cannot be read.")
			return
		}
		in := scaInput{
			customerNumber: r.PostForm.Get("customerNumber"),
			agreementID:    r.PostForm.Get("agreement"),
			context:        r.PostForm.Get("context"),
			cancel:         r.PostForm.Get("action") == "cancel",
		}
		u, err := s.finishSCA(r.PostForm.Get("state"), in)
		if u == nil {
			_ = err
			pageError(w, http.StatusBadRequest, "This authorisation is unknown or already completed.")
			return
		}
		http.Redirect(w, r, u.String(), http.StatusFound)
	default:
		w.Header().Set("Allow", "GET, POST")
		pageError(w, http.StatusMethodNotAllowed, "Method not allowed.")
	}
}

func pageError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = errorPage.Execute(w, msg)
}
