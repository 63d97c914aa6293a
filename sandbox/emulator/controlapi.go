package emulator

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The control API: every method of [Controls] as JSON over HTTP, for
// tests in any language. docs/emulator.md lists each control with a curl
// example. It is its own http.Handler, never mounted on the bank's
// listener: the command serves it on a loopback listener of its own
// (psd2 emulator -control), behind a bearer token.
//
//	POST /controls/{name}[?bank=ID]   {arguments}  ->  200 {result}
//	GET  /controls/{name}[?bank=ID]   (the controls that only read)
//	GET  /controls                    the controls, the arguments each takes, an example
//	GET  /banks                       the banks served
//
// name is the Go method's name in kebab case (Advance: advance,
// InjectFault: inject-fault). Each control takes the argument keys its
// route declares (controlRoute.keys) and refuses any other. Errors
// answer {"error": "...", "code": "..."} with 400 (bad arguments; a key
// the control does not take, another control's included, names the key
// and the control), 401 (no or a wrong token), 404 (an unknown control,
// bank, authorisation, account, transaction, customer or payment), 413
// (arguments past maxControlBody or Limits.controlValues) or 422 (the
// control refused: a failed SCA, seed data past a limit); every refusal
// of an argument names the field, inside an argument by its path
// (customers[0].accounts[1].product). Every argument is bounded
// before the control runs (scanControlArgs: array values, nesting,
// texts; decodeControlArgs: keys and types; maxControlDuration,
// maxClockShift, the checks of each route).

// maxControlBody bounds a control's JSON arguments (seed data included).
const maxControlBody = 32 << 20

// controlRoute is one control of the API.
type controlRoute struct {
	method string // the Controls method's name
	read   bool   // only reads: GET is allowed
	// keys are the arguments the control takes, their JSON keys (of
	// controlArgs) separated by spaces, "" for none: the one declaration
	// of them. The control refuses any other key (decodeControlArgs), and
	// TestControlRoutesDeclareTheirKeys checks that run reads these
	// fields of controlArgs and no other.
	keys string
	args string // an example of the arguments, in JSON ("" for none)
	doc  string // what it does, one line
	run  func(ctx context.Context, s *Server, a *controlArgs) (any, error)
}

// controlArgs are the arguments every control takes its own from. The
// names are the JSON keys of docs/emulator.md.
type controlArgs struct {
	TPP            string          `json:"tpp"` // a TPP certificate, PEM or base64 DER; "": the bank's only TPP
	SCARedirect    string          `json:"scaRedirect"`
	CustomerNumber jsonString      `json:"customerNumber"`
	CustomerID     jsonString      `json:"customerId"`
	AgreementID    jsonString      `json:"agreementId"`
	Context        string          `json:"context"`
	AccountID      jsonString      `json:"accountId"`
	Ref            jsonString      `json:"ref"`
	Amount         jsonString      `json:"amount"`
	BBAN           jsonString      `json:"bban"`
	On             *bool           `json:"on"`
	N              int             `json:"n"`
	Roles          []string        `json:"roles"`
	Time           *jsonTime       `json:"time"`
	At             *jsonTime       `json:"at"`
	BookingDate    *jsonTime       `json:"bookingDate"`
	By             *jsonDuration   `json:"by"`
	Days           float64         `json:"days"`
	For            *jsonDuration   `json:"for"`
	Down           *jsonDuration   `json:"down"`
	Up             *jsonDuration   `json:"up"`
	P50            *jsonDuration   `json:"p50"`
	P99            *jsonDuration   `json:"p99"`
	RetryAfter     *jsonDuration   `json:"retryAfter"`
	Delay          *jsonDuration   `json:"delay"`
	Kind           string          `json:"kind"`
	Method         string          `json:"method"`
	PathPrefix     string          `json:"pathPrefix"`
	Count          int             `json:"count"`
	Status         int             `json:"status"`
	Transaction    SeedTransaction `json:"transaction"`
	Customers      []SeedCustomer  `json:"customers"`
	Profile        *string         `json:"profile"`
	PaymentID      jsonString      `json:"paymentId"`
	Settlement     Settlement      `json:"settlement"`
	Text           jsonString      `json:"text"` // a number too: an invoice number typed on a command line
}

