package payments_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/payments"
)

// standingOrderAt is a standing order (a periodic NDCT, the Berlin Group
// periodic fields beside the payment's) as a caller of CreatePeriodic
// writes it: its own type embedding the typed payment, whose Validate is
// promoted and checks only the payment's fields.
type standingOrderAt struct {
	*payments.NorwegianDomestic
	StartDate         string   `json:"startDate,omitempty"`
	EndDate           string   `json:"endDate,omitempty"`
	ExecutionRule     string   `json:"executionRule,omitempty"`
	Frequency         string   `json:"frequency,omitempty"`
	DayOfExecution    string   `json:"dayOfExecution,omitempty"`
	MonthsOfExecution []string `json:"monthsOfExecution,omitempty"`
}

// validStandingOrder starts a week after testNow's date in Oslo
// (2025-03-10), monthly.
func validStandingOrder() *standingOrderAt {
	return &standingOrderAt{NorwegianDomestic: validNDCT(), StartDate: "2025-03-17", Frequency: "Monthly"}
}

// CreatePeriodic refuses, before sending, a periodic payment whose
// schedule the bank refuses: a startDate before today in Norway (code
// EXECUTION_DATE_INVALID), an endDate before the startDate, a frequency,
// executionRule or dayOfExecution outside the Berlin Group code lists,
// and a MonthlyVariable order without its months or with a month twice
// (docs/interface.md section 7: "periodic payment with frequency
// MonthlyVariable and duplicate month identifiers: rejected"). Before
// the fix only the embedded payment was validated and these were sent.
// Each value at the edge of a rule is sent.
func TestCreatePeriodicChecksScheduleBeforeSending(t *testing.T) {
	const path = "/v1/periodic-payments/norwegian-domestic-credit-transfers"
	for _, tc := range []struct {
		name  string
		edit  func(o *standingOrderAt)
		field string // "" means sent
	}{
		{"valid: monthly from a week ahead", func(*standingOrderAt) {}, ""},
		{"valid: startDate today in Oslo", func(o *standingOrderAt) { o.StartDate = "2025-03-10" }, ""},
		{"valid: endDate on startDate", func(o *standingOrderAt) { o.EndDate = o.StartDate }, ""},
		{"valid: dayOfExecution 1", func(o *standingOrderAt) { o.DayOfExecution = "1" }, ""},
		{"valid: dayOfExecution 31", func(o *standingOrderAt) { o.DayOfExecution = "31" }, ""},
		{"valid: executionRule following", func(o *standingOrderAt) { o.ExecutionRule = "following" }, ""},
		{"valid: executionRule preceding", func(o *standingOrderAt) { o.ExecutionRule = "preceding" }, ""},
		{"valid: MonthlyVariable with distinct months", func(o *standingOrderAt) {
			o.Frequency, o.MonthsOfExecution = "MonthlyVariable", []string{"1", "6", "12"}
		}, ""},

		{"startDate yesterday in Oslo", func(o *standingOrderAt) { o.StartDate = "2025-03-09" }, "startDate"},
		{"startDate not a date", func(o *standingOrderAt) { o.StartDate = "17.03.2025" }, "startDate"},
		{"startDate not a calendar date", func(o *standingOrderAt) { o.StartDate = "2025-04-31" }, "startDate"},
		{"endDate before startDate", func(o *standingOrderAt) { o.EndDate = "2025-03-16" }, "endDate"},
		{"endDate not a date", func(o *standingOrderAt) { o.EndDate = "2025-13-01" }, "endDate"},
		{"frequency unknown", func(o *standingOrderAt) { o.Frequency = "Hourly" }, "frequency"},
		{"frequency in another case", func(o *standingOrderAt) { o.Frequency = "monthly" }, "frequency"},
		{"executionRule unknown", func(o *standingOrderAt) { o.ExecutionRule = "nearest" }, "executionRule"},
		{"dayOfExecution 0", func(o *standingOrderAt) { o.DayOfExecution = "0" }, "dayOfExecution"},
		{"dayOfExecution 32", func(o *standingOrderAt) { o.DayOfExecution = "32" }, "dayOfExecution"},
		{"dayOfExecution not a number", func(o *standingOrderAt) { o.DayOfExecution = "last" }, "dayOfExecution"},
		{"MonthlyVariable without months", func(o *standingOrderAt) { o.Frequency = "MonthlyVariable" }, "monthsOfExecution"},
		{"MonthlyVariable with a month twice", func(o *standingOrderAt) {
			o.Frequency, o.MonthsOfExecution = "MonthlyVariable", []string{"1", "6", "1"}
		}, "monthsOfExecution[2]"},
		{"MonthlyVariable with month 13", func(o *standingOrderAt) {
			o.Frequency, o.MonthsOfExecution = "MonthlyVariable", []string{"13"}
		}, "monthsOfExecution[0]"},
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
			require.ErrorIs(t, err, client.ErrValidation)
			require.ErrorIs(t, err, client.ErrNotSent)
			assert.Nil(t, got.req, "nothing sent")
			assert.Equal(t, []string{tc.field}, fields(t, err))
		})
	}
}

