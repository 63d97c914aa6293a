package payments

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
)

// Path segments of the payment resources (docs/interface.md section 10
// "Paths"): /v1/{payment-service}/{payment-product}/{paymentId}/...
const (
	pathVersion       = "/v1"
	segAuthorisations = "authorisations"
	segStatus         = "status"
)

// PaymentService is the {payment-service} segment of the payment paths
// (Berlin Group; docs/interface.md section 10 "Paths"): whether a payment
// is a single, a periodic or a bulk payment. The paths of a payment's
// status, details, cancellation and authorisation start with the service
// it was created under; [Initiation.Service] records it, and
// [Service.In] makes those calls under it.
type PaymentService string

// The payment services of the platform (docs/interface.md section 10
// "Paths").
const (
	// ServiceSingle is /v1/payments: single payments, made with
	// [Service.CreateNorwegianDomestic], [Service.CreateSEPA] and
	// [Service.Create]. The id-based calls of [Service] use it.
	ServiceSingle PaymentService = "payments"
	// ServicePeriodic is /v1/periodic-payments: periodic payments
	// (standing orders), made with [Service.CreatePeriodic].
	ServicePeriodic PaymentService = "periodic-payments"
	// ServiceBulk is /v1/bulk-payments: bulk payments, made with
	// [Service.CreateBulk].
	ServiceBulk PaymentService = "bulk-payments"
)

// String returns the service as it appears in paths.
func (ps PaymentService) String() string { return string(ps) }

// check refuses a service other than the three of the platform: "" (an
// Initiation the SDK did not fill in, for example one decoded from JSON)
// would otherwise send the call under the wrong service.
func (ps PaymentService) check() error {
	switch ps {
	case ServiceSingle, ServicePeriodic, ServiceBulk:
		return nil
	case "":
		return &client.ValidationError{Field: "payment-service", Reason: "empty payment service"}
	}
	return &client.ValidationError{Field: "payment-service", Reason: "not payments, periodic-payments or bulk-payments"}
}

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
	pollMin, pollMax time.Duration    // WithPolling; zero: the defaults
	journal          *journal.Journal // WithJournal; nil: creates are not journaled
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
// sca.Session's RequestOptions carries them), TPP-Session-ID and
// TPP-Redirect-URI. Without one, the call fails with a
// *client.ValidationError naming the option and nothing is sent. A call
// that may have reached the bank without a clear answer returns
// [client.ErrOutcomeUnknown] and is never sent again: see the package
// documentation on reconciliation.
func (s *Service) CreateNorwegianDomestic(ctx context.Context, p *NorwegianDomestic, opts ...client.RequestOption) (*Initiation, error) {
	if p == nil {
		return s.create(ctx, "payments.CreateNorwegianDomestic", ServiceSingle, ProductNorwegianDomestic, nil, opts)
	}
	return s.create(ctx, "payments.CreateNorwegianDomestic", ServiceSingle, ProductNorwegianDomestic, p, opts)
}

// CreateSEPA creates a SEPA credit transfer with POST
// /v1/payments/sepa-credit-transfers (docs/interface.md section 4.3), validating p first
// as [Service.CreateNorwegianDomestic] does.
func (s *Service) CreateSEPA(ctx context.Context, p *SEPA, opts ...client.RequestOption) (*Initiation, error) {
	if p == nil {
		return s.create(ctx, "payments.CreateSEPA", ServiceSingle, ProductSEPA, nil, opts)
	}
	return s.create(ctx, "payments.CreateSEPA", ServiceSingle, ProductSEPA, p, opts)
}

// Create creates a single payment of any product with POST
// /v1/payments/{product} (cross-border, instant, or a product this SDK has
// no type for). body is encoded as JSON; when it has a Validate(now
// time.Time) error method (as [*NorwegianDomestic] and [*SEPA] have), it
// is validated first.
func (s *Service) Create(ctx context.Context, product Product, body any, opts ...client.RequestOption) (*Initiation, error) {
	return s.create(ctx, "payments.Create", ServiceSingle, product, body, opts)
}

