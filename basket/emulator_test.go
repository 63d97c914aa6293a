package basket_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testpsu"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// Accounts of the emulator's default data (sandbox/emulator "Sandbox data").
var (
	kariBruk = "95312776066"             // Kari's current account, 15234.75 NOK
	kariSpar = sandboxBBAN("9531762150") // Kari's savings account, 100.00 NOK
	external = "91026527436"             // another bank's account: assumed to exist
	unknown  = sandboxBBAN("9531000000") // the sandbox bank's code, no such account
)

// sandboxBBAN completes ten digits to the first valid Norwegian account
// number from there on, as the emulator derives its accounts.
func sandboxBBAN(ten string) string {
	n, _ := strconv.ParseUint(ten, 10, 64)
	for ; ; n++ {
		s := fmt.Sprintf("%010d", n%1e10)
		for d := '0'; d <= '9'; d++ {
			if payments.CheckBBAN(s+string(d)) == nil {
				return s + string(d)
			}
		}
	}
}

// bank is one emulator with one TPP's client and services, and the
// session of Kari, the PSU whose payments the tests put in baskets.
type bank struct {
	s   *emulator.Server
	c   *client.Client
	pay *payments.Service
	bsk *basket.Service
	psu *sca.Session
}

func startBank(t *testing.T) *bank {
	t.Helper()
	s := testtpp.Server(t)
	return newTPP(t, s, "Basket TPP")
}

// newTPP registers another TPP on s and returns its view of the bank,
// with Kari identified through the SCA of GET /v1/user (docs/interface.md
// section 5.10): payments and baskets are created with the PSU-ID the
// bank issued to this TPP.
func newTPP(t *testing.T, s *emulator.Server, name string) *bank {
	t.Helper()
	c := testtpp.NewClient(t, s, name)
	pay, err := payments.New(c)
	require.NoError(t, err)
	bsk, err := basket.New(c)
	require.NoError(t, err)
	return &bank{s: s, c: c, pay: pay, bsk: bsk, psu: testpsu.Login(t, s, c, emulator.CustomerKari)}
}

// payOpts are the headers of a payment creation with the PSU present:
// the session's PSU-ID, PSU-Context and TPP-Session-ID, and the PSU's IP.
func (b *bank) payOpts() []client.RequestOption {
	return []client.RequestOption{b.psu.RequestOptions(&client.PSU{IPAddress: "192.0.2.10"})}
}

// basketOpts are the headers of docs/interface.md section 4.1 for a
// basket of the session's PSU, with a redirect URI whose state the tests
// find in the SCA's callback.
func (b *bank) basketOpts() []client.RequestOption {
	return append(b.payOpts(), client.WithRedirectURI("https://tpp.example/cb?state=basket"))
}

// ndct creates a domestic payment of amount NOK from debtor to creditor.
func (b *bank) ndct(t *testing.T, debtor, creditor, amount string) *payments.Initiation {
	t.Helper()
	init, err := b.pay.CreateNorwegianDomestic(t.Context(), &payments.NorwegianDomestic{
		InstructedAmount:                  money.MustParse(amount, "NOK"),
		CreditorName:                      "Ola Eksempel",
		CreditorAccount:                   payments.AccountReference{BBAN: creditor, Currency: "NOK"},
		CreditorAddress:                   &payments.Address{Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: debtor, Currency: "NOK"},
		RemittanceInformationUnstructured: "Basket test",
	}, b.payOpts()...)
	require.NoError(t, err)
	require.Equal(t, payments.StatusRCVD, init.TransactionStatus)
	return init
}

// ndcts creates n payments from Kari's current account to another bank,
// with distinct amounts from base, and returns their ids.
func (b *bank) ndcts(t *testing.T, n, base int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = b.ndct(t, kariBruk, external, fmt.Sprintf("%d.00", base+i)).PaymentID
	}
	return ids
}

// statuses reads every payment's own status and requires each to be read.
func (b *bank) statuses(t *testing.T, ids []string) []payments.TransactionStatus {
	t.Helper()
	got, err := b.bsk.PaymentStatuses(t.Context(), basket.Refs(payments.ProductNorwegianDomestic, ids...))
	require.NoError(t, err)
	require.Len(t, got, len(ids))
	out := make([]payments.TransactionStatus, len(got))
	for i, g := range got {
		require.NoError(t, g.Err, ids[i])
		assert.Equal(t, ids[i], g.Ref.ID)
		assert.Equal(t, ids[i], g.Status.PaymentID)
		out[i] = g.Status.TransactionStatus
	}
	return out
}

