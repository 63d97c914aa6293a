package sca

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/tppkit/psd2/client"
)

// userPath is the SCA start for PISPs (docs/interface.md section 4.5).
const userPath = "/v1/user"

// userHeaders are the headers GET /v1/user needs besides TPP-Redirect-URI
// (required on every call): TPP-Session-ID, which the SCA it starts
// belongs to and the bank's redirect brings back as tpp-session-id
// (docs/interface.md sections 3 and 6).
var userHeaders = []string{"TPP-Session-ID"}

// User starts the SCA flow of a PISP with GET /v1/user (docs/interface.md section 5.10):
// it identifies the PSU and, for a corporate user, brings the
// psu-corporate-id in the callback. Send it with the options of
// [Manager.Begin] or [Flow.Start].
//
// ASSUMPTION (docs/interface.md section 10): the answer is not public. User accepts both
// shapes seen on such calls: 401 with _links.scaRedirect, and 2xx with
// _links.scaRedirect. It returns the redirect and true when SCA is needed,
// false with a nil error when the bank answered 2xx without a link (the
// session in the options is already valid), and the *client.Error for any
// other answer. Options without a TPP-Session-ID fail the call before it
// is sent with a [*client.ValidationError] naming the header. The Redirect's Purpose is [PurposeIdentify]: this SCA
// grants no AIS consent, so completing it keeps the consent end and the
// remembered accounts of the PSU's session ([Session.After]).
func User(ctx context.Context, c *client.Client, opts ...client.RequestOption) (Redirect, bool, error) {
	if c == nil {
		return Redirect{}, false, errors.New("sca: User needs a client")
	}
	var body json.RawMessage
	_, err := c.Do(ctx, client.Operation{Name: "sca.User", Method: http.MethodGet, Path: userPath, Require: userHeaders}, &body, opts...)
	if err != nil {
		if r, ok := find(err); ok {
			r.Purpose = PurposeIdentify
			return r, true, nil
		}
		return Redirect{}, false, err
	}
	if r, ok := find(body); ok {
		r.Purpose = PurposeIdentify
		return r, true, nil
	}
	return Redirect{}, false, nil
}
