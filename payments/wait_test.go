package payments_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
)

// statusReads is a transport that records the HTTP status of every
// payment status read and runs after (when set) once each answer is in,
// with the number of reads so far: the test moves the bank on between
// reads, so that Wait meets every stage without a timer.
type statusReads struct {
	base  http.RoundTripper
	mu    sync.Mutex
	codes []int
	after func(n int)
}

func (r *statusReads) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if req.Method != http.MethodGet || !strings.HasSuffix(req.URL.Path, "/status") {
		return resp, err
	}
	r.mu.Lock()
	code := 0
	if err == nil {
		code = resp.StatusCode
	}
	r.codes = append(r.codes, code)
	n, after := len(r.codes), r.after
	r.mu.Unlock()
	if after != nil {
		after(n)
	}
	return resp, err
}

// seen returns the statuses of the reads so far.
func (r *statusReads) seen() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.codes...)
}

// newWaitingBank is a bank whose client polls quickly (Wait from 1 to 4
// ms), does not retry (every read Wait makes is one request) and records
// the status reads.
func newWaitingBank(t *testing.T) (*bank, *statusReads) {
	t.Helper()
	s := testtpp.Server(t)
	reads := &statusReads{base: s.Client().Transport}
	c := testtpp.NewClient(t, s, "Waiting PISP", client.WithHTTPClient(&http.Client{Transport: reads}),
		client.WithRetryPolicy(client.RetryPolicy{}))
	b := bankOn(t, s, c)
	var err error
	b.svc, err = payments.New(c, payments.WithPolling(time.Millisecond, 4*time.Millisecond))
	require.NoError(t, err)
	return b, reads
}

// Wait follows an NDCT from creation to ACSC: the bank does not show it
// before the PSU approved it (404, read again), then shows ACTC (not
// final, read again) until the batch executes it.
func TestEmulatorWaitReachesACSC(t *testing.T) {
	t.Parallel()
	b, reads := newWaitingBank(t)
	ctx := t.Context()
	init, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "64.00"), b.pisp()...)
	require.NoError(t, err)

	reads.after = func(n int) {
		switch n {
		case 1: // after the 404: the PSU approves
			_, err := b.s.Control().Authorize(context.Background(), init.SCARedirect(), emulator.CustomerKari)
			assert.NoError(t, err)
		case 2: // after ACTC: the bank's batch runs
			b.s.Control().RunBatch()
		}
	}
	st, err := b.svc.Wait(ctx, init.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACSC, st.TransactionStatus)
	assert.Equal(t, init.PaymentID, st.PaymentID)
	assert.True(t, st.TransactionStatus.IsFinal())
	assert.Equal(t, []int{http.StatusNotFound, http.StatusOK, http.StatusOK}, reads.seen(),
		"not readable, ACTC, ACSC: one read each, none after the final status")
	assert.Equal(t, "ACSC", b.paymentsHeld()[0].Status)
}

// A status read the bank fails (503, and the client has no retries left)
// is read again at the next step: Wait still ends with the final status.
func TestEmulatorWaitReadsAgainAfter5xx(t *testing.T) {
	t.Parallel()
	b, reads := newWaitingBank(t)
	ctx := t.Context()
	init, err := b.svc.CreateSEPA(ctx, &payments.SEPA{
		InstructedAmount:                  money.MustParse("20.00", "EUR"),
		CreditorName:                      "Muster GmbH",
		CreditorAccount:                   payments.AccountReference{IBAN: "DE89370400440532013000", Currency: "EUR"},
		DebtorAccount:                     payments.AccountReference{IBAN: ibanFor(kariBruk), Currency: "NOK"},
		RemittanceInformationUnstructured: "Rechnung 2",
	}, b.pisp()...)
	require.NoError(t, err)
	b.authorize(t, init.SCARedirect())
	b.s.Control().RunBatch()

	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Status: http.StatusServiceUnavailable,
		Method: http.MethodGet, PathPrefix: "/v1/payments/", Count: 2})
	st, err := b.svc.Wait(ctx, init.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACSC, st.TransactionStatus)
	assert.Equal(t, []int{http.StatusServiceUnavailable, http.StatusServiceUnavailable, http.StatusOK}, reads.seen())
}

