package journal_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/journal"
)

// An entry's stored form is version 1, and later releases add optional
// members to it without a new version (a replica of one may have
// written the entry during a rolling deploy). This version's rewrite of
// such an entry (an outcome, a claim, a resolution, a person's
// settlement) must keep the members it does not know: dropping them
// would drop what the later release recorded about the create.
func TestRewriteKeepsMembersOfALaterRelease(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	j, st := newJournal(t)
	e := inDoubt(t, b, c, j, `{"later":"member"}`)

	key := "journal/entry/" + e.RequestID
	require.NoError(t, st.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		require.True(t, found)
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(old, &m))
		m["laterMember"] = json.RawMessage(`{"resend":"held"}`)
		b, err := json.Marshal(m)
		return b, 0, err
	}))

	_, err := j.SettleByPerson(ctx, e.RequestID, "ops-1", "asked the bank: it has no such payment")
	require.NoError(t, err)

	raw, err := st.Get(ctx, key)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	assert.JSONEq(t, `{"resend":"held"}`, string(m["laterMember"]), "the later release's member was dropped")
	got, err := j.Entry(ctx, e.RequestID)
	require.NoError(t, err)
	require.NotNil(t, got.Resolution)
	assert.Equal(t, journal.SettledByPerson, got.Resolution.Kind)
}
