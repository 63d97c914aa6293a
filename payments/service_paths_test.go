package payments_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// sent is one payment request the emulator answered: "GET
// /v1/periodic-payments/.../status 200".
type sent struct {
	method, path string
	code         int
}

// pathLog is a transport that records every request to a payment
// resource (/v1/payments, /v1/periodic-payments, /v1/bulk-payments) with
// the emulator's answer, and runs after (when set) once a status read's
// answer is in, with the number of status reads so far.
type pathLog struct {
	base  http.RoundTripper
	mu    sync.Mutex
	log   []sent
	reads int
	after func(n int)
}

func (l *pathLog) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	p := req.URL.EscapedPath()
	i := strings.Index(p, "/v1/")
	if i < 0 || !strings.Contains(p, "payments/") {
		return resp, err
	}
	p = p[i:] // the path under the base URL's /api
	code := 0
	if err == nil {
		code = resp.StatusCode
	}
	l.mu.Lock()
	l.log = append(l.log, sent{req.Method, p, code})
	var after func(int)
	if req.Method == http.MethodGet && strings.HasSuffix(p, "/status") {
		l.reads++
		after = l.after
	}
	n := l.reads
	l.mu.Unlock()
	if after != nil {
		after(n)
	}
	return resp, err
}

// take returns the requests recorded since the last take, and counts the
// status reads from 0 again.
func (l *pathLog) take() []sent {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.log
	l.log, l.reads = nil, 0
	return out
}

// newPathBank is an emulator bank whose requests are recorded, whose
// client does not retry (every call is one request) and whose Service
// polls within milliseconds.
func newPathBank(t *testing.T) (*bank, *pathLog) {
	t.Helper()
	s := testtpp.Server(t)
	l := &pathLog{base: s.Client().Transport}
	c := testtpp.NewClient(t, s, "Paths PISP", client.WithHTTPClient(&http.Client{Transport: l}),
		client.WithRetryPolicy(client.RetryPolicy{}))
	b := bankOn(t, s, c)
	var err error
	b.svc, err = payments.New(c, payments.WithPolling(time.Millisecond, 4*time.Millisecond))
	require.NoError(t, err)
	l.take() // the login
	return b, l
}

// periodicNDCT is a standing order: ndct(debtor, amount) monthly from a
// week ahead. The embedded payment's Validate checks it before sending.
type periodicNDCT struct {
	*payments.NorwegianDomestic
	StartDate date.Date `json:"startDate"`
	Frequency string    `json:"frequency"`
}

func standingOrder(debtor, amount string) periodicNDCT {
	return periodicNDCT{NorwegianDomestic: ndct(debtor, amount),
		StartDate: date.Of(time.Now().AddDate(0, 0, 7)), Frequency: "Monthly"}
}

// bulkNDCT is a bulk payment from debtor of one NDCT per amount.
func bulkNDCT(t *testing.T, debtor string, amounts ...string) map[string]any {
	t.Helper()
	var entries []map[string]any
	for _, a := range amounts {
		raw, err := json.Marshal(ndct(debtor, a))
		require.NoError(t, err)
		var e map[string]any
		require.NoError(t, json.Unmarshal(raw, &e))
		delete(e, "debtorAccount") // the bulk's debtorAccount pays them all
		entries = append(entries, e)
	}
	return map[string]any{
		"batchBookingPreferred": true,
		"debtorAccount":         payments.AccountReference{BBAN: debtor, Currency: "NOK"},
		"payments":              entries,
	}
}

// under returns the path of the payment under service, plus rest.
func under(service payments.PaymentService, init *payments.Initiation, rest string) string {
	return "/v1/" + string(service) + "/" + string(init.Product) + "/" + init.PaymentID + rest
}

