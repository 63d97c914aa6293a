package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
)

// Customer is a sandbox customer (docs/interface.md section 2.8). CustomerNumber is what
// the PSU types at the sandbox SCA page (docs/interface.md section 5.13).
type Customer struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	CustomerID     string            `json:"customerId"`
	CustomerNumber string            `json:"customerNumber"`
	CustomerType   client.PSUContext `json:"customerType"`
	CustomerName   string            `json:"customerName"`
	// Agreements are listed with CustomersQuery.WithAgreements.
	Agreements []Agreement `json:"agreements"`
	// Accounts and CardAccounts are mock account ids, listed with
	// CustomersQuery.WithAccounts.
	Accounts     []string `json:"accounts"`
	CardAccounts []string `json:"cardAccounts"`
	// Links has self (GET, DELETE).
	Links client.Links `json:"_links"`
}

// Agreement is a sandbox agreement of a customer (docs/interface.md section 2.8):
// engagements are ids of engaged accounts; Links has self and engagements.
//
// ID names the mock-data resource (/v1/sandbox/agreements/{id}); the
// platform's listing writes it in its enc!! form, like an account id. It
// is not the PSU-Corporate-ID of the agreement: that is a UUID, which GET
// /v1/agreements and the SCA callback (psu-corporate-id) give.
type Agreement struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Engagements []string     `json:"engagements"`
	Links       client.Links `json:"_links"`
}

// CustomersQuery selects what [Service.Customers] includes. false is
// faster (docs/interface.md section 4.4).
type CustomersQuery struct {
	WithAccounts   bool
	WithAgreements bool
}

// Customers lists the sandbox customers with GET /v1/sandbox/customers
// (docs/interface.md section 4.4). A nil q lists them without accounts and agreements.
// An answer without a list (an empty body, or null) is an error, never
// read as no customers ([ErrNoList]).
func (s *Service) Customers(ctx context.Context, q *CustomersQuery, opts ...client.RequestOption) ([]Customer, error) {
	var query url.Values
	if q != nil {
		query = url.Values{
			"withAccounts":   {strconv.FormatBool(q.WithAccounts)},
			"withAgreements": {strconv.FormatBool(q.WithAgreements)},
		}
	}
	op := client.Operation{Name: "sandbox.Customers", Method: http.MethodGet, Path: customersPath, Query: query, Statuses: readStatuses}
	out, _, err := servicecall.Do[[]Customer](ctx, s.client(), op, opts)
	if err != nil {
		return nil, err
	}
	if *out == nil {
		// [] decodes to an empty list; no body, or null, leaves none.
		return nil, fmt.Errorf("%w of customers (an empty body or null)", ErrNoList)
	}
	return *out, nil
}

// ErrNoList matches the error of [Service.Customers] for a 2xx answer
// that holds no list (an empty body, or null): it says nothing of the
// sandbox's customers, and an empty list would read as none.
var ErrNoList = errors.New("sandbox: the answer holds no list")

// NewCustomer is the body of POST /v1/sandbox/customers. docs/interface.md section 4.5
// does not show it; ASSUMPTION: it carries the writable fields of the
// customer of docs/interface.md section 2.8 under the same names.
type NewCustomer struct {
	// CustomerNumber is the mocked national identity number the PSU types
	// at the sandbox SCA page: 11 digits for a private customer, a 9-digit
	// organisation number for a corporate one.
	CustomerNumber string `json:"customerNumber"`
	// CustomerType is PRIVATE or CORPORATE.
	CustomerType client.PSUContext `json:"customerType"`
	// CustomerName is the customer's name: 1 to 70 characters (runes, not
	// bytes) of valid UTF-8, without an emoji, pictograph or character
	// outside the Basic Multilingual Plane (the bank answers those 400).
	CustomerName string `json:"customerName"`
}

// maxCustomerName is the longest customerName, in characters: the 70 of
// the bank's name fields (docs/interface.md section 8), an assumption
// the emulator shares.
const maxCustomerName = 70

// validate checks a new customer before it is sent. Every broken rule is
// a wrapped [*client.ValidationError] (matching client.ErrValidation)
// naming the field.
func (n *NewCustomer) validate() error {
	if n == nil {
		return invalid("body", "no customer given")
	}
	if err := checkCustomerNumber("customerNumber", n.CustomerNumber); err != nil {
		return err
	}
	if err := checkText("customerName", n.CustomerName, 1, maxCustomerName); err != nil {
		return err
	}
	if n.CustomerType != client.Private && n.CustomerType != client.Corporate {
		return invalid("customerType", "must be PRIVATE or CORPORATE")
	}
	return nil
}

// CreateCustomer creates a sandbox customer with POST
// /v1/sandbox/customers and returns it as the sandbox answers.
func (s *Service) CreateCustomer(ctx context.Context, n *NewCustomer, opts ...client.RequestOption) (*Customer, error) {
	op := client.Operation{Name: "sandbox.CreateCustomer", Method: http.MethodPost, Path: customersPath, Body: n, Refuse: n.validate(),
		Statuses: createStatuses}
	out, _, err := servicecall.Do[Customer](ctx, s.client(), op, opts)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteCustomer deletes the sandbox customer customerID with DELETE
// /v1/sandbox/customers/{id}.
func (s *Service) DeleteCustomer(ctx context.Context, customerID string, opts ...client.RequestOption) error {
	op := client.Operation{Name: "sandbox.DeleteCustomer", Method: http.MethodDelete, Path: customersPath + "/{customerId}",
		Params: map[string]string{"customerId": customerID}, Refuse: checkID("customerId", customerID), Statuses: deleteStatuses}
	_, _, err := servicecall.Do[struct{}](ctx, s.client(), op, opts)
	return err
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0 && len(s) <= 20
}

// Customer returns the sandbox customer customerID, with its accounts and
// agreements, with GET /v1/sandbox/customers/{id}.
func (s *Service) Customer(ctx context.Context, customerID string, opts ...client.RequestOption) (*Customer, error) {
	op := client.Operation{Name: "sandbox.Customer", Method: http.MethodGet, Path: customersPath + "/{customerId}",
		Params: map[string]string{"customerId": customerID}, Refuse: checkID("customerId", customerID), Statuses: readStatuses}
	out, _, err := servicecall.Do[Customer](ctx, s.client(), op, opts)
	if err != nil {
		return nil, err
	}
	return out, nil
}