func (b *bank) basketStatus(t *testing.T, id string) payments.TransactionStatus {
	t.Helper()
	st, err := b.bsk.Status(t.Context(), id)
	require.NoError(t, err)
	return st.TransactionStatus
}

func repeat(st payments.TransactionStatus, n int) []payments.TransactionStatus {
	out := make([]payments.TransactionStatus, n)
	for i := range out {
		out[i] = st
	}
	return out
}

// Three payments, one SCA: through the create answer's scaRedirect or a
// new authorisation. Then the batch, each payment's own status and the
// basket's worst case.
func TestEmulatorBasketOfThreeOneSCA(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sca  func(t *testing.T, b *bank, bk *basket.Basket) string
	}{
		{"scaRedirect of the create answer", func(t *testing.T, b *bank, bk *basket.Basket) string {
			return bk.SCARedirect()
		}},
		{"StartAuthorisation", func(t *testing.T, b *bank, bk *basket.Basket) string {
			auth, err := b.bsk.StartAuthorisation(t.Context(), bk.BasketID, b.basketOpts()...)
			require.NoError(t, err)
			assert.Equal(t, "started", auth.ScaStatus)
			return auth.SCARedirect()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := startBank(t)
			ids := b.ndcts(t, 3, 101)

			bk, err := b.bsk.Create(t.Context(), ids, b.basketOpts()...)
			require.NoError(t, err)
			assert.NotEmpty(t, bk.BasketID)
			assert.Equal(t, payments.StatusRCVD, bk.TransactionStatus)
			assert.Equal(t, ids, bk.PaymentIDs)
			assert.NotEmpty(t, bk.SCARedirect())
			for _, p := range b.s.Control().Payments() {
				assert.Equal(t, bk.BasketID, p.BasketID, "every payment is in the basket")
			}

			// Before SCA: the known issue of docs/interface.md section 4.2 hides each
			// domestic payment's status; the basket's status is readable.
			before, err := b.bsk.PaymentStatuses(t.Context(), basket.Refs(payments.ProductNorwegianDomestic, ids...))
			require.NoError(t, err)
			for _, p := range before {
				assert.ErrorIs(t, p.Err, client.ErrNotFound)
				assert.Nil(t, p.Status)
			}
			assert.Equal(t, payments.StatusRCVD, b.basketStatus(t, bk.BasketID))

			// One SCA approves all three.
			cb, err := b.s.Control().Authorize(t.Context(), tt.sca(t, b, bk), emulator.CustomerKari)
			require.NoError(t, err)
			assert.Equal(t, "basket", cb.Query().Get("state"))
			assert.Equal(t, repeat(payments.StatusACTC, 3), b.statuses(t, ids))
			assert.Equal(t, payments.StatusACTC, b.basketStatus(t, bk.BasketID))

			// The batch executes each payment on its own.
			b.s.Control().RunBatch()
			assert.Equal(t, repeat(payments.StatusACSC, 3), b.statuses(t, ids))
			assert.Equal(t, payments.StatusACTC, b.basketStatus(t, bk.BasketID), "all authorised")

			got, err := b.bsk.Get(t.Context(), bk.BasketID)
			require.NoError(t, err)
			assert.Equal(t, bk.BasketID, got.BasketID)
			assert.Equal(t, ids, got.PaymentIDs, "decoded from the GET answer's payments field")
			assert.Equal(t, payments.StatusACTC, got.TransactionStatus)
			self, ok := got.Links.Get(client.LinkSelf)
			require.True(t, ok)
			assert.False(t, self.Allows(http.MethodDelete))

			// A signed basket cannot be deleted.
			err = b.bsk.Delete(t.Context(), bk.BasketID)
			var e *client.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, http.StatusMethodNotAllowed, e.StatusCode)
			assert.True(t, e.HasCode(client.CodeCancellationInvalid))
		})
	}
}

