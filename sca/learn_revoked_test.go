package sca_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
)

// A consent the PSU revoked at the bank is answered 403 CONSENT_UNKNOWN
// (docs/interface.md sections 1.8 and 10): it has ended as surely as an
// expired one, and the session must say so, or every later refresh spends
// the account's without-PSU calls on it until the 90 days are over.
func TestLearnConsentEndFromRevocation(t *testing.T) {
	t.Parallel()
	sca0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	s := &sca.Session{PSUID: "x", SCAAt: sca0}
	at := sca0.Add(10 * 24 * time.Hour)
	revoked := &client.Error{StatusCode: 403, Messages: []client.TPPMessage{{Category: "ERROR", Code: client.CodeConsentUnknown}}}

	got, learned := s.LearnConsentEnd(fmt.Errorf("accounts.Balances: %w", revoked), at)
	require.True(t, learned, "403 CONSENT_UNKNOWN ends the consent")
	assert.Equal(t, at, got.ConsentExpiresAt())
	assert.False(t, got.ConsentValid(at))

	// Some banks send the expiry as 403: it is learned too.
	expired403 := &client.Error{StatusCode: 403, Messages: []client.TPPMessage{{Code: client.CodeConsentExpired}}}
	_, learned = s.LearnConsentEnd(expired403, at)
	assert.True(t, learned, "403 CONSENT_EXPIRED")

	// A server error carrying the code is no answer about the consent.
	for _, status := range []int{500, 503} {
		e := &client.Error{StatusCode: status, Messages: []client.TPPMessage{{Code: client.CodeConsentUnknown}}}
		got, learned := s.LearnConsentEnd(e, at)
		assert.False(t, learned, "%d", status)
		assert.Same(t, s, got)
	}
}
