package sca

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestRedirectDoesNotReviveAUsedState checks that a state is usable once
// even when the TPP passes a later answer to the same Prepared: after the
// callback took the pending SCA, Prepared.Redirect does not save it again
// (the old callback URL, in the PSU's browser history or a log, would
// complete it a second time), while saving it twice before the callback
// stays harmless.
//
// Before the fix, the second Redirect saved the pending SCA again under
// the state already used, and replaying the first callback completed it
// a second time (nil error, a new session stored).
func TestRedirectDoesNotReviveAUsedState(t *testing.T) {
	t.Parallel()
	now := t0
	m := managerAt(t, &now)
	ctx := t.Context()
	call, err := m.Prepare(ctx, "user-1", nil)
	require.NoError(t, err)
	link := client.Links{client.LinkSCARedirect: client.Link{Href: "https://bank.example/sca?x=1"}}
	for range 2 { // twice before the callback: the same pending SCA
		_, ok, err := call.Redirect(ctx, link)
		require.NoError(t, err)
		require.True(t, ok)
	}
	u := cb("state", call.Pending.State, "psu-id", uuid.NewString(), "tpp-session-id", call.Pending.TPPSessionID, "context", "PRIVATE")
	_, err = m.CompleteFor(ctx, "user-1", u)
	require.NoError(t, err)

	// A later answer of a call made with the same Prepared asks for SCA.
	_, ok, err := call.Redirect(ctx, link)
	require.ErrorIs(t, err, ErrReplayed, "the state was used: prepare the call again")
	assert.False(t, ok)

	// The first callback, replayed, completes nothing.
	_, err = m.CompleteFor(ctx, "user-1", u)
	require.ErrorIs(t, err, ErrNoPending)
}
