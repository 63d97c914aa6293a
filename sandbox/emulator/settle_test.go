package emulator

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// kidRef is a valid KID (MOD-10).
const kidRef = "1234567897"

// kidNDCT is a domestic payment of amount from Kari to Ola's account,
// with a KID and an end-to-end id.
func kidNDCT(amount string) []byte {
	return ndctBody(kariBruk, olaBruk, amount, func(b body) {
		delete(b, "remittanceInformationUnstructured")
		b["remittanceInformationStructuredArray"] = []any{map[string]any{"reference": kidRef, "referenceType": "KID"}}
		b["endToEndIdentification"] = "E2E-INV-1001"
	})
}

// settleAt sets the bank's clock to 10:00 in Oslo on day (a frozen
// clock: the dates below are the banking calendar's, not today's).
func settleAt(s *Server, day string) {
	d, err := time.ParseInLocation(time.DateOnly, day, time.UTC)
	if err != nil {
		panic(err)
	}
	s.Control().SetTime(d.Add(8 * time.Hour)) // 09:00 or 10:00 in Oslo
	s.Control().Freeze()
}

// txsOf returns copies of the transactions of a sandbox account.
func txsOf(s *Server, bban string) []transaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []transaction
	for _, t := range s.soleStore().accountByBBAN(bban).transactions {
		out = append(out, *t)
	}
	return out
}

// newSince returns the transactions of bban after the first n.
func newSince(s *Server, bban string, n int) []transaction {
	return txsOf(s, bban)[n:]
}

// approvedKID creates and approves a KID payment of amount to Ola; it
// returns the payment's id and the transaction counts of both accounts
// before.
func approvedKID(t *testing.T, s *Server, c *tppClient, amount string) (id string, nKari, nOla int) {
	t.Helper()
	nKari, nOla = len(txsOf(s, kariBruk)), len(txsOf(s, olaBruk))
	got := c.createPayment("/v1/payments/"+rules.ProductNDCT, kidNDCT(amount))
	approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
	return got.PaymentID, nKari, nOla
}

// TestSettlementCreditEchoesKID: an executed payment to a sandbox account
// of another customer books one debit on the debtor and one credit on
// the creditor, on the day of execution, the credit carrying the KID (as
// remittanceInformationStructured and the text) and the end-to-end id.
func TestSettlementCreditEchoesKID(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	settleAt(s, "2026-04-01")
	c := newTPPClient(t, s, "Settlement TPP")
	id, nKari, nOla := approvedKID(t, s, c, "1250.00")
	assert.Empty(t, newSince(s, olaBruk, nOla), "nothing is booked before the batch")

	s.Control().RunBatch()
	assert.Equal(t, "ACSC", s.Control().Payments()[0].Status)
	require.Equal(t, id, s.Control().Payments()[0].ID)
	debits, credits := newSince(s, kariBruk, nKari), newSince(s, olaBruk, nOla)
	require.Len(t, debits, 1, "the debtor is debited once")
	require.Len(t, credits, 1, "the creditor is credited once")
	assert.Equal(t, []any{"-1250", "R_203"}, []any{debits[0].amount.String(), debits[0].code})

	j := credits[0].json()
	raw, err := json.Marshal(j)
	require.NoError(t, err)
	var wire map[string]any
	require.NoError(t, json.Unmarshal(raw, &wire))
	assert.Equal(t, kidRef, wire["remittanceInformationStructured"], string(raw))
	assert.Equal(t, kidRef, wire["remittanceInformationUnstructured"], string(raw))
	assert.Equal(t, "E2E-INV-1001", wire["endToEndId"], string(raw))
	assert.Equal(t, "R_230", wire["proprietaryBankTransactionCode"])
	assert.Equal(t, "2026-04-01", wire["bookingDate"])
	assert.Equal(t, map[string]any{"amount": "1250.00", "currency": "NOK"}, wire["transactionAmount"])
	assert.Equal(t, kariBruk, j.DebtorAccount.BBAN)
	assert.NotContains(t, wire, "entryReference")

	// Another batch run books nothing again.
	s.Control().RunBatch()
	assert.Len(t, newSince(s, olaBruk, nOla), 1)
	assert.Len(t, newSince(s, kariBruk, nKari), 1)
}

// TestSettlementInstantAtOnce: an instant payment between the PSU's own
// accounts is executed at its SCA, both sides booked with no batch run.
func TestSettlementInstantAtOnce(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Instant TPP")
	nSpar := len(txsOf(s, kariSpar))
	got := c.createPayment("/v1/payments/"+rules.ProductInstant, ndctBody(kariBruk, kariSpar, "200.00"))
	approve(t, s, got.Links["scaRedirect"].Href, CustomerKari)
	assert.Equal(t, "ACSC", c.statusOf(got.Links["self"].Href))
	credits := newSince(s, kariSpar, nSpar)
	require.Len(t, credits, 1)
	assert.Equal(t, []any{"200", "Hyttetur påske"}, []any{credits[0].amount.String(), credits[0].remittance})
	s.Control().RunBatch()
	assert.Len(t, newSince(s, kariSpar, nSpar), 1, "the batch does not book it again")
}

