package sandbox

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
)

// Paths of the mock-data operations (docs/interface.md section 4.4, 4.5; docs/interface.md section 10
// "Paths").
const (
	customersPath    = "/v1/sandbox/customers"
	accountsPath     = "/v1/sandbox/accounts"
	cardAccountsPath = "/v1/sandbox/card-accounts"
	agreementsPath   = "/v1/sandbox/agreements"
)

// The statuses docs/interface.md section 10 "Paths" names for the
// mock-data operations: the customer listing and reads 200, the creates
// 201, a customer's deletion 204. Another 2xx is a
// [*client.UnexpectedStatusError] (inside a [*client.OutcomeUnknownError]
// for a create, which is not repeatable): the sandbox did not answer as
// the interface says, so what it did is unknown. The reset's status is not
// published (its path is an assumption): any 2xx is a success.
var (
	readStatuses   = []int{http.StatusOK}
	createStatuses = []int{http.StatusCreated}
	deleteStatuses = []int{http.StatusNoContent}
)

// InitializePath is the path of the sandbox reset.
//
// ASSUMPTION: the platform does not publish it (docs/interface.md section 4.5 "the
// mock-data initialisation operation: not shown"; docs/interface.md section 10). POST
// /v1/sandbox/initialize is assumed; this constant is the only place it is
// written.
const InitializePath = "/v1/sandbox/initialize"

// Service calls the sandbox's mock-data operations under /v1/sandbox. They
// exist only in the sandbox environment, not in production (docs/interface.md
// 1.4), and need no PSU headers. A Service is safe for concurrent use.
type Service struct {
	c *client.Client
}

// errNoClient is returned by New for a nil client.
var errNoClient = errors.New("sandbox: no client (use sandbox.New)")

// New returns a Service sending its calls through c. It refuses a nil
// client.
func New(c *client.Client) (*Service, error) {
	if c == nil {
		return nil, errNoClient
	}
	return &Service{c: c}, nil
}

// client is the Service's client, nil for a nil Service: the call
// helper (servicecall.Do) refuses both alike, before sending.
func (s *Service) client() *client.Client {
	if s == nil {
		return nil
	}
	return s.c
}

// Initialize resets the sandbox to its default data: two private customers
// (2 accounts and a card account each) and two corporate customers (2
// accounts each, with agreements). Customers, accounts and transactions
// created by other mock-data calls are removed (docs/interface.md section 1.5). The path
// is an assumption, see [InitializePath].
func (s *Service) Initialize(ctx context.Context, opts ...client.RequestOption) error {
	op := client.Operation{Name: "sandbox.Initialize", Method: http.MethodPost, Path: InitializePath, Repeatable: true}
	_, _, err := servicecall.Do[struct{}](ctx, s.client(), op, opts)
	return err
}

// maxIDLen bounds a resource id put in a path.
const maxIDLen = 256

// checkID refuses an id longer than maxIDLen. The client refuses one
// that cannot be a path segment (empty, "." or "..", which would change
// the path) when it fills the path's template. field names the path
// parameter (customerId, accountId, cardAccountId).
func checkID(field, id string) error {
	if len(id) > maxIDLen {
		return invalid(field, "longer than "+strconv.Itoa(maxIDLen)+" bytes")
	}
	return nil
}
