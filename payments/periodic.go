package payments

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/checkdigit"
)

// frequencies are the frequency codes of a periodic payment (Berlin
// Group NextGenPSD2 1.3, FrequencyCode), as the platform takes them.
var frequencies = []string{"Daily", "Weekly", "EveryTwoWeeks", "Monthly", "EveryTwoMonths",
	"Quarterly", "SemiAnnual", "Annual", "MonthlyVariable"}

// frequencyMonthlyVariable is the frequency whose months are listed in
// monthsOfExecution.
const frequencyMonthlyVariable = "MonthlyVariable"

// executionRules are the executionRule values of a periodic payment.
var executionRules = []string{"following", "preceding"}

// ValidateSchedule checks the schedule of a periodic payment's encoded
// JSON body, the Berlin Group members beside the payment's fields, as
// [Service.CreatePeriodic] does before sending whatever the body's type.
// Only the members present (and not null) are checked, each as the bank
// checks it:
//
//   - startDate: a date YYYY-MM-DD, not before today in Norway
//     ([BankToday]; the bank answers EXECUTION_DATE_INVALID);
//   - endDate: a date YYYY-MM-DD, not before startDate;
//   - frequency: Daily, Weekly, EveryTwoWeeks, Monthly, EveryTwoMonths,
//     Quarterly, SemiAnnual, Annual or MonthlyVariable, in that case;
//   - executionRule: following or preceding;
//   - dayOfExecution: a day of the month, 1 to 31, as a string of
//     digits ([scheduleNumber]);
//   - monthsOfExecution: a JSON array of strings; with frequency
//     MonthlyVariable, the only one whose months the bank reads, it is
//     required and holds months 1 to 12 ([scheduleNumber]), none twice
//     (docs/interface.md section 7: a MonthlyVariable order with a month
//     twice is rejected). Under another frequency its values are left
//     to the bank.
//
// It returns nil, or every broken rule as a [*client.ValidationError]
// naming the member (joined with errors.Join). A body that is no JSON
// object is left to the bank.
func ValidateSchedule(body []byte, now time.Time) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil
	}
	var v problems
	str := func(name string) (string, bool) {
		raw, ok := m[name]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return "", false
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			v.add(name, "must be a JSON string")
			return "", false
		}
		return s, true
	}
	day := func(name, s string) (date.Date, bool) {
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			v.add(name, "not a calendar date YYYY-MM-DD")
			return date.Date{}, false
		}
		return date.Of(t), true
	}

	start, hasStart := str("startDate")
	var startDay date.Date
	if hasStart {
		if d, ok := day("startDate", start); ok {
			startDay = d
			v.executionDate("startDate", d, now)
		}
	}
	if end, ok := str("endDate"); ok {
		if d, ok := day("endDate", end); ok && !startDay.IsZero() && d.Before(startDay) {
			v.add("endDate", "before startDate")
		}
	}
	frequency, hasFrequency := str("frequency")
	if hasFrequency && !slices.Contains(frequencies, frequency) {
		v.add("frequency", "not one of the frequency codes (Daily, Weekly, EveryTwoWeeks, Monthly, EveryTwoMonths, Quarterly, SemiAnnual, Annual, MonthlyVariable)")
	}
	if rule, ok := str("executionRule"); ok && !slices.Contains(executionRules, rule) {
		v.add("executionRule", "must be following or preceding")
	}
	if d, ok := str("dayOfExecution"); ok && !scheduleNumber(d, 1, 31) {
		v.add("dayOfExecution", "not a day of the month, 1 to 31")
	}
	months, hasMonths := m["monthsOfExecution"]
	hasMonths = hasMonths && !bytes.Equal(bytes.TrimSpace(months), []byte("null"))
	if hasMonths {
		var list []json.RawMessage
		if err := json.Unmarshal(months, &list); err != nil {
			v.add("monthsOfExecution", "must be a JSON array of months")
		} else {
			variable := frequency == frequencyMonthlyVariable
			seen := map[int]int{}
			for i, raw := range list {
				field := "monthsOfExecution[" + strconv.Itoa(i) + "]"
				var s string
				if err := json.Unmarshal(raw, &s); err != nil {
					v.add(field, "must be a JSON string")
					continue
				}
				if !variable {
					continue // the bank reads no months under another frequency
				}
				if !scheduleNumber(s, 1, 12) {
					v.add(field, "not a month, \"1\" to \"12\"")
					continue
				}
				n, _ := strconv.Atoi(s)
				if j, dup := seen[n]; dup {
					v.add(field, "repeats the month of monthsOfExecution["+strconv.Itoa(j)+"]")
					continue
				}
				seen[n] = i
			}
			if len(list) == 0 && frequency == frequencyMonthlyVariable {
				v.add("monthsOfExecution", "required with frequency MonthlyVariable")
			}
		}
	} else if frequency == frequencyMonthlyVariable {
		v.add("monthsOfExecution", "required with frequency MonthlyVariable")
	}
	return v.err()
}

// requiredSchedule refuses a periodic payment's encoded body that lacks
// startDate or frequency (absent or null), the two members the periodic
// payment of docs/openapi.json requires (Berlin Group NextGenPSD2 1.3)
// and the bank refuses a body without (400 FORMAT_ERROR), as
// [bareSingle] refuses a single payment's own type for lacking them. It
// is a check of [Service.CreatePeriodic], beside [ValidateSchedule],
// which checks the members present. A body that is no JSON object is
// left to the bank.
func requiredSchedule(body []byte, _ time.Time) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil
	}
	var v problems
	for _, name := range []string{"startDate", "frequency"} {
		if raw, ok := m[name]; !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			v.add(name, "required: a periodic payment carries startDate and frequency beside the payment")
		}
	}
	return v.err()
}

// scheduleNumber reports whether s, a periodic payment's dayOfExecution
// (lo 1, hi 31) or one of its monthsOfExecution (1 to 12), is a number
// the bank takes: ASCII digits only, whose value is within lo and hi.
// This is the one place of the SDK's choice on how a day or a month is
// written. docs/interface.md says nothing of it (Berlin Group writes
// them without leading zeroes), and a payment is refused before sending
// only for what the bank surely refuses: a value that is no day or no
// month ("0", "32", "last", "+1"). A leading zero ("01", "001") names
// the same day or month and is sent, as the bank emulator takes it
// (sandbox/emulator/internal/paymentrules, periodic); under
// MonthlyVariable "001" and "1" are the same month, so a repeat.
func scheduleNumber(s string, lo, hi int) bool {
	if s == "" || !checkdigit.AllDigits(s) {
		return false
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= lo && n <= hi
}
