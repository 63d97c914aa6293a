package journal_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
)

// An operator settles an entry while Resolve's resend is on the wire
// (issue 33, 4). Before, the settlement was recorded, and the resend's
// resolution then replaced it: the operator was told the entry was
// settled as they said, and the journal said otherwise. Now the
// settlement is refused while the resend is on its way, the resend's
// resolution is recorded, and the refused settlement stays in the
// entry's trail. 100 runs, each with the settlement landing while the
// bank holds the resend.
func TestSettleDuringResend(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	for run := range 100 {
		j, _ := newJournal(t)
		e := inDoubt(t, b, c, j, fmt.Sprintf(`{"run":%d}`, run))
		posts := b.posts.Load()

		arrived, release := b.holdNext()
		type result struct {
			res journal.Resolution
			err error
		}
		done := make(chan result, 1)
		go func() {
			res, err := j.Resolve(ctx, c, e)
			done <- result{res, err}
		}()
		resendID := <-arrived // the resend is at the bank, unanswered
		settled, serr := j.SettleByPerson(ctx, e.RequestID, "ops-anna", "bank support says nothing arrived")
		release()
		r := <-done
		require.NoError(t, r.err, "run %d", run)
		require.Equal(t, journal.ResolvedCreated, r.res.Kind, "run %d", run)

		final, err := j.Entry(ctx, e.RequestID)
		require.NoError(t, err)
		if serr == nil {
			// The only other acceptable outcome: the settlement, once
			// reported, is the record.
			require.Equal(t, journal.SettledByPerson, final.Resolution.Kind, "run %d: the operator was told %v", run, settled)
			continue
		}
		require.ErrorIs(t, serr, journal.ErrClaimed, "run %d", run)
		var ce *journal.ClaimedError
		require.ErrorAs(t, serr, &ce)
		assert.Equal(t, resendID, ce.ResendRequestID, "the error names the resend on the wire")
		assert.False(t, ce.Until.IsZero())
		assert.Equal(t, journal.ResolvedCreated, final.Resolution.Kind)
		assert.Equal(t, r.res.ID, final.ID)
		require.Len(t, final.Trail, 1, "run %d: the refused settlement is kept", run)
		assert.Equal(t, journal.SettledByPerson, final.Trail[0].Kind)
		assert.Contains(t, final.Trail[0].Reason, "refused")
		assert.Contains(t, final.Trail[0].Reason, "settled by ops-anna: bank support says nothing arrived")
		assert.Equal(t, resendID, final.Trail[0].ResendRequestID)
		assert.Equal(t, posts+1, b.posts.Load(), "run %d: one resend", run)

		// Once the resend is over, the entry is settled: nothing more to
		// settle by hand.
		_, err = j.SettleByPerson(ctx, e.RequestID, "ops-anna", "again")
		require.ErrorIs(t, err, journal.ErrNotInDoubt)
	}
}

// A settlement made before Resolve claims the entry stands: Resolve sends
// nothing and returns it.
func TestSettleBeforeResolve(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	j, _ := newJournal(t)
	e := inDoubt(t, b, c, j, `{"a":1}`)
	posts := b.posts.Load()
	settled, err := j.SettleByPerson(ctx, e.RequestID, "ops-bob", "the PSU confirmed it")
	require.NoError(t, err)
	assert.False(t, settled.InDoubt())

	res, err := j.Resolve(ctx, c, e) // the stale copy, still in doubt
	require.NoError(t, err)
	assert.Equal(t, journal.SettledByPerson, res.Kind)
	assert.Equal(t, posts, b.posts.Load(), "nothing sent")
}

