package sandbox

import (
	"context"
	"net/http"
	"strconv"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
)

// Roles of an engagement in a mock agreement.
const (
	RoleView     = "VIEW"
	RoleRegister = "REGISTER"
)

// NewAgreement is the body of POST /v1/sandbox/agreements (docs/interface.md section 10):
// an agreement owned by the corporate customer Owner (its customer number)
// engaging accounts for customers (persons) with roles.
type NewAgreement struct {
	Owner       string       `json:"owner"`
	Name        string       `json:"name"`
	Engagements []Engagement `json:"engagements"`
}

// Engagement gives Customer (a customer number) Roles on Account.
type Engagement struct {
	Customer string     `json:"customer"`
	Account  AccountRef `json:"account"`
	Roles    []string   `json:"roles"`
}

// CreateAgreement creates a mock corporate agreement with POST
// /v1/sandbox/agreements and returns it as the sandbox answers.
func (s *Service) CreateAgreement(ctx context.Context, a *NewAgreement, opts ...client.RequestOption) (*Agreement, error) {
	op := client.Operation{Name: "sandbox.CreateAgreement", Method: http.MethodPost, Path: agreementsPath, Body: a, Refuse: a.validate(),
		Statuses: createStatuses}
	out, _, err := servicecall.Do[Agreement](ctx, s.client(), op, opts)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// validate checks a new agreement before it is sent: an owner, a name of
// 1 to 70 characters, and engagements each with a customer, an account
// (IBAN or BBAN) and at least one role; no text holds a character the
// bank cannot process.
func (a *NewAgreement) validate() error {
	if a == nil {
		return invalid("body", "no agreement given")
	}
	if err := firstErr(checkText("owner", a.Owner, 1, maxIDLen), checkText("name", a.Name, 1, maxName)); err != nil {
		return err
	}
	for i, e := range a.Engagements {
		p := "engagements[" + strconv.Itoa(i) + "]"
		if e.Account.IBAN == "" && e.Account.BBAN == "" {
			return invalid(p+".account", "iban or bban required")
		}
		if len(e.Roles) == 0 {
			return invalid(p+".roles", "at least one role required")
		}
		if err := firstErr(checkText(p+".customer", e.Customer, 1, maxIDLen), checkRef(p+".account", &e.Account)); err != nil {
			return err
		}
		for j, r := range e.Roles {
			if err := checkText(p+".roles["+strconv.Itoa(j)+"]", r, 1, 0); err != nil {
				return err
			}
		}
	}
	return nil
}
