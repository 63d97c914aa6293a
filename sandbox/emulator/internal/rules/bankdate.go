package rules

import (
	"time"
	_ "time/tzdata" // the bank's zone without zone data on the machine
)

// BankZoneName is the time zone the bank counts its dates in: "today" for
// requestedExecutionDate and startDate, the due date of a PDNG payment in
// the batch, and booking dates. Assumption (docs/interface.md is silent):
// the platform's banks are Norwegian. The SDK's payments package counts in
// the same zone.
const BankZoneName = "Europe/Oslo"

// bankZone is the loaded [BankZoneName]. The zone data is embedded
// (time/tzdata), so loading cannot fail on any machine.
var bankZone = func() *time.Location {
	loc, err := time.LoadLocation(BankZoneName)
	if err != nil {
		panic("emulator/rules: time zone " + BankZoneName + " missing from the embedded zone data: " + err.Error())
	}
	return loc
}()

// BankDate is the bank's date at now, YYYY-MM-DD, whatever now's location.
func BankDate(now time.Time) string {
	return now.In(bankZone).Format(time.DateOnly)
}

// Today is the start of the bank's date at now, as midnight UTC of that
// date (a date value: booking dates are printed with time.DateOnly).
func Today(now time.Time) time.Time {
	y, m, d := now.In(bankZone).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
