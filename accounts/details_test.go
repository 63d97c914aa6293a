package accounts_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/metatest"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator"
)

const detailsID = "5477340649276395"

// TestTransactionDetails reads GET /v1/accounts/{id}/transactions/{tid}
// and decodes every Berlin Group member of the answer, creditorId and
// mandateId among them.
func TestTransactionDetails(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodGet, "/v1/accounts/"+acc1+"/transactions/"+detailsID, http.StatusOK, "transaction-details.json", func(req *http.Request) {
		assertSigned(t, req)
		assertPSUHeaders(t, req, true)
	})

	tr, err := svc.TransactionDetails(t.Context(), acc1, detailsID, psuPresent()...)
	require.NoError(t, err)
	no := false
	assert.Equal(t, &accounts.Transaction{
		TransactionID: detailsID, EntryReference: "2025030312345", EndToEndID: "E2E-2025-03-03-0001",
		BatchIndicator: &no, MandateID: "AVTALEGIRO-2024-7781", CheckID: "CHK-0001", CreditorID: "NO97ZZZ987654321",
		BookingDate: mustDate(t, "2025-03-03"), ValueDate: mustDate(t, "2025-03-03"),
		TransactionAmount: money.MustParse("-8750.00", "NOK"),
		CurrencyExchange: []accounts.ExchangeRate{{SourceCurrency: "EUR", ExchangeRate: "11.4512", UnitCurrency: "EUR",
			TargetCurrency: "NOK", QuotationDate: mustDate(t, "2025-03-03"), ContractIdentification: "FX-1"}},
		CreditorName: "Utleier Testesen", CreditorAccount: &accounts.AccountReference{BBAN: "98176002468"}, CreditorAgent: "TSTBNO22",
		DebtorName: "Kari Nordmann", DebtorAccount: ownAccount(), DebtorAgent: "TSTBNO22",
		RemittanceInformationUnstructured:      "Husleie mars",
		RemittanceInformationUnstructuredArray: []string{"Husleie mars"},
		RemittanceInformationStructured:        json.RawMessage(`"RF18539007547034"`),
		AdditionalInformation:                  "Fast oppdrag",
		AdditionalInformationStructured: &accounts.AdditionalInformationStructured{StandingOrderDetails: &accounts.StandingOrderDetails{
			StartDate: mustDate(t, "2024-01-03"), Frequency: "Monthly", DayOfExecution: "3", ExecutionRule: "following",
			LimitAmount: money.MustParse("9000.00", "NOK")}},
		PurposeCode: "RENT", BankTransactionCode: "PMNT-ICDT-STDO", ProprietaryBankTransactionCode: "R_710",
		BalanceAfterTransaction:          &accounts.Balance{BalanceAmount: money.MustParse("6484.75", "NOK"), BalanceType: accounts.BalanceInterimBooked},
		AdditionalInformationProprietary: []accounts.ProprietaryInformation{{Suffix: "1", Value: "Fast oppdrag 7781"}},
		Links:                            client.Links{"transactionDetails": {Href: "/v1/accounts/" + acc1 + "/transactions/" + detailsID, Verbs: []string{"GET"}}},
	}, metatest.Strip(tr))
	assert.Equal(t, 1, calls())
}

// TestTransactionDetailsBudget: without the PSU present the fifth call in
// 24 hours is refused before it is sent, on the transactions list's
// budget (the ASSUMPTION on Service.TransactionDetails), which
// Remaining reports; empty ids are refused before sending.
func TestTransactionDetailsBudget(t *testing.T) {
	svc := newMockService(t)
	respond(t, http.MethodGet, "/v1/accounts/"+acc1+"/transactions/"+detailsID, http.StatusOK, "transaction-details.json", nil)
	ctx := t.Context()
	for i := range budget.DefaultLimit {
		_, err := svc.TransactionDetails(ctx, acc1, detailsID, psuAbsent()...)
		require.NoError(t, err, "call %d", i+1)
	}
	_, err := svc.TransactionDetails(ctx, acc1, detailsID, psuAbsent()...)
	require.ErrorIs(t, err, budget.ErrExhausted)
	var be *budget.ExhaustedError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, budget.Transactions, be.Endpoint, "the spent budget is the list's")
	assert.Equal(t, budget.DefaultLimit, calls(), "the fifth call was not sent")

	left, err := budget.Of(svc.Client()).Remaining(ctx, acc1, budget.Transactions)
	require.NoError(t, err)
	assert.Zero(t, left.Remaining, "the details calls spent the list's budget")
	left, err = budget.Of(svc.Client()).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, budget.DefaultLimit, left.Remaining, "balances keep their own")
	_, err = svc.TransactionDetails(ctx, acc1, detailsID, psuPresent()...)
	require.NoError(t, err, "the PSU present has no budget")

	for _, ids := range [][2]string{{"", detailsID}, {acc1, ""}} {
		_, err := svc.TransactionDetails(ctx, ids[0], ids[1], psuAbsent()...)
		require.ErrorIs(t, err, client.ErrNotSent)
		require.ErrorIs(t, err, client.ErrValidation)
	}
	assert.Equal(t, budget.DefaultLimit+1, calls())
}

