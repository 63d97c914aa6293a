package emulator

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestControlAPIRefusesAKeyGivenTwice: a key given twice in one object,
// in any case, is refused naming it; {"by":"1h","by":"100h"} used to
// answer 200 and move the clock by the last, 100 hours, without a word.
func TestControlAPIRefusesAKeyGivenTwice(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Control().Freeze()
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	before := s.Control().Now()
	for _, tc := range []struct{ name, body, field string }{
		{"advance", `{"by":"1h","by":"100h"}`, "by:"},
		{"advance", `{"by":"1h","BY":"100h"}`, "BY:"},
		{"inject-fault", `{"kind":"status","count":1,"Count":1000}`, "Count:"},
		{"seed", `{"customers":[{"accounts":[{"balance":"1.00","Balance":"9.00"}]}]}`, "customers[0].accounts[0].Balance:"},
		{"add-transaction", `{"accountId":"nosuch","transaction":{"amount":"-1.00","amount":"-9.00"}}`, "transaction.amount:"},
	} {
		status, body := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s %s: %v", tc.name, tc.body, body)
		assert.Contains(t, body["error"], tc.field, tc.body)
		assert.Contains(t, body["error"], "twice", tc.body)
	}
	assert.Equal(t, before, s.Control().Now(), "the clock did not move")
	assert.Zero(t, s.faultsArmed(), "no fault armed")

	// The same key in two objects is no duplicate: the arguments pass
	// (and the account is unknown).
	status, body := ctl.call(http.MethodPost, "add-transaction", `{"accountId":"nosuch","transaction":{"amount":"-1.00","counterpartyName":"x"},"amount":"1.00"}`)
	assert.Equal(t, http.StatusBadRequest, status, body)
	assert.NotContains(t, body["error"], "twice", "amount is not add-transaction's: refused as such")
	status, body = ctl.call(http.MethodPost, "book-pending", `{"accountId":"nosuch","ref":"r","amount":"-1.00"}`)
	assert.Equal(t, http.StatusNotFound, status, body)
}

// TestControlAPIFaultPathWithQuery: a pathPrefix with a query or
// fragment matches no request (a request's path has none): it was armed
// for ever with 200.
func TestControlAPIFaultPathWithQuery(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, p := range []string{"/v1/payments?x=1", "/api/v1/accounts#top"} {
		status, body := ctl.call(http.MethodPost, "inject-fault", `{"kind":"status","pathPrefix":"`+p+`"}`)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", p, body)
		assert.Contains(t, body["error"], "pathPrefix:", p)
	}
	assert.Zero(t, s.faultsArmed())
}

// TestControlAPITokenSchemeAnyCase: the scheme of the Authorization
// header matches without regard to case (RFC 9110); "bearer <token>"
// was refused 401. The token itself still must match exactly.
func TestControlAPITokenSchemeAnyCase(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	h := s.ControlHandler("tok")
	for _, tc := range []struct {
		header string
		want   int
	}{
		{"bearer tok", http.StatusOK},
		{"BEARER tok", http.StatusOK},
		{"Bearer tok", http.StatusOK},
		{"Bearer TOK", http.StatusUnauthorized},
		{"Basic tok", http.StatusUnauthorized},
		{"Bearertok", http.StatusUnauthorized},
		{"tok", http.StatusUnauthorized},
	} {
		req := httptest.NewRequest(http.MethodGet, "/controls/now", nil)
		req.Header.Set("Authorization", tc.header)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, tc.want, rec.Code, tc.header)
	}
}

// TestControlAPITextTakesANumber: unrelated-credit's text, written as a
// number (psd2 emulator ctl unrelated-credit text=10023 sends JSON
// 10023), is read as the text, as customer numbers and amounts are; it
// was refused 400 "want string".
func TestControlAPITextTakesANumber(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	status, body := ctl.call(http.MethodPost, "unrelated-credit", `{"paymentId":"nosuch","text":10023}`)
	require.Equal(t, http.StatusNotFound, status, body)
	assert.Contains(t, body["error"], "paymentId:", "the text passed; the payment is unknown")
}