// controlRoutes are the controls of the API, one per method of Controls
// (TestControlAPICoversEveryControl checks it).
var controlRoutes = []controlRoute{
	{method: "Now", read: true, doc: "the bank's time", run: func(_ context.Context, s *Server, _ *controlArgs) (any, error) {
		return clockAnswer(s), nil
	}},
	{method: "SetTime", keys: "time", args: `{"time":"2026-03-01T09:00:00+01:00"}`, doc: "set the bank's clock (it may go back)", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if a.Time == nil {
			return nil, argError("time is required (RFC 3339, or a date)")
		}
		t := time.Time(*a.Time)
		if err := clockReach(s, "time", t); err != nil {
			return nil, err
		}
		s.Control().SetTime(t)
		return clockAnswer(s), nil
	}},
	{method: "Advance", keys: "by days", args: `{"days":89}`, doc: `move the bank's clock on by "by" (a Go duration, or "89d") plus "days"`, run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if math.Abs(a.Days) > maxControlDuration.Hours()/24 {
			return nil, argError(fmt.Sprintf("days: %g is more than %d days", a.Days, int(maxControlDuration.Hours()/24)))
		}
		d := time.Duration(a.Days * float64(24*time.Hour))
		if a.By != nil {
			d += time.Duration(*a.By) // each within maxControlDuration: no overflow
		}
		if d == 0 {
			return nil, argError(`by or days is required ("by":"1m", "by":"89d", "days":89)`)
		}
		if err := clockReach(s, "by", s.now().Add(d)); err != nil {
			return nil, err
		}
		s.Control().Advance(d)
		return clockAnswer(s), nil
	}},
	{method: "Freeze", doc: "stop the bank's clock", run: func(_ context.Context, s *Server, _ *controlArgs) (any, error) {
		s.Control().Freeze()
		return clockAnswer(s), nil
	}},
	{method: "Resume", doc: "let the bank's clock run again", run: func(_ context.Context, s *Server, _ *controlArgs) (any, error) {
		s.Control().Resume()
		return clockAnswer(s), nil
	}},
	{method: "Authorize", keys: "scaRedirect customerNumber", args: `{"scaRedirect":"https://...","customerNumber":"13039319955"}`, doc: "approve an SCA as the customer", run: func(ctx context.Context, s *Server, a *controlArgs) (any, error) {
		u, err := s.Control().Authorize(ctx, a.SCARedirect, string(a.CustomerNumber))
		return callbackAnswer(u, named(err, ErrAuthorisationUnknown, "scaRedirect", noSCA))
	}},
	{method: "AuthorizeCorporate", keys: "scaRedirect customerNumber agreementId", args: `{"scaRedirect":"https://...","customerNumber":"18129215603","agreementId":""}`, doc: "approve an SCA as a corporate customer in one of its agreements", run: func(ctx context.Context, s *Server, a *controlArgs) (any, error) {
		u, err := s.Control().AuthorizeCorporate(ctx, a.SCARedirect, string(a.CustomerNumber), string(a.AgreementID))
		return callbackAnswer(u, named(err, ErrAuthorisationUnknown, "scaRedirect", noSCA))
	}},
	{method: "AuthorizeInContext", keys: "scaRedirect customerNumber context agreementId", args: `{"scaRedirect":"https://...","customerNumber":"13039319955","context":"CORPORATE","agreementId":"..."}`, doc: "approve an SCA as the customer in the PRIVATE or CORPORATE context", run: func(ctx context.Context, s *Server, a *controlArgs) (any, error) {
		u, err := s.Control().AuthorizeInContext(ctx, a.SCARedirect, string(a.CustomerNumber), a.Context, string(a.AgreementID))
		return callbackAnswer(u, named(err, ErrAuthorisationUnknown, "scaRedirect", noSCA))
	}},
	{method: "Reject", keys: "scaRedirect", args: `{"scaRedirect":"https://..."}`, doc: "deny an SCA as the PSU pressing cancel", run: func(ctx context.Context, s *Server, a *controlArgs) (any, error) {
		u, err := s.Control().Reject(ctx, a.SCARedirect)
		return callbackAnswer(u, named(err, ErrAuthorisationUnknown, "scaRedirect", noSCA))
	}},
	{method: "Authorisations", read: true, keys: "tpp", args: `{"tpp":""}`, doc: "the SCAs waiting for the PSU", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		var cert *x509.Certificate
		if a.TPP != "" {
			c, err := s.controlRegisteredTPP(a.TPP)
			if err != nil {
				return nil, err
			}
			cert = c
		}
		return map[string]any{"authorisations": orEmpty(s.Control().Authorisations(cert))}, nil
	}},
	{method: "RevokeConsent", keys: "customerNumber", args: `{"customerNumber":"13039319955"}`, doc: "revoke the customer's consents as the PSU at the bank", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if err := s.controlCustomer(string(a.CustomerNumber)); err != nil {
			return nil, err
		}
		s.Control().RevokeConsent(string(a.CustomerNumber))
		return struct{}{}, nil
	}},
	{method: "Reconsent", keys: "tpp customerId", args: `{"customerId":"enc!!..."}`, doc: "a new consent: the accounts get new resource ids", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		cert, err := s.controlRegisteredTPP(a.TPP)
		if err != nil {
			return nil, err
		}
		out, err := s.Control().Reconsent(cert, string(a.CustomerID))
		return out, named(err, ErrUnknownTransaction, "customerId", "no customer of the TPP's sandbox has it")
	}},
	{method: "Consents", read: true, keys: "tpp customerNumber", args: `{"customerNumber":"13039319955"}`, doc: "the customer's consents at the TPP, with their end", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		cert, err := s.controlRegisteredTPP(a.TPP)
		if err != nil {
			return nil, err
		}
		// A number no customer has (a typo, or none given) would list no
		// consents: the all-clear of a test that checks one was revoked.
		if err := s.controlCustomer(string(a.CustomerNumber)); err != nil {
			return nil, err
		}
		now := s.now()
		type consent struct {
			Consent
			DaysLeft float64 `json:"daysLeft"`
		}
		out := []consent{}
		for _, c := range s.Control().Consents(cert, string(a.CustomerNumber)) {
			out = append(out, consent{c, c.Expires.Sub(now).Hours() / 24})
		}
		return map[string]any{"now": now, "consents": out}, nil
	}},
	{method: "SetLastOnlineSCA", keys: "customerNumber at", args: `{"customerNumber":"13039319955","at":"2025-06-01T12:00:00Z"}`, doc: "date the PSU's last SCA at the bank (the 180-day rule), not after the emulator's clock; no at forgets it", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		var at time.Time
		if a.At != nil {
			at = time.Time(*a.At)
		}
		if now := s.now(); at.After(now) {
			return nil, argError("at: " + at.Format(time.RFC3339) + " is after the emulator's clock (" + now.Format(time.RFC3339) + "): the PSU's last SCA cannot be in the future")
		}
		if err := s.controlCustomer(string(a.CustomerNumber)); err != nil {
			return nil, err
		}
		s.Control().SetLastOnlineSCA(string(a.CustomerNumber), at)
		return struct{}{}, nil
	}},
	{method: "Seed", keys: "tpp customers", args: `{"customers":[{"accounts":[{"balance":"1000.00"}],"consent":{}}]}`, doc: "add customers, accounts, transactions and consents in one step", run: func(ctx context.Context, s *Server, a *controlArgs) (any, error) {
		cert, err := s.controlRegisteredTPP(a.TPP)
		if err != nil {
			return nil, err
		}
		return s.Control().Seed(ctx, cert, SeedData{Customers: a.Customers})
	}},
	{method: "AddTransaction", keys: "accountId transaction", args: `{"accountId":"enc!!...","transaction":{"amount":"-49.00","counterpartyName":"Kaffebar"}}`, doc: "add a transaction to an account", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		ref, err := s.Control().AddTransaction(string(a.AccountID), a.Transaction)
		return map[string]string{"ref": ref}, named(seedErrorIn("transaction", err), ErrUnknownTransaction, "accountId", noAccount)
	}},
	{method: "AddTwins", keys: "accountId n transaction", args: `{"accountId":"enc!!...","n":2,"transaction":{"amount":"-49.00"}}`, doc: "add n identical transactions", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		refs, err := s.Control().AddTwins(string(a.AccountID), a.Transaction, a.N)
		return map[string][]string{"refs": refs}, named(seedErrorIn("transaction", err), ErrUnknownTransaction, "accountId", noAccount)
	}},
	{method: "ChangeTransactionID", keys: "accountId ref", args: `{"accountId":"enc!!...","ref":"..."}`, doc: "give a booked transaction a new id (id churn)", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if err := s.controlAccount(string(a.AccountID)); err != nil {
			return nil, err
		}
		ref, err := s.Control().ChangeTransactionID(string(a.AccountID), string(a.Ref))
		return map[string]string{"ref": ref}, named(err, ErrUnknownTransaction, "ref", "the account has no booked transaction with it")
	}},
	{method: "BookPending", keys: "accountId ref bookingDate amount", args: `{"accountId":"enc!!...","ref":"pending-...","bookingDate":"2026-03-02","amount":"-287.40"}`, doc: "book a pending transaction", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		var day time.Time
		if a.BookingDate != nil {
			day = time.Time(*a.BookingDate)
		}
		if err := s.controlAccount(string(a.AccountID)); err != nil {
			return nil, err
		}
		ref, err := s.Control().BookPending(string(a.AccountID), string(a.Ref), day, string(a.Amount))
		return map[string]string{"ref": ref}, named(err, ErrUnknownTransaction, "ref", noPending)
	}},
	{method: "DropPending", keys: "accountId ref", args: `{"accountId":"enc!!...","ref":"pending-..."}`, doc: "drop a pending transaction", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if err := s.controlAccount(string(a.AccountID)); err != nil {
			return nil, err
		}
		return struct{}{}, named(s.Control().DropPending(string(a.AccountID), string(a.Ref)), ErrUnknownTransaction, "ref", noPending)
	}},
	{method: "SetUnfilteredPending", keys: "on", args: `{"on":true}`, doc: "the known issue of unfiltered pending transactions on or off", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if a.On == nil {
			return nil, argError("on is required (true or false)")
		}
		s.Control().SetUnfilteredPending(*a.On)
		return struct{}{}, nil
	}},
	{method: "SetRoles", keys: "tpp roles", args: `{"roles":["AISP"]}`, doc: "register the TPP as AISP, PISP or both", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		cert, err := s.controlTPP(a.TPP)
		if err != nil {
			return nil, err
		}
		if err := s.roleCertificate(cert); err != nil { // rolecert.go
			return nil, err
		}
		var roles Role
		for _, r := range a.Roles {
			switch strings.ToUpper(r) {
			case "AISP":
				roles |= RoleAISP
			case "PISP":
				roles |= RolePISP
			default:
				return nil, argError("roles are AISP and PISP")
			}
		}
		if roles == 0 {
			return nil, argError(`roles is required (["AISP"], ["PISP"] or both)`)
		}
		s.Control().SetRoles(cert, roles)
		return struct{}{}, nil
	}},
	{method: "GrantAgreement", keys: "tpp agreementId customerNumber", args: `{"agreementId":"...","customerNumber":"13039319955"}`, doc: "give a private PSU access to a company's agreement", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		cert, err := s.controlRegisteredTPP(a.TPP)
		if err != nil {
			return nil, err
		}
		err = s.Control().GrantAgreement(cert, string(a.AgreementID), string(a.CustomerNumber))
		err = named(err, errGrantNoCustomer, "customerNumber", "no customer of the TPP's sandbox has it")
		return struct{}{}, named(err, errGrantNoAgreement, "agreementId", "no agreement of the TPP's sandbox has it")
	}},
	{method: "RemovePaymentPermission", keys: "bban", args: `{"bban":"95312776066"}`, doc: "the account stays listed but cannot pay", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if err := s.controlBBAN(string(a.BBAN)); err != nil {
			return nil, err
		}
		s.Control().RemovePaymentPermission(string(a.BBAN))
		return struct{}{}, nil
	}},
	{method: "RestorePaymentPermission", keys: "bban", args: `{"bban":"95312776066"}`, doc: "undo remove-payment-permission", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if err := s.controlBBAN(string(a.BBAN)); err != nil {
			return nil, err
		}
		s.Control().RestorePaymentPermission(string(a.BBAN))
		return struct{}{}, nil
	}},
	{method: "SetProfile", keys: "profile", args: `{"profile":"consent=180,create=start-authorisation,keyid=openssl,caps=per-tpp"}`, doc: "how the bank differs: consent days, the payment creation answer, keyId forms, per-TPP caps", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if a.Profile == nil {
			return nil, argError(`profile is required ("consent=180,create=start-authorisation", "" for the default)`)
		}
		p, err := ParseProfile(*a.Profile)
		if err != nil {
			return nil, argError("profile: " + err.Error())
		}
		if err := s.Control().SetProfile(p); err != nil {
			return nil, argError("profile: " + err.Error())
		}
		return map[string]string{"profile": p.String()}, nil
	}},
	{method: "Profile", read: true, doc: "the bank's profile", run: func(_ context.Context, s *Server, _ *controlArgs) (any, error) {
		return map[string]string{"profile": s.Control().Profile().String()}, nil
	}},
	{method: "RunBatch", doc: "run the payment batch now", run: func(_ context.Context, s *Server, _ *controlArgs) (any, error) {
		s.Control().RunBatch()
		return struct{}{}, nil
	}},
	{method: "Payments", read: true, doc: "the payments created so far", run: func(_ context.Context, s *Server, _ *controlArgs) (any, error) {
		return map[string]any{"payments": orEmpty(s.Control().Payments())}, nil
	}},
	{method: "SetSettlement", keys: "paymentId settlement", args: `{"paymentId":"enc!!...","settlement":{"lateDays":2,"fee":{"amount":"5.00","currency":"NOK"},"returnDays":3}}`, doc: "book a payment's credit late, less a fee, or return it later", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if fee := a.Settlement.Fee; fee.Err() != nil || !fee.Value.IsZero() || fee.Currency != "" {
			// An unreadable fee read as none: 200, and no fee deducted.
			if err := fee.Validate(); err != nil {
				return nil, argError("settlement.fee: " + clip(err.Error()))
			}
		}
		err := s.Control().SetSettlement(string(a.PaymentID), a.Settlement)
		return struct{}{}, named(seedErrorIn("settlement", err), ErrUnknownPayment, "paymentId", noPayment)
	}},
	{method: "Twin", keys: "paymentId", args: `{"paymentId":"enc!!..."}`, doc: "a second, identical payment of an approved one (paid twice)", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		p, err := s.Control().Twin(string(a.PaymentID))
		return map[string]any{"payment": p}, named(err, ErrUnknownPayment, "paymentId", noPayment)
	}},
	{method: "UnrelatedCredit", keys: "paymentId text", args: `{"paymentId":"enc!!...","text":"Faktura"}`, doc: "a credit of a payment's amount from elsewhere on its creditor account", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		ref, err := s.Control().UnrelatedCredit(string(a.PaymentID), string(a.Text))
		return map[string]string{"ref": ref}, named(err, ErrUnknownPayment, "paymentId", noPayment)
	}},
	{method: "InjectFault", keys: "kind status method pathPrefix count retryAfter delay", args: `{"kind":"status","status":503,"method":"POST","pathPrefix":"/v1/payments/","count":1}`, doc: "fail the next requests (status, rate-limit, hang, drop-after-body, drop-before-processing, corrupt-signature, corrupt-digest)", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		k, ok := faultKinds[a.Kind]
		if !ok {
			return nil, argError("kind: one of " + strings.Join(faultKindNames(), ", "))
		}
		// Each of status, retryAfter and delay is its kind's alone: on
		// another kind it would answer 200 and do nothing.
		for _, only := range []struct {
			given bool
			field string
			kind  FaultKind
		}{{a.Status != 0, "status", FaultStatus}, {a.RetryAfter != nil, "retryAfter", FaultRateLimit}, {a.Delay != nil, "delay", FaultHang}} {
			if only.given && k != only.kind {
				return nil, argError(fmt.Sprintf("%s: only a fault of kind %s has one, not %s", only.field, faultKindName(only.kind), a.Kind))
			}
		}
		method := strings.ToUpper(a.Method)
		f := Fault{Kind: k, Method: method, PathPrefix: a.PathPrefix, Count: a.Count, Status: a.Status}
		if a.RetryAfter != nil {
			f.RetryAfter = time.Duration(*a.RetryAfter)
		}
		if a.Delay != nil {
			f.Delay = time.Duration(*a.Delay)
		}
		switch {
		case method != "" && !slices.Contains(faultMethods, method):
			// Another method would never match a request: armed for ever.
			return nil, argError("method: one of " + strings.Join(faultMethods, ", ") + " (empty: any)")
		case f.PathPrefix != "" && !strings.HasPrefix(f.PathPrefix, "/"):
			return nil, argError(`pathPrefix: a path starting with "/", such as "/v1/payments/" (empty: any)`)
		case strings.ContainsAny(f.PathPrefix, "?#"):
			// A request's path holds no query or fragment: the fault
			// would never match a request and stay armed for ever.
			return nil, argError(`pathPrefix: a path without a query or fragment ("?", "#"), such as "/v1/payments/"`)
		case f.PathPrefix != "" && !strings.HasPrefix(faultPrefix(f.PathPrefix), "/v1/") && !strings.HasPrefix("/v1/", faultPrefix(f.PathPrefix)):
			// Faults apply to the API's paths (/v1/... after /api) only:
			// the SCA page, /openapi.json or another path would never
			// match a request, and the fault would stay armed for ever.
			return nil, argError(`pathPrefix: a path of the API, such as "/v1/payments/" or "/api/v1/payments/" (empty: any)`)
		case f.Count < 0 || f.Count > maxFaultCount:
			return nil, argError(fmt.Sprintf("count: the number of requests to fail, 1 to %d (0: 1; for every request over a span, outage)", maxFaultCount))
		case f.Status != 0 && (f.Status < minFaultStatus || f.Status > maxFaultStatus):
			return nil, argError(fmt.Sprintf("status: an error status, %d to %d (0: 503)", minFaultStatus, maxFaultStatus))
		case f.RetryAfter < 0:
			return nil, argError("retryAfter: a duration of 0 (1 s) or more")
		case f.Delay < 0:
			return nil, argError("delay: a duration of 0 (until the client gives up) or more")
		case s.faultsArmed() >= maxFaults:
			return nil, &controlError{status: http.StatusUnprocessableEntity, code: "REFUSED",
				msg: fmt.Sprintf("%d faults are armed already, the most at once (give one a count instead)", maxFaults)}
		}
		s.Control().InjectFault(f)
		return struct{}{}, nil
	}},
	{method: "Outage", keys: "kind for", args: `{"kind":"unavailable","for":"1m"}`, doc: "the bank down for a span of its clock: refused, unavailable (503) or hang", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if err := outageRoom(s); err != nil {
			return nil, err
		}
		k, err := ParseOutageKind(a.Kind)
		if err != nil {
			return nil, argError("kind: " + err.Error())
		}
		span, err := a.span()
		if err != nil {
			return nil, err
		}
		s.Control().Outage(k, span)
		return clockAnswer(s), nil
	}},
	{method: "Flapping", keys: "kind down up for", args: `{"kind":"unavailable","down":"10s","up":"50s","for":"1h"}`, doc: "the bank down and up again and again for a span", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if err := outageRoom(s); err != nil {
			return nil, err
		}
		k, err := ParseOutageKind(a.Kind)
		if err != nil {
			return nil, argError("kind: " + err.Error())
		}
		span, err := a.span()
		if err != nil {
			return nil, err
		}
		if a.Down == nil || a.Up == nil || *a.Down <= 0 || *a.Up <= 0 {
			return nil, argError("down and up are required durations")
		}
		if time.Duration(*a.Down) < minFlapPhase || time.Duration(*a.Up) < minFlapPhase {
			return nil, argError(fmt.Sprintf("down, up: each at least %v", minFlapPhase))
		}
		s.Control().Flapping(k, time.Duration(*a.Down), time.Duration(*a.Up), span)
		return clockAnswer(s), nil
	}},
	{method: "SlowBank", keys: "p50 p99 for", args: `{"p50":"300ms","p99":"4s","for":"10m"}`, doc: "delay every request by a log-normal draw for a span", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if err := outageRoom(s); err != nil {
			return nil, err
		}
		span, err := a.span()
		if err != nil {
			return nil, err
		}
		if a.P50 == nil || *a.P50 <= 0 {
			return nil, argError("p50 is a required duration")
		}
		lat := Latency{P50: time.Duration(*a.P50)}
		if a.P99 != nil {
			lat.P99 = time.Duration(*a.P99)
		}
		if lat.P50 > maxLatency || lat.P99 > maxLatency {
			// No draw is longer: a longer one would answer 200 and wait less.
			return nil, argError(fmt.Sprintf("p50, p99: at most %v", maxLatency))
		}
		if a.P99 != nil && lat.P99 < lat.P50 {
			// It would answer 200 and delay every request by p50.
			return nil, argError("p99: at least p50 (none: every delay p50)")
		}
		s.Control().SlowBank(lat, span)
		return clockAnswer(s), nil
	}},
	{method: "RateLimitStorm", keys: "retryAfter for", args: `{"retryAfter":"5s","for":"1m"}`, doc: "429 ACCESS_EXCEEDED to every request for a span", run: func(_ context.Context, s *Server, a *controlArgs) (any, error) {
		if err := outageRoom(s); err != nil {
			return nil, err
		}
		span, err := a.span()
		if err != nil {
			return nil, err
		}
		var ra time.Duration
		if a.RetryAfter != nil {
			ra = time.Duration(*a.RetryAfter)
		}
		if ra < 0 {
			return nil, argError("retryAfter: a duration of 0 (1 s) or more")
		}
		s.Control().RateLimitStorm(ra, span)
		return clockAnswer(s), nil
	}},
	{method: "EndOutages", doc: "end every outage now", run: func(_ context.Context, s *Server, _ *controlArgs) (any, error) {
		s.Control().EndOutages()
		return clockAnswer(s), nil
	}},
}

