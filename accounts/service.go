package accounts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// EndpointTransactionDetails is the budget [Endpoint] of
// [Service.TransactionDetails].
//
// ASSUMPTION (the platform's documentation says only "4 calls per day,
// like the list"): the bank counts transaction details on their own, 4
// calls per account per 24 hours without the PSU present, whichever
// transaction is read, next to the 4 calls of the transactions list. The
// SDK counts them per account, not per transaction, so it can only refuse
// early, never earn a 429. This is the one place to change that.
const EndpointTransactionDetails Endpoint = "transaction-details"

// transactionDetailsKeys are the members a transaction details answer may
// wrap the entry in: "transactionsDetails" (Berlin Group 1.3.x, as the
// platform's documentation shows it) and the singular spelling of later
// versions. An answer without either is read as a bare entry.
var transactionDetailsKeys = []string{"transactionsDetails", "transactionDetails"}

// TransactionDetails returns one transaction of an account (GET
// /v1/accounts/{id}/transactions/{transactionId}), decoded from the
// answer's {"transactionsDetails": {...}}. Use the stable TransactionID of
// a booked entry (docs/interface.md section 2.9); pending entries have
// none. The returned entry's Status is empty: the answer does not say
// whether it is booked.
//
// Without the PSU present (no PSU-IP-Address in ro) the call counts
// against the account's budget of 4 transaction details calls per 24
// hours ([EndpointTransactionDetails], docs/interface.md section 8) and is
// refused with a [*BudgetExhaustedError] before it is sent when the budget
// is spent.
func (s *Service) TransactionDetails(ctx context.Context, accountID, transactionID string, ro ...client.RequestOption) (*Transaction, error) {
	const op = "accounts.TransactionDetails"
	if accountID == "" {
		return nil, errEmptyID(op)
	}
	if transactionID == "" {
		return nil, fmt.Errorf("%s: %w: empty transaction id", op, ErrInvalidQuery)
	}
	var out transactionDetails
	err := s.counted(ctx, op, EndpointTransactionDetails, accountID, ro, func() error {
		return s.get(ctx, op, client.JoinPath("/v1/accounts", accountID, "transactions", transactionID), nil, &out, ro)
	})
	if err != nil {
		return nil, err
	}
	return &out.t, nil
}

// transactionDetails decodes a transaction details answer.
type transactionDetails struct{ t Transaction }

func (d *transactionDetails) UnmarshalJSON(data []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	for _, k := range transactionDetailsKeys {
		if inner := bytes.TrimSpace(probe[k]); len(inner) > 0 && inner[0] == '{' {
			return json.Unmarshal(inner, &d.t)
		}
	}
	return json.Unmarshal(data, &d.t)
}
