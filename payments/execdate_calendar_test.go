package payments_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/date"
)

// TestValidateRefusesImpossibleExecutionDate checks that a
// requestedExecutionDate that is no calendar date is refused before
// sending: the field is an ISO 8601 date YYYY-MM-DD (docs/interface.md
// sections 1.7, 2.1, 2.4 and 2.5), and date.Date is a struct a caller
// fills in by hand. Before the fix Validate only compared the date with
// today after time.Date had normalised it, so 2025-04-31 (read as 1 May),
// month 13, month 0, day 0 or day 32 passed and were sent to the bank
// as "2025-04-31", "2025-13-01", "2026-00-15"..., which it refuses.
func TestValidateRefusesImpossibleExecutionDate(t *testing.T) {
	t.Parallel()
	for _, d := range []date.Date{
		{Year: 2025, Month: 4, Day: 31},
		{Year: 2025, Month: 13, Day: 1},
		{Year: 2026, Month: 0, Day: 15},
		{Year: 2025, Month: 12, Day: 32},
		{Year: 2026, Month: 1, Day: 0},
		{Year: 2026, Month: 2, Day: 29},
		{Year: 10000, Month: 1, Day: 1},
	} {
		ndct := validNDCT()
		ndct.RequestedExecutionDate = d
		assert.Equal(t, []string{"requestedExecutionDate"}, fields(t, ndct.Validate(testNow)), "NDCT, %s", d)

		sepa := validSEPA()
		sepa.RequestedExecutionDate = d
		assert.Equal(t, []string{"requestedExecutionDate"}, fields(t, sepa.Validate(testNow)), "SEPA, %s", d)
	}
	// A real date later than today passes (2028 is a leap year).
	p := validNDCT()
	p.RequestedExecutionDate = date.Date{Year: 2028, Month: 2, Day: 29}
	assert.NoError(t, p.Validate(testNow))
}