// faultKinds are the names of the fault kinds in the control API.
var faultKinds = map[string]FaultKind{
	"status": FaultStatus, "rate-limit": FaultRateLimit, "hang": FaultHang,
	"drop-after-body": FaultDropAfterBody, "drop-before-processing": FaultDropBeforeProcessing,
	"corrupt-signature": FaultCorruptSignature, "corrupt-digest": FaultCorruptDigest,
}

// maxFaultCount bounds the count of a fault armed over the control API:
// far past the requests of any test; a bank that fails every request
// for a while is an outage (Outage, RateLimitStorm).
const maxFaultCount = 1_000_000

// faultMethods are the methods a fault may match: a request of the bank
// has one of them.
var faultMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}

// faultKindName is the control API's name of the fault kind k.
func faultKindName(k FaultKind) string {
	for n, v := range faultKinds {
		if v == k {
			return n
		}
	}
	return ""
}

func faultKindNames() []string {
	out := make([]string, 0, len(faultKinds))
	for n := range faultKinds {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// ControlName is the control API's name of a [Controls] method: the
// method's name in kebab case (InjectFault: inject-fault).
func ControlName(method string) string {
	var b strings.Builder
	rs := []rune(method)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			// A word starts at an upper-case letter after a lower-case
			// one, or before a lower-case one in a run (SCARedirect).
			if i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))) {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// span is the "for" argument of the outages.
func (a *controlArgs) span() (time.Duration, error) {
	if a.For == nil || *a.For <= 0 {
		return 0, argError(`for is a required duration ("1m", "90s")`)
	}
	return time.Duration(*a.For), nil
}

// clockReach refuses a move of the bank's clock (the argument field) to
// t, more than maxClockShift from the server's clock.
func clockReach(s *Server, field string, t time.Time) error {
	if shift := t.Sub(s.clock.wire()); shift > maxClockShift || shift < -maxClockShift {
		return argError(fmt.Sprintf("%s: the bank's clock would be %.0f days from the server's; it stays within %.0f days of it",
			field, shift.Hours()/24, maxClockShift.Hours()/24))
	}
	return nil
}

// outageRoom refuses a new outage while maxOutages run.
func outageRoom(s *Server) error {
	if s.outagesRunning() >= maxOutages {
		return &controlError{status: http.StatusUnprocessableEntity, code: "REFUSED",
			msg: fmt.Sprintf("%d outages run already, the most at once (end-outages ends them)", maxOutages)}
	}
	return nil
}

// clockAnswer is the answer of the clock controls and outages.
func clockAnswer(s *Server) any {
	return map[string]any{"now": s.now(), "frozen": s.clock.isFrozen()}
}

// callbackAnswer is the answer of the SCA controls: the callback URL the
// browser would be sent to, and the failure if the SCA failed.
func callbackAnswer(u *url.URL, err error) (any, error) {
	if err != nil && u != nil {
		return nil, &controlError{status: http.StatusUnprocessableEntity, code: "SCA_FAILED", msg: err.Error(), callback: u.String()}
	}
	if err != nil {
		return nil, err
	}
	return map[string]string{"callback": u.String()}, nil
}

func orEmpty[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// controlError is an error answer of the control API.
type controlError struct {
	status   int
	code     string
	msg      string
	callback string
}

func (e *controlError) Error() string { return e.msg }

func argError(msg string) error {
	return &controlError{status: http.StatusBadRequest, code: "BAD_ARGUMENTS", msg: msg}
}

// controlStatus turns a control's error into its answer.
func controlStatus(err error) *controlError {
	var ce *controlError
	var se *SeedError
	switch {
	case errors.As(err, &ce):
		return ce
	case errors.As(err, &se):
		status := http.StatusBadRequest
		if errors.Is(err, ErrSeedLimit) {
			status = http.StatusUnprocessableEntity
		}
		return &controlError{status: status, code: "SEED_REFUSED", msg: err.Error()}
	case errors.Is(err, ErrAuthorisationUnknown), errors.Is(err, ErrUnknownTransaction), errors.Is(err, ErrUnknownPayment):
		return &controlError{status: http.StatusNotFound, code: "UNKNOWN", msg: err.Error()}
	case errors.Is(err, ErrUnknownTPP):
		return &controlError{status: http.StatusBadRequest, code: "UNKNOWN_TPP", msg: "tpp: " + err.Error()}
	case errors.Is(err, ErrSettled), errors.Is(err, ErrNotApproved):
		return &controlError{status: http.StatusUnprocessableEntity, code: "REFUSED", msg: err.Error()}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &controlError{status: http.StatusServiceUnavailable, code: "CANCELLED", msg: err.Error()}
	}
	return &controlError{status: http.StatusBadRequest, code: "REFUSED", msg: err.Error()}
}

// controlTPP returns the certificate the "tpp" argument names (PEM or
// base64 DER), or with none the bank's only registered TPP.
func (s *Server) controlTPP(arg string) (*x509.Certificate, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		s.mu.RLock()
		defer s.mu.RUnlock()
		var only *x509.Certificate
		ids := map[string]bool{}
		for _, t := range s.tpps {
			ids[t.id] = true
			if only == nil || t.cert.NotAfter.After(only.NotAfter) {
				only = t.cert
			}
		}
		if len(ids) != 1 {
			return nil, argError(fmt.Sprintf("tpp: the bank has %d registered TPPs: name one (its certificate, PEM or base64 DER)", len(ids)))
		}
		return only, nil
	}
	der := []byte(nil)
	if b, _ := pem.Decode([]byte(arg)); b != nil {
		der = b.Bytes
	} else if d, err := base64.StdEncoding.DecodeString(arg); err == nil {
		der = d
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, argError("tpp: not a certificate (PEM or base64 DER)")
	}
	return cert, nil
}

// controlRegisteredTPP is controlTPP refusing a certificate of no
// registered TPP (its identity, tppIdentity: a renewal of a registered
// TPP's certificate is that TPP): a control for it would answer 200 and
// change nothing, or list nothing.
func (s *Server) controlRegisteredTPP(arg string) (*x509.Certificate, error) {
	cert, err := s.controlTPP(arg)
	if err != nil {
		return nil, err
	}
	id := tppIdentity(cert)
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, t := range s.tpps {
		if t.id == id {
			return cert, nil
		}
	}
	return nil, &controlError{status: http.StatusBadRequest, code: "UNKNOWN_TPP", msg: "tpp: no TPP registered at the bank has this certificate"}
}

// The refusals of an unknown id, naming its field (named).
const (
	noSCA     = "no SCA of the bank waits at this link (unknown, or completed)"
	noAccount = "no account of the bank has it"
	noPending = "the account has no pending transaction with it"
	noPayment = "no payment of the bank has it, or its creditor account is no sandbox account"
)

// named is err, a control's error, answered 404 naming the field it is
// about ("field: msg") when it is the sentinel is; any other error as it
// is.
func named(err, is error, field, msg string) error {
	if err != nil && errors.Is(err, is) {
		return &controlError{status: http.StatusNotFound, code: "UNKNOWN", msg: field + ": " + msg}
	}
	return err
}

// seedErrorIn names the field of a *SeedError as a field of the argument
// arg (Amount: transaction.Amount); a cap (Limits.Transactions), another
// argument (n) and any other error pass as they are.
func seedErrorIn(arg string, err error) error {
	var se *SeedError
	if !errors.As(err, &se) || se.Err != nil || se.Path == "n" {
		return err
	}
	in := *se
	in.Path = arg + "." + se.Path
	return &in
}

// controlAccount refuses an account id that no account of the bank has,
// as controlCustomer does a customer number.
func (s *Server) controlAccount(id string) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, a := s.scenarioAccount(id); a == nil {
		return &controlError{status: http.StatusNotFound, code: "UNKNOWN", msg: "accountId: " + noAccount}
	}
	return nil
}