// A periodic NDCT is read, authorised, waited for and cancelled by its id
// under /v1/periodic-payments, the service it was created under; before
// the fix every one of these calls went to /v1/payments and got 404.
func TestPeriodicPaymentByID(t *testing.T) {
	t.Parallel()
	b, l := newPathBank(t)
	ctx := t.Context()
	order := standingOrder(kariBruk, "300.00")
	init, err := b.svc.CreatePeriodic(ctx, payments.ProductNorwegianDomestic, order, b.pisp()...)
	require.NoError(t, err)
	require.Equal(t, payments.ServicePeriodic, init.Service)
	require.Equal(t, payments.ProductNorwegianDomestic, init.Product)
	l.take()

	st, err := b.svc.Status(ctx, init.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusRCVD, st.TransactionStatus)
	assert.Equal(t, init.PaymentID, st.PaymentID)

	d, err := b.svc.Get(ctx, init.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, init.PaymentID, d.PaymentID)
	assert.Equal(t, "Monthly", d.Frequency)
	assert.Equal(t, order.StartDate, d.StartDate)
	assert.True(t, money.MustParse("300.00", "NOK").Equal(d.InstructedAmount))

	a, err := b.svc.StartAuthorisation(ctx, init.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, "started", a.ScaStatus)
	b.authorize(t, a.SCARedirect())

	st, err = b.svc.Status(ctx, init.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACTC, st.TransactionStatus)

	// Signed: the bank refuses the cancellation (405, not 404: the path
	// names the payment), and the standing order stays.
	_, err = b.svc.Cancel(ctx, init.Ref(), b.pisp()...)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusMethodNotAllowed, e.StatusCode)
	assert.True(t, e.HasCode(client.CodeCancellationInvalid))

	assert.Equal(t, []sent{
		{http.MethodGet, under(payments.ServicePeriodic, init, "/status"), http.StatusOK},
		{http.MethodGet, under(payments.ServicePeriodic, init, ""), http.StatusOK},
		{http.MethodPost, under(payments.ServicePeriodic, init, "/authorisations"), http.StatusCreated},
		{http.MethodGet, under(payments.ServicePeriodic, init, "/status"), http.StatusOK},
		{http.MethodDelete, under(payments.ServicePeriodic, init, ""), http.StatusMethodNotAllowed},
	}, l.take())

	// A second standing order is cancelled by id while RCVD; Wait, which
	// is reading it meanwhile, ends with CANC.
	init2, err := b.svc.CreatePeriodic(ctx, payments.ProductNorwegianDomestic, standingOrder(kariBruk, "301.00"), b.pisp()...)
	require.NoError(t, err)
	l.take()
	var cancelled *payments.Cancellation
	l.after = func(n int) {
		if n == 1 { // the wait read RCVD: cancel
			cancelled, err = b.svc.Cancel(context.Background(), payments.Ref{Service: payments.ServicePeriodic, Product: init2.Product, ID: init2.PaymentID}, b.pisp()...)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, werr := b.svc.Wait(wctx, init2.Ref(), b.pisp()...)
	require.NoError(t, werr)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, cancelled.StatusCode)
	assert.Equal(t, payments.StatusCANC, st.TransactionStatus)
	assert.Equal(t, []sent{
		{http.MethodGet, under(payments.ServicePeriodic, init2, "/status"), http.StatusOK},
		{http.MethodDelete, under(payments.ServicePeriodic, init2, ""), http.StatusNoContent},
		{http.MethodGet, under(payments.ServicePeriodic, init2, "/status"), http.StatusOK},
	}, l.take())

	held := map[string]string{}
	for _, h := range b.paymentsHeld() {
		assert.Equal(t, "periodic-payments", h.Service)
		held[h.ID] = h.Status
	}
	assert.Equal(t, map[string]string{init.PaymentID: "ACTC", init2.PaymentID: "CANC"}, held)
}

