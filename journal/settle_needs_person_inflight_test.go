package journal_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// A create with allowLogicalDuplicate whose outcome just became unknown
// may still be recorded by the bank a moment later. Resolve sends
// nothing for it (a resend would not be refused as a duplicate), but its
// NeedsPerson must not open the door to a person's settlement while the
// bank may still be working on the create: SettleByPerson waits
// (ErrInFlight) as it does for an entry without a resolution. On the code
// before, Resolve recorded NeedsPerson at once and the person's "the bank
// has no such payment" was then recorded while the bank was still
// creating it; Resolve now waits as for any create (ErrInFlight), and
// SettleByPerson waits even when an entry holds an early NeedsPerson.
func TestSettleByPersonWaitsAfterAnEarlyNeedsPerson(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	j, st := newJournal(t)

	b.drop.Store(1)
	id := uuid.NewString()
	require.ErrorIs(t, create(ctx, c, j, id, `{"allowLogicalDuplicate":true,"n":1}`), client.ErrOutcomeUnknown)
	require.NoError(t, j.Flush(ctx))
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)

	_, err = j.Resolve(ctx, c, e)
	require.ErrorIs(t, err, journal.ErrInFlight, "no finding while the bank may still be creating it")
	// A NeedsPerson recorded early (as Resolve did before) does not open
	// the door to a settlement either.
	editResolution(t, st, id, journal.Resolution{Kind: journal.NeedsPerson, Reason: "early"})
	_, err = j.SettleByPerson(ctx, id, "ops-anna", "the bank has no such payment")
	require.ErrorIs(t, err, journal.ErrInFlight, "the bank may still be creating the payment")
	e, err = j.Entry(ctx, id)
	require.NoError(t, err)
	assert.True(t, e.InDoubt())

	journal.Age(j, e)
	res, err := j.Resolve(ctx, c, e)
	require.NoError(t, err)
	assert.Equal(t, journal.NeedsPerson, res.Kind, "once the bank is done: a resend would not be refused")
	_, err = j.SettleByPerson(ctx, id, "ops-anna", "the bank has no such payment")
	require.NoError(t, err, "once the bank is done, the person settles it")
	assert.Equal(t, int32(1), b.posts.Load(), "nothing was sent again")
}

// editResolution sets the stored resolution of the entry of id, as an
// earlier version's Resolve would have left it.
func editResolution(t *testing.T, st store.Store, id string, res journal.Resolution) {
	t.Helper()
	require.NoError(t, st.Update(t.Context(), "journal/entry/"+id, func(old []byte, found bool) ([]byte, time.Duration, error) {
		require.True(t, found)
		var rec map[string]any
		require.NoError(t, json.Unmarshal(old, &rec))
		rec["resolution"] = res
		b, err := json.Marshal(rec)
		return b, 0, err
	}))
}