// controlCustomer refuses a customer number that no customer of the bank
// has (a default customer, or one of any TPP's sandbox): a control for
// it would answer 200 and change nothing.
func (s *Server) controlCustomer(number string) error {
	return s.controlKnown("customerNumber: no customer of the bank has it", func(r reservedIDs, st *store) bool {
		return r.numbers[number] || st != nil && st.byNumber[number] != nil
	})
}

// controlBBAN refuses a BBAN that no account of the bank has, as
// controlCustomer does a customer number.
func (s *Server) controlBBAN(bban string) error {
	return s.controlKnown("bban: no account of the bank has it", func(r reservedIDs, st *store) bool {
		return r.bbans[bban] || st != nil && st.byBBAN[bban] != nil
	})
}

// controlKnown answers 404 with msg unless has holds for the default
// data (st nil) or for one TPP's sandbox.
func (s *Server) controlKnown(msg string, has func(r reservedIDs, st *store) bool) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r := s.reserved()
	if has(r, nil) {
		return nil
	}
	for _, st := range s.stores {
		if has(r, st) {
			return nil
		}
	}
	return &controlError{status: http.StatusNotFound, code: "UNKNOWN", msg: msg}
}

// controlAPI serves the controls of one or several banks.
type controlAPI struct {
	token [sha256.Size]byte // SHA-256 of the token: compared in constant time
	banks map[string]*Server
	ids   []string // the banks' ids, in order
}