// CreatePeriodic creates a periodic (standing order) payment with POST
// /v1/periodic-payments/{product} (the platform's paths). body holds the
// payment fields plus the Berlin Group periodic fields (startDate,
// frequency, ...); it is validated when it has a Validate method.
// Periodic payments cannot go into a signing basket (docs/interface.md section 2.7).
func (s *Service) CreatePeriodic(ctx context.Context, product Product, body any, opts ...client.RequestOption) (*Initiation, error) {
	return s.create(ctx, "payments.CreatePeriodic", ServicePeriodic, product, body, opts)
}

// CreateBulk creates a bulk payment with POST
// /v1/bulk-payments/{product} (the platform's paths). body holds the
// debtorAccount and the list of payments; it is validated when it has a
// Validate method. Bulk payments cannot go into a signing basket.
func (s *Service) CreateBulk(ctx context.Context, product Product, body any, opts ...client.RequestOption) (*Initiation, error) {
	return s.create(ctx, "payments.CreateBulk", ServiceBulk, product, body, opts)
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
func (s *Service) create(ctx context.Context, op string, ps PaymentService, product Product, body any, opts []client.RequestOption) (*Initiation, error) {
	if s == nil || s.c == nil {
		return nil, fmt.Errorf("%s: %w", op, errNoClient)
	}
	var refuse error
	switch b := body.(type) {
	case nil:
		refuse = &client.ValidationError{Field: "body", Reason: "no payment given"}
	case NorwegianDomestic: // a value has no Validate method; check it all the same
		body = &b
	case SEPA:
		body = &b
	}
	operation := client.Operation{
		Name:       op,
		Method:     http.MethodPost,
		Path:       pathVersion + "/{payment-service}/{payment-product}",
		Params:     map[string]string{"payment-service": string(ps), "payment-product": string(product)},
		Refuse:     refuse,
		Body:       body,
		Repeatable: false, // a payment POST is never sent twice (docs/design.md section 2)
		ResultID:   "paymentId",
		Require:    createHeaders,
	}
	if v, ok := body.(validator); ok {
		operation.Validate = func(*client.Call) error { return v.Validate(s.c.Now()) }
	}
	if s.journal != nil {
		operation.Hook = s.journal.Hook(s.c, createOf(ps, product))
	}
	var out Initiation
	if _, err := s.c.Do(ctx, operation, &out, opts...); err != nil {
		return nil, logicalDuplicate(err)
	}
	out.Product, out.Service = product, ps
	return &out, nil
}

// Calls are the id-based calls on the payments of one [PaymentService]:
// the status, details, cancellation, authorisation and wait of a payment
// by its product and id, under /v1/{payment-service}/{product}/{id}
// (docs/interface.md section 10 "Paths"). Make them with [Service.In];
// they go through the Service's client and use its polling. The id-based
// methods of [Service] itself are those of [ServiceSingle]. A Calls is a
// small value, safe for concurrent use.
type Calls struct {
	s  *Service
	ps PaymentService
}

// In returns the id-based calls on the payments of service ps. Periodic
// and bulk payments are read, cancelled and authorised under their own
// service, which the Initiation of their creation records:
//
//	init, err := svc.CreatePeriodic(ctx, product, body, opts...)
//	// ...
//	st, err := svc.In(init.Service).Status(ctx, init.Product, init.PaymentID, opts...)
//
// svc.In(ServiceSingle) makes the same calls as the methods of svc. Each
// call refuses a service other than [ServiceSingle], [ServicePeriodic] and
// [ServiceBulk] ("" included) with a [*client.ValidationError], and sends
// nothing.
func (s *Service) In(ps PaymentService) Calls { return Calls{s: s, ps: ps} }

// operation declares the call op on /v1/{payment-service}/{payment-product}/{paymentId}
// plus suffix ("/status"): the client checks and escapes the path's
// parameters (an empty product or id, a dot segment) and refuses a
// service other than the platform's three.
func (c Calls) operation(op, method string, product Product, paymentID, suffix string) client.Operation {
	return client.Operation{Name: op, Method: method,
		Path:   pathVersion + "/{payment-service}/{payment-product}/{paymentId}" + suffix,
		Params: map[string]string{"payment-service": string(c.ps), "payment-product": string(product), "paymentId": paymentID},
		Refuse: c.ps.check()}
}

// linkOperation declares the call op on the href of a link.
func linkOperation(op, method, href string) client.Operation {
	return client.Operation{Name: op, Method: method, Path: href, Refuse: checkHref(href)}
}

// readPath is the path notYetReadable reads the service and product
// from: the href of a link, or the declared path with its service and
// product.
func readPath(op client.Operation) string {
	if op.Params == nil {
		return op.Path
	}
	return pathVersion + "/" + op.Params["payment-service"] + "/" + op.Params["payment-product"] + "/"
}

// Status reads a single payment's status with GET
// /v1/payments/{product}/{id}/status; svc.In(ps).Status reads a periodic
// or bulk payment's ([Calls.Status]). It is a GET, retried by the client
// on transport errors and 429/502/503/504. Known issue (docs/interface.md
// section 4.2): the bank cannot show an NDCT before the PSU has approved
// it; its 404 is returned as an error matching [ErrNotYetReadable].
func (s *Service) Status(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*StatusResponse, error) {
	return s.In(ServiceSingle).Status(ctx, product, paymentID, opts...)
}

// Status reads the status of a payment of c's service with GET
// /v1/{payment-service}/{product}/{id}/status, as [Service.Status] does
// for single payments. A 404 is returned as an error matching
// [ErrNotYetReadable] for the products the bank cannot show before
// approval, under every service (see [ErrNotYetReadable]).
func (c Calls) Status(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*StatusResponse, error) {
	return c.s.status(ctx, c.operation("payments.Status", http.MethodGet, product, paymentID, "/"+segStatus), opts)
}

// StatusAt reads a payment's status by the href of an earlier answer's
// status link (Initiation.Links.Href("status")), of a single, periodic or
// bulk payment. The href is resolved against the base URL; it is never
// sent to another host.
func (s *Service) StatusAt(ctx context.Context, href string, opts ...client.RequestOption) (*StatusResponse, error) {
	return s.status(ctx, linkOperation("payments.StatusAt", http.MethodGet, href), opts)
}

func (s *Service) status(ctx context.Context, op client.Operation, opts []client.RequestOption) (*StatusResponse, error) {
	var out StatusResponse
	if err := s.do(ctx, op, &out, opts); err != nil {
		return nil, notYetReadable(readPath(op), err)
	}
	return &out, nil
}

// Get reads a single payment's details with GET
// /v1/payments/{product}/{id}: the request as the bank holds it;
// svc.In(ps).Get reads a periodic or bulk payment's ([Calls.Get]). The
// platform sends no transactionStatus here; use [Service.Status]. An NDCT
// not yet approved by the PSU answers 404, returned as an error matching
// [ErrNotYetReadable].
func (s *Service) Get(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*Details, error) {
	return s.In(ServiceSingle).Get(ctx, product, paymentID, opts...)
}

// Get reads the details of a payment of c's service with GET
// /v1/{payment-service}/{product}/{id}, as [Service.Get] does for single
// payments. [Details] holds the periodic fields of a periodic payment and
// the payments of a bulk payment.
func (c Calls) Get(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*Details, error) {
	return c.s.get(ctx, c.operation("payments.Get", http.MethodGet, product, paymentID, ""), opts)
}

// GetAt reads a payment's details by the href of a self link.
func (s *Service) GetAt(ctx context.Context, href string, opts ...client.RequestOption) (*Details, error) {
	return s.get(ctx, linkOperation("payments.GetAt", http.MethodGet, href), opts)
}

func (s *Service) get(ctx context.Context, op client.Operation, opts []client.RequestOption) (*Details, error) {
	var out Details
	if err := s.do(ctx, op, &out, opts); err != nil {
		return nil, notYetReadable(readPath(op), err)
	}
	return &out, nil
}

// Cancel deletes a single payment with DELETE /v1/payments/{product}/{id};
// svc.In(ps).Cancel deletes a periodic or bulk payment ([Calls.Cancel]).
// The bank allows it only while the self link lists DELETE (before the
// PSU signed, RCVD); otherwise it answers an error (*client.Error, 405
// CANCELLATION_INVALID on this platform; docs/interface.md section 7:
// "deleting a payment in status PDNG"). A 404 is the bank's error
// (matching [client.ErrNotFound]): the payment was not cancelled.
func (s *Service) Cancel(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*Cancellation, error) {
	return s.In(ServiceSingle).Cancel(ctx, product, paymentID, opts...)
}

// Cancel deletes a payment of c's service with DELETE
// /v1/{payment-service}/{product}/{id}, as [Service.Cancel] does for
// single payments: a standing order made with [Service.CreatePeriodic] is
// cancelled with svc.In(ServicePeriodic).Cancel. Any error, a 404
// included, means that the bank did not confirm a cancellation.
func (c Calls) Cancel(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*Cancellation, error) {
	return c.s.cancel(ctx, c.operation("payments.Cancel", http.MethodDelete, product, paymentID, ""), opts)
}

// CancelAt deletes a payment by the href of its self link.
func (s *Service) CancelAt(ctx context.Context, href string, opts ...client.RequestOption) (*Cancellation, error) {
	return s.cancel(ctx, linkOperation("payments.CancelAt", http.MethodDelete, href), opts)
}

func (s *Service) cancel(ctx context.Context, op client.Operation, opts []client.RequestOption) (*Cancellation, error) {
	var out Cancellation
	if s == nil || s.c == nil {
		return nil, fmt.Errorf("%s: %w", op.Name, errNoClient)
	}
	resp, err := s.c.Do(ctx, op, &out, opts...)
	if err != nil {
		return nil, err
	}
	out.StatusCode = resp.StatusCode
	return &out, nil
}

// StartAuthorisation starts the PSU's SCA for a single payment with POST
// /v1/payments/{product}/{id}/authorisations, for a create answer without
// a scaRedirect or after the PSU cancelled; svc.In(ps).StartAuthorisation
// does it for a periodic or bulk payment ([Calls.StartAuthorisation]). The
// answer's SCARedirect is where to send the PSU.
//
// Starting an authorisation moves no money, but each one that reaches the
// bank is a new authorisation, so the request is sent once: after a
// failure that may have reached the bank (a dropped connection, a timeout,
// a 5xx, a 201 without scaStatus) the call returns client.ErrOutcomeUnknown,
// and the caller may start it again deliberately.
func (s *Service) StartAuthorisation(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*Authorisation, error) {
	return s.In(ServiceSingle).StartAuthorisation(ctx, product, paymentID, opts...)
}

// StartAuthorisation starts the PSU's SCA for a payment of c's service
// with POST /v1/{payment-service}/{product}/{id}/authorisations, sent
// once as [Service.StartAuthorisation] is.
func (c Calls) StartAuthorisation(ctx context.Context, product Product, paymentID string, opts ...client.RequestOption) (*Authorisation, error) {
	return c.s.startAuthorisation(ctx, c.operation("payments.StartAuthorisation", http.MethodPost, product, paymentID, "/"+segAuthorisations), opts)
}

// StartAuthorisationAt starts the PSU's SCA by the href of a
// startAuthorisation link.
func (s *Service) StartAuthorisationAt(ctx context.Context, href string, opts ...client.RequestOption) (*Authorisation, error) {
	return s.startAuthorisation(ctx, linkOperation("payments.StartAuthorisationAt", http.MethodPost, href), opts)
}

func (s *Service) startAuthorisation(ctx context.Context, op client.Operation, opts []client.RequestOption) (*Authorisation, error) {
	var out Authorisation
	op.ResultID = "scaStatus"
	err := s.do(ctx, op, &out, opts)
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
