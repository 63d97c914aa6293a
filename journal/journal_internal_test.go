package journal

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// An entry of a development version that recorded no Create is read with
// the zero Create; one that did keeps it as given. Both are found under
// the keys of the journal's first home.
func TestRecordedCreate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.NewMemoryStore()
	j, err := New(st)
	require.NoError(t, err)
	bare := `{"v":1,"requestId":"bare","operation":"things.Create","url":"https://bank.example/v1/things","body":"e30=","scope":"s","created":"2026-01-02T03:04:05Z","outcome":"created","paymentId":"p1"}`
	require.NoError(t, st.Put(ctx, legacy.entries+"bare", []byte(bare), 0))
	e, err := j.Entry(ctx, "bare")
	require.NoError(t, err)
	assert.Equal(t, Create{}, e.Create)
	assert.Equal(t, []byte("{}"), e.Body)
	assert.Equal(t, "p1", e.ID)
	assert.Equal(t, OutcomeCreated, e.Outcome)
	assert.Equal(t, legacy.entries+"bare", e.key)

	rec := journalRecord{V: 1, RequestID: "new", Create: &Create{ResultID: "thingId", DuplicateStatus: 418, DuplicateCode: "X"},
		URL: "https://bank.example/v1/things", Scope: "s", Created: time.Now()}
	b, err := json.Marshal(&rec)
	require.NoError(t, err)
	require.NoError(t, st.Put(ctx, current.entries+"new", b, 0))
	e, err = j.Entry(ctx, "new")
	require.NoError(t, err)
	assert.Equal(t, *rec.Create, e.Create)
	assert.Equal(t, current.entries+"new", e.key)
}

// The keys of an entry's marker and created id are in its own keyspace.
func TestKeyspaces(t *testing.T) {
	t.Parallel()
	for _, ks := range keyspaces {
		key, err := entryKey(ks, "a/b c")
		require.NoError(t, err)
		assert.Equal(t, ks.entries+"a%2Fb%20c", key)
		assert.Equal(t, ks.open+"a%2Fb%20c", doubtKey(key))
		assert.Equal(t, ks.created+"a%2Fb%20c", createdKey(key))
	}
	assert.NotEqual(t, current, legacy)
	for _, a := range keyspaces {
		for _, p := range []string{a.entries, a.open, a.created} {
			for _, b := range keyspaces {
				for _, q := range []string{b.entries, b.open, b.created} {
					if p != q {
						assert.False(t, strings.HasPrefix(q, p), "%s lists %s", p, q)
					}
				}
			}
		}
	}
}

// allowLogicalDuplicate is found in any spelling a bank may accept, in
// the query or the body; other names are not.
func TestLogicalDuplicateSpellings(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"allowLogicalDuplicate=true", "allowLogicalDuplicate=yes", "allowLogicalDuplicate=on", "allowLogicalDuplicate=%20true",
		"ALLOWLOGICALDUPLICATE=TRUE", "allowlogicalduplicate=1", "a=b&allowLogicalDuplicate", "%61llowLogicalDuplicate=true",
		"allowLogicalDuplicate=false", "+allowLogicalDuplicate=true", "allowLogicalDuplicate;x=1",
	} {
		assert.True(t, logicalDuplicateAllowed(q), q)
	}
	for _, q := range []string{"", "allowLogical=true", "x=allowLogicalDuplicate", "allowLogicalDuplicates=true"} {
		assert.False(t, logicalDuplicateAllowed(q), q)
	}
	assert.True(t, bodyAllowsDuplicate([]byte(`{"AllowLogicalDuplicate":"yes","a":1}`)))
	assert.False(t, bodyAllowsDuplicate([]byte(`{"a":{"allowLogicalDuplicate":true}}`)), "top level only")
	assert.False(t, bodyAllowsDuplicate([]byte(`not json`)))
}

func TestOptions(t *testing.T) {
	t.Parallel()
	_, err := New(nil)
	assert.Error(t, err)
	_, err = New(store.NewMemoryStore(), WithInFlight(-time.Second))
	assert.Error(t, err)
	_, err = New(store.NewMemoryStore(), WithRetention(-time.Second))
	assert.Error(t, err)
	_, err = New(store.NewMemoryStore(), WithClient(nil))
	assert.Error(t, err)
	j, err := New(store.NewMemoryStore(), WithWritersStopped(), WithInFlight(time.Hour))
	require.NoError(t, err)
	e := Entry{Created: time.Now(), Until: time.Now().Add(time.Hour)}
	assert.False(t, j.mayBeUnderWay(t.Context(), e, time.Now()), "writers stopped: nothing under way")
	j, err = New(store.NewMemoryStore(), WithInFlight(0))
	require.NoError(t, err)
	assert.True(t, j.mayBeUnderWay(t.Context(), e, time.Now()), "the call's own bound holds, whatever the in-flight time")
	assert.False(t, j.mayBeUnderWay(t.Context(), e, e.Until), "over once the bound passed")
}

// The trail keeps the last maxTrail items, without the bank's answer.
func TestTrailBound(t *testing.T) {
	t.Parallel()
	var trail []Resolution
	for i := range maxTrail + 5 {
		trail = withTrail(trail, Resolution{Kind: NeedsPerson, Reason: strings.Repeat("x", i), Answer: []byte(`{}`)})
	}
	require.Len(t, trail, maxTrail)
	assert.Len(t, trail[0].Reason, 5, "the oldest went first")
	assert.Len(t, trail[maxTrail-1].Reason, maxTrail+4)
	for _, r := range trail {
		assert.Nil(t, r.Answer)
	}
}
