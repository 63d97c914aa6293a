package reconcile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFitLetsGoWhatMatchingNoLongerReliesOn: a state above its bound
// lets go the payments not executed that hold no credit, and the bookings
// seen that no payment holds, before it gives up (ErrFull); never a
// waiting payment, nor a closed one holding a credit, nor that credit's
// booking seen. Before, fit let the closed payment go first.
func TestFitLetsGoWhatMatchingNoLongerReliesOn(t *testing.T) {
	t.Parallel()
	nok := amt{units: 10000, scale: 2, cur: "NOK"}
	s := &acctState{since: 20000}
	s.pays = append(s.pays,
		pay{id: "void", created: 1, scheme: Domestic, amt: nok, flags: flagVoid | flagClosed},
		pay{id: "closed", created: 2, scheme: Domestic, amt: nok, flags: flagClosed, out: outSettled,
			o: &outcome{by: ByKID, booking: "k1", bday: 20000, booked: nok}})
	text := strings.Repeat("x", 1000)
	for i := range maxStateBytes / 1000 {
		s.pays = append(s.pays, pay{id: fmt.Sprintf("open-%05d", i), created: 3, scheme: Domestic, amt: nok, text: text})
	}
	s.seen = []seen{{kh: hashString("k0"), fp: 1, day: 20000}, {kh: hashString("k1"), fp: 2, day: 20000}}

	_, ok := fit(s)
	assert.False(t, ok, "the open payments alone are above the bound")
	assert.Negative(t, s.find("void"), "not executed, holding no credit: let go")
	require.GreaterOrEqual(t, s.find("closed"), 0, "its credit is still seen: kept")
	assert.Equal(t, []seen{{kh: hashString("k1"), fp: 2, day: 20000}}, s.seen, "the booking no payment holds let go, k1 kept")
	assert.Len(t, s.pays, 1+maxStateBytes/1000)
}
