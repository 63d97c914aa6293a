package rules

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Required headers: the one place that says which headers each operation
// needs beyond those every signed request carries ([SignedRequestHeaders],
// and Digest with a body; the emulator's verify). The emulator checks them
// after those and before the operation runs, in the order listed, and
// answers 400 HTTP_HEADER_REQUIRED naming the first missing one in path,
// as the SDK's client names the option that sets it:
//
//   - every call outside /v1/sandbox/ needs TPP-Redirect-URI, since any
//     call may be answered with a scaRedirect (docs/interface.md section
//     5.8); the mock-data operations need only the shared headers
//     (section 4.4);
//   - the operations that start an SCA whatever the PSU's state (the
//     consents, POST /v1/bank-offered-consents and the deprecated POST
//     /v1/consents, and the start of a payment's or a basket's
//     authorisation) and those that read the PSU's session, which may
//     answer with a scaRedirect (GET /v1/user, /v1/agreements, every
//     account and card account read) need TPP-Redirect-URI and
//     TPP-Session-ID: the SCA belongs to the session, and the redirect
//     after it brings the session id back as tpp-session-id (sections 3,
//     6; section 10 "Session model"). PSU-IP-Address is not required
//     there: it is sent when the PSU is present (section 5.14), and the
//     interface lists it as required only on basket and payment creation;
//   - creating a signing basket needs TPP-Redirect-URI, x-accept-fix
//     carrying amount-as-string, TPP-Session-ID, PSU-ID and PSU-IP-Address
//     (section 4.1);
//   - creating a payment, of every service (payments, periodic-payments,
//     bulk-payments) and product, needs the headers of a basket and
//     Digest (sections 4.2, 4.3). PSU-Context is optional: the platform
//     was recorded creating a payment without it, and a production TPP
//     agent sends none.
//
// A request with a body needs a Digest, except where the interface lists
// none: creating a signing basket (section 4.1 has no Digest) and the
// deprecated POST /v1/consents, whose body is ignored whatever it is. A
// Digest that is sent is always checked against the body.
//
// What the values must be is checked where the value is used: PSU-ID by
// the emulator (a UUID it issued to this TPP), x-accept-fix here,
// TPP-Redirect-URI and TPP-Session-ID when SCA starts, and the headers
// whose form the interface fixes (PSU-Device-ID, PSU-HTTP-Method,
// TPP-Redirect-Preferred, X-PSU-AuthMethod-Preferred) by
// [CheckHeaderForms], on every call that sends them.

// Requirement is what an operation needs of a request beyond the headers
// of every signed request.
type Requirement struct {
	// Headers must be present and not blank, checked in this order.
	Headers []string
	// AcceptFix is a switch x-accept-fix must list, "" for none.
	AcceptFix string
	// Body says what a request body needs.
	Body BodyRule
}

// BodyRule says what the request body of an operation needs.
type BodyRule int

const (
	// BodyJSON needs a Digest, application/json, valid JSON and no
	// refused character ([CheckJSONBody]).
	BodyJSON BodyRule = iota
	// BodyDigestOptional is as BodyJSON, but needs a Digest only when one
	// is sent (signing baskets).
	BodyDigestOptional
	// BodyIgnored is read for the Digest when one is sent, else ignored
	// (POST /v1/consents).
	BodyIgnored
)

// DigestRequired reports whether a body of this operation needs a Digest.
func (b BodyRule) DigestRequired() bool { return b == BodyJSON }

// SignedRequestHeaders are the headers every request must carry, which
// the emulator's verify refuses a request without (400
// HTTP_HEADER_REQUIRED naming the first missing one), in the order it
// checks them (docs/interface.md sections 4, 5.2, 5.3). A request with a
// body needs a Digest as well where [BodyRule.DigestRequired] says so.
var SignedRequestHeaders = []string{"X-Request-ID", "TPP-Signature-Certificate", "Signature", "Date"}

var (
	// anyCall are the headers of every call outside /v1/sandbox/.
	anyCall = Requirement{Headers: []string{"TPP-Redirect-URI"}}
	// sessionCall are those of an operation that starts an SCA, or may
	// (the reads of the PSU's session): the SCA's redirect URI and the
	// session it belongs to.
	sessionCall = Requirement{Headers: []string{"TPP-Redirect-URI", "TPP-Session-ID"}}
	// basketCreation are those of creating a signing basket (section 4.1).
	basketCreation = Requirement{
		Headers:   []string{"TPP-Redirect-URI", "x-accept-fix", "TPP-Session-ID", "PSU-ID", "PSU-IP-Address"},
		AcceptFix: "amount-as-string",
		Body:      BodyDigestOptional,
	}
	// paymentCreation are those of creating a payment (sections 4.2, 4.3).
	paymentCreation = Requirement{
		Headers:   append(append([]string(nil), basketCreation.Headers...), "Digest"),
		AcceptFix: "amount-as-string",
	}
	// deprecatedConsent is POST /v1/consents: its body is ignored (section
	// 4.5); it starts an SCA as the bank-offered consent does.
	deprecatedConsent = Requirement{Headers: sessionCall.Headers, Body: BodyIgnored}
)

