package payments_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// Accounts of the emulator's default data (sandbox/emulator "Sandbox
// data"); each carries a valid MOD-11 check digit, checked in
// TestSandboxAccountsAreValid.
const (
	kariBruk = "95312776066" // Kari's current account, 15234.75 NOK
	kariSpar = "95317621508" // Kari's savings account, only 100.00 NOK
	external = "91026527436" // an account of another bank (assumed to exist)
)

func TestSandboxAccountsAreValid(t *testing.T) {
	t.Parallel()
	for _, a := range []string{kariBruk, kariSpar, external} {
		assert.NoError(t, payments.CheckBBAN(a), a)
	}
}

// bank is an emulator with a registered TPP, a Service on it and the
// session of Kari, the PSU the test's payments are made for.
type bank struct {
	s   *emulator.Server
	c   *client.Client
	svc *payments.Service
	psu *sca.Session
}

// newBank starts an emulator for one test. Retries back off briefly so
// that tests of retried reads stay quick.
func newBank(t *testing.T, opts ...client.Option) *bank {
	t.Helper()
	s := testtpp.Server(t)
	opts = append([]client.Option{
		client.WithRetryPolicy(client.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRetryAfter: 2 * time.Second})}, opts...)
	return bankOn(t, s, testtpp.NewClient(t, s, "Payments test PISP", opts...))
}

// bankOn returns the bank of client c on s, with Kari logged in.
func bankOn(t *testing.T, s *emulator.Server, c *client.Client) *bank {
	t.Helper()
	svc, err := payments.New(c)
	require.NoError(t, err)
	psu := testpsu.Login(t, s, c, emulator.CustomerKari)
	require.Equal(t, client.Private, psu.Context)
	return &bank{s: s, c: c, svc: svc, psu: psu}
}

// pisp are the options of a payment call with the PSU present: the PSU's
// session (PSU-ID, PSU-Context, TPP-Session-ID) and IP address.
func (b *bank) pisp(extra ...client.RequestOption) []client.RequestOption {
	return append([]client.RequestOption{b.psu.RequestOptions(&client.PSU{IPAddress: psuIP})}, extra...)
}

// ndct is a domestic payment of amount NOK from debtor to external.
func ndct(debtor, amount string) *payments.NorwegianDomestic {
	return &payments.NorwegianDomestic{
		InstructedAmount:                  money.MustParse(amount, "NOK"),
		CreditorName:                      "Ola Eksempel",
		CreditorAccount:                   payments.AccountReference{BBAN: external, Currency: "NOK"},
		CreditorAddress:                   &payments.Address{Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: debtor, Currency: "NOK"},
		RemittanceInformationUnstructured: "Hyttetur",
	}
}

// authorize completes the PSU's SCA for Kari.
func (b *bank) authorize(t *testing.T, scaRedirect string) {
	t.Helper()
	require.NotEmpty(t, scaRedirect)
	cb, err := b.s.Control().Authorize(t.Context(), scaRedirect, emulator.CustomerKari)
	require.NoError(t, err)
	require.NotEmpty(t, cb.Query().Get("psu-id"))
}

// paymentsHeld returns the emulator's payments.
func (b *bank) paymentsHeld() []emulator.Payment { return b.s.Control().Payments() }

func TestEmulatorNorwegianDomesticLifeCycle(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	ctx := t.Context()

	init, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "150.00"), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusRCVD, init.TransactionStatus)
	assert.Equal(t, payments.ProductNorwegianDomestic, init.Product)
	require.NotNil(t, init.TransactionFees)
	assert.True(t, money.MustParse("3.00", "NOK").Equal(*init.TransactionFees))
	assert.Equal(t, boolPtr(true), init.TransactionFeeIndicator)
	assert.True(t, init.Links["self"].Allows(http.MethodDelete))

	// Known issue (docs/interface.md section 4.2): an NDCT is unreadable before SCA.
	_, err = b.svc.StatusAt(ctx, init.Links.Href(client.LinkStatus), b.pisp()...)
	require.ErrorIs(t, err, client.ErrNotFound)

	b.authorize(t, init.SCARedirect())
	st, err := b.svc.StatusAt(ctx, init.Links.Href(client.LinkStatus), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACTC, st.TransactionStatus)
	assert.Equal(t, init.PaymentID, st.PaymentID)
	assert.False(t, st.TransactionStatus.IsFinal())
	assert.False(t, st.FundsUnavailable())

	b.s.Control().RunBatch()
	st, err = b.svc.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: init.PaymentID}, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACSC, st.TransactionStatus)
	assert.True(t, st.TransactionStatus.IsFinal())
	assert.True(t, st.TransactionStatus.IsExecuted())

	d, err := b.svc.GetAt(ctx, init.Links.Href(client.LinkSelf), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, init.PaymentID, d.PaymentID)
	assert.Equal(t, "Ola Eksempel", d.CreditorName)
	assert.Equal(t, kariBruk, d.DebtorAccount.BBAN)
	assert.True(t, money.MustParse("150.00", "NOK").Equal(d.InstructedAmount))

	held := b.paymentsHeld()
	require.Len(t, held, 1)
	assert.Equal(t, "ACSC", held[0].Status)
}