// ControlHandler returns the control API of the server: every method of
// [Controls] as JSON over HTTP, for tests in any language (see
// docs/emulator.md). Every request must carry the header "Authorization:
// Bearer <token>"; an empty token refuses every request. Serve it on a
// listener of its own on the loopback interface, never on the bank's:
// whoever holds the token can approve any SCA.
func (s *Server) ControlHandler(token string) http.Handler {
	return newControlAPI(token, map[string]*Server{"": s}, nil)
}

func newControlAPI(token string, banks map[string]*Server, ids []string) http.Handler {
	api := &controlAPI{banks: banks, ids: ids}
	if token != "" {
		api.token = sha256.Sum256([]byte(token))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /controls", api.list)
	mux.HandleFunc("GET /banks", func(w http.ResponseWriter, _ *http.Request) {
		writeControl(w, http.StatusOK, map[string]any{"banks": orEmpty(api.ids)})
	})
	for i := range controlRoutes {
		rt := &controlRoutes[i]
		path := "/controls/" + ControlName(rt.method)
		mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) { api.serve(w, r, rt) })
		if rt.read {
			mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) { api.serve(w, r, rt) })
		}
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeControl(w, http.StatusNotFound, &controlError{code: "NOT_FOUND", msg: "no such control: " + clip(r.Method) + " " + clip(r.URL.Path) + " (GET /controls lists them)"})
	})
	return api.guard(mux)
}

