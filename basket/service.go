package basket

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
)

// Service groups payments in signing baskets so that the PSU approves them
// with one SCA (docs/interface.md section 2.7, 4.1). Every call goes through the
// [client.Client] it was made with; PSU and session headers are per-call
// [client.RequestOption]s. A Service is safe for concurrent use.
type Service struct {
	c       *client.Client
	pay     *payments.Service
	journal *journal.Journal // WithJournal; nil: creates are not journaled
}

// Option configures a [Service] in [New]; an invalid one makes New fail.
type Option func(*Service) error

// WithJournal records every basket creation in j, as payments.WithJournal
// does for payments: the intent before anything is sent, the outcome
// after, so that a basket whose answer was lost is resolved with
// [journal.Journal.Resolve] instead of being created twice.
func WithJournal(j *journal.Journal) Option {
	return func(s *Service) error {
		if j == nil {
			return errors.New("basket: WithJournal(nil)")
		}
		s.journal = j
		return nil
	}
}

// basketCreate describes a basket creation to the journal: the bank names
// the basket "basketId", and refuses an identical basket while the first
// stands with 409 STATUS_INVALID (its payments are already in a basket);
// an answer without basketId names the basket in its links, as
// [Service.Create] takes it (so a resend of journal.Journal.Resolve
// answered so created the basket).
var basketCreate = journal.Create{ResultID: "basketId", DuplicateStatus: http.StatusConflict, DuplicateCode: "STATUS_INVALID",
	IDFromLinks: true}