func TestEmulatorSEPALifeCycle(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	ctx := t.Context()
	p := &payments.SEPA{
		EndToEndIdentification:            "E2E-1",
		InstructedAmount:                  money.MustParse("20.00", "EUR"),
		CreditorName:                      "Muster GmbH",
		CreditorAccount:                   payments.AccountReference{IBAN: "DE89370400440532013000", Currency: "EUR"},
		DebtorAccount:                     payments.AccountReference{IBAN: ibanFor(kariBruk), Currency: "NOK"},
		RemittanceInformationUnstructured: "Rechnung 1",
	}
	init, err := b.svc.CreateSEPA(ctx, p, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusRCVD, init.TransactionStatus)
	assert.True(t, money.MustParse("2.00", "EUR").Equal(*init.TransactionFees))

	// A SEPA payment is readable before SCA: status by the links.
	st, err := b.svc.StatusAt(ctx, init.Links.Href(client.LinkStatus), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusRCVD, st.TransactionStatus)
	assert.True(t, st.Links[client.LinkSelf].Allows(http.MethodDelete))

	b.authorize(t, init.SCARedirect())
	st, err = b.svc.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: init.PaymentID}, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACTC, st.TransactionStatus)

	b.s.Control().RunBatch()
	st, err = b.svc.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: init.PaymentID}, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACSC, st.TransactionStatus)

	d, err := b.svc.Get(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: init.PaymentID}, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, "E2E-1", d.EndToEndIdentification)
	assert.Equal(t, "DE89370400440532013000", d.CreditorAccount.IBAN)
}

func TestEmulatorStartAuthorisation(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	ctx := t.Context()
	init, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "42.00"), b.pisp()...)
	require.NoError(t, err)
	// The PSU cancels the first SCA; a new authorisation starts.
	_, err = b.s.Control().Reject(ctx, init.SCARedirect())
	require.NoError(t, err)
	a, err := b.svc.StartAuthorisationAt(ctx, init.Links.Href(client.LinkStartAuthorisation), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, "started", a.ScaStatus)
	b.authorize(t, a.SCARedirect())
	st, err := b.svc.Status(ctx, init.Ref(), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACTC, st.TransactionStatus)

	// Once authorised, no new authorisation: 409 STATUS_INVALID.
	_, err = b.svc.StartAuthorisation(ctx, init.Ref(), b.pisp()...)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusConflict, e.StatusCode)
}

func TestEmulatorInsufficientFunds(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	ctx := t.Context()
	// Kari's savings account holds 100.00 NOK (emulator "Sandbox data").
	init, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariSpar, "500.00"), b.pisp()...)
	require.NoError(t, err)
	b.authorize(t, init.SCARedirect())
	b.s.Control().RunBatch()

	st, err := b.svc.StatusAt(ctx, init.Links.Href(client.LinkStatus), b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACCP, st.TransactionStatus)
	assert.True(t, st.FundsUnavailable())
	assert.False(t, st.TransactionStatus.IsFinal(), "the batch tries again")
	assert.True(t, st.TransactionStatus.IsPending())
}

