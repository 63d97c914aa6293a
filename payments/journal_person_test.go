package payments_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

func TestSettleByPerson(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBank(t)
	st := store.NewMemoryStore()
	svc := journaled(t, b, mustJournal(t, st))
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	id := uuid.NewString()
	_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "55.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	j := later(t, b, st)
	require.Len(t, inDoubt(t, j), 1)

	for _, bad := range [][2]string{{"", "why"}, {"ops-anna", ""}, {"ops-anna", "two\nlines"}, {strings.Repeat("x", 501), "why"}} {
		_, err := j.SettleByPerson(ctx, id, bad[0], bad[1])
		assert.Error(t, err, bad)
	}
	require.Len(t, inDoubt(t, j), 1, "a refused call changes nothing")

	e, err := j.SettleByPerson(ctx, id, "ops-anna", "bank support confirmed no payment arrived")
	require.NoError(t, err)
	require.NotNil(t, e.Resolution)
	assert.Equal(t, journal.SettledByPerson, e.Resolution.Kind)
	assert.Equal(t, "settled by ops-anna: bank support confirmed no payment arrived", e.Resolution.Reason)
	assert.False(t, e.InDoubt())
	assert.Empty(t, inDoubt(t, j))

	_, err = j.SettleByPerson(ctx, id, "ops-bob", "again")
	require.ErrorIs(t, err, journal.ErrNotInDoubt)
	_, err = j.SettleByPerson(ctx, uuid.NewString(), "ops-bob", "no such entry")
	require.ErrorIs(t, err, store.ErrNotStored)

	// Resolve sends nothing for it afterwards.
	res, err := resolve(ctx, b.c, e, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, journal.SettledByPerson, res.Kind)
	assert.Empty(t, b.paymentsHeld())
}
