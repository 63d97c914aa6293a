package sca

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/store"
)

// What Call.Redirect works out from the answer that carried the link.
func TestPurposeOf(t *testing.T) {
	t.Parallel()
	link := client.Links{client.LinkSCARedirect: client.Link{Href: "https://bank.example/tap/1?state=x"}}
	apiErr := func(op string) error { return &client.Error{Operation: op, StatusCode: 401, Links: link} }
	tests := []struct {
		name   string
		answer any
		want   Purpose
	}{
		{"account listing 401", apiErr("accounts.List"), PurposeConsent},
		{"balances 401, wrapped", fmt.Errorf("job: %w", apiErr("accounts.Balances")), PurposeConsent},
		{"bank-offered consent", &accounts.Consent{Links: link}, PurposeConsent},
		{"agreements", apiErr("accounts.Agreements"), PurposeIdentify},
		{"GET /v1/user", apiErr("sca.User"), PurposeIdentify},
		{"payment answer", &payments.Initiation{Links: link}, PurposePayment},
		{"payment error", apiErr("payments.CreateSEPA"), PurposePayment},
		{"basket error", apiErr("basket.Create"), PurposePayment},
		{"a Redirect says it", Redirect{Purpose: PurposeIdentify}, PurposeIdentify},
		{"another module's operation", apiErr("other.Thing"), PurposeUnknown},
		{"operation without a name", apiErr(""), PurposeUnknown},
		{"raw JSON", []byte(`{"_links":{"scaRedirect":{"href":"https://bank.example/tap/1"}}}`), PurposeUnknown},
		{"links", link, PurposeUnknown},
		{"plain error", errors.New("x"), PurposeUnknown},
		{"nil", nil, PurposeUnknown},
		{"nil redirect", (*Redirect)(nil), PurposeUnknown},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, purposeOf(tt.answer), tt.name)
	}
	assert.True(t, PurposeConsent.GrantsConsent())
	for _, p := range []Purpose{PurposeUnknown, PurposePayment, PurposeIdentify, "basket-of-a-later-version"} {
		assert.False(t, p.GrantsConsent(), string(p))
	}
}

// managerAt is a Manager over a memory store whose Flow reads *now.
func managerAt(t *testing.T, now *time.Time) *Manager {
	t.Helper()
	f, err := NewFlow(base, withNow(func() time.Time { return *now }))
	require.NoError(t, err)
	m, err := NewManager(f, store.NewMemoryStore())
	require.NoError(t, err)
	return m
}

// completeAs saves p as Call.Redirect would and completes it with a
// success callback for psuID (and corporate id corp).
func completeAs(t *testing.T, m *Manager, p *Pending, psuID, corp string) *Session {
	t.Helper()
	require.NoError(t, savePending(t.Context(), m.Store(), p))
	params := []string{"state", p.State, "psu-id", psuID, "tpp-session-id", p.TPPSessionID, "context", "PRIVATE"}
	if corp != "" {
		params = append(params[:len(params)-1], "CORPORATE", "psu-corporate-id", corp)
	}
	s, err := m.Complete(t.Context(), cb(params...))
	require.NoError(t, err)
	stored, err := m.Session(t.Context(), p.Key)
	require.NoError(t, err)
	assert.Equal(t, s.NoConsent, stored.NoConsent)
	assert.Equal(t, s.AccountIDs, stored.AccountIDs)
	assert.True(t, s.ConsentExpiresAt().Equal(stored.ConsentExpiresAt()))
	return s
}