// TestControlAPIConsentsOfNoCustomer: consents of a customer number no
// customer has (a typo, or none: GET with the number in the query) is
// refused 404, as every control refuses an unknown customer; it
// answered 200 with no consents, the all-clear of a test that checks a
// consent was revoked.
func TestControlAPIConsentsOfNoCustomer(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	newTPPClient(t, s, "Control TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, body := range []string{`{"customerNumber":"13039319954"}`, `{}`, ``} {
		status, out := ctl.call(http.MethodPost, "consents", body)
		assert.Equal(t, http.StatusNotFound, status, "%s: %v", body, out)
		assert.Contains(t, out["error"], "customerNumber:", body)
	}
	status, out := ctl.call(http.MethodPost, "consents", `{"customerNumber":"`+CustomerKari+`"}`)
	assert.Equal(t, http.StatusOK, status, out)
}

// TestControlAPIRefusesArgumentsInTheQuery: an argument in the query
// string is refused naming it; it was ignored, and
// GET /controls/consents?customerNumber=... ran without it.
func TestControlAPIRefusesArgumentsInTheQuery(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Control().Freeze()
	before := s.Control().Now()
	h := s.ControlHandler("tok")
	for _, tc := range []struct{ method, target string }{
		{http.MethodGet, "/controls/consents?customerNumber=" + CustomerKari},
		{http.MethodPost, "/controls/advance?days=89"},
	} {
		req := httptest.NewRequest(tc.method, tc.target, nil)
		req.Header.Set("Authorization", "Bearer tok")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusBadRequest, rec.Code, tc.target)
		assert.Contains(t, rec.Body.String(), "query", tc.target)
	}
	assert.Equal(t, before, s.Control().Now())
	// ?bank= names the bank, as before: one bank, and it is not this.
	req := httptest.NewRequest(http.MethodGet, "/controls/now?bank=zeta", nil)
	req.Header.Set("Authorization", "Bearer tok")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusNotFound, rec.Code)
}

// TestControlAPISettlementFeeUnknownKey: a key of a settlement's fee
// that is no field of it is refused, as anywhere else in the arguments;
// {"amount":"5.00","currency":"NOK","curency":"EUR"} passed (the fee's
// money decoder reads a bank's documents leniently).
func TestControlAPISettlementFeeUnknownKey(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	for _, fee := range []string{
		`{"amount":"5.00","currency":"NOK","curency":"EUR"}`,
		`{"amount":"5.00","currency":"NOK","deducted":false}`,
	} {
		status, body := ctl.call(http.MethodPost, "set-settlement", `{"paymentId":"nosuch","settlement":{"lateDays":1,"fee":`+fee+`}}`)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", fee, body)
		assert.Contains(t, body["error"], "settlement.fee: ", fee)
		assert.Contains(t, body["error"], "no key of a fee", fee)
	}
	// A fee of its two keys (any case) passes: the payment is unknown.
	for _, fee := range []string{`{"amount":"5.00","currency":"NOK"}`, `{"Amount":"5.00","CURRENCY":"NOK"}`, `null`} {
		status, body := ctl.call(http.MethodPost, "set-settlement", `{"paymentId":"nosuch","settlement":{"lateDays":1,"fee":`+fee+`}}`)
		assert.Equal(t, http.StatusNotFound, status, "%s: %v", fee, body)
	}
	var set Settlement
	require.NoError(t, json.Unmarshal([]byte(`{"lateDays":2,"fee":{"amount":"5.00","currency":"NOK"},"returnDays":3}`), &set))
	assert.Equal(t, 2, set.LateDays)
	assert.Equal(t, 3, set.ReturnDays)
	assert.Equal(t, "5.00 NOK", set.Fee.String())
}
