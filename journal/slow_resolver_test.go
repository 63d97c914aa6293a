package journal_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
)

// A resolver slower than its claim: while its resend is held at the
// bank, its claim runs out and a second Resolve sends the create again,
// which the bank creates. The first resend is then refused as a
// duplicate. The journal keeps the second's ResolvedCreated with its id
// (the duplicate only goes into the trail), so the first Resolve must
// report that recorded resolution, not its own "exists, id unknown":
// on the code before it returned ResolvedDuplicate without an error,
// and psd2 journal resolve told the operator the payment could never be
// approved (tell the PSU nothing was paid, create it again) while the
// journal held it as created, awaiting the PSU's approval.
func TestSlowResolverReportsTheRecordedCreation(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	clock := testtpp.NewClock(time.Now())
	j, st := newJournal(t, journal.WithClient(b.client(t, client.WithClock(clock.Now))))
	e := inDoubt(t, b, c, j, `{"slow":"resolver"}`)

	arrived, release := b.holdNext()
	defer release()
	type result struct {
		res journal.Resolution
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := j.Resolve(ctx, c, e)
		done <- result{res, err}
	}()
	<-arrived                                // the first resend is at the bank, unanswered
	clock.Add(c.LongestCall() + time.Hour)   // past its claim
	journal.ExpireLeases(t, st, e.RequestID) // and its lease, on the store's clock

	second, err := j.Resolve(ctx, c, e)
	require.NoError(t, err)
	require.Equal(t, journal.ResolvedCreated, second.Kind, "the second resend created it")
	require.NotEmpty(t, second.ID)

	release()
	first := <-done
	recorded, err := j.Entry(ctx, e.RequestID)
	require.NoError(t, err)
	require.NotNil(t, recorded.Resolution)
	assert.Equal(t, journal.ResolvedCreated, recorded.Resolution.Kind, "the journal keeps the creation")
	assert.Equal(t, second.ID, recorded.Resolution.ID)
	if first.err == nil {
		assert.Equal(t, journal.ResolvedCreated, first.res.Kind,
			"Resolve reports the resolution the journal holds, not a finding it kept in the trail")
		assert.Equal(t, second.ID, first.res.ID)
	}
}
