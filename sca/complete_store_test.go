package sca

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// cancelAfterTake ends the callback's request (the browser gave up) as
// soon as the pending SCA is taken.
type cancelAfterTake struct {
	store.Store
	cancel context.CancelFunc
}

func (s *cancelAfterTake) Take(ctx context.Context, key string) ([]byte, error) {
	b, err := s.Store.Take(ctx, key)
	if strings.HasPrefix(key, pendingPrefix) {
		s.cancel()
	}
	return b, err
}

// A callback whose request ends once its pending SCA was taken (the
// browser gave up, a proxy's timeout) still stores the session the SCA
// gave: the pending SCA is used up, and the session is written on a
// context of its own, bounded. On the code before, it was written on the
// request's ended context and lost: the PSU had approved at the bank and
// had to go through SCA again.
func TestCompleteStoresTheSessionPastTheRequestsEnd(t *testing.T) {
	t.Parallel()
	now := t0
	f, err := NewFlow(base, withNow(func() time.Time { return now }))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &cancelAfterTake{Store: store.NewMemoryStore(), cancel: cancel}
	m, err := NewManager(f, st)
	require.NoError(t, err)
	p, _, err := m.Flow().Start("user-1", WithPurpose(PurposeConsent))
	require.NoError(t, err)
	require.NoError(t, savePending(t.Context(), st, p))
	_, err = m.Complete(ctx, cb("state", p.State, "psu-id", uuid.NewString(), "tpp-session-id", p.TPPSessionID, "context", "PRIVATE"))
	require.NoError(t, err, "the SCA the PSU approved is kept")
	_, err = m.Session(t.Context(), "user-1")
	require.NoError(t, err, "the session was stored")
}
