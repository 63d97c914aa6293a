package journal_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"
)

// keysUnder lists the store's keys with prefix.
func keysUnder(t *testing.T, st store.Store, prefix string) []string {
	t.Helper()
	var out []string
	for k, err := range st.Keys(t.Context(), prefix) {
		require.NoError(t, err)
		out = append(out, k)
	}
	return out
}

// moveKey moves the value under from to to, as if an earlier version had
// written it there.
func moveKey(t *testing.T, st store.Store, from, to string) {
	t.Helper()
	v, err := st.Get(t.Context(), from)
	require.NoError(t, err)
	require.NoError(t, st.Put(t.Context(), to, v, 0))
	require.NoError(t, st.Delete(t.Context(), from))
}

// New entries are kept under "journal/"; an entry an earlier version
// wrote under "payments/journal/" (with its open marker under
// "payments/journal-open/") is still found, listed, yielded in doubt and
// resolved where it is.
func TestEarlierKeys(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	j, st := newJournal(t)
	e := inDoubt(t, b, c, j, `{"old":1}`)
	assert.Equal(t, []string{"journal/entry/" + e.RequestID}, keysUnder(t, st, "journal/entry/"))
	assert.Equal(t, []string{"journal/open/" + e.RequestID}, keysUnder(t, st, "journal/open/"))
	assert.Empty(t, keysUnder(t, st, "payments/"), "nothing new under the old prefix")

	// As the version before the rename left it.
	moveKey(t, st, "journal/entry/"+e.RequestID, "payments/journal/"+e.RequestID)
	moveKey(t, st, "journal/open/"+e.RequestID, "payments/journal-open/"+e.RequestID)
	// And one it had settled.
	settled := inDoubt(t, b, c, j, `{"old":2}`)
	_, err := j.SettleByPerson(ctx, settled.RequestID, "ops-anna", "checked")
	require.NoError(t, err)
	moveKey(t, st, "journal/entry/"+settled.RequestID, "payments/journal/"+settled.RequestID)
	assert.Empty(t, keysUnder(t, st, "journal/"))

	old, err := j.Entry(ctx, e.RequestID)
	require.NoError(t, err, "found")
	assert.Equal(t, e.Body, old.Body)
	assert.True(t, old.InDoubt())

	var listed, doubt []string
	for en, err := range j.Entries(ctx) {
		require.NoError(t, err)
		listed = append(listed, en.RequestID)
	}
	for en, err := range j.InDoubt(ctx) {
		require.NoError(t, err)
		doubt = append(doubt, en.RequestID)
	}
	assert.ElementsMatch(t, []string{e.RequestID, settled.RequestID}, listed, "listed")
	assert.Equal(t, []string{e.RequestID}, doubt, "yielded in doubt")

	res, err := j.Resolve(ctx, c, old)
	require.NoError(t, err, "resolvable")
	assert.Equal(t, journal.ResolvedCreated, res.Kind)
	var answer struct {
		ThingID string `json:"thingId"`
	}
	require.NoError(t, json.Unmarshal(res.Answer, &answer))
	assert.Equal(t, res.ID, answer.ThingID)

	// Recorded in place: the old entry holds the resolution, its marker
	// is gone, and only the resend's own entry is under the new prefix.
	after, err := j.Entry(ctx, e.RequestID)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedCreated, after.Resolution.Kind)
	assert.Empty(t, keysUnder(t, st, "payments/journal-open/"))
	assert.Equal(t, []string{"journal/entry/" + res.ResendRequestID}, keysUnder(t, st, "journal/entry/"))
	assert.Empty(t, keysUnder(t, st, "journal/open/"))

	// Resolving it again reads the status at the bank, as for a new one.
	again, err := j.Resolve(ctx, c, after)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedStatus, again.Kind)
	assert.Equal(t, "ACTC", again.Status)

	// A settlement by a person finds an old entry too.
	other := inDoubt(t, b, c, j, `{"old":3}`)
	moveKey(t, st, "journal/entry/"+other.RequestID, "payments/journal/"+other.RequestID)
	moveKey(t, st, "journal/open/"+other.RequestID, "payments/journal-open/"+other.RequestID)
	s, err := j.SettleByPerson(ctx, other.RequestID, "ops-anna", "checked")
	require.NoError(t, err)
	assert.Equal(t, journal.SettledByPerson, s.Resolution.Kind)
	assert.Empty(t, keysUnder(t, st, "payments/journal-open/"))
}

// A bank that moved host keeps its scope when its clients name it
// (client.WithBank, as package banks does): an entry journaled at the old
// host is resolved at the new one, under the base path, with the body
// it recorded. Without the name, the scopes differ and Resolve refuses.
func TestResolveAtMovedHost(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	oldBank, newBank := newThingBank(t), newThingBank(t)
	oldC := oldBank.client(t, client.WithBank("thing-bank/production"))
	newC := newBank.client(t, client.WithBank("thing-bank/production"))
	require.Equal(t, oldC.Scope(), newC.Scope())
	j, st := newJournal(t)
	e := inDoubt(t, oldBank, oldC, j, `{"moved":1}`)
	oldPosts := oldBank.posts.Load()

	_, err := j.Resolve(ctx, newBank.client(t), e)
	require.ErrorIs(t, err, journal.ErrNotResolvable, "a client without the bank's name is another scope")

	res, err := j.Resolve(ctx, newC, e)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedCreated, res.Kind)
	assert.Equal(t, oldPosts, oldBank.posts.Load(), "nothing more to the old host")
	assert.Equal(t, int32(1), newBank.posts.Load(), "the resend went to the new host")

	// An entry of a version that kept no path: its URL's path under the
	// new client's base path.
	e2 := inDoubt(t, oldBank, oldC, j, `{"moved":2}`)
	key := "journal/entry/" + e2.RequestID
	raw, err := st.Get(ctx, key)
	require.NoError(t, err)
	var rec map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &rec))
	require.Contains(t, rec, "path")
	delete(rec, "path")
	raw, err = json.Marshal(rec)
	require.NoError(t, err)
	require.NoError(t, st.Put(ctx, key, raw, 0))
	e2, err = j.Entry(ctx, e2.RequestID)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(e2.URL, oldBank.srv.URL+"/api/"), e2.URL)
	res, err = j.Resolve(ctx, newC, e2)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedCreated, res.Kind)
	assert.Equal(t, int32(2), newBank.posts.Load())

	// The status of the created resource is read at the new host too.
	e2, err = j.Entry(ctx, e2.RequestID)
	require.NoError(t, err)
	st2, err := j.Resolve(ctx, newC, e2)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedStatus, st2.Kind)
}