// A bulk payment is read, waited for until the batch executes it, and
// cancelled by its id under /v1/bulk-payments.
func TestBulkPaymentByID(t *testing.T) {
	t.Parallel()
	b, l := newPathBank(t)
	ctx := t.Context()
	init, err := b.svc.CreateBulk(ctx, payments.ProductNorwegianDomestic, bulkNDCT(t, kariBruk, "20.00", "30.00"), b.pisp()...)
	require.NoError(t, err)
	require.Equal(t, payments.ServiceBulk, init.Service)
	l.take()

	st, err := b.svc.Status(ctx, init.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusRCVD, st.TransactionStatus)
	d, err := b.svc.Get(ctx, init.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, kariBruk, d.DebtorAccount.BBAN)
	require.Len(t, d.Payments, 2)
	assert.True(t, money.MustParse("30.00", "NOK").Equal(d.Payments[1].InstructedAmount))
	require.NotNil(t, d.BatchBookingPreferred)
	assert.True(t, *d.BatchBookingPreferred)

	b.authorize(t, init.SCARedirect())
	l.after = func(n int) {
		if n == 2 { // the wait read ACTC: the bank's batch runs
			b.s.Control().RunBatch()
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err = b.svc.Wait(wctx, init.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACSC, st.TransactionStatus)
	l.after = nil
	assert.Equal(t, []sent{
		{http.MethodGet, under(payments.ServiceBulk, init, "/status"), http.StatusOK},
		{http.MethodGet, under(payments.ServiceBulk, init, ""), http.StatusOK},
		{http.MethodGet, under(payments.ServiceBulk, init, "/status"), http.StatusOK},
		{http.MethodGet, under(payments.ServiceBulk, init, "/status"), http.StatusOK},
	}, l.take())

	init2, err := b.svc.CreateBulk(ctx, payments.ProductNorwegianDomestic, bulkNDCT(t, kariBruk, "21.00"), b.pisp()...)
	require.NoError(t, err)
	l.take()
	a, err := b.svc.StartAuthorisation(ctx, init2.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.NotEmpty(t, a.SCARedirect())
	c, err := b.svc.Cancel(ctx, init2.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, c.StatusCode)
	assert.Equal(t, []sent{
		{http.MethodPost, under(payments.ServiceBulk, init2, "/authorisations"), http.StatusCreated},
		{http.MethodDelete, under(payments.ServiceBulk, init2, ""), http.StatusNoContent},
	}, l.take())
	held := b.paymentsHeld()
	require.Len(t, held, 2)
	assert.Equal(t, []string{"ACSC", "CANC"}, []string{held[0].Status, held[1].Status})
}

// A single payment's Ref, from its Initiation or written out, keeps the
// paths of single payments. A periodic payment's id is not a single
// payment's.
func TestSingleCallsKeepTheirPaths(t *testing.T) {
	t.Parallel()
	b, l := newPathBank(t)
	ctx := t.Context()
	init, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "12.00"), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.ServiceSingle, init.Service)
	b.authorize(t, init.SCARedirect())
	l.take()

	for _, ref := range []payments.Ref{init.Ref(), {Service: payments.ServiceSingle, Product: init.Product, ID: init.PaymentID}} {
		st, err := b.svc.Status(ctx, ref, b.pisp()...)
		require.NoError(t, err)
		assert.Equal(t, payments.StatusACTC, st.TransactionStatus)
		d, err := b.svc.Get(ctx, ref, b.pisp()...)
		require.NoError(t, err)
		assert.Equal(t, init.PaymentID, d.PaymentID)
		assert.Equal(t, []sent{
			{http.MethodGet, under(payments.ServiceSingle, init, "/status"), http.StatusOK},
			{http.MethodGet, under(payments.ServiceSingle, init, ""), http.StatusOK},
		}, l.take())
	}

	// Service.Status of a standing order's id asks /v1/payments, where the
	// bank has no such payment.
	order, err := b.svc.CreatePeriodic(ctx, payments.ProductNorwegianDomestic, standingOrder(kariBruk, "13.00"), b.pisp()...)
	require.NoError(t, err)
	l.take()
	_, err = b.svc.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: order.Product, ID: order.PaymentID}, b.pisp()...)
	require.ErrorIs(t, err, client.ErrNotFound)
	st, err := b.svc.Status(ctx, order.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusRCVD, st.TransactionStatus)
	assert.Equal(t, []sent{
		{http.MethodGet, under(payments.ServiceSingle, order, "/status"), http.StatusNotFound},
		{http.MethodGet, under(payments.ServicePeriodic, order, "/status"), http.StatusOK},
	}, l.take())
}