// The schedule is read from the encoded body, whatever its type: a map,
// and a JSON number where the Berlin Group writes a string.
func TestCreatePeriodicChecksScheduleOfAnyBody(t *testing.T) {
	const path = "/v1/periodic-payments/norwegian-domestic-credit-transfers"
	raw, err := json.Marshal(validNDCT())
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		set   map[string]any
		field string
	}{
		{"valid map", map[string]any{"startDate": "2025-03-17", "frequency": "Weekly"}, ""},
		{"valid map with null endDate", map[string]any{"startDate": "2025-03-17", "frequency": "Weekly", "endDate": nil}, ""},
		{"map with a past startDate", map[string]any{"startDate": "2024-12-31", "frequency": "Weekly"}, "startDate"},
		{"map with dayOfExecution a number", map[string]any{"startDate": "2025-03-17", "frequency": "Monthly", "dayOfExecution": 5}, "dayOfExecution"},
		{"map with months twice", map[string]any{"startDate": "2025-03-17", "frequency": "MonthlyVariable",
			"monthsOfExecution": []string{"03", "3"}}, "monthsOfExecution[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			got := respond(t, http.MethodPost, path, http.StatusCreated, "payment-ndct-create-201.json")
			var body map[string]any
			require.NoError(t, json.Unmarshal(raw, &body))
			for k, v := range tc.set {
				body[k] = v
			}
			_, err := svc.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, body, psuPresent()...)
			if tc.field == "" {
				require.NoError(t, err)
				require.NotNil(t, got.req)
				return
			}
			assert.Nil(t, got.req, "nothing sent")
			assert.Equal(t, []string{tc.field}, fields(t, err))
		})
	}
}

// A single payment's body is not read for periodic fields: a
// "frequency" member means nothing under /v1/payments.
func TestCreateSingleIgnoresPeriodicMembers(t *testing.T) {
	svc := newMockService(t)
	got := respond(t, http.MethodPost, "/v1/payments/cross-border-credit-transfers", http.StatusCreated, "payment-ndct-create-201.json")
	_, err := svc.Create(t.Context(), payments.ProductCrossBorder, map[string]string{"frequency": "Hourly", "startDate": "2000-01-01"}, psuPresent()...)
	require.NoError(t, err)
	require.NotNil(t, got.req)
}

// The startDate is compared with today in Norway: at 23:30 UTC on 9
// March 2025 it is already 10 March in Oslo.
func TestPeriodicStartDateInOslo(t *testing.T) {
	t.Parallel()
	o := validStandingOrder()
	o.StartDate = "2025-03-09"
	raw, err := json.Marshal(o)
	require.NoError(t, err)
	lateEvening := date.Date{Year: 2025, Month: 3, Day: 9}.Time(nil).Add(23*60*60*1e9 + 30*60*1e9)
	err = payments.ValidateSchedule(raw, lateEvening)
	assert.Equal(t, []string{"startDate"}, fields(t, err))
	assert.True(t, strings.Contains(err.Error(), "2025-03-10"), err.Error())
	assert.NoError(t, payments.ValidateSchedule(raw, lateEvening.Add(-60*60*1e9)), "22:30 UTC is 23:30 on 9 March in Oslo")
}

// A single payment's own type handed as it is to CreatePeriodic or
// CreateBulk has no schedule and no list of payments, which the bank
// requires there: it is refused before sending, naming the missing
// members. Before the fix the payment's Validate passed it and it was
// sent to /v1/periodic-payments or /v1/bulk-payments.
func TestCreatePeriodicAndBulkRefuseABareSinglePayment(t *testing.T) {
	for _, tc := range []struct {
		name   string
		create func(*payments.Service, *testing.T) error
		fields []string
	}{
		{"periodic NDCT", func(s *payments.Service, t *testing.T) error {
			_, err := s.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, validNDCT(), psuPresent()...)
			return err
		}, []string{"startDate", "frequency"}},
		{"periodic NDCT value", func(s *payments.Service, t *testing.T) error {
			_, err := s.CreatePeriodic(t.Context(), payments.ProductNorwegianDomestic, *validNDCT(), psuPresent()...)
			return err
		}, []string{"startDate", "frequency"}},
		{"periodic SEPA", func(s *payments.Service, t *testing.T) error {
			_, err := s.CreatePeriodic(t.Context(), payments.ProductSEPA, validSEPA(), psuPresent()...)
			return err
		}, []string{"startDate", "frequency"}},
		{"bulk NDCT", func(s *payments.Service, t *testing.T) error {
			_, err := s.CreateBulk(t.Context(), payments.ProductNorwegianDomestic, validNDCT(), psuPresent()...)
			return err
		}, []string{"payments"}},
		{"bulk SEPA value", func(s *payments.Service, t *testing.T) error {
			_, err := s.CreateBulk(t.Context(), payments.ProductSEPA, *validSEPA(), psuPresent()...)
			return err
		}, []string{"payments"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			err := tc.create(svc, t)
			require.ErrorIs(t, err, client.ErrNotSent)
			var got []string
			for _, ve := range validationErrors(err) {
				got = append(got, ve.Field)
			}
			assert.Equal(t, tc.fields, got)
			assert.Equal(t, 0, httpmock.GetTotalCallCount(), "nothing sent")
		})
	}
}
