package sandbox

import (
	"context"
	"errors"
	"net/http"

	"github.com/tppkit/psd2/client"
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
	if a == nil || a.Owner == "" || a.Name == "" {
		return nil, errors.New("sandbox: a new agreement needs an owner and a name")
	}
	for _, e := range a.Engagements {
		if e.Customer == "" || (e.Account.IBAN == "" && e.Account.BBAN == "") || len(e.Roles) == 0 {
			return nil, errors.New("sandbox: an engagement needs a customer, an account and roles")
		}
	}
	var out Agreement
	op := client.Operation{Name: "sandbox.CreateAgreement", Method: http.MethodPost, Path: agreementsPath, Body: a}
	if err := s.do(ctx, op, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}