// guard refuses a request without the token.
func (api *controlAPI) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		// The scheme matches without regard to case (RFC 9110, 11.1).
		scheme, got, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		ok := strings.EqualFold(scheme, "Bearer")
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		var zero [sha256.Size]byte
		if !ok || api.token == zero || subtle.ConstantTimeCompare(sum[:], api.token[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="psd2 emulator control"`)
			writeControl(w, http.StatusUnauthorized, &controlError{code: "UNAUTHORIZED", msg: "the control API needs Authorization: Bearer <token> (printed when the emulator starts)"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bank returns the bank the request names with ?bank= (its id or host
// name), or the only one.
func (api *controlAPI) bank(r *http.Request) (*Server, error) {
	ids := r.URL.Query()["bank"]
	if len(ids) > 1 {
		// Not the first taken and the others dropped without a word,
		// as a key given twice in the arguments is refused.
		return nil, argError("bank: given " + strconv.Itoa(len(ids)) + " times in the query; name one bank")
	}
	id := r.URL.Query().Get("bank")
	if id == "" {
		if len(api.banks) == 1 {
			for _, s := range api.banks {
				return s, nil
			}
		}
		return nil, &controlError{status: http.StatusBadRequest, code: "BAD_ARGUMENTS", msg: "several banks: name one with ?bank= (" + strings.Join(api.ids, ", ") + ")"}
	}
	if s := api.banks[strings.ToLower(id)]; s != nil {
		return s, nil
	}
	return nil, &controlError{status: http.StatusNotFound, code: "UNKNOWN_BANK", msg: "no bank " + strconv.Quote(clip(id)) + " (GET /banks lists them)"}
}

func (api *controlAPI) serve(w http.ResponseWriter, r *http.Request, rt *controlRoute) {
	s, err := api.bank(r)
	if err != nil {
		writeControl(w, 0, err)
		return
	}
	for k := range r.URL.Query() {
		if k != "bank" {
			// GET /controls/consents?customerNumber=... would run the
			// control without it and list nothing.
			writeControl(w, 0, argError(strconv.Quote(clip(k))+": the arguments are a JSON object in the body; the query takes bank alone"))
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxControlBody))
	if err != nil {
		if mb := (*http.MaxBytesError)(nil); errors.As(err, &mb) {
			writeControl(w, 0, &controlError{status: http.StatusRequestEntityTooLarge, code: "TOO_LARGE", msg: fmt.Sprintf("the arguments are larger than %d bytes", maxControlBody)})
			return
		}
		writeControl(w, 0, argError("the arguments cannot be read"))
		return
	}
	var a controlArgs
	if err := decodeControlArgs(body, s.limits.controlValues(), rt, &a); err != nil {
		writeControl(w, 0, err)
		return
	}
	out, err := rt.run(r.Context(), s, &a)
	if err != nil {
		writeControl(w, 0, err)
		return
	}
	writeControl(w, http.StatusOK, out)
}

// takes reports whether the control takes the argument key (keys
// match without regard to case, as the decoder matches them).
func (rt *controlRoute) takes(key string) bool {
	for k := range strings.FieldsSeq(rt.keys) {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// refuseKey is the refusal of the argument key, one the control rt does
// not take: no control's, or another control's.
func (rt *controlRoute) refuseKey(key string) error {
	name := ControlName(rt.method)
	if rt.keys == "" {
		return argError(strconv.Quote(clip(key)) + ": " + name + " takes no arguments")
	}
	return argError(strconv.Quote(clip(key)) + ": not an argument of " + name +
		" (it takes " + strings.Join(strings.Fields(rt.keys), ", ") + "; GET /controls lists each control's)")
}

// decodeControlArgs decodes the arguments of the control rt, a JSON
// object (or an empty body or null: none), into a. It refuses, naming
// the field, a key the control does not take (rt.keys): one no control
// takes, or another control's (a typo or an argument of the wrong
// control must not pass for an argument left out); a key no control
// takes at any depth; and a value of the wrong form; and, before
// decoding, arguments past the bounds of scanControlArgs: arrays
// holding more than maxValues values together, so that a small body
// ("[{},{},...]" is 3 bytes a value) cannot unfold into gigabytes of
// seed entries, nesting, and texts of more than maxControlText
// characters.
func decodeControlArgs(body []byte, maxValues int, rt *controlRoute, a *controlArgs) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := scanControlArgs(body, maxValues); err != nil {
		return err
	}
	var fields map[string]json.RawMessage // null: none
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&fields); err != nil {
		return argError("the arguments are not a JSON object of the control's arguments: " + clip(err.Error()))
	}
	if _, err := dec.Token(); err != io.EOF {
		return argError("the arguments are followed by more than white space")
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if !rt.takes(k) {
			return rt.refuseKey(k)
		}
		one, _ := json.Marshal(map[string]json.RawMessage{k: fields[k]})
		dec := json.NewDecoder(bytes.NewReader(one))
		dec.DisallowUnknownFields() // in a seed's customers or a transaction too
		if err := dec.Decode(a); err != nil {
			var te *json.UnmarshalTypeError
			var fe *fieldError
			if errors.As(err, &fe) {
				return argError(clip(k) + "." + fe.path + ": " + fe.msg)
			}
			if errors.As(err, &te) {
				err = fmt.Errorf("want %s, not a JSON %s", te.Type, te.Value)
				if te.Field != "" {
					k = te.Field // the path to a field inside the argument
				}
			}
			return argError(clip(k) + ": " + err.Error())
		}
	}
	return nil
}

// Bounds of a control's arguments beyond the count of their arrays'
// values, checked by scanControlArgs before they are decoded.
const (
	// maxControlDepth bounds the nesting of objects and arrays (a seed's
	// transaction is at depth 6, under customers, accounts and
	// transactions).
	maxControlDepth = 16
	// maxControlText bounds every string and number of the arguments,
	// and every key, in characters: past the longest text the bank takes
	// (a remittance's 140, a TPP-Session-ID's 200), so that no text the
	// emulator keeps (a product, a transaction code, a fault's path) can
	// be megabytes. It is the bound of the mock-data operations' free
	// texts (maxFreeText), so that a text one door takes the other takes.
	maxControlText = maxFreeText
)

// controlTextBounds are the longer bounds of the values of some keys (in
// lower case), in characters.
var controlTextBounds = map[string]int{
	"tpp":         64 << 10, // a certificate, PEM or base64 DER
	"scaredirect": 8 << 10,  // a URL the bank made
	"profile":     1 << 10,
}

// scanControlArgs checks the JSON text b against the bounds of the
// control API before it is decoded (scanJSON): the values in its
// arrays, at any depth, at most maxValues together (413; an object's
// keys are not counted), its nesting, the length of every key, string
// and number, and no key twice in one object, matched without regard to
// case (400, naming the field by its path:
// customers[0].accounts[1].product).
func scanControlArgs(b []byte, maxValues int) error {
	o := scanJSON(b, jsonBounds{values: maxValues, depth: maxControlDepth, text: maxControlText, textOf: controlTextBounds, unique: true})
	switch {
	case o == nil:
		return nil
	case o.kind == overValues:
		return &controlError{status: http.StatusRequestEntityTooLarge, code: "TOO_LARGE",
			msg: fmt.Sprintf("the arguments' arrays hold more than %d values together (customers, accounts, transactions...): past what the bank's Limits can take", maxValues)}
	case o.kind == overDepth:
		return argError(fmt.Sprintf("%s: the arguments nest deeper than %d objects and arrays", clip(o.path), o.limit))
	case o.kind == overKey:
		return argError(fmt.Sprintf("%s: a key of more than %d characters", clip(o.path), o.limit))
	case o.kind == overDupKey:
		return argError(fmt.Sprintf("%s: given twice (keys match without regard to case): which one is meant?", clip(o.path)))
	}
	return argError(fmt.Sprintf("%s: at most %d characters", clip(o.path), o.limit))
}

// scanPath names the value scanJSON is at: the keys and indexes of
// open, customers[0].accounts[1].product ("the arguments" at the top).
func scanPath(open []scanFrame) string {
	if len(open) == 0 {
		return "the arguments"
	}
	var b strings.Builder
	for _, f := range open {
		switch {
		case f.array:
			b.WriteString("[" + strconv.Itoa(f.index-1) + "]")
		case b.Len() == 0:
			b.WriteString(f.key)
		default:
			b.WriteString("." + f.key)
		}
	}
	return b.String()
}

// list answers GET /controls: every control with the arguments it
// takes and an example of them.
func (api *controlAPI) list(w http.ResponseWriter, _ *http.Request) {
	type entry struct {
		Name    string          `json:"name"`
		Method  string          `json:"method"`
		Read    bool            `json:"read,omitempty"`
		Doc     string          `json:"doc"`
		Args    []string        `json:"args"`
		Example json.RawMessage `json:"example,omitempty"`
	}
	out := make([]entry, 0, len(controlRoutes))
	for _, rt := range controlRoutes {
		e := entry{Name: ControlName(rt.method), Method: rt.method, Read: rt.read, Doc: rt.doc, Args: strings.Fields(rt.keys)}
		if e.Args == nil {
			e.Args = []string{}
		}
		if rt.args != "" {
			e.Example = json.RawMessage(rt.args)
		}
		out = append(out, e)
	}
	writeControl(w, http.StatusOK, map[string]any{"controls": out})
}

// writeControl writes v as JSON; an error becomes its error answer.
func writeControl(w http.ResponseWriter, status int, v any) {
	if err, ok := v.(error); ok {
		ce := controlStatus(err)
		if ce.status != 0 {
			status = ce.status
		}
		body := map[string]string{"error": ce.msg, "code": ce.code}
		if ce.callback != "" {
			body["callback"] = ce.callback
		}
		v = body
	}
	if status == 0 {
		status = http.StatusOK
	}
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"the answer cannot be encoded","code":"INTERNAL"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// maxControlDuration bounds every duration argument of the control API,
// either way (a move of the clock, an outage's span, a latency): the
// bank's clock's own range, 100 years.
const maxControlDuration = maxClockShift

// jsonDuration is a duration in JSON: a Go duration string ("90s",
// "1h30m") or whole or decimal days ("89d"), within maxControlDuration
// either way.
type jsonDuration time.Duration

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return errors.New(`a duration is a string such as "90s", "1h30m" or "89d"`)
	}
	limit := maxControlDuration.Hours() / 24
	if n, ok := strings.CutSuffix(v, "d"); ok {
		f, err := strconv.ParseFloat(n, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%q is not a number of days", clip(v))
		}
		if math.Abs(f) > limit {
			return fmt.Errorf("%q is more than %.0f days", clip(v), limit)
		}
		*d = jsonDuration(f * float64(24*time.Hour))
		return nil
	}
	t, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 90s, 1h30m or 89d", clip(v))
	}
	if t > maxControlDuration || t < -maxControlDuration {
		return fmt.Errorf("%q is more than %.0f days", clip(v), limit)
	}
	*d = jsonDuration(t)
	return nil
}

// jsonTime is a time in JSON: RFC 3339, or a date (YYYY-MM-DD, midnight
// UTC).
type jsonTime time.Time

func (t *jsonTime) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return errors.New("a time is an RFC 3339 string or a date YYYY-MM-DD")
	}
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if p, err := time.Parse(layout, v); err == nil {
			*t = jsonTime(p)
			return nil
		}
	}
	return fmt.Errorf("%q is not an RFC 3339 time or a date YYYY-MM-DD", clip(v))
}

// jsonString is a string in JSON that may also be written as a number
// (a customer number or an amount typed on a command line: 13039319955).
type jsonString string

func (v *jsonString) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		*v = jsonString(str)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("want a string")
	}
	*v = jsonString(n.String())
	return nil
}