// Every create records the service the payment was made under.
func TestInitiationRecordsService(t *testing.T) {
	t.Parallel()
	b, _ := newPathBank(t)
	ctx := t.Context()
	for _, tc := range []struct {
		name   string
		create func() (*payments.Initiation, error)
		want   payments.PaymentService
	}{
		{"CreateNorwegianDomestic", func() (*payments.Initiation, error) {
			return b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "1.00"), b.pisp()...)
		}, payments.ServiceSingle},
		{"CreateSEPA", func() (*payments.Initiation, error) { return b.svc.CreateSEPA(ctx, validSEPA(), b.pisp()...) }, payments.ServiceSingle},
		{"Create", func() (*payments.Initiation, error) {
			return b.svc.Create(ctx, payments.ProductNorwegianDomestic, ndct(kariBruk, "2.00"), b.pisp()...)
		}, payments.ServiceSingle},
		{"CreatePeriodic", func() (*payments.Initiation, error) {
			return b.svc.CreatePeriodic(ctx, payments.ProductNorwegianDomestic, standingOrder(kariBruk, "3.00"), b.pisp()...)
		}, payments.ServicePeriodic},
		{"CreateBulk", func() (*payments.Initiation, error) {
			return b.svc.CreateBulk(ctx, payments.ProductNorwegianDomestic, bulkNDCT(t, kariBruk, "4.00"), b.pisp()...)
		}, payments.ServiceBulk},
	} {
		init, err := tc.create()
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, init.Service, tc.name)
		assert.NotEmpty(t, init.PaymentID, tc.name)
		// The service is the SDK's note, not a field of the bank's answer.
		raw, err := json.Marshal(init)
		require.NoError(t, err)
		var fields map[string]any
		require.NoError(t, json.Unmarshal(raw, &fields))
		assert.NotContains(t, fields, "Service", tc.name)
		assert.NotContains(t, fields, "service", tc.name)
	}
	services := map[string]int{}
	for _, h := range b.paymentsHeld() {
		services[h.Service]++
	}
	assert.Equal(t, map[string]int{"payments": 3, "periodic-payments": 1, "bulk-payments": 1}, services)
}

// A service that is not one of the three, and the "" of an Initiation the
// SDK did not fill in, is refused before anything is sent.
func TestInRefusesUnknownService(t *testing.T) {
	t.Parallel()
	b, l := newPathBank(t)
	ctx := t.Context()
	for _, ps := range []payments.PaymentService{"", "standing-orders", "payments/x", "Payments"} {
		ref := payments.Ref{Service: ps, Product: payments.ProductNorwegianDomestic, ID: "p1"}
		_, err := b.svc.Status(ctx, ref, b.pisp()...)
		assertRefused(t, err, "payment-service")
		_, err = b.svc.Get(ctx, ref, b.pisp()...)
		assertRefused(t, err, "payment-service")
		_, err = b.svc.Cancel(ctx, ref, b.pisp()...)
		assertRefused(t, err, "payment-service")
		_, err = b.svc.StartAuthorisation(ctx, ref, b.pisp()...)
		assertRefused(t, err, "payment-service")
		_, err = b.svc.Wait(ctx, ref, b.pisp()...)
		assertRefused(t, err, "payment-service")
	}
	_, err := b.svc.Status(ctx, payments.Ref{Service: payments.ServiceBulk, Product: "", ID: "p1"}, b.pisp()...)
	assertRefused(t, err, "payment-product")
	_, err = b.svc.Cancel(ctx, payments.Ref{Service: payments.ServiceBulk, Product: payments.ProductNorwegianDomestic, ID: ""}, b.pisp()...)
	assertRefused(t, err, "paymentId")
	assert.Empty(t, l.take(), "nothing sent")

	var zero *payments.Service
	ref := payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: "p1"}
	_, err = zero.Status(ctx, ref)
	assertRefused(t, err, "client")
	require.ErrorIs(t, err, client.ErrNotSent)
	_, err = zero.Wait(ctx, ref)
	assertRefused(t, err, "client")
}