// When ctx ends before the payment is final, Wait gives up with ctx's
// error and the last status it read; with ctx already done it reads
// nothing.
func TestEmulatorWaitGivesUp(t *testing.T) {
	t.Parallel()
	b, reads := newWaitingBank(t)
	init, err := b.svc.CreateNorwegianDomestic(t.Context(), ndct(kariBruk, "65.00"), b.pisp()...)
	require.NoError(t, err)
	b.authorize(t, init.SCARedirect()) // ACTC; no batch runs

	// The deadline passes after the second read.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	reads.after = func(n int) {
		if n == 2 {
			cancel()
		}
	}
	st, err := b.svc.Wait(ctx, init.Ref(), b.pisp()...)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, errors.Is(err, client.ErrOutcomeUnknown))
	require.NotNil(t, st, "the last status read")
	assert.Equal(t, payments.StatusACTC, st.TransactionStatus)
	assert.Len(t, reads.seen(), 2, "no read after ctx ended")

	// A deadline ends it the same way (with the last status, if a read
	// came back in time).
	dctx, dcancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer dcancel()
	reads.after = nil
	st, err = b.svc.Wait(dctx, init.Ref(), b.pisp()...)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	if st != nil {
		assert.Equal(t, payments.StatusACTC, st.TransactionStatus)
	}

	done, stop := context.WithCancel(t.Context())
	stop()
	before := len(reads.seen())
	st, err = b.svc.Wait(done, init.Ref(), b.pisp()...)
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, st, "nothing read")
	assert.Len(t, reads.seen(), before, "nothing sent")
}

// Any other answer of the bank ends the wait at once with that error: a
// SEPA payment the bank does not know is 404 (a SEPA payment is readable
// before SCA, so 404 does not mean "not yet").
func TestEmulatorWaitEndsOnClientError(t *testing.T) {
	t.Parallel()
	b, reads := newWaitingBank(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	st, err := b.svc.Wait(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: "no-such-payment"}, b.pisp()...)
	require.ErrorIs(t, err, client.ErrNotFound)
	assert.NoError(t, ctx.Err(), "ended by the answer, not the deadline")
	assert.NotErrorIs(t, err, payments.ErrNotYetReadable)
	assert.Nil(t, st)
	assert.Equal(t, []int{http.StatusNotFound}, reads.seen())

	_, err = b.svc.Wait(ctx, payments.Ref{Service: payments.ServiceSingle, Product: "", ID: "p1"})
	require.ErrorIs(t, err, client.ErrValidation)
	_, err = b.svc.Wait(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: ""})
	require.ErrorIs(t, err, client.ErrValidation)
	assert.Len(t, reads.seen(), 1, "invalid arguments send nothing")
}

// The emulator, as the bank, creates a payment only for a PSU-ID it
// issued to this TPP in an SCA: a made-up one and another TPP's are
// refused with 401 PSU_CREDENTIALS_INVALID, a clear answer (nothing was
// created), and the SDK refuses a creation without PSU-ID before the bank
// sees it; one without PSU-Context, which the interface does not require,
// is created.
func TestEmulatorCreateNeedsTheTPPsPSU(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	ctx := t.Context()
	other := bankOn(t, b.s, testtpp.NewClient(t, b.s, "Other PISP"))
	require.NotEqual(t, b.psu.PSUID, other.psu.PSUID, "a PSU-ID is per TPP")

	for name, psuID := range map[string]string{"made up": uuid.NewString(), "another TPP's": other.psu.PSUID} {
		_, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "66.00"), client.WithTPPSessionID(b.psu.TPPSessionID),
			client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP}), client.WithPSUContext(client.Private))
		var e *client.Error
		require.ErrorAs(t, err, &e, name)
		assert.Equal(t, http.StatusUnauthorized, e.StatusCode, name)
		assert.True(t, e.HasCode("PSU_CREDENTIALS_INVALID"), name)
		assert.False(t, errors.Is(err, client.ErrOutcomeUnknown), name)
	}

	_, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "66.00"), client.WithTPPSessionID(b.psu.TPPSessionID),
		client.WithPSU(client.PSU{IPAddress: psuIP}), client.WithPSUContext(client.Private))
	require.ErrorIs(t, err, client.ErrNotSent)
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "PSU-ID", ve.Field)

	assert.Empty(t, b.paymentsHeld(), "nothing created")

	// PSU-Context is optional (docs/interface.md section 4.2): the bank
	// creates the payment without it, and so does the SDK send it.
	init, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "66.00"), client.WithTPPSessionID(b.psu.TPPSessionID),
		client.WithPSU(client.PSU{ID: b.psu.PSUID, IPAddress: psuIP}))
	require.NoError(t, err)
	assert.Equal(t, payments.StatusRCVD, init.TransactionStatus)
	assert.Len(t, b.paymentsHeld(), 1)

	init, err = b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "67.00"), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusRCVD, init.TransactionStatus)
	assert.Len(t, b.paymentsHeld(), 2)
}
