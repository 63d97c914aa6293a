package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeedTransactionDatesInJSON: a seed's transaction dates in JSON
// take the interface's form, a date "YYYY-MM-DD" (they took only an RFC
// 3339 time, and a transaction of the interface's own form was refused
// with "parsing time"), an RFC 3339 time still counts its own date, and
// anything else is refused naming the field and the form.
func TestSeedTransactionDatesInJSON(t *testing.T) {
	t.Parallel()
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	var tx SeedTransaction
	require.NoError(t, json.Unmarshal([]byte(`{"bookingDate":"2026-03-02","valueDate":"2026-03-03","amount":"-1.00"}`), &tx))
	assert.Equal(t, day(2026, 3, 2), tx.BookingDate)
	assert.Equal(t, day(2026, 3, 3), tx.ValueDate)
	assert.Equal(t, "-1.00", tx.Amount)

	tx = SeedTransaction{}
	require.NoError(t, json.Unmarshal([]byte(`{"BookingDate":"2026-03-02T23:30:00+01:00","valueDate":null}`), &tx))
	assert.Equal(t, "2026-03-02", tx.BookingDate.Format(time.DateOnly), "an RFC 3339 time counts its own date")
	assert.True(t, tx.ValueDate.IsZero())

	var card SeedCardTransaction
	require.NoError(t, json.Unmarshal([]byte(`{"transactionDate":"2026-02-27","bookingDate":"2026-03-01T00:00:00Z","amount":"-5.00"}`), &card))
	assert.Equal(t, day(2026, 2, 27), card.TransactionDate)
	assert.Equal(t, day(2026, 3, 1), card.BookingDate.UTC())

	for _, tc := range []struct{ body, field string }{
		{`{"bookingDate":"2026/03/02"}`, "bookingDate"},
		{`{"bookingDate":"02.03.2026"}`, "bookingDate"},
		{`{"valueDate":"2026-3-2"}`, "valueDate"},
		{`{"valueDate":"2026-02-30"}`, "valueDate"},
		{`{"bookingDate":"2026-03-02T10:00:00"}`, "bookingDate"},
		{`{"bookingDate":20260302}`, "bookingDate"},
		{`{"bookingDate":"` + strings.Repeat("9", 1000) + `"}`, "bookingDate"},
	} {
		err := json.Unmarshal([]byte(tc.body), &SeedTransaction{})
		if assert.Error(t, err, tc.body) {
			assert.Contains(t, err.Error(), tc.field+":", tc.body)
			assert.Contains(t, err.Error(), "YYYY-MM-DD", tc.body)
			assert.Less(t, len(err.Error()), 200, "the value is clipped")
		}
	}
	err := json.Unmarshal([]byte(`{"transactionDate":"yesterday"}`), &SeedCardTransaction{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "transactionDate:")
	err = json.Unmarshal([]byte(`{"bookingDate":"2026-03-02","amonut":"-1.00"}`), &SeedTransaction{})
	require.Error(t, err, "a key that is no field is refused, as the control API refuses it")
	assert.Contains(t, err.Error(), `"amonut"`)
}

// TestControlAPISeedTakesISODates: the control API's seed and
// add-transaction take the interface's dates, and refuse another form
// with 400 naming the field and the form.
func TestControlAPISeedTakesISODates(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	newTPPClient(t, s, "Dates TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	status, out := ctl.call(http.MethodPost, "seed", `{"customers":[{"accounts":[{"balance":"10.00","transactions":[
		{"bookingDate":"2026-03-02","valueDate":"2026-03-03","amount":"-1.00"},
		{"bookingDate":"2026-03-04T09:00:00+01:00","amount":"-2.00"}]}],
		"cardAccounts":[{"transactions":[{"transactionDate":"2026-02-27","bookingDate":"2026-03-01","amount":"-5.00"}]}],"consent":{}}]}`)
	require.Equal(t, http.StatusOK, status, out)
	cu := out["customers"].([]any)[0].(map[string]any)
	id := cu["accounts"].([]any)[0].(map[string]any)["id"].(string)
	cardID := cu["cardAccounts"].([]any)[0].(map[string]any)["id"].(string)

	status, out = ctl.call(http.MethodPost, "add-transaction", `{"accountId":"`+id+`","transaction":{"bookingDate":"2026-03-05","amount":"-3.00"}}`)
	require.Equal(t, http.StatusOK, status, out)

	s.mu.RLock()
	st, a := s.scenarioAccount(id)
	var got []string
	for _, tx := range a.transactions {
		got = append(got, tx.bookingDate.Format(time.DateOnly)+"/"+tx.valueDate.Format(time.DateOnly))
	}
	k := st.cards[cardID]
	cardDates := k.transactions[0].transactionDate.Format(time.DateOnly) + "/" + k.transactions[0].bookingDate.Format(time.DateOnly)
	s.mu.RUnlock()
	assert.ElementsMatch(t, []string{"2026-03-02/2026-03-03", "2026-03-04/2026-03-04", "2026-03-05/2026-03-05"}, got)
	assert.Equal(t, "2026-02-27/2026-03-01", cardDates)

	for _, tc := range []struct{ name, body, field string }{
		{"seed", `{"customers":[{"accounts":[{"transactions":[{"bookingDate":"2.3.2026","amount":"-1.00"}]}]}]}`, "bookingDate:"},
		{"seed", `{"customers":[{"cardAccounts":[{"transactions":[{"transactionDate":"2026-02-30"}]}]}]}`, "transactionDate:"},
		{"add-transaction", `{"accountId":"` + id + `","transaction":{"valueDate":"03/05/2026","amount":"-3.00"}}`, "valueDate:"},
	} {
		status, out := ctl.call(http.MethodPost, tc.name, tc.body)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", tc.body, out)
		assert.Contains(t, out["error"], tc.field, tc.body)
		assert.Contains(t, out["error"], "YYYY-MM-DD", tc.body)
	}
}

// TestSeedConsentAtInJSON: a seeded consent's at in JSON is an RFC 3339
// time or a date, and another form is refused naming at (the error said
// "parsing time" without the field).
func TestSeedConsentAtInJSON(t *testing.T) {
	t.Parallel()
	var c SeedConsent
	require.NoError(t, json.Unmarshal([]byte(`{"at":"2026-03-01T09:00:00+01:00","tppSessionId":"s1"}`), &c))
	assert.True(t, c.At.Equal(time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)))
	assert.Equal(t, "s1", c.TPPSessionID)
	c = SeedConsent{}
	require.NoError(t, json.Unmarshal([]byte(`{"at":"2026-03-01"}`), &c))
	assert.Equal(t, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), c.At)
	err := json.Unmarshal([]byte(`{"at":"1 March 2026"}`), &SeedConsent{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at:")

	s := startServer(t)
	newTPPClient(t, s, "Consent TPP")
	ctl := &controlClient{t: t, h: s.ControlHandler("tok"), token: "tok"}
	status, out := ctl.call(http.MethodPost, "seed", `{"customers":[{"accounts":[{}],"consent":{"at":"yesterday"}}]}`)
	assert.Equal(t, http.StatusBadRequest, status, out)
	assert.Contains(t, out["error"], "at:")
}
