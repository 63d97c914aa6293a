package sca

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/tppkit/psd2/client"
)

// Paths of the two calls this package makes (SERVICE.md 4.5).
const (
	agreementsPath = "/v1/agreements"
	userPath       = "/v1/user"
)

// Agreement is a corporate agreement the PSU may act under; its ID is the
// value for PSU-Corporate-ID (SERVICE.md 5.10).
//
// ASSUMPTION (PLATFORM.md, testdata README): the platform does not publish
// the answer of GET /v1/agreements. This package assumes
// {"agreements":[{"id":"<uuid>","name":"..."}]} with id usable as
// PSU-Corporate-ID. agreementsAnswer below is the only place that shape is
// written down.
type Agreement struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// agreementsAnswer is the assumed body of GET /v1/agreements.
type agreementsAnswer struct {
	Agreements []Agreement `json:"agreements"`
}

// Agreements lists the corporate agreements of the PSU of s with GET
// /v1/agreements (SERVICE.md 5.10). Choose one and set it with
// [Session.WithCorporate] or [Manager.UseAgreement]. opts are added to the
// session's options; the bank needs TPP-Redirect-URI on every call (use
// [Manager.Prepare], or client.WithRedirectURI).
func Agreements(ctx context.Context, c *client.Client, s *Session, opts ...client.RequestOption) ([]Agreement, error) {
	if c == nil {
		return nil, errors.New("sca: Agreements needs a client")
	}
	all := append([]client.RequestOption{s.RequestOptions(nil)}, opts...)
	var out agreementsAnswer
	_, err := c.Do(ctx, client.Operation{Name: "sca.Agreements", Method: http.MethodGet, Path: agreementsPath}, &out, all...)
	if err != nil {
		return nil, err
	}
	return out.Agreements, nil
}

// User starts the SCA flow of a PISP with GET /v1/user (SERVICE.md 5.10):
// it identifies the PSU and, for a corporate user, brings the
// psu-corporate-id in the callback. Send it with the options of
// [Manager.Begin] or [Flow.Start].
//
// ASSUMPTION (PLATFORM.md): the answer is not public. User accepts both
// shapes seen on such calls: 401 with _links.scaRedirect, and 2xx with
// _links.scaRedirect. It returns the redirect and true when SCA is needed,
// false with a nil error when the bank answered 2xx without a link (the
// session in the options is already valid), and the *client.Error for any
// other answer.
func User(ctx context.Context, c *client.Client, opts ...client.RequestOption) (Redirect, bool, error) {
	if c == nil {
		return Redirect{}, false, errors.New("sca: User needs a client")
	}
	var body json.RawMessage
	_, err := c.Do(ctx, client.Operation{Name: "sca.User", Method: http.MethodGet, Path: userPath}, &body, opts...)
	if err != nil {
		if r, ok := Find(err); ok {
			return r, true, nil
		}
		return Redirect{}, false, err
	}
	if r, ok := Find(body); ok {
		return r, true, nil
	}
	return Redirect{}, false, nil
}
