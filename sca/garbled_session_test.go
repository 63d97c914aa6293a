package sca

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestPrepareOverAnUnreadableSession checks that a PSU whose stored
// session cannot be read (garbled by the store, or written by a newer
// version in a form this one refuses) can go through SCA again, as
// ErrUndecodableSession says: Prepare and Begin start a first SCA under
// a new TPP-Session-ID, and its callback replaces the unreadable session
// (Manager.complete already counts such a session as nothing to carry
// over). Manager.Session still reports the error.
//
// Before the fix, Prepare and Begin returned the session's error: the
// Manager could never start the SCA that would replace it, and the PSU
// was locked out for good.
func TestPrepareOverAnUnreadableSession(t *testing.T) {
	t.Parallel()
	link := client.Links{client.LinkSCARedirect: client.Link{Href: "https://bank.example/sca?x=1"}}
	for name, stored := range map[string]string{
		"garbled":       `{"psuId":"fecae238-d8df-4d47`,
		"newer context": `{"psuId":"` + okPSU + `","tppSessionId":"` + okSession + `","context":"BUSINESS","scaAt":"2026-03-02T10:00:00Z"}`,
	} {
		for _, begin := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s begin=%v", name, begin), func(t *testing.T) {
				t.Parallel()
				now := t0
				m := managerAt(t, &now)
				ctx := t.Context()
				require.NoError(t, m.Store().Put(ctx, sessionPrefix+"user-1", []byte(stored), 0))
				_, err := m.Session(ctx, "user-1")
				require.Error(t, err, "the stored session is unreadable")

				start := m.Prepare
				if begin {
					start = m.Begin
				}
				call, err := start(ctx, "user-1", nil)
				require.NoError(t, err, "the PSU can go through SCA again")
				assert.Nil(t, call.Session)
				assert.NotEqual(t, okSession, call.Pending.TPPSessionID, "a new TPP-Session-ID")
				_, ok, err := call.Redirect(ctx, link)
				require.NoError(t, err)
				require.True(t, ok)

				psu := uuid.NewString()
				s, err := m.CompleteFor(ctx, "user-1", cb("state", call.Pending.State, "psu-id", psu,
					"tpp-session-id", call.Pending.TPPSessionID, "context", "PRIVATE"))
				require.NoError(t, err)
				got, err := m.Session(ctx, "user-1")
				require.NoError(t, err, "the new session replaced the unreadable one")
				assert.Equal(t, s.PSUID, got.PSUID)
				assert.Equal(t, psu, got.PSUID)
			})
		}
	}
}
