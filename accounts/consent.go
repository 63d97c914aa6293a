package accounts

import (
	"context"
	"fmt"
	"net/http"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
)

// Consent is the answer of the bank-offered consent request: only the
// link to the bank's authorisation page. There is no consent id on this
// platform; after SCA the PSU-ID and TPP-Session-ID identify the session,
// which is the consent (docs/interface.md section 10 "Session model").
type Consent struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	// Links holds scaRedirect.
	Links client.Links `json:"_links"`
}

// SCARedirect returns the absolute URL of the bank's authorisation page to
// send the PSU to (docs/interface.md section 5.8).
func (c *Consent) SCARedirect() string {
	if c == nil {
		return ""
	}
	return c.Links.SCARedirect()
}

// consentHeaders are the headers a consent's start needs besides
// TPP-Redirect-URI (required on every call): TPP-Session-ID, which the SCA
// it starts belongs to and the bank's redirect brings back as
// tpp-session-id (docs/interface.md sections 3 and 6; section 10
// "Session model").
var consentHeaders = sessionHeaders

// StartConsent asks the bank for a bank-offered consent (POST
// /v1/bank-offered-consents, no body; docs/interface.md section 1.8). Send the PSU to
// the answer's [Consent.SCARedirect]; the PSU chooses the accounts there,
// and the bank redirects to TPP-Redirect-URI with psu-id and
// tpp-session-id (the sca package parses that callback). Pass
// [client.WithRedirectURI] and [client.WithTPPSessionID] in ro: a call
// without either is refused before it is sent with a
// [*client.ValidationError] naming the header.
//
// The deprecated POST /v1/consents is not offered (docs/interface.md section 9.3). The
// request is not repeated automatically: each one starts a new SCA. The
// interface names 201 for it (docs/interface.md section 10 "Paths"):
// another 2xx status is a [*client.UnexpectedStatusError] inside a
// [*client.OutcomeUnknownError]. An answer without a scaRedirect the PSU
// may be sent to (an absolute https URL, plain http only on a loopback
// host: never javascript:, a relative link or user info) is refused with
// [ErrNoSCARedirect].
func (s *Service) StartConsent(ctx context.Context, ro ...client.RequestOption) (*Consent, error) {
	const op = "accounts.StartConsent"
	out, _, err := servicecall.Do[Consent](ctx, s.client(), client.Operation{Name: op, Method: http.MethodPost, Path: "/v1/bank-offered-consents",
		Statuses: []int{http.StatusCreated}, Require: consentHeaders}, ro)
	if err != nil {
		return nil, err
	}
	// SCARedirect is "" for a link the PSU must not be sent to too.
	if out.SCARedirect() == "" {
		return nil, fmt.Errorf("%s: %w", op, ErrNoSCARedirect)
	}
	return out, nil
}
