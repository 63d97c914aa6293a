package emulator

import (
	"net/http"
	"strings"

	"github.com/google/uuid"
)

// Required headers: the one place that says which headers each operation
// needs beyond those every signed request carries (X-Request-ID,
// TPP-Signature-Certificate, Signature, Date, and Digest with a body; see
// verify). handle checks them after verify and before the handler runs,
// in the order listed, and answers 400 HTTP_HEADER_REQUIRED naming the
// first missing one in path, as the SDK's client names the option that
// sets it:
//
//   - every call outside /v1/sandbox/ needs TPP-Redirect-URI, since any
//     call may be answered with a scaRedirect (docs/interface.md section
//     5.8); the mock-data operations need only the shared headers
//     (section 4.4);
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
// Digest that is sent is always checked against the body (verify).
//
// What the values must be is checked where the value is used: PSU-ID by
// checkPSU (a UUID the emulator issued to this TPP), x-accept-fix here,
// TPP-Redirect-URI and TPP-Session-ID by startSCA, and the headers whose
// form the interface fixes (PSU-Device-ID, PSU-HTTP-Method,
// TPP-Redirect-Preferred) by checkHeaderForms, on every call that sends
// them.
type requirement struct {
	headers   []string // present and not blank, checked in this order
	acceptFix string   // a switch x-accept-fix must list, "" for none
	body      bodyRule // what a body needs
}

// bodyRule says what the request body of an operation needs.
type bodyRule int

const (
	bodyJSON           bodyRule = iota // a Digest, application/json, valid JSON, no refused character
	bodyDigestOptional                 // as bodyJSON, but a Digest only when sent (signing baskets)
	bodyIgnored                        // read for the Digest when one is sent, else ignored (POST /v1/consents)
)

// digestRequired reports whether a body of this operation needs a Digest.
func (b bodyRule) digestRequired() bool { return b == bodyJSON }

var (
	// anyCall are the headers of every call outside /v1/sandbox/.
	anyCall = requirement{headers: []string{"TPP-Redirect-URI"}}
	// basketCreation are those of creating a signing basket (section 4.1).
	basketCreation = requirement{
		headers:   []string{"TPP-Redirect-URI", "x-accept-fix", "TPP-Session-ID", "PSU-ID", "PSU-IP-Address"},
		acceptFix: "amount-as-string",
		body:      bodyDigestOptional,
	}
	// paymentCreation are those of creating a payment (sections 4.2, 4.3).
	paymentCreation = requirement{
		headers:   append(append([]string(nil), basketCreation.headers...), "Digest"),
		acceptFix: "amount-as-string",
	}
	// deprecatedConsent is POST /v1/consents: its body is ignored (section 4.5).
	deprecatedConsent = requirement{headers: anyCall.headers, body: bodyIgnored}
)

// requirementOf returns the headers the operation registered as pattern
// (a pattern of handle, such as "POST /v1/signing-baskets") needs.
func requirementOf(pattern string) requirement {
	method, path, _ := strings.Cut(pattern, " ")
	switch {
	case strings.HasPrefix(path, "/v1/sandbox/"):
		return requirement{}
	case method == http.MethodPost && path == "/v1/signing-baskets":
		return basketCreation
	case method == http.MethodPost && path == "/v1/consents":
		return deprecatedConsent
	case method == http.MethodPost && isPaymentCreation(path):
		return paymentCreation
	}
	return anyCall
}

// isPaymentCreation reports whether path is /v1/{service}/{product} of a
// payment service.
func isPaymentCreation(path string) bool {
	for _, svc := range paymentServices {
		if path == "/v1/"+svc+"/{product}" {
			return true
		}
	}
	return false
}

// check answers 400 HTTP_HEADER_REQUIRED for the first header of q the
// call lacks, or an x-accept-fix that does not list q.acceptFix, and 400
// FORMAT_ERROR for a header whose form the interface fixes
// (checkHeaderForms).
func (q requirement) check(c *call) error {
	if err := c.require(q.headers...); err != nil {
		return err
	}
	if q.acceptFix != "" {
		if err := c.requireAcceptFix(q.acceptFix); err != nil {
			return err
		}
	}
	return checkHeaderForms(c.r.Header)
}

// headerForms are the headers whose values the interface fixes (section
// 4.1), with the rule of each. A header that is not sent is not checked.
var headerForms = []struct {
	name, want string
	ok         func(string) bool
}{
	{"PSU-Device-ID", "a UUID", func(v string) bool { _, ok := canonicalUUID(v); return ok }},
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
}

// checkHeaderForms answers 400 FORMAT_ERROR, naming the header in path,
// for the first header of headerForms that is sent with a value outside
// its form.
func checkHeaderForms(h http.Header) error {
	for _, f := range headerForms {
		if vs, sent := h[http.CanonicalHeaderKey(f.name)]; sent && (len(vs) != 1 || !f.ok(vs[0])) {
			return errFormat(f.name, "%s must be %s.", f.name, f.want)
		}
	}
	return nil
}

// canonicalUUID returns v, a UUID in its 36-character form in any case, in
// lower case, the form the emulator issues and keeps PSU-IDs in; ok is
// false for anything else. A PSU-ID compares as a UUID, whatever the case
// the TPP writes it in.
func canonicalUUID(v string) (string, bool) {
	if len(v) != 36 {
		return "", false
	}
	u, err := uuid.Parse(v)
	if err != nil {
		return "", false
	}
	return u.String(), true
}