// Complete decides the consent from Pending.Purpose: a consent SCA gives
// 90 fresh days; any other SCA (unknown included: a raw link, a pending
// SCA stored before Purpose existed) keeps the PSU's consent end and
// accounts. A payment's or identification's SCA gives no consent to a PSU
// without one; an SCA of unknown purpose gives it one, as before purposes
// existed.
func TestCompleteConsentByPurpose(t *testing.T) {
	t.Parallel()
	now := t0
	day := 24 * time.Hour
	psu, corpA, corpB := uuid.NewString(), uuid.NewString(), uuid.NewString()

	setup := func(t *testing.T, corp string) (*Manager, *Session, *time.Time) {
		now := t0
		m := managerAt(t, &now)
		p, _, err := m.Flow().Start("user-1", WithPurpose(PurposeConsent))
		require.NoError(t, err)
		s := completeAs(t, m, p, psu, corp)
		require.False(t, s.NoConsent)
		s, err = s.WithAccounts([]string{"acc-1", "acc-2"}, []string{"card-1"})
		require.NoError(t, err)
		require.NoError(t, SaveSession(t.Context(), m.Store(), "user-1", s))
		now = t0.Add(80 * day)
		return m, s, &now
	}
	keep := func(t *testing.T, s *Session, at time.Time) {
		t.Helper()
		assert.False(t, s.NoConsent)
		assert.True(t, s.ConsentExpiresAt().Equal(t0.Add(ConsentValidity)), "day 90, not %v", s.ConsentExpiresAt())
		assert.Equal(t, []string{"acc-1", "acc-2"}, s.AccountIDs)
		assert.Equal(t, []string{"card-1"}, s.CardAccountIDs)
		assert.True(t, s.SCAAt.Equal(at))
	}

	for _, p := range []Purpose{PurposePayment, PurposeIdentify} {
		t.Run("no consent: "+string(p), func(t *testing.T) {
			t.Parallel()
			m, prev, at := setup(t, "")
			pend, _, err := m.Flow().Start("user-1", Renew(prev), WithPurpose(p))
			require.NoError(t, err)
			keep(t, completeAs(t, m, pend, psu, ""), *at)
		})
	}
	t.Run("unknown purpose: a raw link", func(t *testing.T) {
		t.Parallel()
		m, prev, at := setup(t, "")
		pend, _, err := m.Flow().Start("user-1", switchTo(prev))
		require.NoError(t, err)
		keep(t, completeAs(t, m, pend, psu, ""), *at)
	})
	t.Run("unknown purpose: a pending SCA stored before Purpose existed", func(t *testing.T) {
		t.Parallel()
		m, _, at := setup(t, "")
		old := `{"key":"user-1","state":"old-state","tppSessionId":"sid-old","redirectUri":"` + base +
			`?state=old-state","createdAt":"` + at.Format(time.RFC3339) + `","expiresAt":"` + at.Add(time.Minute).Format(time.RFC3339) + `"}`
		require.NoError(t, m.Store().Put(t.Context(), pendingPrefix+"old-state", []byte(old), time.Hour))
		var p Pending
		require.NoError(t, p.UnmarshalBinary([]byte(old)))
		assert.Equal(t, PurposeUnknown, p.Purpose)
		s, err := m.Complete(t.Context(), cb("state", "old-state", "psu-id", psu, "tpp-session-id", "sid-old", "context", "PRIVATE"))
		require.NoError(t, err)
		keep(t, s, *at)
	})
	t.Run("unknown purpose, no previous session: the consent flow", func(t *testing.T) {
		t.Parallel()
		now := t0
		m := managerAt(t, &now)
		pend, _, err := m.Flow().Start("user-9")
		require.NoError(t, err)
		s := completeAs(t, m, pend, psu, "")
		assert.False(t, s.NoConsent)
		assert.True(t, s.ConsentExpiresAt().Equal(t0.Add(ConsentValidity)))
		assert.True(t, s.ConsentValid(now))
	})
	t.Run("consent: a fresh 90 days", func(t *testing.T) {
		t.Parallel()
		m, prev, at := setup(t, "")
		pend, _, err := m.Flow().Start("user-1", Renew(prev), WithPurpose(PurposeConsent))
		require.NoError(t, err)
		s := completeAs(t, m, pend, psu, "")
		assert.False(t, s.NoConsent)
		assert.True(t, s.ConsentExpiresAt().Equal(at.Add(ConsentValidity)))
		assert.Nil(t, s.AccountIDs, "listed again after a new consent")
	})
	t.Run("another PSU gets no consent", func(t *testing.T) {
		t.Parallel()
		m, prev, at := setup(t, "")
		pend, _, err := m.Flow().Start("user-1", switchTo(prev), WithPurpose(PurposePayment))
		require.NoError(t, err)
		s := completeAs(t, m, pend, uuid.NewString(), "")
		assert.True(t, s.NoConsent)
		assert.Nil(t, s.AccountIDs)
		assert.True(t, s.ConsentExpiresAt().IsZero())
		assert.False(t, s.ConsentValid(*at))
		assert.True(t, s.ConsentRenewalDue(*at, 0))
		assert.Contains(t, s.String(), "consentExpiresAt=none")
	})
	t.Run("same PSU, another agreement gets no consent", func(t *testing.T) {
		t.Parallel()
		m, prev, _ := setup(t, corpA)
		pend, _, err := m.Flow().Start("user-1", Renew(prev), WithPurpose(PurposeIdentify))
		require.NoError(t, err)
		s := completeAs(t, m, pend, psu, corpB)
		assert.True(t, s.NoConsent)
		assert.Nil(t, s.AccountIDs)
	})
	t.Run("same PSU and agreement keeps it", func(t *testing.T) {
		t.Parallel()
		m, prev, at := setup(t, corpA)
		pend, _, err := m.Flow().Start("user-1", Renew(prev), WithPurpose(PurposeIdentify))
		require.NoError(t, err)
		keep(t, completeAs(t, m, pend, psu, corpA), *at)
	})
	t.Run("first SCA of a PISP: no consent", func(t *testing.T) {
		t.Parallel()
		m := managerAt(t, &now)
		pend, _, err := m.Flow().Start("shopper", WithPurpose(PurposeIdentify))
		require.NoError(t, err)
		s := completeAs(t, m, pend, psu, "")
		assert.True(t, s.NoConsent)
		assert.False(t, s.ConsentValid(now))

		// A later payment SCA carries the "no consent" on; a consent
		// then gives one.
		pend, _, err = m.Flow().Start("shopper", Renew(s), WithPurpose(PurposePayment))
		require.NoError(t, err)
		assert.True(t, completeAs(t, m, pend, psu, "").NoConsent)
		pend, _, err = m.Flow().Start("shopper", Renew(s), WithPurpose(PurposeConsent))
		require.NoError(t, err)
		assert.True(t, completeAs(t, m, pend, psu, "").ConsentValid(now))
	})
	t.Run("an unreadable previous session carries nothing", func(t *testing.T) {
		t.Parallel()
		m := managerAt(t, &now)
		require.NoError(t, m.Store().Put(t.Context(), sessionPrefix+"user-1", []byte(`{"psuId":"x"}`), 0))
		pend, _, err := m.Flow().Start("user-1", WithPurpose(PurposePayment))
		require.NoError(t, err)
		assert.True(t, completeAs(t, m, pend, psu, "").NoConsent)
	})

	f, err := NewFlow(base)
	require.NoError(t, err)
	_, _, err = f.Start("k", WithPurpose("basket"))
	require.Error(t, err, "only the known purposes are accepted")
	_, _, err = f.Start("k", WithPurpose(PurposeUnknown))
	require.Error(t, err)
}