func TestEmulatorCancel(t *testing.T) {
	t.Parallel()

	t.Run("in RCVD", func(t *testing.T) {
		t.Parallel()
		ctx := t.Context()
		b := newBank(t)
		init, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "10.00"), b.pisp()...)
		require.NoError(t, err)
		c, err := b.svc.Cancel(ctx, init.Ref(), b.pisp()...)
		require.NoError(t, err)
		assert.Equal(t, http.StatusNoContent, c.StatusCode)
		held := b.paymentsHeld()
		require.Len(t, held, 1)
		assert.Equal(t, "CANC", held[0].Status)
	})

	t.Run("in PDNG", func(t *testing.T) {
		t.Parallel()
		ctx := t.Context()
		b := newBank(t)
		p := ndct(kariBruk, "11.00")
		p.RequestedExecutionDate = date.Of(time.Now().AddDate(0, 0, 3))
		init, err := b.svc.CreateNorwegianDomestic(ctx, p, b.pisp()...)
		require.NoError(t, err)
		b.authorize(t, init.SCARedirect())
		st, err := b.svc.Status(ctx, init.Ref(), b.pisp()...)
		require.NoError(t, err)
		require.Equal(t, payments.StatusPDNG, st.TransactionStatus)
		assert.False(t, st.Links[client.LinkSelf].Allows(http.MethodDelete), "after signing self loses DELETE")

		_, err = b.svc.CancelAt(ctx, init.Links.Href(client.LinkSelf), b.pisp()...)
		var e *client.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, http.StatusMethodNotAllowed, e.StatusCode)
		assert.True(t, e.HasCode(client.CodeCancellationInvalid))
		assert.Equal(t, "payments.CancelAt", e.Operation)
		assert.Equal(t, "PDNG", b.paymentsHeld()[0].Status)
	})
}

func TestEmulatorLogicalDuplicate(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	ctx := t.Context()
	_, err := b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "77.00"), b.pisp()...)
	require.NoError(t, err)

	_, err = b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "77.00"), b.pisp()...)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusBadRequest, e.StatusCode)
	assert.True(t, e.HasCode(client.CodePaymentFailed))
	assert.False(t, errors.Is(err, client.ErrOutcomeUnknown))
	assert.ErrorIs(t, err, payments.ErrLogicalDuplicate)
	assert.Equal(t, e.Error(), err.Error(), "printed as the bank's answer")
	assert.Len(t, b.paymentsHeld(), 1)

	_, err = b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "77.00"), b.pisp(payments.AllowLogicalDuplicate())...)
	require.NoError(t, err)
	assert.Len(t, b.paymentsHeld(), 2)
}

// The emulator, an independent implementation of the bank's checks,
// refuses what the SDK lets through with WithoutValidation, and the SDK
// refuses the same before sending.
func TestEmulatorAgreesWithValidation(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	for _, tc := range []struct {
		name string
		edit func(*payments.NorwegianDomestic)
		code string
		path string
	}{
		{"bad MOD-11", func(p *payments.NorwegianDomestic) { p.CreditorAccount.BBAN = "91026527437" }, client.CodeFormatError, "creditorAccount.bban"},
		{"bad KID", func(p *payments.NorwegianDomestic) {
			p.RemittanceInformationUnstructured = ""
			p.RemittanceInformationStructuredArray = kidRef("79927398714")
		}, client.CodeKIDInvalid, "remittanceInformationStructuredArray[0].reference"},
		{"emoji", func(p *payments.NorwegianDomestic) { p.RemittanceInformationUnstructured = emoji }, client.CodeFormatError, "remittanceInformationUnstructured"},
		{"past date", func(p *payments.NorwegianDomestic) {
			p.RequestedExecutionDate = date.Of(time.Now().AddDate(0, 0, -3))
		},
			client.CodeExecutionDateInvalid, "requestedExecutionDate"},
		{"unknown country", func(p *payments.NorwegianDomestic) { p.CreditorAddress.Country = "XX" }, client.CodeFormatError, "creditorAddress.country"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ndct(kariBruk, "5.00")
			tc.edit(p)
			_, err := b.svc.CreateNorwegianDomestic(t.Context(), p, b.pisp()...)
			var ve *client.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tc.path, ve.Field)

			_, err = b.svc.CreateNorwegianDomestic(t.Context(), p, b.pisp(client.WithoutValidation())...)
			var e *client.Error
			require.ErrorAs(t, err, &e)
			require.NotEmpty(t, e.Messages)
			assert.Equal(t, tc.code, e.Messages[0].Code)
			assert.Equal(t, tc.path, e.Messages[0].Path)
		})
	}
	assert.Empty(t, b.paymentsHeld())
}

// createWithID creates ndct(kariBruk, amount) with a recorded request id.
func createWithID(ctx context.Context, b *bank, amount, id string) (*payments.Initiation, error) {
	return b.svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, amount), b.pisp(client.WithRequestID(id))...)
}
