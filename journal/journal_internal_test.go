package journal

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// An entry written when the journal was part of package payments (no
// Create) is read with the Create of its kind, under the same keys.
func TestLegacyEntries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := store.NewMemoryStore()
	j, err := New(st)
	require.NoError(t, err)
	for _, tc := range []struct {
		id, legacy string
		want       Create
	}{
		{"ndct", `{"v":1,"requestId":"ndct","operation":"payments.CreateNorwegianDomestic","product":"norwegian-domestic-credit-transfers","url":"https://bank.example/v1/payments/norwegian-domestic-credit-transfers","body":"e30=","scope":"s","created":"2026-01-02T03:04:05Z","outcome":"created","paymentId":"p1"}`,
			Create{ResultID: "paymentId", DuplicateStatus: http.StatusBadRequest, DuplicateCode: "PAYMENT_FAILED", NotFoundUntilApproved: true}},
		{"sepa", `{"v":1,"requestId":"sepa","operation":"payments.CreateSEPA","product":"sepa-credit-transfers","url":"https://bank.example/v1/payments/sepa-credit-transfers","body":"e30=","scope":"s","created":"2026-01-02T03:04:05Z"}`,
			Create{ResultID: "paymentId", DuplicateStatus: http.StatusBadRequest, DuplicateCode: "PAYMENT_FAILED"}},
		{"basket", `{"v":1,"requestId":"basket","operation":"basket.Create","basket":true,"url":"https://bank.example/v1/signing-baskets","body":"e30=","scope":"s","created":"2026-01-02T03:04:05Z"}`,
			Create{ResultID: "basketId", DuplicateStatus: http.StatusConflict, DuplicateCode: "STATUS_INVALID"}},
	} {
		require.NoError(t, st.Put(ctx, "payments/journal/"+tc.id, []byte(tc.legacy), 0))
		e, err := j.Entry(ctx, tc.id)
		require.NoError(t, err)
		assert.Equal(t, tc.want, e.Create, tc.id)
		assert.Equal(t, []byte("{}"), e.Body, tc.id)
	}
	e, err := j.Entry(ctx, "ndct")
	require.NoError(t, err)
	assert.Equal(t, "p1", e.ID)
	assert.Equal(t, OutcomeCreated, e.Outcome)

	// Written now: the Create is kept as given.
	rec := journalRecord{V: 1, RequestID: "new", Create: &Create{ResultID: "thingId", DuplicateStatus: 418, DuplicateCode: "X"},
		URL: "https://bank.example/v1/things", Scope: "s", Created: time.Now()}
	b, err := json.Marshal(&rec)
	require.NoError(t, err)
	require.NoError(t, st.Put(ctx, "payments/journal/new", b, 0))
	e, err = j.Entry(ctx, "new")
	require.NoError(t, err)
	assert.Equal(t, *rec.Create, e.Create)
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
	assert.False(t, j.underWay(e, time.Now()), "writers stopped: nothing under way")
	j, err = New(store.NewMemoryStore(), WithInFlight(0))
	require.NoError(t, err)
	assert.True(t, j.underWay(e, time.Now()), "the call's own bound holds, whatever the in-flight time")
	assert.False(t, j.underWay(e, e.Until), "over once the bound passed")
}
