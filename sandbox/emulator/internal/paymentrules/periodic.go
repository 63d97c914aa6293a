package paymentrules

import (
	"fmt"
	"strconv"
	"time"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// periodicFrequencies are the Berlin Group frequency codes.
var periodicFrequencies = map[string]bool{
	"Daily": true, "Weekly": true, "EveryTwoWeeks": true, "Monthly": true,
	"EveryTwoMonths": true, "Quarterly": true, "SemiAnnual": true,
	"Annual": true, "MonthlyVariable": true,
}

// periodic checks the fields of a periodic payment (Berlin Group 1.3):
// startDate, frequency, optional endDate, executionRule, dayOfExecution and,
// for MonthlyVariable, monthsOfExecution without duplicates (docs/interface.md section 7).
// Months are read only under MonthlyVariable; a day or a month is digits
// whose value is in range, leading zeroes allowed ("001" is 1), the choice
// the SDK keeps in one place (payments.scheduleNumber).
func (c paymentCheck) periodic(b *Body) *rules.Violation {
	if b.StartDate == nil {
		return rules.Format("startDate", "startDate is required.")
	}
	if e := c.futureDate(*b.StartDate, "startDate"); e != nil {
		return e
	}
	if b.EndDate != nil {
		if _, err := time.Parse(time.DateOnly, *b.EndDate); err != nil {
			return rules.Format("endDate", "endDate must be a date YYYY-MM-DD.")
		}
		if *b.EndDate < *b.StartDate {
			return rules.Format("endDate", "endDate is before startDate.")
		}
	}
	if b.Frequency == nil {
		return rules.Format("frequency", "frequency is required.")
	}
	if !periodicFrequencies[*b.Frequency] {
		return rules.Format("frequency", "frequency %q is not a known frequency code.", rules.Clip(*b.Frequency))
	}
	if b.ExecutionRule != nil && *b.ExecutionRule != "following" && *b.ExecutionRule != "preceding" {
		return rules.Format("executionRule", "executionRule must be following or preceding.")
	}
	if b.DayOfExecution != nil {
		if n, err := strconv.Atoi(*b.DayOfExecution); err != nil || n < 1 || n > 31 || !rules.AllDigits(*b.DayOfExecution) {
			return rules.Format("dayOfExecution", "dayOfExecution must be a day of the month, 1 to 31.")
		}
	}
	if *b.Frequency != "MonthlyVariable" {
		return nil
	}
	if b.MonthsOfExecution == nil || len(*b.MonthsOfExecution) == 0 {
		return rules.Format("monthsOfExecution", "monthsOfExecution is required with frequency MonthlyVariable.")
	}
	seen := map[int]bool{}
	for i, m := range *b.MonthsOfExecution {
		n, err := strconv.Atoi(m)
		p := fmt.Sprintf("monthsOfExecution[%d]", i)
		if err != nil || n < 1 || n > 12 || !rules.AllDigits(m) {
			return rules.Format(p, "%s must be a month, 1 to 12.", p)
		}
		if seen[n] {
			return rules.Format(p, "%s repeats month %d.", p, n)
		}
		seen[n] = true
	}
	return nil
}

// bulk checks a bulk payment: a debtorAccount and execution date for all,
// and 1 to maxBulkPayments entries each checked like a single payment.
func (c paymentCheck) bulk(b *Body) *rules.Violation {
	if e := c.debtorAccount(b.DebtorAccount, "debtorAccount"); e != nil {
		return e
	}
	if e := c.executionDate(b.RequestedExecutionDate, "requestedExecutionDate"); e != nil {
		return e
	}
	if b.Payments == nil || len(*b.Payments) == 0 {
		return rules.Format("payments", "payments must hold at least one payment.")
	}
	if len(*b.Payments) > maxBulkPayments {
		return rules.Format("payments", "payments holds more than %d payments.", maxBulkPayments)
	}
	for i := range *b.Payments {
		if e := c.single(&(*b.Payments)[i], fmt.Sprintf("payments[%d]", i), false); e != nil {
			return e
		}
	}
	return nil
}
