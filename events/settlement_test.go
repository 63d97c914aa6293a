package events_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/money"
)

// TestSettlementEventsOncePerPayment: a payment's settlement, stall and
// return are each one fact, whatever booking, amount or date a second
// emission carries (a replica, or the same credit read again under a
// new key after a re-consent): the same ID, so that the Emitter and the
// outbox deliver each once. The three are distinct facts, and share the
// payment's Key with its status events, so the outbox keeps their order.
func TestSettlementEventsOncePerPayment(t *testing.T) {
	t.Parallel()
	d1, d2 := date.Date{Year: 2026, Month: 4, Day: 7}, date.Date{Year: 2026, Month: 4, Day: 8}
	nok := func(s string) money.Amount { return money.MustParse(s, "NOK") }
	pairs := [][2]events.Event{
		{events.PaymentSettled{Payment: "p", Booking: "k1", BookingDate: d1, Amount: nok("1.00"), Instructed: nok("1.00"), MatchedBy: "kid"},
			events.PaymentSettled{Payment: "p", Booking: "k9", BookingDate: d2, Amount: nok("2.00"), Instructed: nok("1.00"), MatchedBy: "remittance"}},
		{events.PaymentSettlementStalled{Payment: "p", Scheme: "domestic", Accepted: d1, Deadline: d2},
			events.PaymentSettlementStalled{Payment: "p", Scheme: "sepa", Accepted: d2, Deadline: d2}},
		{events.PaymentReturned{Payment: "p", Booking: "k2", Settled: "k1", BookingDate: d1, Amount: nok("-1.00")},
			events.PaymentReturned{Payment: "p", Booking: "k3", Settled: "k9", BookingDate: d2, Amount: nok("-2.00")}},
	}
	ids := map[string]bool{}
	status, err := events.Wrap(events.PaymentStatusChanged{Payment: "p", From: "ACTC", To: "ACSC"}, time.Now())
	require.NoError(t, err)
	for _, p := range pairs {
		a, err := events.Wrap(p[0], time.Now())
		require.NoError(t, err)
		b, err := events.Wrap(p[1], time.Now())
		require.NoError(t, err)
		assert.Equal(t, a.ID, b.ID, "%s: one fact per payment", a.Kind)
		assert.False(t, ids[a.ID], "%s: a fact of its own", a.Kind)
		ids[a.ID] = true
		assert.Equal(t, status.Key, a.Key, "%s: the payment's key", a.Kind)
		other, err := events.Wrap(p[0], time.Now())
		require.NoError(t, err)
		assert.Equal(t, a.ID, other.ID)
	}
	q, err := events.Wrap(events.PaymentSettled{Payment: "q", Booking: "k1", BookingDate: d1, Amount: nok("1.00"), Instructed: nok("1.00"), MatchedBy: "kid"}, time.Now())
	require.NoError(t, err)
	assert.False(t, ids[q.ID], "another payment, another fact")
}

// TestSettlementEventMembers pins the JSON members of the settlement
// events: amounts, dates, keys and codes, nothing else.
func TestSettlementEventMembers(t *testing.T) {
	t.Parallel()
	d := date.Date{Year: 2026, Month: 4, Day: 7}
	for _, tc := range []struct {
		ev   events.Event
		want string
	}{
		{events.PaymentSettled{Payment: "p", Booking: "k", BookingDate: d, Amount: money.MustParse("9.00", "NOK"),
			Instructed: money.MustParse("10.00", "NOK"), DifferentAmount: true, MatchedBy: "kid", Late: true},
			`{"payment":"p","booking":"k","bookingDate":"2026-04-07","amount":{"amount":"9.00","currency":"NOK"},` +
				`"instructed":{"amount":"10.00","currency":"NOK"},"differentAmount":true,"matchedBy":"kid","late":true}`},
		{events.PaymentSettlementStalled{Payment: "p", Scheme: "sepa", Accepted: d, Deadline: d},
			`{"payment":"p","scheme":"sepa","accepted":"2026-04-07","deadline":"2026-04-07"}`},
		{events.PaymentReturned{Payment: "p", Booking: "k2", Settled: "k", BookingDate: d, Amount: money.MustParse("-9.00", "NOK")},
			`{"payment":"p","booking":"k2","settled":"k","bookingDate":"2026-04-07","amount":{"amount":"-9.00","currency":"NOK"}}`},
	} {
		b, err := json.Marshal(tc.ev)
		require.NoError(t, err)
		assert.JSONEq(t, tc.want, string(b))
	}
}

// TestSettlementWithdrawnIdentity: each withdrawal of a payment's
// settlement, and the settlement after it, is a fact of its own; a
// payment's first settlement has one ID whatever its booking; the
// withdrawal shares the payment's Key and decodes back.
func TestSettlementWithdrawnIdentity(t *testing.T) {
	t.Parallel()
	d := date.Date{Year: 2026, Month: 4, Day: 7}
	nok := money.MustParse("1.00", "NOK")
	wrap := func(ev events.Event) events.Envelope {
		env, err := events.Wrap(ev, time.Now())
		require.NoError(t, err)
		return env
	}
	first := wrap(events.PaymentSettled{Payment: "p", Booking: "k1", BookingDate: d, Amount: nok, Instructed: nok, MatchedBy: "kid"})
	again := wrap(events.PaymentSettled{Payment: "p", Booking: "k2", BookingDate: d, Amount: nok, Instructed: nok, MatchedBy: "kid", Withdrawals: 1})
	w1 := wrap(events.PaymentSettlementWithdrawn{Payment: "p", Booking: "k1", BookingDate: d, Amount: nok, Withdrawal: 1})
	w1b := wrap(events.PaymentSettlementWithdrawn{Payment: "p", Booking: "k9", BookingDate: d, Amount: nok, Withdrawal: 1})
	w2 := wrap(events.PaymentSettlementWithdrawn{Payment: "p", Booking: "k2", BookingDate: d, Amount: nok, Withdrawal: 2})
	ids := map[string]bool{first.ID: true, again.ID: true, w1.ID: true, w2.ID: true}
	assert.Len(t, ids, 4)
	assert.Equal(t, w1.ID, w1b.ID, "one withdrawal, one fact")
	assert.Equal(t, first.Key, w1.Key)
	ev, err := w1.Event()
	require.NoError(t, err)
	assert.Equal(t, events.PaymentSettlementWithdrawn{Payment: "p", Booking: "k1", BookingDate: d, Amount: nok, Withdrawal: 1}, ev)
	b, err := json.Marshal(ev)
	require.NoError(t, err)
	assert.JSONEq(t, `{"payment":"p","booking":"k1","bookingDate":"2026-04-07","amount":{"amount":"1.00","currency":"NOK"},"withdrawal":1}`, string(b))
	other := wrap(events.PaymentSettled{Payment: "p", Booking: "k9", BookingDate: d, Amount: nok, Instructed: nok, MatchedBy: "remittance"})
	assert.Equal(t, first.ID, other.ID, "a first settlement: the payment's one ID, as before")
}