// RequirementOf returns what the operation registered as pattern (a
// ServeMux pattern without the /api prefix, such as
// "POST /v1/signing-baskets" or "POST /v1/payments/{product}") needs. The
// Requirement is the caller's own: changing it changes no other.
func RequirementOf(pattern string) Requirement {
	q := requirementOf(pattern)
	q.Headers = slices.Clone(q.Headers)
	return q
}

// requirementOf returns the table's entry for pattern.
func requirementOf(pattern string) Requirement {
	method, path, _ := strings.Cut(pattern, " ")
	switch {
	case strings.HasPrefix(path, "/v1/sandbox/"):
		return Requirement{}
	case method == http.MethodPost && path == "/v1/signing-baskets":
		return basketCreation
	case method == http.MethodPost && path == "/v1/consents":
		return deprecatedConsent
	case method == http.MethodPost && isPaymentCreation(path):
		return paymentCreation
	case method == http.MethodPost && (path == "/v1/bank-offered-consents" || isAuthorisationStart(path)),
		method == http.MethodGet && isSessionRead(path):
		return sessionCall
	}
	return anyCall
}

// isAuthorisationStart reports whether path is the pattern of starting
// a payment's authorisation (/v1/{service}/{product}/{id}/authorisations)
// or a signing basket's.
func isAuthorisationStart(path string) bool {
	if path == "/v1/signing-baskets/{id}/authorisations" {
		return true
	}
	for _, svc := range PaymentServices {
		if path == "/v1/"+svc+"/{product}/{id}/authorisations" {
			return true
		}
	}
	return false
}

// isSessionRead reports whether path is that of a GET that reads the
// PSU's session: GET /v1/user, /v1/agreements, and every account and
// card account read.
func isSessionRead(path string) bool {
	switch path {
	case "/v1/user", "/v1/agreements", "/v1/accounts", "/v1/card-accounts":
		return true
	}
	return strings.HasPrefix(path, "/v1/accounts/") || strings.HasPrefix(path, "/v1/card-accounts/")
}

// Check returns the first violation of q in h: a missing header of
// q.Headers ([CodeHeaderRequired]), an x-accept-fix without q.AcceptFix
// ([CodeHeaderRequired]), or a header sent outside the form the
// interface fixes ([CheckHeaderForms], [CodeFormat]); nil when h
// satisfies q.
func (q Requirement) Check(h http.Header) *Violation {
	if v := RequireHeaders(h, q.Headers...); v != nil {
		return v
	}
	if q.AcceptFix != "" {
		if v := RequireAcceptFix(h, q.AcceptFix); v != nil {
			return v
		}
	}
	return CheckHeaderForms(h)
}

// RequireHeaders returns the [HeaderRequired] violation of the first of
// names that h lacks or holds blank; nil when all are there.
func RequireHeaders(h http.Header, names ...string) *Violation {
	for _, n := range names {
		if strings.TrimSpace(h.Get(n)) == "" {
			return HeaderRequired(n)
		}
	}
	return nil
}

// RequireAcceptFix returns a violation unless x-accept-fix is present and
// lists value, in any case, among its comma-separated switches
// (docs/interface.md sections 4.1 to 4.3, 9.2).
func RequireAcceptFix(h http.Header, value string) *Violation {
	v := h.Get("x-accept-fix")
	if strings.TrimSpace(v) == "" {
		return HeaderRequired("x-accept-fix")
	}
	for _, f := range strings.Split(v, ",") {
		if strings.EqualFold(strings.TrimSpace(f), value) {
			return nil
		}
	}
	return &Violation{Code: CodeHeaderRequired, Path: "x-accept-fix", Message: "The header x-accept-fix must carry " + value + "."}
}

// headerForms are the headers whose values the interface fixes (section
// 4.1), with the rule of each. A header that is not sent is not checked.
var headerForms = []struct {
	name, want string
	ok         func(string) bool
}{
	{"PSU-Device-ID", "a UUID", func(v string) bool { _, ok := CanonicalUUID(v); return ok }},
	{"PSU-HTTP-Method", "one of GET, POST, PUT, PATCH, DELETE", func(v string) bool {
		switch v {
		case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			return true
		}
		return false
	}},
	{"TPP-Redirect-Preferred", "true or false", func(v string) bool {
		return strings.EqualFold(v, "true") || strings.EqualFold(v, "false")
	}},
	{"X-PSU-AuthMethod-Preferred", "one of " + strings.Join(AuthMethods, ", "), func(v string) bool {
		return slices.Contains(AuthMethods, v)
	}},
}