// A basket is not atomic: after the batch, each payment has its own
// outcome and the basket shows the worst (docs/interface.md section 2.7).
func TestEmulatorBasketWorstCase(t *testing.T) {
	t.Parallel()
	b := startBank(t)
	ids := []string{
		b.ndct(t, kariBruk, external, "50.00").PaymentID,  // executed
		b.ndct(t, kariBruk, unknown, "51.00").PaymentID,   // unknown creditor in this bank: rejected
		b.ndct(t, kariSpar, external, "500.00").PaymentID, // 100.00 NOK on the account: waits for funds
	}
	bk, err := b.bsk.Create(t.Context(), ids, b.basketOpts()...)
	require.NoError(t, err)
	_, err = b.s.Control().Authorize(t.Context(), bk.SCARedirect(), emulator.CustomerKari)
	require.NoError(t, err)
	assert.Equal(t, repeat(payments.StatusACTC, 3), b.statuses(t, ids))

	b.s.Control().RunBatch()
	got, err := b.bsk.PaymentStatuses(t.Context(), basket.Refs(payments.ProductNorwegianDomestic, ids...))
	require.NoError(t, err)
	want := []payments.TransactionStatus{payments.StatusACSC, payments.StatusRJCT, payments.StatusACCP}
	for i, g := range got {
		require.NoError(t, g.Err)
		assert.Equal(t, want[i], g.Status.TransactionStatus, i)
	}
	assert.True(t, got[2].Status.FundsUnavailable())
	assert.False(t, got[0].Status.FundsUnavailable())
	assert.Equal(t, payments.StatusRJCT, b.basketStatus(t, bk.BasketID))
}

func TestEmulatorBasketDelete(t *testing.T) {
	t.Parallel()
	b := startBank(t)
	ids := b.ndcts(t, 2, 201)
	bk, err := b.bsk.Create(t.Context(), ids, b.basketOpts()...)
	require.NoError(t, err)

	require.NoError(t, b.bsk.Delete(t.Context(), bk.BasketID, b.basketOpts()...))
	_, err = b.bsk.Get(t.Context(), bk.BasketID)
	assert.ErrorIs(t, err, client.ErrNotFound)
	_, err = b.bsk.Status(t.Context(), bk.BasketID)
	assert.ErrorIs(t, err, client.ErrNotFound)
	for _, p := range b.s.Control().Payments() {
		assert.Empty(t, p.BasketID, "the payments stay, outside any basket")
		assert.Equal(t, "RCVD", p.Status)
	}
	// The deleted basket's SCA approves nothing.
	_, err = b.s.Control().Authorize(t.Context(), bk.SCARedirect(), emulator.CustomerKari)
	require.ErrorIs(t, err, emulator.ErrSCAFailed)
	for _, p := range b.s.Control().Payments() {
		assert.Equal(t, "RCVD", p.Status)
	}
	// The payments may join a new basket.
	again, err := b.bsk.Create(t.Context(), ids, b.basketOpts()...)
	require.NoError(t, err)
	assert.NotEqual(t, bk.BasketID, again.BasketID)
}

