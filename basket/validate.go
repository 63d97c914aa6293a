package basket

import (
	"errors"
	"fmt"

	"github.com/tppkit/psd2/client"
)

// requiredCreateHeaders are the headers docs/interface.md section 4.1 marks required on
// POST /v1/signing-baskets that the caller supplies as request options
// (x-accept-fix is sent by the client itself). [Service.Create] refuses a
// call without one of them before sending, unless
// [client.WithoutValidation] is given.
var requiredCreateHeaders = []struct{ name, option string }{
	{"TPP-Session-ID", "client.WithTPPSessionID"},
	{"TPP-Redirect-URI", "client.WithRedirectURI"},
	{"PSU-ID", "client.WithPSU (ID)"},
	{"PSU-IP-Address", "client.WithPSU (IPAddress)"},
}

// errNoClient is returned by the methods of a Service made without a client.
var errNoClient = errors.New("basket: Service has no client")

// ValidatePaymentIDs checks ids the way [Service.Create] does before
// sending (docs/interface.md section 2.7 and 8): 1 to [MaxPayments] ids, none empty, no
// id twice. It returns nil or [*client.ValidationError]s with Field
// "paymentIds" (joined with errors.Join when several rules are broken),
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
		if j, dup := first[id]; dup {
			errs = append(errs, &client.ValidationError{Field: "paymentIds", Reason: fmt.Sprintf("entry %d repeats entry %d", i, j)})
			continue
		}
		first[id] = i
	}
	return errors.Join(errs...)
}

// checkCreateHeaders reports the required headers of docs/interface.md section 4.1 that
// opts do not set. Invalid options are left for the client to report.
func checkCreateHeaders(opts []client.RequestOption) error {
	h, err := client.Headers(opts...)
	if err != nil {
		return nil
	}
	var errs []error
	for _, r := range requiredCreateHeaders {
		if h.Get(r.name) == "" {
			errs = append(errs, &client.ValidationError{Field: r.name,
				Reason: "header required on a signing basket (docs/interface.md section 4.1); set it with " + r.option})
		}
	}
	return errors.Join(errs...)
}

// checkBasketID refuses a basket id that cannot name a basket in a path:
// empty, "." or "..". It is checked even with [client.WithoutValidation],
// since no bank could accept it.
func checkBasketID(id string) error {
	switch id {
	case "":
		return &client.ValidationError{Field: "basketId", Reason: "empty"}
	case ".", "..":
		return &client.ValidationError{Field: "basketId", Reason: "not a basket id"}
	}
	return nil
}

// basketPath is the path of basket id with the given sub-resources, the id
// escaped as one path segment ("!" kept, as the platform writes it).
func basketPath(id string, sub ...string) string {
	return client.JoinPath("/v1/signing-baskets", append([]string{id}, sub...)...)
}