// AuthMethods are the values of X-PSU-AuthMethod-Preferred the interface
// lists (docs/interface.md section 5.11), as the SDK spells them
// (sca.AuthMethod): the interface writes the two brand-named methods as
// <EID_MOBILE_METHOD> and <BANK_ID_METHOD> without a value, so BANKID_MOBIL
// and BANKID are the SDK's assumption, kept in this one list on the bank's
// side. Any other value is 400 FORMAT_ERROR ([CheckHeaderForms]).
var AuthMethods = []string{"ENGANGSKODEAPP_BIOMETRI", "HA2", "BANKID_MOBIL", "BANKID"}

// CheckHeaderForms returns a [CodeFormat] violation, naming the header in
// path, for the first of PSU-Device-ID (a UUID), PSU-HTTP-Method (GET,
// POST, PUT, PATCH or DELETE), TPP-Redirect-Preferred (true or false) and
// X-PSU-AuthMethod-Preferred (one of [AuthMethods]) that h carries with a value outside its form, or more than once; nil
// otherwise. A header that is not sent is not checked.
func CheckHeaderForms(h http.Header) *Violation {
	for _, f := range headerForms {
		if vs, sent := h[http.CanonicalHeaderKey(f.name)]; sent && (len(vs) != 1 || !f.ok(vs[0])) {
			return Format(f.name, "%s must be %s.", f.name, f.want)
		}
	}
	return nil
}

// CanonicalUUID returns v, a UUID in its 36-character form in any case, in
// lower case, the form the emulator issues and keeps PSU-IDs in; ok is
// false for anything else. A PSU-ID compares as a UUID, whatever the case
// the TPP writes it in.
func CanonicalUUID(v string) (string, bool) {
	if len(v) != 36 {
		return "", false
	}
	u, err := uuid.Parse(v)
	if err != nil {
		return "", false
	}
	return u.String(), true
}

// CheckPSUID returns the PSU-ID value v in the form the emulator keeps
// PSU-IDs in ([CanonicalUUID]), or a [CodeFormat] violation when v is not
// a UUID.
func CheckPSUID(v string) (string, *Violation) {
	id, ok := CanonicalUUID(v)
	if !ok {
		return "", Format("PSU-ID", "PSU-ID must be a UUID.")
	}
	return id, nil
}

// PSU contexts, the values of PSU-Context (docs/interface.md section 2.8).
const (
	ContextPrivate   = "PRIVATE"
	ContextCorporate = "CORPORATE"
)

// ContextOf is the context a PSU acts in with PSU-Corporate-ID corporateID:
// CORPORATE with one, PRIVATE without.
func ContextOf(corporateID string) string {
	if corporateID != "" {
		return ContextCorporate
	}
	return ContextPrivate
}

// CheckPSUContext returns a [CodeFormat] violation of a PSU-Context value
// ctx that is sent ("" is not) but is not PRIVATE or CORPORATE, or is not
// the context of PSU-Corporate-ID corporateID ([ContextOf]); nil
// otherwise.
func CheckPSUContext(ctx, corporateID string) *Violation {
	switch {
	case ctx == "":
		return nil // optional: the platform creates a payment without it
	case ctx != ContextPrivate && ctx != ContextCorporate:
		return Format("PSU-Context", "PSU-Context must be %s or %s.", ContextPrivate, ContextCorporate)
	case ctx != ContextOf(corporateID):
		return Format("PSU-Context", "PSU-Context is %s but the PSU acts in %s context.", ctx, ContextOf(corporateID))
	}
	return nil
}

// MaxSessionIDLen is the longest TPP-Session-ID the emulator takes, in
// bytes.
const MaxSessionIDLen = 200

// CheckSCAHeaders checks the headers an SCA starts with and returns the
// parsed TPP-Redirect-URI: TPP-Redirect-URI and TPP-Session-ID present and
// not blank ([CodeHeaderRequired]), the redirect an absolute http or https
// URL with a host, and the session id at most [MaxSessionIDLen] bytes
// ([CodeFormat]).
func CheckSCAHeaders(h http.Header) (*url.URL, *Violation) {
	if v := RequireHeaders(h, "TPP-Redirect-URI", "TPP-Session-ID"); v != nil {
		return nil, v
	}
	ru, err := url.Parse(h.Get("TPP-Redirect-URI"))
	if err != nil || !ru.IsAbs() || (ru.Scheme != "https" && ru.Scheme != "http") || ru.Host == "" {
		return nil, Format("TPP-Redirect-URI", "TPP-Redirect-URI must be an absolute https URL.")
	}
	if len(h.Get("TPP-Session-ID")) > MaxSessionIDLen {
		return nil, Format("TPP-Session-ID", "TPP-Session-ID is too long.")
	}
	return ru, nil
}
