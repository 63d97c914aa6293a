package reconcile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFitLetsGoWhatMatchingNoLongerReliesOn: a state above its bound
// lets go the payments not executed that hold no credit, then the
// bookings seen that no payment holds, then the closed payments holding
// a credit, each with its credit's booking seen, before it gives up
// (ErrFull); never a waiting payment. Before, fit let the closed payment
// go first and kept its credit's booking seen.
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
	assert.Negative(t, s.find("closed"), "closed, holding a credit: let go last")
	assert.Empty(t, s.seen, "the booking no payment holds let go, then k1 with its payment")
	assert.Len(t, s.pays, maxStateBytes/1000, "every waiting payment kept")

	// Room made by the booking no payment holds: the closed payment and
	// its credit's booking stay.
	s = &acctState{since: 20000}
	s.pays = append(s.pays, pay{id: "closed", created: 2, scheme: Domestic, amt: nok, flags: flagClosed, out: outSettled,
		o: &outcome{by: ByKID, booking: "k1", bday: 20000, booked: nok}})
	// Waiting payments to 20,000 bytes below the bound, then bookings no
	// payment holds to above it.
	open := func(i int) pay {
		return pay{id: fmt.Sprintf("open-%05d", i), created: 3, scheme: Domestic, amt: nok, text: text}
	}
	for i := 0; len(encodeState(s)) < maxStateBytes-20_000; i += 100 {
		for j := range 100 {
			s.pays = append(s.pays, open(i+j))
		}
	}
	for len(encodeState(s)) >= maxStateBytes-20_000 {
		s.pays = s.pays[:len(s.pays)-1]
	}
	s.seen = append(s.seen, seen{kh: hashString("k1"), fp: 2, day: 20000})
	for i := 0; len(encodeState(s)) <= maxStateBytes; i += 500 {
		for j := range 500 {
			s.seen = append(s.seen, seen{kh: hashString(fmt.Sprintf("other-%d", i+j)), fp: 1, day: 20000})
		}
	}
	require.Greater(t, len(encodeState(s)), maxStateBytes)
	_, ok = fit(s)
	require.True(t, ok)
	assert.GreaterOrEqual(t, s.find("closed"), 0, "kept while bookings no payment holds made room")
	assert.Contains(t, s.seen, seen{kh: hashString("k1"), fp: 2, day: 20000})
}
