package accounts

import (
	"context"
	"net/http"
	"net/url"

	"github.com/tppkit/psd2/client"
)

// Service reads account information for an AISP: bank-offered consent,
// accounts, card accounts, balances, transactions and corporate agreements.
// Every call goes through the [client.Client] it was made with; PSU and
// session headers are per-call [client.RequestOption]s such as
// [client.WithPSU] and [client.WithTPPSessionID].
//
// Balances and transactions calls made without the PSU present (no
// PSU-IP-Address) are checked against the Service's [Budget] before they
// are sent. A Service is safe for concurrent use.
type Service struct {
	c      *client.Client
	budget *Budget
}

// Option configures a [Service] in [New]. Options cannot fail: a nil
// argument keeps the default.
type Option func(*Service)

// WithBudget makes the Service count calls without the PSU present in b
// instead of in a Budget of its own kept in memory. Give several Services
// the same Budget, or Budgets on one shared [BudgetStore], so that they
// refuse the fifth call together. WithBudget(nil) keeps the default.
func WithBudget(b *Budget) Option {
	return func(s *Service) {
		if b != nil {
			s.budget = b
		}
	}
}

// WithBudgetStore keeps the Service's budget counts in store, so that they
// survive restarts and are shared by every Service using the same store. It
// is short for WithBudget(NewBudget(store)). WithBudgetStore(nil) keeps the
// default.
func WithBudgetStore(store BudgetStore) Option {
	return func(s *Service) {
		if store != nil {
			s.budget = NewBudget(store)
		}
	}
}

// New returns a Service that sends its calls through c. Without options
// the without-PSU budget is kept in memory, per Service.
func New(c *client.Client, opts ...Option) *Service {
	s := &Service{c: c}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	if s.budget == nil {
		s.budget = NewBudget(NewMemoryBudgetStore())
	}
	return s
}

// Budget returns the budget the Service checks calls without the PSU
// present against.
func (s *Service) Budget() *Budget { return s.budget }

// get sends a GET described by name, path and query and decodes the answer
// into out.
func (s *Service) get(ctx context.Context, name, path string, query url.Values, out any, opts []client.RequestOption) error {
	if s == nil || s.c == nil {
		return errNoClient
	}
	_, err := s.c.Do(ctx, client.Operation{Name: name, Method: http.MethodGet, Path: path, Query: query}, out, opts...)
	return err
}
