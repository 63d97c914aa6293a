package events_test

import (
	"context"
	"crypto/x509"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/store"
)

// collector is an in-process Handler keeping the typed events.
type collector struct {
	mu  sync.Mutex
	evs []events.Event
	ids []string
}

func (c *collector) handler() events.Handler {
	return func(ctx context.Context, e events.Envelope) error {
		ev, err := e.Event()
		if err != nil {
			return err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.evs = append(c.evs, ev)
		c.ids = append(c.ids, e.ID)
		return nil
	}
}

func TestConsentRenewalRepeatedPerThreshold(t *testing.T) {
	clk := testtpp.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	col := &collector{}
	em, err := events.NewEmitter(col.handler(), events.WithClock(clk.Now), events.WithRenewalDays(10, 2))
	require.NoError(t, err)
	ctx := t.Context()
	ends := clk.Now().Add(30 * 24 * time.Hour)
	// Checked every day until after the end: one event at 10 days, one
	// at 2, one when it has expired; nothing else.
	for range 32 {
		require.NoError(t, em.Consent(ctx, "tpp-consent-7", ends))
		clk.Add(24 * time.Hour)
	}
	require.Len(t, col.evs, 3)
	r1, ok := col.evs[0].(events.ConsentRenewalDue)
	require.True(t, ok, "%T", col.evs[0])
	assert.Equal(t, 10, r1.Threshold)
	assert.Equal(t, 10, r1.DaysLeft)
	assert.Equal(t, "tpp-consent-7", r1.Consent)
	r2 := col.evs[1].(events.ConsentRenewalDue)
	assert.Equal(t, 2, r2.Threshold)
	exp, ok := col.evs[2].(events.ConsentExpired)
	require.True(t, ok, "%T", col.evs[2])
	assert.True(t, exp.Ends.Equal(ends))
}

func TestRenewalAfterLongPauseSendsOnlyTheSmallest(t *testing.T) {
	clk := testtpp.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	col := &collector{}
	em, err := events.NewEmitter(col.handler(), events.WithClock(clk.Now))
	require.NoError(t, err)
	require.NoError(t, em.Consent(t.Context(), "c", clk.Now().Add(36*time.Hour)))
	require.Len(t, col.evs, 1)
	assert.Equal(t, 3, col.evs[0].(events.ConsentRenewalDue).Threshold, "2 days left: the 3-day threshold")
}

func TestSharedStoreEmitsOnce(t *testing.T) {
	st := store.NewMemoryStore()
	col := &collector{}
	clk := testtpp.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	var ems []*events.Emitter
	for range 2 { // two replicas
		em, err := events.NewEmitter(col.handler(), events.WithStore(st), events.WithClock(clk.Now))
		require.NoError(t, err)
		ems = append(ems, em)
	}
	for _, em := range ems {
		require.NoError(t, em.PaymentStatus(t.Context(), "req-1", "RCVD", "ACSC"))
	}
	assert.Len(t, col.evs, 1)
}

func TestPublishFailureIsNotRemembered(t *testing.T) {
	fail := true
	var got []events.Envelope
	sink := events.Handler(func(_ context.Context, e events.Envelope) error {
		if fail {
			return errors.New("down")
		}
		got = append(got, e)
		return nil
	})
	em, err := events.NewEmitter(sink)
	require.NoError(t, err)
	require.Error(t, em.PaymentStatus(t.Context(), "req-1", "RCVD", "ACSC"))
	fail = false
	require.NoError(t, em.PaymentStatus(t.Context(), "req-1", "RCVD", "ACSC"))
	assert.Len(t, got, 1, "an event whose publication failed is published on the next check")
}

func TestErrorEvents(t *testing.T) {
	col := &collector{}
	clk := testtpp.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	ends := time.Date(2027, 1, 30, 9, 0, 0, 0, time.UTC)
	ctx := t.Context()
	bankErr := func(status int, code string, sca bool) error {
		e := &client.Error{StatusCode: status, Messages: []client.TPPMessage{{Code: code}}}
		if sca {
			e.Links = client.Links{"scaRedirect": {Href: "https://bank.example/sca"}}
		}
		return e
	}
	cases := []struct {
		err     error
		payment bool // PaymentError, else ConsentError
		present bool
		want    events.Event
	}{
		{&client.OutcomeUnknownError{Operation: "payments.CreateNorwegianDomestic"}, true, true,
			events.PaymentOutcomeUnknown{Payment: "ref", Operation: "payments.CreateNorwegianDomestic"}},
		{&client.OutcomeUnknownError{Operation: "payments.CreateNorwegianDomestic"}, false, true, nil}, // not a consent's
		{bankErr(401, client.CodeConsentExpired, false), true, false, nil},                             // not a payment's
		{bankErr(401, client.CodeConsentExpired, false), false, false, events.ConsentExpired{Consent: "ref", Ends: ends}},
		{bankErr(401, client.CodeConsentInvalid, false), false, false, events.ConsentRevoked{Consent: "ref", Ends: ends, Code: client.CodeConsentInvalid}},
		{bankErr(403, client.CodeConsentUnknown, false), false, false, events.ConsentRevoked{Consent: "ref", Ends: ends, Code: client.CodeConsentUnknown}},
		{bankErr(401, client.CodeConsentInvalid, true), false, false, events.ReconnectRequired{Consent: "ref", Ends: ends, Day: "2026-11-01"}},
		{bankErr(401, client.CodeConsentInvalid, true), false, true, nil}, // the PSU is there: the SCA follows now
		{bankErr(http.StatusBadRequest, client.CodeFormatError, false), false, false, nil},
	}
	for i, c := range cases {
		col.evs = nil
		st := store.NewMemoryStore() // each case on fresh memory
		em, err := events.NewEmitter(col.handler(), events.WithClock(clk.Now), events.WithStore(st))
		require.NoError(t, err)
		var had bool
		if c.payment {
			had, err = em.PaymentError(ctx, "ref", c.err)
		} else {
			had, err = em.ConsentError(ctx, "ref", ends, c.present, c.err)
		}
		require.NoError(t, err)
		if c.want == nil {
			assert.False(t, had, "case %d", i)
			assert.Empty(t, col.evs, "case %d", i)
			continue
		}
		assert.True(t, had, "case %d", i)
		require.Len(t, col.evs, 1, "case %d", i)
		assert.Equal(t, c.want, col.evs[0], "case %d", i)
		if !c.payment {
			// Without the consent's end, the event cannot be told from
			// another consent's: refused, and nothing is published.
			col.evs = nil
			had, err = em.ConsentError(ctx, "ref", time.Time{}, c.present, c.err)
			assert.True(t, had, "case %d", i)
			require.Error(t, err, "case %d", i)
			assert.Empty(t, col.evs, "case %d", i)
		}
	}
}

func TestCertificateExpiring(t *testing.T) {
	clk := testtpp.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	col := &collector{}
	em, err := events.NewEmitter(col.handler(), events.WithClock(clk.Now), events.WithCertificateDays(7))
	require.NoError(t, err)
	cert := &x509.Certificate{NotAfter: clk.Now().Add(20 * 24 * time.Hour)}
	require.NoError(t, em.Certificate(t.Context(), "qwac", cert))
	assert.Empty(t, col.evs)
	clk.Add(14 * 24 * time.Hour)
	require.NoError(t, em.Certificate(t.Context(), "qwac", cert))
	require.NoError(t, em.Certificate(t.Context(), "qwac", cert))
	require.Len(t, col.evs, 1)
	ce := col.evs[0].(events.CertificateExpiring)
	assert.Equal(t, events.CertificateExpiring{Role: "qwac", NotAfter: cert.NotAfter, DaysLeft: 6, Threshold: 7}, ce)
}

func TestEnvelopeRoundTrip(t *testing.T) {
	all := []events.Event{
		events.ConsentRenewalDue{Consent: "c", Ends: time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC), DaysLeft: 3, Threshold: 3},
		events.ConsentExpired{Consent: "c", Ends: time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)},
		events.ConsentRevoked{Consent: "c", Ends: time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC), Code: "CONSENT_INVALID"},
		events.ReconnectRequired{Consent: "c", Ends: time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC), Day: "2026-11-01"},
		events.PaymentStatusChanged{Payment: "p", From: "RCVD", To: "ACSC"},
		events.PaymentOutcomeUnknown{Payment: "p", Operation: "o"}, events.PaymentInDoubt{Payment: "p", Operation: "o"},
		events.CertificateExpiring{Role: "signing", NotAfter: time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC), DaysLeft: 1, Threshold: 1},
		events.PaymentSettled{Payment: "p", Booking: "k1", BookingDate: date.Date{Year: 2026, Month: 4, Day: 7},
			Amount: money.MustParse("99.00", "NOK"), Instructed: money.MustParse("100.00", "NOK"), DifferentAmount: true,
			MatchedBy: "kid", Late: true},
		events.PaymentSettlementStalled{Payment: "p", Scheme: "domestic", Accepted: date.Date{Year: 2026, Month: 4, Day: 1},
			Deadline: date.Date{Year: 2026, Month: 4, Day: 7}},
		events.PaymentReturned{Payment: "p", Booking: "k2", Settled: "k1", BookingDate: date.Date{Year: 2026, Month: 4, Day: 9},
			Amount: money.MustParse("-99.00", "NOK")},
	}
	ids := map[string]bool{}
	for _, ev := range all {
		env, err := events.Wrap(ev, time.Now())
		require.NoError(t, err)
		back, err := env.Event()
		require.NoError(t, err)
		assert.Equal(t, ev, back)
		assert.False(t, ids[env.ID], "IDs of different facts differ")
		ids[env.ID] = true
		again, _ := events.Wrap(ev, time.Now().Add(time.Hour))
		assert.Equal(t, env.ID, again.ID, "the same fact has the same ID")
	}
	_, err := events.Envelope{Kind: "nope"}.Event()
	require.ErrorIs(t, err, events.ErrUnknownKind)
	_, err = events.Envelope{Kind: events.KindPaymentInDoubt, Data: []byte("{")}.Event()
	require.Error(t, err)
}

func TestOptionsRefused(t *testing.T) {
	h := events.Handler(func(context.Context, events.Envelope) error { return nil })
	_, err := events.NewEmitter(nil)
	require.Error(t, err)
	for _, o := range []events.Option{events.WithRenewalDays(), events.WithRenewalDays(-1), events.WithCertificateDays(99999),
		events.WithStore(nil), events.WithClock(nil)} {
		_, err := events.NewEmitter(h, o)
		require.Error(t, err)
	}
}
