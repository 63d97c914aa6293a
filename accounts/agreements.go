package accounts

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
)

// Agreement is a corporate agreement of a PSU (GET /v1/agreements). Its ID
// is what the PSU-Corporate-ID header carries in corporate context
// (docs/interface.md section 5.10).
//
// The shape of the answer is an ASSUMPTION (the platform's documentation
// shows only the request): {"agreements": [{"id", "name"}]}. Its decoding
// lives in one place, the unexported agreementList.
type Agreement struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// Engagements are present in the sandbox's agreement objects.
	Engagements []string     `json:"engagements,omitempty"`
	Links       client.Links `json:"_links,omitempty"`
}

// Agreements lists the corporate agreements of the PSU named by the PSU-ID
// in ro (GET /v1/agreements). Choose one and send its ID as
// PSU-Corporate-ID ([client.PSU].CorporateID); a new agreement may start a
// new consent flow (docs/interface.md section 5.10). It is the one
// account information call sent in CORPORATE context without a
// PSU-Corporate-ID: it is how the TPP finds one.
func (s *Service) Agreements(ctx context.Context, ro ...client.RequestOption) ([]Agreement, error) {
	op := read(client.Operation{Name: "accounts.Agreements", Path: "/v1/agreements"})
	op.Validate = nil
	out, _, err := servicecall.Do[agreementList](ctx, s.client(), op, ro)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// agreementList decodes the answer of GET /v1/agreements. ASSUMPTION: the
// answer is {"agreements": [...]}; a bare array is accepted as well. This
// is the one place to change when the platform's shape is known.
type agreementList []Agreement

func (l *agreementList) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var a []Agreement
		if err := json.Unmarshal(data, &a); err != nil {
			return err
		}
		*l = a
		return nil
	}
	var w struct {
		Agreements []Agreement `json:"agreements"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*l = w.Agreements
	return nil
}
