package journal

import (
	"encoding/json"
	"net/url"
	"strings"
)

// Create describes a kind of create to the journal, in the words of the
// service that makes it: which member of the bank's 2xx answer names the
// created resource, how the bank refuses a second, identical create
// because the first exists, and how it answers a status read before the
// PSU approved. Each entry records it, so that any process resolves the
// entry without knowing the service that made it; the journal itself
// knows no product and no resource.
type Create struct {
	// ResultID is the member of the bank's answer that holds the created
	// resource's id (package payments gives "paymentId"); required.
	ResultID string `json:"resultId"`
	// DuplicateStatus and DuplicateCode are the bank's refusal of a
	// resend that says the first create exists: its HTTP status and a
	// tppMessages code it carries (for a payment on this platform, 400
	// PAYMENT_FAILED). A refusal of a resend that is not this one needs
	// a person.
	DuplicateStatus int    `json:"duplicateStatus"`
	DuplicateCode   string `json:"duplicateCode"`
	// NotFoundUntilApproved says that the bank answers a status read of
	// a resource it created with 404 until the PSU approved it (a known
	// issue of the platform); Resolve then reports the id with an empty
	// status instead of an error.
	NotFoundUntilApproved bool `json:"notFoundUntilApproved,omitempty"`
	// IDFromLinks says that the bank's 2xx answer need not carry
	// ResultID: the links of an answer without it name the created
	// resource under the create's path (client.Operation's
	// ResultIDFromLinks; package basket gives it). A resend by
	// [Journal.Resolve] answered so created the resource with that id
	// (ResolvedCreated), as the service's own create takes it.
	IDFromLinks bool `json:"idFromLinks,omitempty"`
}

// logicalDuplicateAllowed reports whether a raw query carries the
// allowLogicalDuplicate parameter in any spelling: any case of the name,
// escaped or padded, with any value. Banks read "yes", "on", " true" or
// "1" as true; a create that carried the parameter in any form is never
// resolved by sending it again, and a resend never carries it.
func logicalDuplicateAllowed(rawQuery string) bool {
	for part := range strings.SplitSeq(rawQuery, "&") {
		for _, sep := range []string{"=", ";"} {
			part, _, _ = strings.Cut(part, sep)
		}
		k, err := url.QueryUnescape(part)
		if err != nil {
			k = part
		}
		if isLogicalDuplicateName(k) {
			return true
		}
	}
	return false
}

// bodyAllowsDuplicate reports whether a recorded JSON body carries an
// allowLogicalDuplicate member, in any case, at its top level.
func bodyAllowsDuplicate(body []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return false
	}
	for k := range obj {
		if isLogicalDuplicateName(k) {
			return true
		}
	}
	return false
}

// isLogicalDuplicateName reports whether a query or member name is
// allowLogicalDuplicate in any case, padded or not.
func isLogicalDuplicateName(k string) bool {
	return strings.EqualFold(strings.TrimSpace(k), "allowLogicalDuplicate")
}