// The bank refuses what only it can know: payments of another TPP, not in
// RCVD, already in a basket, bulk payments, unknown ids.
func TestEmulatorBasketRefusedByBank(t *testing.T) {
	t.Parallel()
	b := startBank(t)
	other := newTPP(t, b.s, "Other TPP")
	mine := b.ndcts(t, 3, 301)
	theirs := other.ndcts(t, 1, 401)

	signed := b.ndct(t, kariBruk, external, "350.00")
	_, err := b.s.Control().Authorize(t.Context(), signed.SCARedirect(), emulator.CustomerKari)
	require.NoError(t, err)

	inBasket := b.ndct(t, kariBruk, external, "351.00").PaymentID
	_, err = b.bsk.Create(t.Context(), []string{inBasket}, b.basketOpts()...)
	require.NoError(t, err)

	entry := map[string]any{
		"instructedAmount": map[string]any{"amount": "360.00", "currency": "NOK"},
		"creditorName":     "Ola Eksempel",
		"creditorAccount":  map[string]any{"bban": external, "currency": "NOK"},
		"creditorAddress":  map[string]any{"country": "NO"},
	}
	bulk, err := b.pay.CreateBulk(t.Context(), payments.ProductNorwegianDomestic, map[string]any{
		"batchBookingPreferred": true,
		"debtorAccount":         map[string]any{"bban": kariBruk, "currency": "NOK"},
		"payments":              []any{entry},
	}, b.payOpts()...)
	require.NoError(t, err)

	tests := []struct {
		name   string
		ids    []string
		status int
		code   string
		path   string
	}{
		{"another TPP's payment", []string{mine[0], theirs[0]}, http.StatusBadRequest, client.CodeResourceUnknown, "paymentIds[1]"},
		{"unknown payment", []string{"enc!!no-such-payment"}, http.StatusBadRequest, client.CodeResourceUnknown, "paymentIds[0]"},
		{"payment not in RCVD", []string{mine[1], signed.PaymentID}, http.StatusConflict, "STATUS_INVALID", "paymentIds[1]"},
		{"payment in another basket", []string{inBasket, mine[2]}, http.StatusConflict, "STATUS_INVALID", "paymentIds[0]"},
		{"bulk payment", []string{mine[2], bulk.PaymentID}, http.StatusBadRequest, client.CodeReferenceMixInvalid, "paymentIds[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := b.bsk.Create(t.Context(), tt.ids, b.basketOpts()...)
			var e *client.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "basket.Create", e.Operation)
			assert.Equal(t, tt.status, e.StatusCode)
			require.NotEmpty(t, e.Messages)
			assert.Equal(t, tt.code, e.Messages[0].Code)
			assert.Equal(t, tt.path, e.Messages[0].Path)
		})
	}
	for _, id := range mine {
		for _, p := range b.s.Control().Payments() {
			if p.ID == id {
				assert.Empty(t, p.BasketID, "a refused basket holds nothing")
			}
		}
	}

	// The bank's limits agree with the SDK's: what the SDK refuses, the
	// bank refuses too.
	eleven := b.ndcts(t, 11, 501)
	_, err = b.bsk.Create(t.Context(), eleven, b.basketOpts()...)
	require.ErrorIs(t, err, client.ErrValidation)
	_, err = b.bsk.Create(t.Context(), eleven, append(b.basketOpts(), client.WithoutValidation())...)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.True(t, e.HasCode(client.CodeFormatError))
	_, err = b.bsk.Create(t.Context(), eleven[:basket.MaxPayments], b.basketOpts()...)
	require.NoError(t, err, "10 is allowed")

	// Without PSU-ID the SDK refuses the basket before sending, even
	// WithoutValidation (docs/interface.md section 4.1)...
	noPSU := []client.RequestOption{client.WithTPPSessionID(b.psu.TPPSessionID), client.WithPSU(client.PSU{IPAddress: "192.0.2.10"})}
	_, err = b.bsk.Create(t.Context(), []string{eleven[10]}, append(noPSU, client.WithoutValidation())...)
	require.ErrorIs(t, err, client.ErrNotSent)
	var ve *client.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "PSU-ID", ve.Field)
	// ... and so does the bank, sent the same call around the SDK's check.
	_, err = b.c.Do(t.Context(), client.Operation{Method: http.MethodPost, Path: "/v1/signing-baskets",
		Body: map[string][]string{"paymentIds": {eleven[10]}}, ResultID: "basketId"}, nil, noPSU...)
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusBadRequest, e.StatusCode)
	assert.True(t, e.HasCode(client.CodeHTTPHeaderRequired))
	assert.Equal(t, "PSU-ID", e.Messages[0].Path)
	for _, p := range b.s.Control().Payments() {
		if p.ID == eleven[10] {
			assert.Empty(t, p.BasketID)
		}
	}
}

// A basket POST whose answer is lost is not sent again: the caller learns
// the outcome is unknown, and the bank holds exactly one basket.
func TestEmulatorCreateOutcomeUnknown(t *testing.T) {
	t.Parallel()
	b := startBank(t)
	ids := b.ndcts(t, 2, 601)
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropAfterBody, Method: http.MethodPost, PathPrefix: "/v1/signing-baskets"})

	_, err := b.bsk.Create(t.Context(), ids, b.basketOpts()...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	var ou *client.OutcomeUnknownError
	require.ErrorAs(t, err, &ou)
	assert.Equal(t, "basket.Create", ou.Operation)

	var basketID string
	for _, p := range b.s.Control().Payments() {
		require.NotEmpty(t, p.BasketID, "the bank created the basket once")
		if basketID == "" {
			basketID = p.BasketID
		}
		assert.Equal(t, basketID, p.BasketID, "one basket, not two")
	}

	// Reconciling: the same ids again are refused; cancelled payments
	// leave the unseen basket rejected and can be created anew.
	_, err = b.bsk.Create(t.Context(), ids, b.basketOpts()...)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusConflict, e.StatusCode)
	for _, id := range ids {
		_, err := b.pay.Cancel(t.Context(), payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductNorwegianDomestic, ID: id}, b.payOpts()...)
		require.NoError(t, err)
	}
	for _, p := range b.s.Control().Payments() {
		assert.Equal(t, "CANC", p.Status)
	}
}