func assertRefused(t *testing.T, err error, field string) {
	t.Helper()
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, field, ve.Field)
}

// The known issue's mapping (ASSUMPTION in errors.go): a 404 to a status
// or details read of an NDCT means "not yet readable" under every service,
// so Wait reads on; a 404 of another product is the bank's 404; a 404 to
// a cancellation is never a cancellation.
func TestNotYetReadableUnderEveryService(t *testing.T) {
	t.Parallel()
	b, l := newPathBank(t)
	ctx := t.Context()
	var reqs []sent
	for _, ps := range []payments.PaymentService{payments.ServicePeriodic, payments.ServiceBulk} {
		ref := payments.Ref{Service: ps, Product: payments.ProductNorwegianDomestic, ID: "no-such-payment"}
		_, err := b.svc.Status(ctx, ref, b.pisp()...)
		require.ErrorIs(t, err, payments.ErrNotYetReadable, ps)
		var nyr *payments.NotYetReadableError
		require.ErrorAs(t, err, &nyr)
		assert.Equal(t, ps, nyr.Service)
		assert.Equal(t, payments.ProductNorwegianDomestic, nyr.Product)
		_, err = b.svc.Get(ctx, ref, b.pisp()...)
		require.ErrorIs(t, err, payments.ErrNotYetReadable, ps)
		_, err = b.svc.StatusAt(ctx, "/v1/"+string(ps)+"/"+string(payments.ProductNorwegianDomestic)+"/no-such-payment/status", b.pisp()...)
		require.ErrorIs(t, err, payments.ErrNotYetReadable, ps)

		_, err = b.svc.Status(ctx, payments.Ref{Service: ps, Product: payments.ProductSEPA, ID: "no-such-payment"}, b.pisp()...)
		require.ErrorIs(t, err, client.ErrNotFound, ps)
		assert.NotErrorIs(t, err, payments.ErrNotYetReadable, ps)

		cancelled, err := b.svc.Cancel(ctx, ref, b.pisp()...)
		require.ErrorIs(t, err, client.ErrNotFound, ps)
		assert.NotErrorIs(t, err, payments.ErrNotYetReadable, ps)
		assert.Nil(t, cancelled, ps)

		// Wait reads on until ctx ends: here, once it has read the
		// status three times (the minute only bounds a hang).
		reqs = append(reqs, l.take()...)
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		l.after = func(n int) {
			if n == 3 {
				cancel()
			}
		}
		st, err := b.svc.Wait(wctx, ref, b.pisp()...)
		cancel()
		l.after = nil
		require.ErrorIs(t, err, context.Canceled, ps)
		assert.Nil(t, st)
		waits := l.take()
		assert.Len(t, waits, 3, "%s: Wait read on after a 404 until its ctx ended", ps)
		reqs = append(reqs, waits...)
	}
	for _, s := range reqs {
		assert.NotContains(t, s.path, "/v1/payments/", "only the periodic and bulk paths")
		assert.Equal(t, http.StatusNotFound, s.code, s.path)
	}
	assert.Len(t, reqs, 2*(5+3))
}

