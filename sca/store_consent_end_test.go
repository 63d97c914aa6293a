package sca_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// A background call of the PSU's old session meets 403 CONSENT_UNKNOWN
// because the PSU re-consented meanwhile (the new TPP-Session-ID made the
// old one invalid). Storing what the old session learned must not replace
// the new session: the PSU's fresh consent would be lost, and every later
// refresh would ask the PSU to consent again.
func TestStoreConsentEndKeepsNewerSession(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := store.NewMemoryStore()
	const psu = "7b0e3c8e-2f4d-4c1a-9b7e-5d6f8a9b0c1d"
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	old := &sca.Session{PSUID: psu, TPPSessionID: "sid-old", Context: client.Private, SCAAt: t0, AccountIDs: []string{"a1"}}
	require.NoError(t, sca.SaveSession(ctx, st, "user-1", old))
	revoked := &client.Error{StatusCode: 403, Messages: []client.TPPMessage{{Code: client.CodeConsentUnknown}}}

	// The old session is still the stored one: the end is stored.
	at := t0.Add(24 * time.Hour)
	changed, err := sca.StoreConsentEnd(ctx, st, "user-1", old, revoked, at)
	require.NoError(t, err)
	assert.True(t, changed)
	got, err := sca.LoadSession(ctx, st, "user-1")
	require.NoError(t, err)
	assert.Equal(t, at, got.ConsentExpiresAt())
	assert.Equal(t, []string{"a1"}, got.AccountIDs)

	// The PSU re-consented: a new session under the same key.
	fresh := &sca.Session{PSUID: psu, TPPSessionID: "sid-new", Context: client.Private, SCAAt: t0.Add(48 * time.Hour)}
	require.NoError(t, sca.SaveSession(ctx, st, "user-1", fresh))
	changed, err = sca.StoreConsentEnd(ctx, st, "user-1", old, revoked, t0.Add(49*time.Hour))
	require.NoError(t, err)
	assert.False(t, changed)
	got, err = sca.LoadSession(ctx, st, "user-1")
	require.NoError(t, err)
	assert.Equal(t, "sid-new", got.TPPSessionID)
	assert.True(t, got.ConsentValid(t0.Add(49*time.Hour)), "the new consent stands")

	// Nothing to learn: nothing written.
	changed, err = sca.StoreConsentEnd(ctx, st, "user-1", fresh, &client.Error{StatusCode: 503}, t0.Add(49*time.Hour))
	require.NoError(t, err)
	assert.False(t, changed)
}
