package payments

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/apipath"
)

// Paths of the payment resources (the platform's paths).
const (
	pathPayments         = "/v1/payments"
	pathPeriodicPayments = "/v1/periodic-payments"
	pathBulkPayments     = "/v1/bulk-payments"
	segAuthorisations    = "authorisations"
	segStatus            = "status"
)

// queryAllowLogicalDuplicate is the query parameter of docs/interface.md section 4.2.
const queryAllowLogicalDuplicate = "allowLogicalDuplicate"

// errNoClient is returned by a Service made without a client.
var errNoClient = errors.New("payments: no client (use payments.New)")

// Service initiates payments for a PISP: creates NDCT, SEPA and other
// products (single, periodic, bulk), reads their status and details,
// cancels them, starts their authorisation and waits for a final status.
// Every call goes through the [client.Client] it was made with, whose
// clock ([client.Client.Now]) dates the validation of execution dates. A
// Service is safe for concurrent use.
type Service struct {
	c                *client.Client
	pollMin, pollMax time.Duration // WithPolling; zero: the defaults
	journal          *Journal      // WithJournal; nil: creates are not journaled
}

// Option configures a [Service] in [New].
type Option func(*Service) error

// New returns a Service that sends its calls through c. It refuses a nil
// client and an invalid option.
func New(c *client.Client, opts ...Option) (*Service, error) {
	if c == nil {
		return nil, errNoClient
	}
	s := &Service{c: c}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// AllowLogicalDuplicate lets the bank create a payment that has the same
// debtor, creditor, amount, remittance and date as an existing one
// (allowLogicalDuplicate=true, docs/interface.md section 4.2). Never use it on a retry
// after [client.ErrOutcomeUnknown]: the duplicate check is what keeps a
// retried payment from being made twice.
func AllowLogicalDuplicate() client.RequestOption {
	return client.WithQuery(queryAllowLogicalDuplicate, "true")
}

// validator is what a request body implements to be checked before it is
// sent; now is the client's clock.
type validator interface {
	Validate(now time.Time) error
}

// CreateNorwegianDomestic creates a Norwegian domestic credit transfer with
// POST /v1/payments/norwegian-domestic-credit-transfers (docs/interface.md section 4.2).
// p is validated first (unless [client.WithoutValidation]); a refusal is
// an error matching [client.ErrValidation] and nothing is sent.
//
// The headers docs/interface.md section 4.2 requires must be among the
// options or the client's defaults: PSU-ID, PSU-IP-Address and
// PSU-Context (client.WithPSU, client.WithPSUContext; an
// [sca.Session]'s RequestOptions carries them), TPP-Session-ID and
// TPP-Redirect-URI. Without one, the call fails with a
// *client.ValidationError naming the option and nothing is sent. A call
// that may have reached the bank without a clear answer returns
// [client.ErrOutcomeUnknown] and is never sent again: see the package
// documentation on reconciliation.
func (s *Service) CreateNorwegianDomestic(ctx context.Context, p *NorwegianDomestic, opts ...client.RequestOption) (*Initiation, error) {
	const op = "payments.CreateNorwegianDomestic"
	if p == nil {
		return nil, fmt.Errorf("%s: %w", op, &client.ValidationError{Field: "body", Reason: "no payment given"})
	}
	return s.create(ctx, op, pathPayments, ProductNorwegianDomestic, p, opts)
}

// CreateSEPA creates a SEPA credit transfer with POST
// /v1/payments/sepa-credit-transfers (docs/interface.md section 4.3), validating p first
// as [Service.CreateNorwegianDomestic] does.
func (s *Service) CreateSEPA(ctx context.Context, p *SEPA, opts ...client.RequestOption) (*Initiation, error) {
	const op = "payments.CreateSEPA"
	if p == nil {
		return nil, fmt.Errorf("%s: %w", op, &client.ValidationError{Field: "body", Reason: "no payment given"})
	}
	return s.create(ctx, op, pathPayments, ProductSEPA, p, opts)
}

// Create creates a single payment of any product with POST
// /v1/payments/{product} (cross-border, instant, or a product this SDK has
// no type for). body is encoded as JSON; when it has a Validate(now
// time.Time) error method (as [*NorwegianDomestic] and [*SEPA] have), it
// is validated first.
func (s *Service) Create(ctx context.Context, product Product, body any, opts ...client.RequestOption) (*Initiation, error) {
	return s.create(ctx, "payments.Create", pathPayments, product, body, opts)
}

// CreatePeriodic creates a periodic (standing order) payment with POST
// /v1/periodic-payments/{product} (the platform's paths). body holds the
// payment fields plus the Berlin Group periodic fields (startDate,
// frequency, ...); it is validated when it has a Validate method.
// Periodic payments cannot go into a signing basket (docs/interface.md section 2.7).
func (s *Service) CreatePeriodic(ctx context.Context, product Product, body any, opts ...client.RequestOption) (*Initiation, error) {
	return s.create(ctx, "payments.CreatePeriodic", pathPeriodicPayments, product, body, opts)
}

// CreateBulk creates a bulk payment with POST
// /v1/bulk-payments/{product} (the platform's paths). body holds the
// debtorAccount and the list of payments; it is validated when it has a
// Validate method. Bulk payments cannot go into a signing basket.
func (s *Service) CreateBulk(ctx context.Context, product Product, body any, opts ...client.RequestOption) (*Initiation, error) {
	return s.create(ctx, "payments.CreateBulk", pathBulkPayments, product, body, opts)
}

// createHeaders are the headers docs/interface.md sections 4.1 to 4.3
// require on a payment's creation, besides TPP-Redirect-URI (required on
// every call) and the x-accept-fix and Digest the client always sends.
// PSU-Context is "required for single-SCA payment initiation"; a payment
// meant for a signing basket is created the same way, so the SDK requires
// it on every creation (the safe choice: the bank refuses a single-SCA
// payment without it, and the PSU's context is always known).
var createHeaders = []string{"PSU-ID", "PSU-IP-Address", "TPP-Session-ID", "PSU-Context"}

// create validates body and sends the create as an operation that is not
// repeatable: the client never sends it twice.
func (s *Service) create(ctx context.Context, op, prefix string, product Product, body any, opts []client.RequestOption) (*Initiation, error) {
	if s == nil || s.c == nil {
		return nil, fmt.Errorf("%s: %w", op, errNoClient)
	}
	if err := checkProduct(product); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	switch b := body.(type) {
	case nil:
		return nil, fmt.Errorf("%s: %w", op, &client.ValidationError{Field: "body", Reason: "no payment given"})
	case NorwegianDomestic: // a value has no Validate method; check it all the same
		body = &b
	case SEPA:
		body = &b
	}
	operation := client.Operation{
		Name:       op,
		Method:     http.MethodPost,
		Path:       apipath.Join(prefix, string(product)),
		Body:       body,
		Repeatable: false, // a payment POST is never sent twice (docs/design.md section 2)
		ResultID:   "paymentId",
		Require:    createHeaders,
	}
	if v, ok := body.(validator); ok {
		operation.Validate = func(*client.Call) error { return v.Validate(s.c.Now()) }
	}
	if s.journal != nil {
		operation.Hook = s.journal.Hook(s.c.Scope(), product)
	}
	var out Initiation
	if _, err := s.c.Do(ctx, operation, &out, opts...); err != nil {
		return nil, err
	}
	out.Product = product
	return &out, nil
}

// checkProduct refuses an empty product; any other is escaped as one path
// segment.
func checkProduct(p Product) error {
	if p == "" {
		return &client.ValidationError{Field: "payment-product", Reason: "empty product"}
	}
	return nil
}

// paymentPath is /v1/payments/{product}/{id} plus extra segments.
func paymentPath(product Product, paymentID string, extra ...string) (string, error) {
	if err := checkProduct(product); err != nil {
		return "", err
	}
	if paymentID == "" {
		return "", &client.ValidationError{Field: "paymentId", Reason: "empty payment id"}
	}
	return apipath.Join(pathPayments, append([]string{string(product), paymentID}, extra...)...), nil
}

// Status reads a payment's status with GET
// /v1/payments/{product}/{id}/status. It is a GET, retried by the client
// on transport errors and 429/502/503/504. Known issue (docs/interface.md
// section 4.2): the bank cannot show an NDCT before the PSU has approved
// it; its 404 is returned as an error matching [ErrNotYetReadable].
func (s *Service) Status(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*StatusResponse, error) {
	const op = "payments.Status"
	p, err := paymentPath(product, paymentID, segStatus)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return s.status(ctx, op, p, opts)
}

// StatusAt reads a payment's status by the href of an earlier answer's
// status link (Initiation.Links.Href("status")). The href is resolved
// against the base URL; it is never sent to another host.
func (s *Service) StatusAt(ctx context.Context, href string, opts ...client.RequestOption) (*StatusResponse, error) {
	const op = "payments.StatusAt"
	if err := checkHref(href); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return s.status(ctx, op, href, opts)
}

func (s *Service) status(ctx context.Context, op, path string, opts []client.RequestOption) (*StatusResponse, error) {
	var out StatusResponse
	if err := s.do(ctx, client.Operation{Name: op, Method: http.MethodGet, Path: path}, &out, opts); err != nil {
		return nil, notYetReadable(path, err)
	}
	return &out, nil
}

// Get reads a payment's details with GET /v1/payments/{product}/{id}: the
// request as the bank holds it. The platform sends no transactionStatus
// here; use [Service.Status]. An NDCT not yet approved by the PSU answers
// 404, returned as an error matching [ErrNotYetReadable].
func (s *Service) Get(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*Details, error) {
	const op = "payments.Get"
	p, err := paymentPath(product, paymentID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return s.get(ctx, op, p, opts)
}

// GetAt reads a payment's details by the href of a self link.
func (s *Service) GetAt(ctx context.Context, href string, opts ...client.RequestOption) (*Details, error) {
	const op = "payments.GetAt"
	if err := checkHref(href); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return s.get(ctx, op, href, opts)
}

func (s *Service) get(ctx context.Context, op, path string, opts []client.RequestOption) (*Details, error) {
	var out Details
	if err := s.do(ctx, client.Operation{Name: op, Method: http.MethodGet, Path: path}, &out, opts); err != nil {
		return nil, notYetReadable(path, err)
	}
	return &out, nil
}

// Cancel deletes a payment with DELETE /v1/payments/{product}/{id}. The
// bank allows it only while the self link lists DELETE (before the PSU
// signed, RCVD); otherwise it answers an error (*client.Error, 405
// CANCELLATION_INVALID on this platform; docs/interface.md section 7: "deleting a payment
// in status PDNG").
func (s *Service) Cancel(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*Cancellation, error) {
	const op = "payments.Cancel"
	p, err := paymentPath(product, paymentID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return s.cancel(ctx, op, p, opts)
}

// CancelAt deletes a payment by the href of its self link.
func (s *Service) CancelAt(ctx context.Context, href string, opts ...client.RequestOption) (*Cancellation, error) {
	const op = "payments.CancelAt"
	if err := checkHref(href); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return s.cancel(ctx, op, href, opts)
}

func (s *Service) cancel(ctx context.Context, op, path string, opts []client.RequestOption) (*Cancellation, error) {
	var out Cancellation
	if s == nil || s.c == nil {
		return nil, fmt.Errorf("%s: %w", op, errNoClient)
	}
	resp, err := s.c.Do(ctx, client.Operation{Name: op, Method: http.MethodDelete, Path: path}, &out, opts...)
	if err != nil {
		return nil, err
	}
	out.StatusCode = resp.StatusCode
	return &out, nil
}

// StartAuthorisation starts the PSU's SCA for a payment with POST
// /v1/payments/{product}/{id}/authorisations, for a create answer without
// a scaRedirect or after the PSU cancelled. The answer's SCARedirect is
// where to send the PSU.
//
// Starting an authorisation moves no money, but each one that reaches the
// bank is a new authorisation, so the request is sent once: after a
// failure that may have reached the bank (a dropped connection, a timeout,
// a 5xx, a 201 without scaStatus) the call returns client.ErrOutcomeUnknown,
// and the caller may start it again deliberately.
func (s *Service) StartAuthorisation(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*Authorisation, error) {
	const op = "payments.StartAuthorisation"
	p, err := paymentPath(product, paymentID, segAuthorisations)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return s.startAuthorisation(ctx, op, p, opts)
}

// StartAuthorisationAt starts the PSU's SCA by the href of a
// startAuthorisation link.
func (s *Service) StartAuthorisationAt(ctx context.Context, href string, opts ...client.RequestOption) (*Authorisation, error) {
	const op = "payments.StartAuthorisationAt"
	if err := checkHref(href); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return s.startAuthorisation(ctx, op, href, opts)
}

func (s *Service) startAuthorisation(ctx context.Context, op, path string, opts []client.RequestOption) (*Authorisation, error) {
	var out Authorisation
	err := s.do(ctx, client.Operation{Name: op, Method: http.MethodPost, Path: path, ResultID: "scaStatus"}, &out, opts)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

func (s *Service) do(ctx context.Context, op client.Operation, out any, opts []client.RequestOption) error {
	if s == nil || s.c == nil {
		return fmt.Errorf("%s: %w", op.Name, errNoClient)
	}
	_, err := s.c.Do(ctx, op, out, opts...)
	return err
}

// checkHref refuses an empty href or one that is not a URL; the client
// checks the host.
func checkHref(href string) error {
	if href == "" {
		return &client.ValidationError{Field: "href", Reason: "empty link"}
	}
	if _, err := url.Parse(href); err != nil {
		return &client.ValidationError{Field: "href", Reason: "not a URL"}
	}
	return nil
}