// A standing order whose create the bank never processed is created by
// Resolve at its own path, under the periodic service, where its status
// is then read.
func TestResolvedStandingOrder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBank(t)
	ms := store.NewMemoryStore()
	svc := journaled(t, b, mustJournal(t, ms))
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/periodic-payments/"})
	id := uuid.NewString()
	_, err := svc.CreatePeriodic(ctx, payments.ProductNorwegianDomestic, standingOrder(kariBruk, "400.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	j := later(t, b, ms)
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)

	res, err := resolve(ctx, b.c, e, b.pisp()...)
	require.NoError(t, err)
	require.Equal(t, journal.ResolvedCreated, res.Kind, res.Reason)
	assert.Equal(t, res.ID, initiationOf(t, res).PaymentID)
	resend, err := j.Entry(ctx, res.ResendRequestID)
	require.NoError(t, err)
	assert.Equal(t, b.s.URL+"/v1/periodic-payments/norwegian-domestic-credit-transfers", resend.URL)
	st, err := svc.Status(ctx, payments.Ref{Service: payments.ServicePeriodic, Product: payments.ProductNorwegianDomestic, ID: res.ID}, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusRCVD, st.TransactionStatus)
}

// ExampleRef cancels a standing order by its reference: the calls on a
// periodic or bulk payment are made under the service it was created
// under, which the Initiation records.
func ExampleRef() {
	ctx := context.Background()
	bank := emulator.NewServer()
	defer bank.Close()
	creds, err := bank.NewTPP("Example PISP")
	if err != nil {
		panic(err)
	}
	const redirectURI = "https://tpp.example/callback"
	c, err := client.New(bank.URL, creds, client.WithHTTPClient(bank.Client()),
		client.WithDefaults(client.WithRedirectURI(redirectURI)))
	if err != nil {
		panic(err)
	}
	svc, err := payments.New(c)
	if err != nil {
		panic(err)
	}
	// The PSU's session, as in the example of CreateNorwegianDomestic.
	flow, err := sca.NewFlow(redirectURI)
	if err != nil {
		panic(err)
	}
	pending, start, err := flow.Start("user-42")
	if err != nil {
		panic(err)
	}
	login, _, err := sca.User(ctx, c, start)
	if err != nil {
		panic(err)
	}
	callback, err := bank.Control().Authorize(ctx, login.String(), emulator.CustomerKari)
	if err != nil {
		panic(err)
	}
	session, err := flow.ParseCallback(pending, callback.String())
	if err != nil {
		panic(err)
	}
	call := []client.RequestOption{session.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"})}

	// A monthly rent from a week ahead: the payment's fields plus the
	// periodic ones.
	type standingOrder struct {
		*payments.NorwegianDomestic
		StartDate date.Date `json:"startDate"`
		Frequency string    `json:"frequency"`
	}
	init, err := svc.CreatePeriodic(ctx, payments.ProductNorwegianDomestic, standingOrder{
		NorwegianDomestic: &payments.NorwegianDomestic{
			InstructedAmount:                  money.MustParse("9500.00", "NOK"),
			CreditorName:                      "Utleier AS",
			CreditorAccount:                   payments.AccountReference{BBAN: "86011117947", Currency: "NOK"},
			CreditorAddress:                   &payments.Address{Country: "NO"},
			DebtorAccount:                     payments.AccountReference{BBAN: "95312776066", Currency: "NOK"},
			RemittanceInformationUnstructured: "Husleie",
		},
		StartDate: date.Of(time.Now().AddDate(0, 0, 7)),
		Frequency: "Monthly",
	}, call...)
	if err != nil {
		panic(err)
	}
	fmt.Println("created under", init.Service, init.TransactionStatus)

	// Later, by id: the status and the cancellation of the standing order.
	st, err := svc.Status(ctx, init.Ref(), call...)
	if err != nil {
		panic(err)
	}
	fmt.Println("status:", st.TransactionStatus)
	cancelled, err := svc.Cancel(ctx, init.Ref(), call...)
	if err != nil {
		panic(err)
	}
	fmt.Println("cancel:", cancelled.StatusCode)
	st, err = svc.Status(ctx, init.Ref(), call...)
	if err != nil {
		panic(err)
	}
	fmt.Println("status:", st.TransactionStatus, "final:", st.TransactionStatus.IsFinal())
	// Output:
	// created under periodic-payments RCVD
	// status: RCVD
	// cancel: 204
	// status: CANC final: true
}