// TestSettlementLate: a credit set LateDays 2 on the Wednesday before
// Easter 2026 is booked on the second banking day after (Wednesday
// 8 April: Maundy Thursday, Good Friday and Easter Monday are holidays),
// at the first batch run on or after it; the debit is booked at once.
func TestSettlementLate(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	settleAt(s, "2026-04-01")
	c := newTPPClient(t, s, "Late TPP")
	id, nKari, nOla := approvedKID(t, s, c, "1250.00")
	require.NoError(t, s.Control().SetSettlement(id, Settlement{LateDays: 2}))
	s.Control().RunBatch()
	assert.Len(t, newSince(s, kariBruk, nKari), 1, "the debit is booked at execution")
	for _, day := range []string{"2026-04-01", "2026-04-02", "2026-04-06", "2026-04-07"} {
		settleAt(s, day)
		s.Control().RunBatch()
		assert.Empty(t, newSince(s, olaBruk, nOla), "no credit yet on %s", day)
	}
	settleAt(s, "2026-04-09") // no run on the 8th: the next run books it
	s.Control().RunBatch()
	credits := newSince(s, olaBruk, nOla)
	require.Len(t, credits, 1)
	assert.Equal(t, []any{"2026-04-09", "1250", kidRef}, []any{credits[0].json().BookingDate, credits[0].amount.String(), credits[0].structured})
	s.Control().RunBatch()
	assert.Len(t, newSince(s, olaBruk, nOla), 1, "booked once")
}

// TestSettlementFee: a fee set on the payment is deducted from the
// credit; the debtor pays the whole amount.
func TestSettlementFee(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Fee TPP")
	id, nKari, nOla := approvedKID(t, s, c, "1250.00")
	require.NoError(t, s.Control().SetSettlement(id, Settlement{Fee: money.MustParse("7.50", "NOK")}))
	s.Control().RunBatch()
	require.Len(t, newSince(s, olaBruk, nOla), 1)
	assert.Equal(t, "1242.5", newSince(s, olaBruk, nOla)[0].amount.String())
	assert.Equal(t, "-1250", newSince(s, kariBruk, nKari)[0].amount.String())
}

// TestSettlementReturn: a payment set ReturnDays 1 is reversed on the
// next banking day after its credit: the creditor debited with the KID
// and "RETUR", the debtor credited back; both balances are as before.
func TestSettlementReturn(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	settleAt(s, "2026-04-01")
	c := newTPPClient(t, s, "Return TPP")
	kariBefore, olaBefore := balance(s, kariBruk), balance(s, olaBruk)
	id, nKari, nOla := approvedKID(t, s, c, "1250.00")
	require.NoError(t, s.Control().SetSettlement(id, Settlement{ReturnDays: 1}))
	s.Control().RunBatch()
	require.Len(t, newSince(s, olaBruk, nOla), 1)
	settleAt(s, "2026-04-02") // Maundy Thursday: no banking day
	s.Control().RunBatch()
	require.Len(t, newSince(s, olaBruk, nOla), 1)
	settleAt(s, "2026-04-07")
	s.Control().RunBatch()
	ola, kari := newSince(s, olaBruk, nOla), newSince(s, kariBruk, nKari)
	require.Len(t, ola, 2)
	require.Len(t, kari, 2)
	ret := ola[1].json()
	assert.Equal(t, []any{"2026-04-07", "-1250.00", kidRef, "RETUR " + kidRef, "E2E-INV-1001"},
		[]any{ret.BookingDate, ret.TransactionAmount.Value.StringFixed(2), ret.RemittanceInformationStructured, ret.RemittanceInformationUnstructured, ret.EndToEndID})
	assert.Equal(t, []any{"1250", "RETUR " + kidRef}, []any{kari[1].amount.String(), kari[1].remittance})
	assert.Equal(t, kariBefore.String(), balance(s, kariBruk).String())
	assert.Equal(t, olaBefore.String(), balance(s, olaBruk).String())
}

// TestUnrelatedCredit: a credit of the same amount from elsewhere carries
// no KID and no end-to-end id, and another debtor.
func TestUnrelatedCredit(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Unrelated TPP")
	id, _, nOla := approvedKID(t, s, c, "49.00")
	ref, err := s.Control().UnrelatedCredit(id, "Kaffe")
	require.NoError(t, err)
	got := newSince(s, olaBruk, nOla)
	require.Len(t, got, 1)
	j := got[0].json()
	assert.Equal(t, []any{ref, "49.00", "", "", "Kaffe", unrelatedDebtorBBAN},
		[]any{j.TransactionID, j.TransactionAmount.Value.StringFixed(2), j.RemittanceInformationStructured, j.EndToEndID, j.RemittanceInformationUnstructured, j.DebtorAccount.BBAN})
	_, err = s.Control().UnrelatedCredit("enc!!nosuchpayment", "")
	assert.ErrorIs(t, err, ErrUnknownPayment)
}

