package basket

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/pathseg"
)

// createHeaders are the headers docs/interface.md section 4.1 requires on
// POST /v1/signing-baskets that the caller supplies as request options,
// besides TPP-Redirect-URI, which the client requires on every call
// (x-accept-fix is sent by the client itself). The client refuses a call
// without one of them before sending.
var createHeaders = []string{"TPP-Session-ID", "PSU-ID", "PSU-IP-Address"}

// errNoClient is returned by New without a client and by PaymentStatuses
// of a Service made without one (the calls refuse through servicecall).
var errNoClient = errors.New("basket: Service has no client")

// ValidatePaymentIDs checks ids the way [Service.Create] does before
// sending (docs/interface.md section 2.7 and 8): 1 to [MaxPayments] ids,
// none empty, blank, with spaces around it, longer than
// [client.MaxIDLength] bytes, with a control character or not UTF-8 (no
// payment's id is: [client.CheckID]), no id twice. It returns nil
// or [*client.ValidationError]s with Field "paymentIds" (joined with errors.Join when several rules are broken),
// all matching [client.ErrValidation]. The messages name positions, never
// the ids.
func ValidatePaymentIDs(ids []string) error {
	var errs []error
	switch {
	case len(ids) == 0:
		return &client.ValidationError{Field: "paymentIds", Reason: "a signing basket needs at least one payment"}
	case len(ids) > MaxPayments:
		errs = append(errs, &client.ValidationError{Field: "paymentIds",
			Reason: fmt.Sprintf("%d payments; a signing basket holds at most %d (docs/interface.md section 8)", len(ids), MaxPayments)})
	}
	first := make(map[string]int, len(ids))
	for i, id := range ids {
		if id == "" {
			errs = append(errs, &client.ValidationError{Field: "paymentIds", Reason: fmt.Sprintf("entry %d is empty", i)})
			continue
		}
		// No payment id has spaces around it (enc!!<base64url>): a
		// blank or padded entry is a caller's slip the bank would refuse.
		switch strings.TrimSpace(id) {
		case "":
			errs = append(errs, &client.ValidationError{Field: "paymentIds", Reason: fmt.Sprintf("entry %d is blank", i)})
			continue
		case id:
		default:
			errs = append(errs, &client.ValidationError{Field: "paymentIds", Reason: fmt.Sprintf("entry %d has leading or trailing spaces", i)})
			continue
		}
		if len(id) > client.MaxIDLength {
			errs = append(errs, &client.ValidationError{Field: "paymentIds",
				Reason: fmt.Sprintf("entry %d is longer than %d bytes", i, client.MaxIDLength)})
			continue
		}
		// Nor has any a control character, or bytes that are not UTF-8
		// (the ids are the bank's, which the SDK refuses so in its
		// answers): encoding/json would send U+FFFD in their place, the
		// id of no payment, and the bank would refuse the basket.
		if p := pathseg.Problem(id); p != "" || strings.ContainsRune(id, utf8.RuneError) {
			if p == "" {
				p = "is not UTF-8"
			}
			errs = append(errs, &client.ValidationError{Field: "paymentIds", Reason: fmt.Sprintf("entry %d %s", i, p)})
			continue
		}
		if j, dup := first[id]; dup {
			errs = append(errs, &client.ValidationError{Field: "paymentIds", Reason: fmt.Sprintf("entry %d repeats entry %d", i, j)})
			continue
		}
		first[id] = i
	}
	return errors.Join(errs...)
}
