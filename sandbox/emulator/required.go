package emulator

import (
	"net/http"
	"strings"
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
//     bulk-payments) and product, needs the headers of a basket, Digest,
//     and PSU-Context (sections 4.2, 4.3).
//
// PSU-Context on every payment creation is an assumption of the emulator,
// explained in the package doc (Assumptions); this table is where it is
// made.
//
// What the values must be is checked where the value is used: PSU-ID by
// checkPSU (a UUID the emulator issued to this TPP), x-accept-fix here,
// TPP-Redirect-URI and TPP-Session-ID by startSCA.
type requirement struct {
	headers   []string // present and not blank, checked in this order
	acceptFix string   // a switch x-accept-fix must list, "" for none
}

var (
	// anyCall are the headers of every call outside /v1/sandbox/.
	anyCall = requirement{headers: []string{"TPP-Redirect-URI"}}
	// basketCreation are those of creating a signing basket (section 4.1).
	basketCreation = requirement{
		headers:   []string{"TPP-Redirect-URI", "x-accept-fix", "TPP-Session-ID", "PSU-ID", "PSU-IP-Address"},
		acceptFix: "amount-as-string",
	}
	// paymentCreation are those of creating a payment (sections 4.2, 4.3).
	paymentCreation = requirement{
		headers:   append(append([]string(nil), basketCreation.headers...), "Digest", "PSU-Context"),
		acceptFix: "amount-as-string",
	}
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
// call lacks, or an x-accept-fix that does not list q.acceptFix.
func (q requirement) check(c *call) error {
	if err := c.require(q.headers...); err != nil {
		return err
	}
	if q.acceptFix != "" {
		return c.requireAcceptFix(q.acceptFix)
	}
	return nil
}
