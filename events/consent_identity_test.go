package events_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/store"
)

// TestSecondConsentExpiresToo lets a consent end, then a second consent
// under the same reference (the PSU came back and consented again) end
// too: each gets its ConsentExpired.
func TestSecondConsentExpiresToo(t *testing.T) {
	clk := testtpp.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	col := &collector{}
	em, err := events.NewEmitter(col.handler(), events.WithClock(clk.Now), events.WithStore(store.NewMemoryStore()))
	require.NoError(t, err)
	ctx := t.Context()
	first := clk.Now().Add(time.Hour)
	clk.Add(2 * time.Hour)
	require.NoError(t, em.Consent(ctx, "customer-42", first))
	second := clk.Now().Add(90 * 24 * time.Hour)
	clk.Add(91 * 24 * time.Hour)
	require.NoError(t, em.Consent(ctx, "customer-42", second))
	require.NoError(t, em.Consent(ctx, "customer-42", second)) // checked again: nothing new

	var expired []events.ConsentExpired
	for _, ev := range col.evs {
		if e, ok := ev.(events.ConsentExpired); ok {
			expired = append(expired, e)
		}
	}
	require.Len(t, expired, 2, "one ConsentExpired per consent")
	assert.True(t, expired[0].Ends.Equal(first))
	assert.True(t, expired[1].Ends.Equal(second))
	assert.NotEqual(t, col.ids[0], col.ids[1])
}

// TestSecondConsentRevokedAndReconnect revokes a consent, then a second
// one under the same reference; each also meets an SCA demand without
// the PSU on the same day: every consent gets its own events.
func TestSecondConsentRevokedAndReconnect(t *testing.T) {
	clk := testtpp.NewClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	col := &collector{}
	em, err := events.NewEmitter(col.handler(), events.WithClock(clk.Now), events.WithStore(store.NewMemoryStore()))
	require.NoError(t, err)
	ctx := t.Context()
	revoked := &client.Error{StatusCode: 401, Messages: []client.TPPMessage{{Code: client.CodeConsentInvalid}}}
	sca := &client.Error{StatusCode: 401, Messages: []client.TPPMessage{{Code: client.CodeConsentInvalid}},
		Links: client.Links{"scaRedirect": {Href: "https://bank.example/sca"}}}
	first := clk.Now().Add(80 * 24 * time.Hour)
	second := clk.Now().Add(90*24*time.Hour + 3*time.Hour) // consented again three hours later
	for _, ends := range []time.Time{first, second} {
		for range 2 { // each found twice: once each
			_, err := em.ConsentError(ctx, "customer-42", ends, false, sca)
			require.NoError(t, err)
			_, err = em.ConsentError(ctx, "customer-42", ends, false, revoked)
			require.NoError(t, err)
		}
	}
	want := []events.Event{
		events.ReconnectRequired{Consent: "customer-42", Ends: first, Day: "2026-11-01"},
		events.ConsentRevoked{Consent: "customer-42", Ends: first, Code: client.CodeConsentInvalid},
		events.ReconnectRequired{Consent: "customer-42", Ends: second, Day: "2026-11-01"},
		events.ConsentRevoked{Consent: "customer-42", Ends: second, Code: client.CodeConsentInvalid},
	}
	assert.Equal(t, want, col.evs)
}

// TestEnvelopeKey checks that events about one subject share a Key and
// others do not, and that neither the ID nor the Key shows the reference.
func TestEnvelopeKey(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ends := at.Add(24 * time.Hour)
	key := func(ev events.Event) string {
		env, err := events.Wrap(ev, at)
		require.NoError(t, err)
		assert.Equal(t, events.KeyOf(ev), env.Key)
		assert.Regexp(t, `^[0-9a-f]{32}$`, env.Key)
		assert.Regexp(t, `^[0-9a-f]{32}$`, env.ID)
		return env.Key
	}
	consent := key(events.ConsentRenewalDue{Consent: "customer-42", Ends: ends, Threshold: 1})
	assert.Equal(t, consent, key(events.ConsentExpired{Consent: "customer-42", Ends: ends}))
	assert.Equal(t, consent, key(events.ConsentRevoked{Consent: "customer-42", Ends: ends.Add(time.Hour), Code: "CONSENT_INVALID"}),
		"every consent under one reference: one key")
	assert.Equal(t, consent, key(events.ReconnectRequired{Consent: "customer-42", Ends: ends, Day: "2026-11-01"}))
	assert.NotEqual(t, consent, key(events.ConsentExpired{Consent: "customer-43", Ends: ends}))
	payment := key(events.PaymentStatusChanged{Payment: "customer-42", From: "RCVD", To: "ACSC"})
	assert.NotEqual(t, consent, payment, "a payment and a consent with the same reference")
	assert.Equal(t, payment, key(events.PaymentInDoubt{Payment: "customer-42"}))
	assert.Equal(t, payment, key(events.PaymentOutcomeUnknown{Payment: "customer-42"}))
	assert.NotEqual(t, key(events.CertificateExpiring{Role: "qwac"}), key(events.CertificateExpiring{Role: "signing"}))
}

// TestRenewalIDsUnchanged pins the ID of a ConsentRenewalDue as it was
// before consents were named by their end in every consent event: the
// renewal events already were, so an upgrade must not publish them again.
func TestRenewalIDsUnchanged(t *testing.T) {
	// What events.ID gave for this event before the change.
	const renewalIDBefore = "746f494ce4e3728369b0be08771e2a15"
	ev := events.ConsentRenewalDue{Consent: "tpp-consent-7", Ends: time.Date(2027, 1, 30, 9, 0, 0, 0, time.UTC), DaysLeft: 7, Threshold: 7}
	assert.Equal(t, renewalIDBefore, events.ID(ev))
}

// TestOldEnvelopesStillRead decodes envelopes as they were stored before
// they had a Key and consent events an end.
func TestOldEnvelopesStillRead(t *testing.T) {
	var env events.Envelope
	require.NoError(t, json.Unmarshal([]byte(`{"id":"0f","kind":"consent.revoked","at":"2026-11-01T12:00:00Z","data":{"consent":"c","code":"CONSENT_INVALID"}}`), &env))
	assert.Empty(t, env.Key)
	ev, err := env.Event()
	require.NoError(t, err)
	assert.Equal(t, events.ConsentRevoked{Consent: "c", Code: "CONSENT_INVALID"}, ev)
}