// New returns a Service that sends its calls through c. It refuses a nil
// client and an invalid option.
func New(c *client.Client, opts ...Option) (*Service, error) {
	pay, err := payments.New(c)
	if err != nil {
		return nil, errNoClient
	}
	s := &Service{c: c, pay: pay}
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

// basketsPath is the signing baskets' collection.
const basketsPath = "/v1/signing-baskets"

// Create puts the payments paymentIDs in a new signing basket (POST
// /v1/signing-baskets, body {"paymentIds":[...]}, docs/interface.md section 4.1) and
// returns the bank's answer: basketId, transactionStatus (RCVD) and links,
// with scaRedirect when the PSU must approve; then send the PSU to
// [Basket.SCARedirect], or start SCA with [Service.StartAuthorisation].
// One SCA approves every payment of the basket.
//
// The payments must have been created first (POST /v1/payments/{product})
// by the same TPP, be single payments (bulk and periodic payments are
// refused with 400 REFERENCE_MIX_INVALID, docs/interface.md section 7) and still await
// authorisation.
//
// Headers: docs/interface.md section 4.1 requires TPP-Session-ID, TPP-Redirect-URI,
// PSU-ID and PSU-IP-Address; give them in opts (or the client's
// defaults) with [client.WithTPPSessionID], [client.WithRedirectURI] and
// [client.WithPSU] (ID and IPAddress; CorporateID for a corporate PSU), or
// with an sca.Session's RequestOptions. A missing one is a
// [*client.ValidationError] naming the option, and nothing is sent. The
// client always sends x-accept-fix: amount-as-string.
//
// Before sending, Create checks the ids with [ValidatePaymentIDs] (1 to
// [MaxPayments], none empty, no duplicates) and the PSU's context (a
// PSU-Context of CORPORATE without PSU-Corporate-ID, or of PRIVATE with
// one, which the bank answers 400; so do the basket's other calls); a
// failure is a [*client.ValidationError] (errors.Is
// [client.ErrValidation]) and nothing is sent. [client.WithoutValidation]
// skips these checks, not the required headers.
//
// The request is never sent twice: when its outcome is unknown the error
// matches [client.ErrOutcomeUnknown]. A payment can be in one basket only:
// if the first request arrived, a second Create with the same ids is
// refused (409 STATUS_INVALID on the emulator) and the payments sit in a
// basket whose id the TPP never learned; cancel them with
// payments.Service.Cancel and create them again.
//
// The basket resource does not require basketId in the create answer
// (docs/interface.md): an answer without it is a success when its links
// name the basket (self or status: /v1/signing-baskets/{basketId}...),
// and BasketID is that id; the scaRedirect is kept as it came. An answer
// with neither is an unknown outcome, as any unusable answer to a create.
//
// The answer's PaymentIDs are the ids the bank lists, or, when the create
// answer lists none (the usual case), a copy of paymentIDs.
func (s *Service) Create(ctx context.Context, paymentIDs []string, opts ...client.RequestOption) (*Basket, error) {
	ids := paymentIDs
	if ids == nil {
		ids = []string{} // {"paymentIds":[]}, never null
	}
	operation := client.Operation{
		Name:   "basket.Create",
		Method: http.MethodPost,
		Path:   basketsPath,
		Body:   createRequest{PaymentIDs: ids},
		// Not repeatable: a second basket must never be created unseen.
		Repeatable: false,
		ResultID:   "basketId",
		// The basket resource does not require basketId in the answer:
		// without it, the links (self, status) name the basket.
		ResultIDFromLinks: true,
		// Any 2xx naming the basket is taken (201 is the one
		// docs/interface.md section 4.1 names), as for a payment's
		// create: the bank created it, and its id is never thrown away.
		Require: createHeaders,
		Validate: func(call *client.Call) error {
			if err := checkCorporateContext(call); err != nil {
				return err
			}
			return ValidatePaymentIDs(paymentIDs)
		},
	}
	c := s.client()
	if c != nil && s.journal != nil {
		operation.Hook = s.journal.Hook(c, basketCreate)
	}
	out, _, err := servicecall.Do[Basket](ctx, c, operation, opts)
	if err != nil {
		return nil, err
	}
	if out.BasketID == "" {
		out.BasketID = out.Links.IDUnder(basketsPath)
	}
	if out.PaymentIDs == nil {
		out.PaymentIDs = slices.Clone(ids)
	}
	return out, nil
}

// Get reads the basket basketID (GET /v1/signing-baskets/{id}): its
// payment ids, its status and its links. The GET answer does not repeat the
// id; the returned BasketID is basketID then.
//
// The answer is 200 with a transactionStatus (docs/interface.md sections
// 2.7 and 10 "Paths"): one without it is a [*payments.IncompleteAnswerError]
// (payments.ErrIncompleteAnswer), another 2xx status (a 204) a
// [*client.UnexpectedStatusError]; neither is a basket whose status is "".
func (s *Service) Get(ctx context.Context, basketID string, opts ...client.RequestOption) (*Basket, error) {
	out, err := readBasket(ctx, s, byID("basket.Get", http.MethodGet, basketID, ""), opts)
	if err != nil {
		return nil, err
	}
	if out.BasketID == "" {
		out.BasketID = basketID
	}
	return out, nil
}

// Status reads the basket's status (GET /v1/signing-baskets/{id}/status):
// the worst case of its payments, RCVD, ACTC, PATC or RJCT (docs/interface.md
// 2.7). Read each payment's status with [Service.PaymentStatuses].
// Its answers are checked as those of [Service.Get]: 200 with a
// transactionStatus.
func (s *Service) Status(ctx context.Context, basketID string, opts ...client.RequestOption) (*StatusResponse, error) {
	return readStatus(ctx, s, byID("basket.Status", http.MethodGet, basketID, "/status"), opts)
}

// Delete deletes the basket (DELETE /v1/signing-baskets/{id}, 204). Its
// payments are not cancelled: they stay in RCVD and may join another
// basket (so the emulator behaves; the spec is silent). The bank allows it only before the basket is
// authorised (the self link lists DELETE); otherwise the answer is an
// error such as 405 CANCELLATION_INVALID. Another 2xx than 204 (a 200,
// a 202) is a [*client.UnexpectedStatusError]: the bank did not say the
// basket is gone; read it ([Service.Get]) to learn whether it is.
//
// The client sends a DELETE again after an attempt that failed on the
// way (a dropped connection, a timeout, 429, 502, 503, 504). The
// basket's state is idempotent, the answer is not: when an earlier
// attempt may have reached the bank, it may have deleted the basket, and
// the bank then refuses the next attempt (404: no such basket). Any error
// answer after such an attempt is an error matching
// [ErrDeleteUnconfirmed] (the bank's [*client.Error] inside), not a
// refusal: read the basket's status.
func (s *Service) Delete(ctx context.Context, basketID string, opts ...client.RequestOption) error {
	return s.delete(ctx, byID("basket.Delete", http.MethodDelete, basketID, ""), opts)
}

// StartAuthorisation starts a new SCA for the basket (POST
// /v1/signing-baskets/{id}/authorisations, 201) and returns the link to send
// the PSU to (Authorisation's SCARedirect). Use it when the create answer
// had no scaRedirect or the PSU left the first SCA. Give the headers of
// [Service.Create] in opts.
//
// Starting an authorisation moves no money, but each one that reaches the
// bank is a new authorisation, so, as payments.Service.StartAuthorisation,
// the request is sent once: after a failure that may have reached the bank
// the call returns client.ErrOutcomeUnknown, and the caller may start it
// again deliberately.
func (s *Service) StartAuthorisation(ctx context.Context, basketID string, opts ...client.RequestOption) (*Authorisation, error) {
	op := byID("basket.StartAuthorisation", http.MethodPost, basketID, "/authorisations")
	op.ResultID = "scaStatus"
	op.Statuses = authorisationStatuses
	op.Require = authorisationHeaders
	out, _, err := servicecall.Do[Authorisation](ctx, s.client(), op, opts)
	return out, err
}

// authorisationHeaders are the headers starting a basket's
// authorisation needs beyond TPP-Redirect-URI: the SCA belongs to the
// PSU's session (see payments' StartAuthorisation), so the bank refuses a
// start without TPP-Session-ID; the client refuses it first, with a
// *client.ValidationError, and sends nothing.
var authorisationHeaders = []string{"TPP-Session-ID"}

// GetAt reads a basket by the href of an earlier answer's self link, with
// the answers of [Service.Get].
func (s *Service) GetAt(ctx context.Context, href string, opts ...client.RequestOption) (*Basket, error) {
	return readBasket(ctx, s, at("basket.GetAt", http.MethodGet, href), opts)
}

// StatusAt reads a basket's status by the href of a status link, with
// the answers of [Service.Status].
func (s *Service) StatusAt(ctx context.Context, href string, opts ...client.RequestOption) (*StatusResponse, error) {
	return readStatus(ctx, s, at("basket.StatusAt", http.MethodGet, href), opts)
}

// readStatuses are the answers docs/interface.md section 10 "Paths" names
// for reading a basket and its status: 200. A 204 (or another 2xx) is a
// *client.UnexpectedStatusError, not a basket without a status.
var readStatuses = []int{http.StatusOK}

// readBasket sends the basket read op (Get, GetAt) and refuses an answer
// without the transactionStatus docs/interface.md section 2.7 requires.
func readBasket(ctx context.Context, s *Service, op client.Operation, opts []client.RequestOption) (*Basket, error) {
	op.Statuses = readStatuses
	out, _, err := servicecall.Do[Basket](ctx, s.client(), op, opts)
	if err != nil {
		return nil, err
	}
	if out.TransactionStatus == "" {
		return nil, incomplete(out.Meta())
	}
	return out, nil
}

// readStatus is readBasket for a basket's status (Status, StatusAt).
func readStatus(ctx context.Context, s *Service, op client.Operation, opts []client.RequestOption) (*StatusResponse, error) {
	op.Statuses = readStatuses
	out, _, err := servicecall.Do[StatusResponse](ctx, s.client(), op, opts)
	if err != nil {
		return nil, err
	}
	if out.TransactionStatus == "" {
		return nil, incomplete(out.Meta())
	}
	return out, nil
}

// incomplete is the error of a basket read answered 200 without a
// transactionStatus: the answer says nothing of the basket's state.
func incomplete(m client.Meta) error {
	return &payments.IncompleteAnswerError{Operation: m.Operation, RequestID: m.RequestID, StatusCode: m.StatusCode, Missing: "transactionStatus"}
}

// authorisationStatuses are the answers docs/interface.md section 10
// "Paths" names for starting a basket's authorisation: 201 (another 2xx
// is a [*client.UnexpectedStatusError] inside a
// [*client.OutcomeUnknownError]).
var authorisationStatuses = []int{http.StatusCreated}

// deleteStatuses are the answers docs/interface.md section 10 "Paths"
// names for a basket's deletion: 204.
var deleteStatuses = []int{http.StatusNoContent}

// DeleteAt deletes a basket by the href of its self link, with the
// answers of [Service.Delete].
func (s *Service) DeleteAt(ctx context.Context, href string, opts ...client.RequestOption) error {
	return s.delete(ctx, at("basket.DeleteAt", http.MethodDelete, href), opts)
}

// delete sends a basket's deletion op (Delete, DeleteAt). The bank's
// error answer to an attempt sent again after one that may have reached
// the bank, and so may have deleted the basket, is an error matching
// ErrDeleteUnconfirmed, not a refusal.
func (s *Service) delete(ctx context.Context, op client.Operation, opts []client.RequestOption) error {
	op.Statuses = deleteStatuses
	// retried: an attempt that may have reached the bank, and so may have
	// deleted the basket, was followed by another.
	retried := servicecall.TrackRetry(&op)
	_, _, err := servicecall.Do[struct{}](ctx, s.client(), op, opts)
	var ce *client.Error
	if err != nil && retried() && errors.As(err, &ce) {
		return &deleteUnconfirmedError{ce: ce, err: err}
	}
	return err
}

// StartAuthorisationAt starts a new SCA for a basket by the href of a
// startAuthorisation link, sent once as [Service.StartAuthorisation] is.
func (s *Service) StartAuthorisationAt(ctx context.Context, href string, opts ...client.RequestOption) (*Authorisation, error) {
	op := at("basket.StartAuthorisationAt", http.MethodPost, href)
	op.ResultID = "scaStatus"
	op.Statuses = authorisationStatuses
	op.Require = authorisationHeaders
	out, _, err := servicecall.Do[Authorisation](ctx, s.client(), op, opts)
	return out, err
}

// client is the Service's client, nil for a nil Service: the call helper
// (servicecall.Do) refuses both alike, before sending.
func (s *Service) client() *client.Client {
	if s == nil {
		return nil
	}
	return s.c
}

// at declares the call op on href, an earlier answer's link; the client
// resolves it against the base URL and never sends it to another host.
func at(op, method, href string) client.Operation {
	var refuse error
	if href == "" {
		refuse = &client.ValidationError{Field: "href", Reason: "empty link"}
	}
	return client.Operation{Name: op, Method: method, Path: href, Refuse: refuse, Validate: checkCorporateContext}
}

// checkCorporateContext refuses a call whose PSU-Context and
// PSU-Corporate-ID disagree: CORPORATE without PSU-Corporate-ID (a
// corporate user's request without it gets 400, docs/interface.md
// sections 5.10 and 7), or PRIVATE with one.
func checkCorporateContext(call *client.Call) error {
	return servicecall.CheckCorporateContext(call.Header)
}

// byID declares the call op on the basket basketID plus suffix
// ("/status"). The client checks and escapes the basket id (basketId: not
// empty, not "." or "..") even with client.WithoutValidation; an id
// longer than client.MaxIDLength bytes, which no basket's answer may
// carry, is refused too.
func byID(op, method, basketID, suffix string) client.Operation {
	var refuse error
	if len(basketID) > client.MaxIDLength {
		refuse = &client.ValidationError{Field: "basketId", Reason: "longer than " + strconv.Itoa(client.MaxIDLength) + " bytes"}
	}
	return client.Operation{Name: op, Method: method, Path: "/v1/signing-baskets/{basketId}" + suffix,
		Params: map[string]string{"basketId": basketID}, Refuse: refuse, Validate: checkCorporateContext}
}
