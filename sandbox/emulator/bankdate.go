package emulator

import (
	"time"
	_ "time/tzdata" // the bank's zone without zone data on the machine
)

// bankZoneName is the time zone the bank counts its dates in: "today" for
// requestedExecutionDate and startDate, the due date of a PDNG payment in
// the batch, and booking dates. Assumption (docs/interface.md is silent):
// the platform's banks are Norwegian. The SDK's payments package counts in
// the same zone.
const bankZoneName = "Europe/Oslo"

// bankZone is the loaded [bankZoneName]. The zone data is embedded
// (time/tzdata), so loading cannot fail on any machine.
var bankZone = func() *time.Location {
	loc, err := time.LoadLocation(bankZoneName)
	if err != nil {
		panic("emulator: time zone " + bankZoneName + " missing from the embedded zone data: " + err.Error())
	}
	return loc
}()

// bankDate is the bank's date at now, YYYY-MM-DD, whatever now's location.
func bankDate(now time.Time) string {
	return now.In(bankZone).Format(time.DateOnly)
}

// today is the start of the bank's date at now, as midnight UTC of that
// date (a date value: booking dates are printed with time.DateOnly).
func today(now time.Time) time.Time {
	y, m, d := now.In(bankZone).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