// A resolver slower than its claim (the claim ran out while its resend
// was held): a person settles meanwhile. The person's settlement stays
// in force, Resolve reports the conflict with what it found, and the
// entry's trail keeps the resolver's finding.
func TestSettlementOutlivesExpiredClaim(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	clock := testtpp.NewClock(time.Now())
	j, st := newJournal(t, journal.WithClient(b.client(t, client.WithClock(clock.Now))))
	e := inDoubt(t, b, c, j, `{"slow":1}`)

	arrived, release := b.holdNext()
	done := make(chan error, 1)
	var res journal.Resolution
	go func() {
		var err error
		res, err = j.Resolve(ctx, c, e)
		done <- err
	}()
	<-arrived
	_, err := j.SettleByPerson(ctx, e.RequestID, "ops-anna", "nothing arrived")
	require.ErrorIs(t, err, journal.ErrClaimed, "the claim lives")
	clock.Add(c.LongestCall() + time.Hour)   // past the claim
	journal.ExpireLeases(t, st, e.RequestID) // and its lease, on the store's clock
	_, err = j.SettleByPerson(ctx, e.RequestID, "ops-anna", "nothing arrived")
	require.NoError(t, err, "the claim ran out")
	release()
	err = <-done
	require.ErrorIs(t, err, journal.ErrConflict)
	assert.Equal(t, journal.ResolvedCreated, res.Kind, "what the resend found")
	assert.NotEmpty(t, res.Answer, "with the bank's answer: the resource exists")

	final, err := j.Entry(ctx, e.RequestID)
	require.NoError(t, err)
	require.NotNil(t, final.Resolution)
	assert.Equal(t, journal.SettledByPerson, final.Resolution.Kind, "the person's record stands")
	assert.Equal(t, "settled by ops-anna: nothing arrived", final.Resolution.Reason)
	kinds := []journal.ResolutionKind{}
	for _, r := range final.Trail {
		kinds = append(kinds, r.Kind)
	}
	assert.Equal(t, []journal.ResolutionKind{journal.SettledByPerson, journal.ResolvedCreated}, kinds,
		"the trail keeps the refused settlement and the resolver's finding")
	assert.Equal(t, res.ID, final.Trail[1].ID)

	// Resolving again returns the person's settlement and sends nothing.
	posts := b.posts.Load()
	again, err := j.Resolve(ctx, c, final)
	require.NoError(t, err)
	assert.Equal(t, journal.SettledByPerson, again.Kind)
	assert.Equal(t, posts, b.posts.Load())
}

// Two Resolves of one entry at once: the second finds the claim of the
// first and sends nothing.
func TestResolveWhileClaimed(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newThingBank(t)
	c := b.client(t)
	j, st := newJournal(t)
	e := inDoubt(t, b, c, j, `{"twice":1}`)
	posts := b.posts.Load()

	arrived, release := b.holdNext()
	done := make(chan error, 1)
	go func() {
		_, err := j.Resolve(ctx, c, e)
		done <- err
	}()
	resendID := <-arrived
	_, err := j.Resolve(ctx, c, e)
	var ce *journal.ClaimedError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, resendID, ce.ResendRequestID)
	assert.True(t, errors.Is(err, journal.ErrClaimed))
	held, err := j.Entry(ctx, e.RequestID)
	require.NoError(t, err)
	claim := held.Claimed(time.Now())
	require.NotNil(t, claim, "the entry shows its claim")
	assert.Equal(t, resendID, claim.ResendRequestID)
	assert.Nil(t, held.Claimed(claim.Until), "a claim ends at its Until")
	release()
	require.NoError(t, <-done)
	assert.Equal(t, posts+1, b.posts.Load(), "one resend")
	after, err := j.Entry(ctx, e.RequestID)
	require.NoError(t, err)
	assert.Nil(t, after.Claimed(time.Now()), "the claim ended with the resolution")

	// A Resolve whose resend's outcome is unknown keeps its claim while
	// the bank may still be working on the resend; then it ends, and a
	// person may settle the entry.
	e2 := inDoubt(t, b, c, j, `{"fails":1}`)
	b.drop.Store(1)
	_, err = j.Resolve(ctx, c, e2)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	_, err = j.SettleByPerson(ctx, e2.RequestID, "ops-anna", "checked the account")
	require.ErrorIs(t, err, journal.ErrClaimed, "the resend may still be under way at the bank")
	kept, err := j.Entry(ctx, e2.RequestID)
	require.NoError(t, err)
	for _, c := range []*journal.ClaimedError{kept.Claimed(time.Time{})} {
		require.NotNil(t, c)
		journal.MovePast(j, c.Until)
	}
	journal.ExpireLeases(t, st, e2.RequestID)
	_, err = j.SettleByPerson(ctx, e2.RequestID, "ops-anna", "checked the account")
	require.NoError(t, err, "no claim left behind once the resend is over")
}
