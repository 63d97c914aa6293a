package payments_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
)

// The interface rejects repeated months only under frequency
// MonthlyVariable (docs/interface.md section 7), the only frequency
// whose months the bank reads, and says nothing of how a day or a month
// is written: CreatePeriodic sends what the bank does not surely refuse
// (payments.ScheduleNumber), as the bank emulator takes it. Before the
// fix a Monthly order with months ["1","1"] or ["001"], and a
// dayOfExecution "001", were refused before sending.
func TestCreatePeriodicScheduleFormsTheBankTakes(t *testing.T) {
	const path = "/v1/periodic-payments/norwegian-domestic-credit-transfers"
	for _, tc := range []struct {
		name  string
		edit  func(o *standingOrderAt)
		field string // "" means sent
	}{
		{"Monthly with a month twice", func(o *standingOrderAt) { o.MonthsOfExecution = []string{"1", "1"} }, ""},
		{"Monthly with a month written 001", func(o *standingOrderAt) { o.MonthsOfExecution = []string{"001"} }, ""},
		{"Monthly with a month 13", func(o *standingOrderAt) { o.MonthsOfExecution = []string{"13"} }, ""},
		{"dayOfExecution written 001", func(o *standingOrderAt) { o.DayOfExecution = "001" }, ""},
		{"dayOfExecution 31 in February only", func(o *standingOrderAt) {
			o.Frequency, o.MonthsOfExecution, o.DayOfExecution = "MonthlyVariable", []string{"2"}, "31"
		}, ""},
		{"MonthlyVariable with a month written 001", func(o *standingOrderAt) {
			o.Frequency, o.MonthsOfExecution = "MonthlyVariable", []string{"001", "12"}
		}, ""},

		{"MonthlyVariable with 001 and 1", func(o *standingOrderAt) {
			o.Frequency, o.MonthsOfExecution = "MonthlyVariable", []string{"001", "1"}
		}, "monthsOfExecution[1]"},
		{"MonthlyVariable with month 0", func(o *standingOrderAt) {
			o.Frequency, o.MonthsOfExecution = "MonthlyVariable", []string{"000"}
		}, "monthsOfExecution[0]"},
		{"dayOfExecution 032", func(o *standingOrderAt) { o.DayOfExecution = "032" }, "dayOfExecution"},
		{"dayOfExecution signed", func(o *standingOrderAt) { o.DayOfExecution = "+1" }, "dayOfExecution"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodPost, path, http.StatusCreated, "payment-ndct-create-201.json")
			o := validStandingOrder()
			tc.edit(o)
			_, err := svc.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, o, psuPresent()...)
			if tc.field == "" {
				require.NoError(t, err)
				require.NotNil(t, got.req, "sent")
				return
			}
			assert.Nil(t, got.req, "nothing sent")
			assert.Equal(t, []string{tc.field}, fields(t, err))
		})
	}
}

// A Monthly order's monthsOfExecution is not read by the bank, but it
// must still decode: a member that is not an array of strings is refused.
func TestValidateScheduleMonthsMustBeStrings(t *testing.T) {
	t.Parallel()
	body, err := json.Marshal(map[string]any{"startDate": "2025-03-17", "frequency": "Monthly", "monthsOfExecution": []int{1}})
	require.NoError(t, err)
	assert.Equal(t, []string{"monthsOfExecution[0]"}, fields(t, payments.ValidateSchedule(body, testNow)))
}