// Session.After, for TPPs that keep sessions themselves after
// Flow.ParseCallback.
func TestSessionAfter(t *testing.T) {
	t.Parallel()
	psu := uuid.NewString()
	prev := &Session{PSUID: psu, TPPSessionID: "sid-1", Context: client.Private, SCAAt: t0,
		AccountIDs: []string{"a"}, CardAccountIDs: []string{"c"}}
	at := t0.Add(80 * 24 * time.Hour)
	pisp := &Session{PSUID: psu, TPPSessionID: "sid-2", Context: client.Private, SCAAt: at, NoConsent: true}

	got := pisp.After(prev)
	assert.Equal(t, &Session{PSUID: psu, TPPSessionID: "sid-2", Context: client.Private, SCAAt: at,
		AccountIDs: []string{"a"}, CardAccountIDs: []string{"c"}, ConsentUntil: t0.Add(ConsentValidity)}, got)
	assert.True(t, pisp.NoConsent, "s is not changed")
	got.AccountIDs[0] = "changed"
	assert.Equal(t, "a", prev.AccountIDs[0], "the ids are copied")

	consent := &Session{PSUID: psu, TPPSessionID: "sid-2", Context: client.Private, SCAAt: at}
	assert.Same(t, consent, consent.After(prev), "a consent SCA keeps its own 90 days")
	assert.Same(t, pisp, pisp.After(nil))
	assert.Nil(t, (*Session)(nil).After(prev))
	noTime := &Session{PSUID: psu, TPPSessionID: "sid-0", Context: client.Private}
	assert.True(t, pisp.After(noTime).NoConsent, "an end that is not known is not made up")

	// Through the storage form and the redacted one.
	b, err := pisp.MarshalBinary()
	require.NoError(t, err)
	var back Session
	require.NoError(t, back.UnmarshalBinary(b))
	assert.True(t, back.NoConsent)
	red, err := json.Marshal(pisp)
	require.NoError(t, err)
	assert.Contains(t, string(red), `"noConsent":true`)
}