// TestTransactionDetailsShapes accepts the singular member name of later
// Berlin Group versions and a bare entry.
func TestTransactionDetailsShapes(t *testing.T) {
	for name, body := range map[string]string{
		"singular": `{"transactionDetails":{"transactionId":"t","creditorId":"C1"}}`,
		"bare":     `{"transactionId":"t","creditorId":"C1"}`,
	} {
		t.Run(name, func(t *testing.T) {
			svc := newMockService(t)
			httpmock.RegisterResponder(http.MethodGet, baseURL+"/v1/accounts/"+acc1+"/transactions/t",
				httpmock.NewStringResponder(http.StatusOK, body).HeaderSet(http.Header{"Content-Type": {"application/json"}}))
			tr, err := svc.TransactionDetails(t.Context(), acc1, "t", psuPresent()...)
			require.NoError(t, err)
			assert.Equal(t, "t", tr.TransactionID)
			assert.Equal(t, "C1", tr.CreditorID)
		})
	}
}

// TestEmulatorTransactionDetails reads a booked entry of the emulator by
// its id: the same entry as in the list. Without the PSU the SDK counts
// the calls within the list's 4 per day, so after 4 details calls it
// refuses the list too; the emulator counts details on their own, so a
// second SDK instance that did not see the first four gets the bank's 429
// for details, after which it refuses the list by itself.
func TestEmulatorTransactionDetails(t *testing.T) {
	t.Parallel()
	b := startBank(t, nil)
	ctx := t.Context()
	sess, id := b.firstAccount(ctx, t, emulator.CustomerKari)
	page, err := b.svc.Transactions(ctx, id, &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked}, present(sess)...)
	require.NoError(t, err)
	require.NotEmpty(t, page.Booked)
	want := page.Booked[0]
	require.NotEmpty(t, want.TransactionID)

	got, err := b.svc.TransactionDetails(ctx, id, want.TransactionID, present(sess)...)
	require.NoError(t, err)
	want.Status = ""
	assert.Equal(t, &want, metatest.Strip(got))

	_, err = b.svc.TransactionDetails(ctx, id, "no-such-transaction", present(sess)...)
	var ce *client.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, http.StatusNotFound, ce.StatusCode)

	for i := range 4 {
		_, err := b.svc.TransactionDetails(ctx, id, want.TransactionID, absent(sess)...)
		require.NoError(t, err, "call %d", i+1)
	}
	_, err = b.svc.TransactionDetails(ctx, id, want.TransactionID, absent(sess)...)
	require.ErrorIs(t, err, budget.ErrExhausted)
	assert.Equal(t, 5, b.log.countAll("method=GET", id+"/transactions/"+want.TransactionID), "the fifth call without the PSU was not sent")

	// The SDK counts details within the list's budget: the list is
	// refused too, unsent.
	sent := b.log.countAll(id)
	_, err = b.svc.Transactions(ctx, id, nil, absent(sess)...)
	require.ErrorIs(t, err, budget.ErrExhausted)
	assert.Equal(t, sent, b.log.countAll(id), "the list call was not sent")

	c2, err := client.New(b.s.URL, b.c.Credentials(), client.WithHTTPClient(b.s.Client()), client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	svc2 := newService(t, c2)
	_, err = svc2.TransactionDetails(ctx, id, want.TransactionID, absent(sess)...)
	require.ErrorIs(t, err, client.ErrAccessExceeded, "the emulator counted the first four")
	assert.NotErrorIs(t, err, budget.ErrExhausted)
	// The bank's 429 on details marks the shared budget spent: svc2
	// refuses the list by itself.
	sent = b.log.countAll(id)
	_, err = svc2.Transactions(ctx, id, nil, absent(sess)...)
	require.ErrorIs(t, err, budget.ErrExhausted)
	assert.Equal(t, sent, b.log.countAll(id), "the list call was not sent")
}
