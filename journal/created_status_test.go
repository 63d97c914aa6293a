package journal_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/journal"
)

// A resend that created the resource records the status the bank gave
// it in its answer, as a status read would: the journal says what the
// bank answered, not only that it created it.
func TestResolveCreatedRecordsTheAnswersStatus(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	j, _ := newJournal(t)
	e := inDoubt(t, b, c, j, `{"status":1}`)
	res, err := j.Resolve(ctx, c, e)
	require.NoError(t, err)
	require.Equal(t, journal.ResolvedCreated, res.Kind)
	assert.Equal(t, "RCVD", res.Status)
	after, err := j.Entry(ctx, e.RequestID)
	require.NoError(t, err)
	require.NotNil(t, after.Resolution)
	assert.Equal(t, journal.ResolvedCreated, after.Resolution.Kind)
	assert.Equal(t, "RCVD", after.Resolution.Status, "recorded")
	assert.Nil(t, after.Resolution.Answer, "the answer itself is never recorded")
}
