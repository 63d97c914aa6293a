package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
)

// TestNoCreditBeforeTheExecutionDate: a payment with a requested
// execution date leaves its debtor's account on that date (a weekend or
// holiday one on a banking day next to it): a credit of its text and
// amount, or its KID, booked days before is another's (the invoice paid
// by hand, last month's rent) and settles nothing; the credit booked on
// the date settles it. Before, a credit booked any day after the
// creation settled a payment that had not been executed.
func TestNoCreditBeforeTheExecutionDate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "2026-03-16")
	for _, p := range []reconcile.Payment{
		{RequestID: "rent", Remittance: "Husleie april", ExecutionDate: day("2026-04-01")},
		{RequestID: "kid", KID: "1234567890128", ExecutionDate: day("2026-04-01")},
		// Easter Sunday 5 April: a bank may pay it on the last banking
		// day before, Wednesday 1 April (Maundy Thursday and Good Friday
		// are holidays).
		{RequestID: "easter", Remittance: "Faktura 55 april", ExecutionDate: day("2026-04-05")},
	} {
		f.clk.Add(1)
		p.Created, p.Product, p.Amount, p.CreditorBBAN = f.clk.Now(), payments.ProductNorwegianDomestic, nok("8750.00"), merchantBBAN
		p.Status, p.StatusAt = payments.StatusACTC, f.clk.Now()
		_, err := f.r.Track(t.Context(), p)
		require.NoError(t, err)
	}
	f.at("2026-03-20")
	r := f.apply(credit("early", "2026-03-20", nok("8750.00"), "Husleie april"),
		credit("earlykid", "2026-03-20", nok("8750.00"), "KID 1234567890128"),
		credit("eastereve", "2026-03-31", nok("8750.00"), "Faktura 55 april"))
	assert.Empty(t, r.Settled, "booked before the execution date")
	assert.Len(t, r.Unmatched, 3)

	f.at("2026-04-01")
	r = f.apply(credit("rent", "2026-04-01", nok("8750.00"), "Husleie april"),
		credit("kid", "2026-04-01", nok("8750.00"), "KID 1234567890128"),
		credit("easter", "2026-04-01", nok("8750.00"), "Faktura 55 april"))
	assert.Len(t, r.Settled, 3)
	for _, id := range []string{"rent", "kid", "easter"} {
		assert.Equal(t, reconcile.Settled, f.state(id).Settlement, id)
	}
}
