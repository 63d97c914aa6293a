package payments

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
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
// it was created under; [Initiation.Service] records it, and the
// payment's [Ref] carries it.
type PaymentService string

// The payment services of the platform (docs/interface.md section 10
// "Paths").
const (
	// ServiceSingle is /v1/payments: single payments, made with
	// [Service.CreateNorwegianDomestic], [Service.CreateSEPA] and
	// [Service.Create].
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
// options or the client's defaults: PSU-ID and PSU-IP-Address
// (client.WithPSU; an sca.Session's RequestOptions carries them),
// TPP-Session-ID and TPP-Redirect-URI. PSU-Context (client.WithPSUContext)
// is optional and sent when given. Without one, the call fails with a
// *client.ValidationError naming the option and nothing is sent; so does
// a PSU-Context of CORPORATE without PSU-Corporate-ID, or of PRIVATE with
// one (docs/interface.md sections 5.10 and 7: the bank answers 400). A call
// that may have reached the bank without a clear answer returns
// [client.ErrOutcomeUnknown] and is never sent again: see the package
// documentation on reconciliation.
func (s *Service) CreateNorwegianDomestic(ctx context.Context, p *NorwegianDomestic, opts ...client.RequestOption) (*Initiation, error) {
	if p == nil { // a nil *NorwegianDomestic is no payment: the create's Refuse
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
// time.Time) error method (as [*NorwegianDomestic] and [*SEPA] have), or
// is given by value and a pointer to it has one (a type embedding
// [NorwegianDomestic] by value), it is validated first. A
// [*NorwegianDomestic] or [*SEPA] is also held to the account forms of
// product (docs/interface.md sections 2.3a to 2.5): a SEPA payment sent
// as a domestic one needs the bban of both accounts and a
// creditorAddress, a domestic payment sent as a SEPA one the iban of
// both accounts.
func (s *Service) Create(ctx context.Context, product Product, body any, opts ...client.RequestOption) (*Initiation, error) {
	return s.create(ctx, "payments.Create", ServiceSingle, product, body, opts)
}

// CreatePeriodic creates a periodic (standing order) payment with POST
// /v1/periodic-payments/{product} (the platform's paths). body holds the
// payment fields plus the Berlin Group periodic fields (startDate,
// frequency, ...); it is validated when it has a Validate method, and
// its schedule is checked on the encoded body with [ValidateSchedule]
// whatever its type (a type embedding [*NorwegianDomestic] included),
// startDate and frequency required (absent or null is refused). A
// bare [*NorwegianDomestic] or [*SEPA] is refused: it has no schedule.
// Periodic payments cannot go into a signing basket (docs/interface.md section 2.7).
func (s *Service) CreatePeriodic(ctx context.Context, product Product, body any, opts ...client.RequestOption) (*Initiation, error) {
	return s.create(ctx, "payments.CreatePeriodic", ServicePeriodic, product, body, opts)
}

// CreateBulk creates a bulk payment with POST
// /v1/bulk-payments/{product} (the platform's paths). body holds the
// debtorAccount and the list of payments; it is validated when it has a
// Validate method. A bare [*NorwegianDomestic] or [*SEPA] is refused:
// it has no list of payments. Bulk payments cannot go into a signing
// basket.
func (s *Service) CreateBulk(ctx context.Context, product Product, body any, opts ...client.RequestOption) (*Initiation, error) {
	return s.create(ctx, "payments.CreateBulk", ServiceBulk, product, body, opts)
}

// createHeaders are the headers docs/interface.md sections 4.1 to 4.3
// require on a payment's creation, besides TPP-Redirect-URI (required on
// every call) and the x-accept-fix and Digest the client always sends.
// PSU-Context is not among them: the interface lists it as optional
// (section 4.2), and the platform was recorded creating a payment with a
// bank-issued PSU-ID and no PSU-Context. An sca.Session's RequestOptions
// send it whenever the session knows the PSU's context.
var createHeaders = []string{"PSU-ID", "PSU-IP-Address", "TPP-Session-ID"}

// createChecks are the checks of a create's body (its encoded form and
// the client's clock): the body's own Validate; under the periodic
// service the schedule, read from the encoded body whatever its type, so
// that a type embedding *NorwegianDomestic, whose promoted Validate
// checks only the payment, is checked in full, startDate and frequency
// required ([requiredSchedule]); a single payment's own
// type refused under the periodic and bulk services, which it has no
// members for; and the product's rules ([productRules]).
func createChecks(ps PaymentService, product Product, body any) []func([]byte, time.Time) error {
	var checks []func([]byte, time.Time) error
	if p, ok := body.(*NorwegianDomestic); ok && p != nil && product == ProductCrossBorder {
		// A cross-border creditor's account is foreign (validate).
		checks = append(checks, func(_ []byte, now time.Time) error { return p.validate(now, true) })
	} else if v, ok := validatorOf(body); ok {
		checks = append(checks, func(_ []byte, now time.Time) error { return v.Validate(now) })
	}
	switch bare := bareSingle(ps, body); {
	case bare != nil:
		checks = append(checks, func([]byte, time.Time) error { return bare })
	case ps == ServicePeriodic:
		checks = append(checks, requiredSchedule, ValidateSchedule)
	}
	if err := productRules(product, body); err != nil {
		checks = append(checks, func([]byte, time.Time) error { return err })
	}
	return checks
}

// validatorOf returns the Validate method of body: its own, or, for a
// body given by value (not a pointer) whose pointer has one, that of a
// pointer to a copy of it. A type embedding [NorwegianDomestic] or
// [SEPA] by value (a standing order of the caller's, handed to
// [Service.CreatePeriodic] as it is) has the payment's Validate in its
// pointer's method set only, as has any type whose Validate has a
// pointer receiver: the body is validated as the same body given by
// pointer would be, not sent unchecked.
func validatorOf(body any) (validator, bool) {
	if v, ok := body.(validator); ok {
		return v, true
	}
	rv := reflect.ValueOf(body)
	if !rv.IsValid() || rv.Kind() == reflect.Pointer {
		return nil, false
	}
	ptr := reflect.New(rv.Type())
	ptr.Elem().Set(rv)
	v, ok := ptr.Interface().(validator)
	return v, ok
}

// nokOnlyProducts are the products paid in NOK only (assumption: the
// instant domestic transfer, straks, runs on the Norwegian real-time
// clearing, which settles NOK, and the bank emulator refuses another
// currency; docs/interface.md gives no rule).
var nokOnlyProducts = []Product{ProductInstantNorwegianDomestic}

// domesticProducts are the products whose accounts are written as a
// Norwegian domestic credit transfer's (docs/interface.md sections 2.3a
// and 2.4): creditorAccount with a bban, a required creditorAddress, and
// debtorAccount with a bban or a card reference. Assumption for the
// instant domestic transfer (straks), which docs/interface.md does not
// describe: its body is an NDCT's, as the bank emulator takes it.
var domesticProducts = []Product{ProductNorwegianDomestic, ProductInstantNorwegianDomestic}

// productRules refuses a typed payment the product cannot carry, naming
// each field: a [*NorwegianDomestic] or [*SEPA] in another currency than
// NOK for a product of [nokOnlyProducts]; a [*SEPA] under a product of
// [domesticProducts] without the bban of either account or without the
// creditorAddress that product requires (its own Validate requires
// neither); a [*NorwegianDomestic] under [ProductSEPA] without the iban
// of either account (docs/interface.md section 2.3a: the accounts of a
// SEPA credit transfer are written with an iban); a [*SEPA] under
// [ProductCrossBorder] without a creditorAddress (a [*NorwegianDomestic]
// there is held to the cross-border forms by its validate). It returns nil for any
// other body, and for a typed payment that carries what the product
// needs besides what its type needs.
func productRules(product Product, body any) error {
	var (
		amount             string
		creditor, debtor   AccountReference
		address            bool
		isNDCT, isSEPA, ok bool
	)
	switch p := body.(type) {
	case *NorwegianDomestic:
		if ok = p != nil; ok {
			isNDCT, amount, creditor, debtor, address = true, p.InstructedAmount.Currency, p.CreditorAccount, p.DebtorAccount, p.CreditorAddress != nil
		}
	case *SEPA:
		if ok = p != nil; ok {
			isSEPA, amount, creditor, debtor, address = true, p.InstructedAmount.Currency, p.CreditorAccount, p.DebtorAccount, p.CreditorAddress != nil
		}
	}
	if !ok {
		return nil
	}
	var v problems
	if slices.Contains(nokOnlyProducts, product) && amount != "" && amount != norwegianCurrency {
		v.add("instructedAmount.currency", "must be NOK for "+string(product))
	}
	const reason = "required for "
	switch {
	case isSEPA && slices.Contains(domesticProducts, product):
		if creditor.BBAN == "" {
			v.add("creditorAccount.bban", reason+string(product)+" (docs/interface.md section 2.3a)")
		}
		if !address {
			v.add("creditorAddress", reason+string(product)+" (docs/interface.md section 2.4)")
		}
		if debtor.BBAN == "" {
			v.add("debtorAccount.bban", reason+string(product)+" (docs/interface.md section 2.3a)")
		}
	case isSEPA && product == ProductCrossBorder && !address:
		// Only a SEPA credit transfer goes without one (docs/interface.md
		// section 2.5); the bank emulator requires it of every other product.
		v.add("creditorAddress", reason+string(product))
	case isNDCT && product == ProductSEPA:
		if creditor.IBAN == "" {
			v.add("creditorAccount.iban", reason+string(product)+" (docs/interface.md section 2.3a)")
		}
		if debtor.IBAN == "" {
			v.add("debtorAccount.iban", reason+string(product)+" (docs/interface.md section 2.3a)")
		}
	}
	return v.err()
}

// bareSingle refuses a single payment of this package's types, sent
// as it is under the periodic or bulk service ps: it has no startDate
// and frequency, or no list of payments, which the bank requires there.
// It returns nil for any other body.
func bareSingle(ps PaymentService, body any) error {
	switch body.(type) {
	case *NorwegianDomestic, *SEPA:
	default:
		return nil
	}
	switch ps {
	case ServicePeriodic:
	case ServiceBulk:
		return &client.ValidationError{Field: "payments", Reason: "required: a bulk payment lists its payments; a single payment's type cannot be sent as one"}
	default:
		return nil
	}
	const reason = "required: a periodic payment carries startDate and frequency beside the payment (embed the payment in a type of your own with them)"
	return errors.Join(&client.ValidationError{Field: "startDate", Reason: reason},
		&client.ValidationError{Field: "frequency", Reason: reason})
}

// joinFlat joins the errors that are not nil: nil for none, the error
// itself for one, else one errors.Join with the errors of each joined
// one in its place, so that every *client.ValidationError is one level
// down.
func joinFlat(errs ...error) error {
	var set []error
	for _, err := range errs {
		if err != nil {
			set = append(set, err)
		}
	}
	if len(set) < 2 {
		if len(set) == 0 {
			return nil
		}
		return set[0]
	}
	var all []error
	for _, err := range set {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			all = append(all, j.Unwrap()...)
		} else {
			all = append(all, err)
		}
	}
	return errors.Join(all...)
}

// create validates body and sends the create as an operation that is not
// repeatable: the client never sends it twice.
func (s *Service) create(ctx context.Context, op string, ps PaymentService, product Product, body any, opts []client.RequestOption) (*Initiation, error) {
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
	c := s.client()
	if c != nil {
		checks := createChecks(ps, product, body)
		operation.Validate = func(call *client.Call) error {
			errs := make([]error, 0, len(checks)+1)
			for _, check := range checks {
				errs = append(errs, check(call.Body, c.Now()))
			}
			errs = append(errs, servicecall.CheckCorporateContext(call.Header))
			if err := joinFlat(errs...); err != nil {
				return err
			}
			// Last, so that a field the body's own Validate refused
			// is not named twice.
			return refusedCharacters(call.Body, c.Now())
		}
	}
	if c != nil && s.journal != nil {
		operation.Hook = s.journal.Hook(c, createOf(ps, product))
	}
	out, _, err := servicecall.Do[Initiation](ctx, c, operation, opts)
	if err != nil {
		return nil, logicalDuplicate(err)
	}
	out.Product, out.Service = product, ps
	return out, nil
}

// Ref names one payment for the calls on it: the payment service it was
// created under, its product and its id, which make its path
// /v1/{payment-service}/{payment-product}/{paymentId} (docs/interface.md
// section 10 "Paths"). [Initiation.Ref] hands it out; keep it (it is JSON)
// to read, cancel or authorise the payment later. The calls on a Ref
// refuse a Service other than [ServiceSingle], [ServicePeriodic] and
// [ServiceBulk] ("" included), an empty Product or ID and a dot segment
// with a [*client.NotSentError] (matching [client.ErrNotSent] and
// [client.ErrValidation]), and send nothing.
type Ref struct {
	Service PaymentService `json:"service"`
	Product Product        `json:"product"`
	ID      string         `json:"paymentId"`
}

// Ref returns the reference of the payment i created: its service,
// product and id. A nil i gives the zero Ref, which every call refuses.
func (i *Initiation) Ref() Ref {
	if i == nil {
		return Ref{}
	}
	return Ref{Service: i.Service, Product: i.Product, ID: i.PaymentID}
}

// operation declares the call op on ref's path plus suffix ("/status"):
// the client checks and escapes the path's parameters (an empty product
// or id, a dot segment) and refuses a service other than the platform's
// three, and PSU headers the bank refuses together
// (checkCorporateContext).
func (ref Ref) operation(op, method, suffix string) client.Operation {
	return client.Operation{Name: op, Method: method,
		Path:     pathVersion + "/{payment-service}/{payment-product}/{paymentId}" + suffix,
		Params:   map[string]string{"payment-service": string(ref.Service), "payment-product": string(ref.Product), "paymentId": ref.ID},
		Refuse:   ref.Service.check(),
		Validate: checkCorporateContext}
}

// linkOperation declares the call op on the href of a link, checked as
// [Ref]'s operations are (checkCorporateContext).
func linkOperation(op, method, href string) client.Operation {
	return client.Operation{Name: op, Method: method, Path: href, Refuse: checkHref(href), Validate: checkCorporateContext}
}

// checkCorporateContext refuses a call on a payment whose PSU-Context and
// PSU-Corporate-ID disagree: a corporate user's request without
// PSU-Corporate-ID gets 400 (docs/interface.md sections 5.10 and 7).
func checkCorporateContext(call *client.Call) error {
	return servicecall.CheckCorporateContext(call.Header)
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

// client is the Service's client, nil for a nil Service: the call helper
// refuses both alike.
func (s *Service) client() *client.Client {
	if s == nil {
		return nil
	}
	return s.c
}

// Status reads a payment's status with GET
// /v1/{payment-service}/{product}/{id}/status. It is a GET, retried by the
// client on transport errors and 429/502/503/504. Known issue
// (docs/interface.md section 4.2): the bank cannot show an NDCT before the
// PSU has approved it; its 404 is returned as an error matching
// [ErrNotYetReadable], under every service.
func (s *Service) Status(ctx context.Context, ref Ref, opts ...client.RequestOption) (*StatusResponse, error) {
	op := ref.statusOperation()
	out, _, err := servicecall.Do[StatusResponse](ctx, s.client(), op, opts)
	return complete(readStatus(op, out, err))
}

// readStatuses are the answers docs/interface.md section 10 "Paths" names
// for a payment's status and details reads: 200. A 204 (or another 2xx)
// is a *client.UnexpectedStatusError, not an empty status.
var readStatuses = []int{http.StatusOK}

// status reads a payment's status; an answer without transactionStatus
// is returned as it came (Wait reports it as an unknown status).
// (Status calls servicecall.Do itself, so that its reads stay as few
// frames deep as every other service call.)
func (s *Service) status(ctx context.Context, ref Ref, opts []client.RequestOption) (*StatusResponse, error) {
	op := ref.statusOperation()
	out, _, err := servicecall.Do[StatusResponse](ctx, s.client(), op, opts)
	return readStatus(op, out, err)
}

// statusOperation is the operation of a payment's status read.
func (ref Ref) statusOperation() client.Operation {
	op := ref.operation("payments.Status", http.MethodGet, "/"+segStatus)
	op.Statuses = readStatuses
	return op
}

// readStatus checks what a status read returned: an error becomes the
// read's error (notYetReadable), a paymentId no path could carry an
// error (answeredID).
func readStatus(op client.Operation, out *StatusResponse, err error) (*StatusResponse, error) {
	if err != nil {
		return nil, notYetReadable(readPath(op), err)
	}
	if err := answeredID(op, out.PaymentID); err != nil {
		return nil, err
	}
	return out, nil
}

// answeredID checks the paymentId a read's answer names, when it names
// one, with client.CheckID: an over-long one is a
// *client.ValueTooLongError, one that no path could carry (a control
// character, a terminal escape, bytes that are not UTF-8, spaces around
// it, a dot segment) a *client.MalformedValueError quoting nothing of it.
// Kept, it would be handed to the caller as the bank's id, printed and
// stored.
func answeredID(op client.Operation, id string) error {
	if id == "" {
		return nil
	}
	if err := client.CheckID("paymentId", id); err != nil {
		return fmt.Errorf("%s: %w", op.Name, err)
	}
	return nil
}

// complete refuses a status answer without a transactionStatus with an
// *IncompleteAnswerError.
func complete(st *StatusResponse, err error) (*StatusResponse, error) {
	if err != nil {
		return nil, err
	}
	if st.TransactionStatus == "" {
		m := st.Meta()
		return nil, &IncompleteAnswerError{Operation: m.Operation, RequestID: m.RequestID, StatusCode: m.StatusCode, Missing: "transactionStatus"}
	}
	return st, nil
}

// StatusAt reads a payment's status by the href of an earlier answer's
// status link (Initiation.Links.Href("status")), of a single, periodic or
// bulk payment. The href is resolved against the base URL; it is never
// sent to another host. Its answers are those of [Service.Status].
func (s *Service) StatusAt(ctx context.Context, href string, opts ...client.RequestOption) (*StatusResponse, error) {
	op := linkOperation("payments.StatusAt", http.MethodGet, href)
	op.Statuses = readStatuses
	out, _, err := servicecall.Do[StatusResponse](ctx, s.client(), op, opts)
	if err != nil {
		return nil, notYetReadable(href, err)
	}
	if err := answeredID(op, out.PaymentID); err != nil {
		return nil, err
	}
	return complete(out, nil)
}

// Get reads a payment's details with GET
// /v1/{payment-service}/{product}/{id}: the request as the bank holds it,
// with the periodic fields of a periodic payment and the payments of a
// bulk payment. The platform sends no transactionStatus here; use
// [Service.Status]. An NDCT not yet approved by the PSU answers 404,
// returned as an error matching [ErrNotYetReadable]. A 200 answer
// without a paymentId (`{}`) is an error matching [ErrIncompleteAnswer];
// another 2xx status is a [*client.UnexpectedStatusError].
func (s *Service) Get(ctx context.Context, ref Ref, opts ...client.RequestOption) (*Details, error) {
	op := ref.operation("payments.Get", http.MethodGet, "")
	return s.details(ctx, op, readPath(op), opts)
}

// GetAt reads a payment's details by the href of a self link, with the
// answers of [Service.Get].
func (s *Service) GetAt(ctx context.Context, href string, opts ...client.RequestOption) (*Details, error) {
	return s.details(ctx, linkOperation("payments.GetAt", http.MethodGet, href), href, opts)
}

// details reads a payment's details and checks the answer names the
// payment.
func (s *Service) details(ctx context.Context, op client.Operation, path string, opts []client.RequestOption) (*Details, error) {
	op.Statuses = readStatuses
	out, _, err := servicecall.Do[Details](ctx, s.client(), op, opts)
	if err != nil {
		return nil, notYetReadable(path, err)
	}
	if out.PaymentID == "" {
		m := out.Meta()
		return nil, &IncompleteAnswerError{Operation: m.Operation, RequestID: m.RequestID, StatusCode: m.StatusCode, Missing: "paymentId"}
	}
	if err := answeredID(op, out.PaymentID); err != nil {
		return nil, err
	}
	return out, nil
}

// Cancel deletes a payment with DELETE /v1/{payment-service}/{product}/{id}
// (a standing order made with [Service.CreatePeriodic] too). The bank
// allows it only while the self link lists DELETE (before the PSU signed,
// RCVD); otherwise it answers an error (*client.Error, 405
// CANCELLATION_INVALID on this platform; docs/interface.md section 7:
// "deleting a payment in status PDNG"). Any error, a 404 included
// (matching [client.ErrNotFound]), means that the bank did not confirm a
// cancellation.
//
// The interface names two answers (docs/interface.md section 10
// "Paths"): 204, the payment is cancelled (the Cancellation then has
// StatusCode 204 and nothing else, whatever body came with it), and 202
// with a body whose transactionStatus and links say what happens next.
// Any other 2xx status, and a 202 without a body, with one that is not a
// JSON object or naming neither a transactionStatus nor a link, is an
// error matching [ErrCancellationUnconfirmed]: the bank answered, but
// whether the payment was cancelled is unknown until its status is read
// ([Service.Status]).
//
// The client sends a DELETE again after an attempt that failed on the way
// (a dropped connection, a timeout, 429, 502, 503, 504). The payment's
// state is idempotent, the answer is not: when an earlier attempt may
// have reached the bank, it may have cancelled the payment, and the
// bank then refuses the next attempt (405 CANCELLATION_INVALID: the
// payment is CANC). Any error answer after such an attempt is an error
// matching [ErrCancellationUnconfirmed] (the bank's [*client.Error]
// inside), not a refusal: read the payment's status.
func (s *Service) Cancel(ctx context.Context, ref Ref, opts ...client.RequestOption) (*Cancellation, error) {
	return s.cancel(ctx, ref.operation("payments.Cancel", http.MethodDelete, ""), opts)
}

// CancelAt deletes a payment by the href of its self link, with the
// answers of [Service.Cancel].
func (s *Service) CancelAt(ctx context.Context, href string, opts ...client.RequestOption) (*Cancellation, error) {
	return s.cancel(ctx, linkOperation("payments.CancelAt", http.MethodDelete, href), opts)
}

// cancelStatuses are the answers docs/interface.md section 10 "Paths"
// names for a cancellation: 204, or 202 with a body.
var cancelStatuses = []int{http.StatusNoContent, http.StatusAccepted}

// cancel sends a cancellation and checks its answer: the client refuses a
// 2xx status other than cancelStatuses and reads no body of a 204; a
// 202's body must say what happens next.
func (s *Service) cancel(ctx context.Context, op client.Operation, opts []client.RequestOption) (*Cancellation, error) {
	op.Statuses = cancelStatuses
	// retried: an attempt that may have reached the bank, and so may
	// have cancelled the payment, was followed by another.
	retried := servicecall.TrackRetry(&op)
	out, resp, err := servicecall.Do[cancelAnswer](ctx, s.client(), op, opts)
	if err != nil {
		var us *client.UnexpectedStatusError
		if errors.As(err, &us) {
			return nil, &CancellationUnconfirmedError{Operation: us.Operation, RequestID: us.RequestID, StatusCode: us.StatusCode, Err: us}
		}
		var ce *client.Error
		if retried() && errors.As(err, &ce) {
			return nil, &CancellationUnconfirmedError{Operation: ce.Operation, RequestID: ce.RequestID, StatusCode: ce.StatusCode, Err: err, retried: true}
		}
		if resp != nil && resp.StatusCode == http.StatusAccepted {
			// The client's decoding refused the body: it is not JSON.
			return nil, &CancellationUnconfirmedError{Operation: op.Name, RequestID: resp.RequestID, StatusCode: resp.StatusCode, Reason: "whose body is not JSON"}
		}
		return nil, err
	}
	c := &out.Cancellation
	c.StatusCode = resp.StatusCode
	if resp.StatusCode == http.StatusAccepted {
		if why := out.unusable(); why != "" {
			return nil, &CancellationUnconfirmedError{Operation: op.Name, RequestID: resp.RequestID, StatusCode: resp.StatusCode, Reason: why}
		}
	}
	return c, nil
}

// authorisationStatuses are the answers docs/interface.md section 10
// "Paths" names for starting a payment's authorisation: 201. Another 2xx
// status is a [*client.UnexpectedStatusError] inside a
// [*client.OutcomeUnknownError]: an authorisation may have been started,
// the answer is not read.
var authorisationStatuses = []int{http.StatusCreated}

// StartAuthorisation starts the PSU's SCA for a payment with POST
// /v1/{payment-service}/{product}/{id}/authorisations, for a create answer
// without a scaRedirect or after the PSU cancelled. The answer's
// SCARedirect is where to send the PSU.
//
// Starting an authorisation moves no money, but each one that reaches the
// bank is a new authorisation, so the request is sent once: after a
// failure that may have reached the bank (a dropped connection, a timeout,
// a 5xx, a 201 without scaStatus, a 2xx other than 201) the call returns
// client.ErrOutcomeUnknown, and the caller may start it again
// deliberately. A scaStatus the interface does not list is kept as it
// came (see [Authorisation.ScaStatusKnown]); an over-long one
// ([client.MaxIDLength]) is refused.
func (s *Service) StartAuthorisation(ctx context.Context, ref Ref, opts ...client.RequestOption) (*Authorisation, error) {
	op := ref.operation("payments.StartAuthorisation", http.MethodPost, "/"+segAuthorisations)
	op.ResultID = "scaStatus"
	op.Statuses = authorisationStatuses
	op.Require = authorisationHeaders
	out, _, err := servicecall.Do[Authorisation](ctx, s.client(), op, opts)
	return out, err
}

// StartAuthorisationAt starts the PSU's SCA by the href of a
// startAuthorisation link.
func (s *Service) StartAuthorisationAt(ctx context.Context, href string, opts ...client.RequestOption) (*Authorisation, error) {
	op := linkOperation("payments.StartAuthorisationAt", http.MethodPost, href)
	op.ResultID = "scaStatus"
	op.Statuses = authorisationStatuses
	op.Require = authorisationHeaders
	out, _, err := servicecall.Do[Authorisation](ctx, s.client(), op, opts)
	return out, err
}

// authorisationHeaders are the headers starting a payment's
// authorisation needs beyond TPP-Redirect-URI: the SCA it starts belongs
// to the PSU's session, and the bank's redirect after it brings the
// session id back as tpp-session-id, so the bank refuses a start without
// TPP-Session-ID (400 HTTP_HEADER_REQUIRED); the client refuses it first,
// with a *client.ValidationError, and sends nothing.
var authorisationHeaders = []string{"TPP-Session-ID"}

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
