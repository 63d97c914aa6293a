package sca

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// interleaveStore wraps a store and, the first time the PSU's session key
// is read (Get, or Update), runs hook once: another replica's write of
// the session landing at that moment. After a plain Get the hook runs
// once the value was read (the window between a read and a later Put);
// before an Update it runs before the atomic read-modify-write, which is
// one of the two orders a real race can have.
type interleaveStore struct {
	store.Store
	key   string
	fired atomic.Bool
	hook  func()
}

// fire runs the hook the first time key is the session's; the hook's own
// reads and writes of the session do not run it again.
func (s *interleaveStore) fire(key string) {
	if key == s.key && s.hook != nil && s.fired.CompareAndSwap(false, true) {
		s.hook()
	}
}

func (s *interleaveStore) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.Store.Get(ctx, key)
	s.fire(key)
	return b, err
}

func (s *interleaveStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	s.fire(key)
	return s.Store.Update(ctx, key, fn)
}

// interleavedManager is a Manager at *now over an interleaveStore whose
// hook is armed for the session of key.
func interleavedManager(t *testing.T, now *time.Time, key string) (*Manager, *interleaveStore) {
	t.Helper()
	f, err := NewFlow(base, withNow(func() time.Time { return *now }))
	require.NoError(t, err)
	st := &interleaveStore{Store: store.NewMemoryStore(), key: sessionPrefix + key}
	m, err := NewManager(f, st)
	require.NoError(t, err)
	return m, st
}

// TestCompleteConcurrentConsentNotLost checks that a payment SCA's
// callback and a consent SCA's callback of the same PSU, completing at the
// same time on two replicas, leave a session that some serial order of
// the two would have left: the fresh consent end of the consent SCA
// survives whichever stores last.
//
// Before the fix, Manager.complete read the previous session (Get) and
// stored the payment's session (Put) as two steps: the consent callback
// landing in between was overwritten by a session carrying the old
// consent end (day 90 instead of day 170), and the TPP believed a consent
// it had just renewed was about to end.
func TestCompleteConcurrentConsentNotLost(t *testing.T) {
	t.Parallel()
	now := t0
	m, st := interleavedManager(t, &now, "user-1")
	psu := uuid.NewString()
	first, _, err := m.Flow().Start("user-1", WithPurpose(PurposeConsent))
	require.NoError(t, err)
	completeAs(t, m, first, psu, "")

	now = t0.Add(80 * 24 * time.Hour)
	pay, _, err := m.Flow().Start("user-1", WithPurpose(PurposePayment))
	require.NoError(t, err)
	consent, _, err := m.Flow().Start("user-1", WithPurpose(PurposeConsent))
	require.NoError(t, err)
	require.NoError(t, savePending(t.Context(), st, pay))
	require.NoError(t, savePending(t.Context(), st, consent))
	st.hook = func() {
		_, err := m.Complete(context.Background(), cb("state", consent.State, "psu-id", psu,
			"tpp-session-id", consent.TPPSessionID, "context", "PRIVATE"))
		require.NoError(t, err)
	}
	_, err = m.Complete(t.Context(), cb("state", pay.State, "psu-id", psu,
		"tpp-session-id", pay.TPPSessionID, "context", "PRIVATE"))
	require.NoError(t, err)

	got, err := m.Session(t.Context(), "user-1")
	require.NoError(t, err)
	fresh := now.Add(ConsentValidity)
	assert.True(t, got.ConsentExpiresAt().Equal(fresh),
		"the consent renewed at day 80 must not be lost: consent ends %v, want %v", got.ConsentExpiresAt(), fresh)
}

// TestUseAgreementKeepsConcurrentSCA checks that choosing an agreement
// (Manager.UseAgreement) while a new SCA of the same PSU completes does
// not put back the session that SCA replaced.
//
// Before the fix, UseAgreement loaded the session, set PSU-Corporate-ID
// and saved it in two steps: a callback completing in between (a new
// TPP-Session-ID, which the bank now holds valid and for which it
// invalidated the old one) was overwritten by the old session, so every
// later call went out under a TPP-Session-ID the bank no longer honours.
func TestUseAgreementKeepsConcurrentSCA(t *testing.T) {
	t.Parallel()
	now := t0
	m, st := interleavedManager(t, &now, "user-1")
	psu, agreement := uuid.NewString(), uuid.NewString()
	first, _, err := m.Flow().Start("user-1", WithPurpose(PurposeConsent))
	require.NoError(t, err)
	completeAs(t, m, first, psu, "")

	now = t0.Add(time.Minute)
	next, _, err := m.Flow().Start("user-1", WithPurpose(PurposeConsent))
	require.NoError(t, err)
	require.NoError(t, savePending(t.Context(), st, next))
	st.hook = func() {
		_, err := m.Complete(context.Background(), cb("state", next.State, "psu-id", psu,
			"tpp-session-id", next.TPPSessionID, "context", "CORPORATE"))
		require.NoError(t, err)
	}
	_, err = m.UseAgreement(t.Context(), "user-1", agreement)
	require.NoError(t, err)

	got, err := m.Session(t.Context(), "user-1")
	require.NoError(t, err)
	assert.Equal(t, next.TPPSessionID, got.TPPSessionID,
		"the session of the SCA that completed last must stay, not the one it replaced")
}
