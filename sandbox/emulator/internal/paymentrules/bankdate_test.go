package paymentrules_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules"
	pt "github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules/paymentrulestest"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// osloMidnights are instants one second before and at midnight in Oslo,
// in winter (UTC+1) and summer (UTC+2), with the bank's date at each.
var osloMidnights = []struct {
	name string
	now  time.Time
	date string
}{
	{"winter 23:59:59", time.Date(2026, 1, 15, 22, 59, 59, 0, time.UTC), "2026-01-15"},
	{"winter 00:00:00", time.Date(2026, 1, 15, 23, 0, 0, 0, time.UTC), "2026-01-16"},
	{"summer 23:59:59", time.Date(2026, 7, 1, 21, 59, 59, 0, time.UTC), "2026-07-01"},
	{"summer 00:00:00", time.Date(2026, 7, 1, 22, 0, 0, 0, time.UTC), "2026-07-02"},
	{"summer 00:30 (UTC+1 would say 23:30)", time.Date(2026, 7, 1, 22, 30, 0, 0, time.UTC), "2026-07-02"},
}

func TestBankDateIsOsloDate(t *testing.T) {
	t.Parallel()
	far := time.FixedZone("UTC-10", -10*60*60)
	for _, tc := range osloMidnights {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.date, rules.BankDate(tc.now))
			assert.Equal(t, tc.date, rules.BankDate(tc.now.In(far)), "whatever the clock's zone")
			assert.Equal(t, tc.date, rules.Today(tc.now.In(far)).Format(time.DateOnly))
		})
	}
}

// The execution-date check counts today in Oslo: just after midnight in
// Oslo, yesterday's date is refused although it is still that date in
// UTC; just before, it is accepted.
func TestExecutionDateAroundOsloMidnight(t *testing.T) {
	t.Parallel()
	for _, tc := range osloMidnights {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			day, err := time.Parse(time.DateOnly, tc.date)
			require.NoError(t, err)
			yesterday := day.AddDate(0, 0, -1).Format(time.DateOnly)
			for _, now := range []time.Time{tc.now, tc.now.In(time.FixedZone("UTC-10", -10*60*60))} {
				b := pt.ValidNDCT()
				b["requestedExecutionDate"] = tc.date
				_, e := paymentrules.Check(rules.ServicePayments, rules.ProductNDCT, b.Bytes(), now)
				assert.Nil(t, e, "today in Oslo is accepted")

				b["requestedExecutionDate"] = yesterday
				_, e = paymentrules.Check(rules.ServicePayments, rules.ProductNDCT, b.Bytes(), now)
				assert.Equal(t, &pt.Want{Code: rules.CodeExecutionDateInvalid, Path: "requestedExecutionDate"},
					wantOf(e), "yesterday in Oslo is refused")

				p := pt.ValidPeriodic()
				p["startDate"] = yesterday
				_, e = paymentrules.Check(rules.ServicePeriodic, rules.ProductNDCT, p.Bytes(), now)
				assert.Equal(t, &pt.Want{Code: rules.CodeExecutionDateInvalid, Path: "startDate"}, wantOf(e))
			}
		})
	}
}