// TestTwin: a twin of an approved payment is executed with it; the two
// credits differ only by transactionId.
func TestTwin(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Twin TPP")
	id, nKari, nOla := approvedKID(t, s, c, "49.00")
	twin, err := s.Control().Twin(id)
	require.NoError(t, err)
	assert.NotEqual(t, id, twin.ID)
	assert.Equal(t, []any{"ACTC", "49.00 NOK", ""}, []any{twin.Status, twin.Amount.String(), twin.RequestID})
	s.Control().RunBatch()
	ps := s.Control().Payments()
	require.Len(t, ps, 2)
	assert.Equal(t, []string{"ACSC", "ACSC"}, []string{ps[0].Status, ps[1].Status})
	got := newSince(s, olaBruk, nOla)
	require.Len(t, got, 2)
	a, b := got[0].json(), got[1].json()
	assert.NotEqual(t, a.TransactionID, b.TransactionID)
	a.TransactionID, b.TransactionID = "", ""
	assert.Equal(t, a, b)
	assert.Len(t, newSince(s, kariBruk, nKari), 2)

	// Not before SCA; not for an unknown id.
	rcvd := c.createPayment("/v1/payments/"+rules.ProductNDCT, kidNDCT("50.00"))
	_, err = s.Control().Twin(rcvd.PaymentID)
	assert.ErrorIs(t, err, ErrNotApproved)
	_, err = s.Control().Twin("enc!!nosuchpayment")
	assert.ErrorIs(t, err, ErrUnknownPayment)
}

// TestSetSettlementRefuses: bad values, an unknown payment, a creditor
// of another bank and an executed payment are refused.
func TestSetSettlementRefuses(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Refusing TPP")
	id, _, _ := approvedKID(t, s, c, "100.00")
	var se *SeedError
	for _, bad := range []Settlement{
		{LateDays: -1}, {LateDays: 61}, {ReturnDays: 61},
		{Fee: money.MustParse("100.00", "NOK")}, {Fee: money.MustParse("1.00", "EUR")},
	} {
		assert.True(t, errors.As(s.Control().SetSettlement(id, bad), &se), "%+v", bad)
	}
	assert.ErrorIs(t, s.Control().SetSettlement("enc!!nosuchpayment", Settlement{}), ErrUnknownPayment)
	ext := c.createPayment("/v1/payments/"+rules.ProductNDCT, ndctBody(kariBruk, external, "10.00"))
	assert.ErrorIs(t, s.Control().SetSettlement(ext.PaymentID, Settlement{}), ErrUnknownPayment)
	s.Control().RunBatch()
	assert.ErrorIs(t, s.Control().SetSettlement(id, Settlement{LateDays: 1}), ErrSettled)
}

// TestSettlementOverControlAPI: the settlement controls over HTTP: a fee
// set, a twin made and an unrelated credit booked; an unknown payment
// answers 404 and an executed one 422.
func TestSettlementOverControlAPI(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Control settlement TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	id, _, nOla := approvedKID(t, s, c, "300.00")

	status, out := ctl.call(http.MethodPost, "set-settlement", `{"paymentId":"`+id+`","settlement":{"fee":{"amount":"2.00","currency":"NOK"}}}`)
	require.Equal(t, http.StatusOK, status, out)
	status, out = ctl.call(http.MethodPost, "twin", `{"paymentId":"`+id+`"}`)
	require.Equal(t, http.StatusOK, status, out)
	twin := out["payment"].(map[string]any)
	assert.NotEqual(t, id, twin["id"])
	status, out = ctl.call(http.MethodPost, "unrelated-credit", `{"paymentId":"`+id+`","text":"Faktura 7"}`)
	require.Equal(t, http.StatusOK, status, out)
	assert.NotEmpty(t, out["ref"])
	status, out = ctl.call(http.MethodPost, "set-settlement", `{"paymentId":"enc!!nosuch","settlement":{}}`)
	assert.Equal(t, []any{http.StatusNotFound, "UNKNOWN"}, []any{status, out["code"]})

	s.Control().RunBatch()
	var amounts []string
	for _, tx := range newSince(s, olaBruk, nOla) {
		amounts = append(amounts, tx.amount.String()+" "+tx.remittance)
	}
	assert.Equal(t, []string{"300 Faktura 7", "298 " + kidRef, "298 " + kidRef}, amounts)
	status, out = ctl.call(http.MethodPost, "set-settlement", `{"paymentId":"`+id+`","settlement":{"lateDays":1}}`)
	assert.Equal(t, []any{http.StatusUnprocessableEntity, "REFUSED"}, []any{status, out["code"]})
}
