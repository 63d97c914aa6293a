package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// putRecord stores d as putDowntime does and returns its ID.
func putRecord(t *testing.T, st store.Store, scope string, d Downtime) string {
	t.Helper()
	putDowntime(t, st, scope, d)
	return fmt.Sprintf("%020d", d.Start.UnixNano())
}

// backwardsAt is a record that ends a minute before it starts at start.
func backwardsAt(bank string, start time.Time) Downtime {
	return Downtime{Bank: bank, Start: start, End: start.Add(-time.Minute), LastFailure: start, Failures: 5,
		Evidence: []Evidence{{RequestID: "r1", At: start, Status: 503, Result: "503 Service Unavailable", Operation: "accounts.List"}}}
}

// DowntimeRecords lists every record of the bank with its ID, the
// backwards, unended and unreadable ones included; ForgetDowntime removes
// the backwards one named, after which Downtimes gives the period's
// records again. Before, there was no way to name or remove a record:
// the latest backwards record kept every later period from figures.
func TestDowntimeRecordsAndForgetBackwards(t *testing.T) {
	t.Parallel()
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	now := time.Now().UTC().Truncate(time.Second)
	good := Downtime{Bank: c.Bank(), Start: now.Add(-50 * time.Hour), End: now.Add(-50*time.Hour + time.Minute), Failures: 5}
	goodID := putRecord(t, mem, c.Scope(), good)
	unended := Downtime{Bank: c.Bank(), Start: now.Add(-49 * time.Hour), Failures: 5}
	unendedID := putRecord(t, mem, c.Scope(), unended)
	back := backwardsAt(c.Bank(), now.Add(-48*time.Hour))
	backID := putRecord(t, mem, c.Scope(), back)

	recs, err := c.DowntimeRecords(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 3)
	assert.Equal(t, []string{goodID, unendedID, backID}, []string{recs[0].ID, recs[1].ID, recs[2].ID})
	assert.False(t, recs[0].Blocking())
	assert.True(t, recs[1].Downtime.EndAssumed, "never ended, a record after it: ends at its start, as Downtimes gives it")
	assert.True(t, recs[1].Downtime.End.Equal(back.Start))
	assert.True(t, recs[2].Blocking())
	assert.True(t, recs[2].Downtime.Backwards())

	downs, err := c.Downtimes(t.Context(), now.Add(-24*time.Hour), now)
	require.NoError(t, err)
	require.Len(t, downs, 1, "the latest backwards record runs on into every later period")
	require.True(t, downs[0].Backwards())

	got, err := c.ForgetDowntime(t.Context(), backID, "ops-1", "filed with the bank")
	require.NoError(t, err)
	assert.Equal(t, backID, got.ID)
	assert.True(t, got.Downtime.Start.Equal(back.Start), "returns the record as it was removed")

	downs, err = c.Downtimes(t.Context(), now.Add(-24*time.Hour), now)
	require.NoError(t, err)
	require.Len(t, downs, 1, "the record never ended, the latest now, runs on")
	assert.False(t, downs[0].Backwards())
	assert.True(t, downs[0].Start.Equal(unended.Start))
	recs, err = c.DowntimeRecords(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 2, "only the record named went")
	assert.Equal(t, goodID, recs[0].ID)
	assert.Equal(t, unendedID, recs[1].ID)
	assert.True(t, recs[1].Downtime.End.IsZero(), "the unended record, the latest now, runs on")

	forgotten, err := c.ForgottenDowntimes(t.Context())
	require.NoError(t, err)
	require.Len(t, forgotten, 1, "a trace of the record is kept")
	f := forgotten[0]
	assert.Equal(t, backID, f.ID)
	assert.Equal(t, "ops-1", f.By)
	assert.Equal(t, "filed with the bank", f.Reason)
	assert.True(t, f.Downtime.Start.Equal(back.Start))
	assert.Len(t, f.Downtime.Evidence, 1)
	assert.True(t, f.Reaches(now.Add(-24*time.Hour), now), "it ran on into the last day until forgotten")
	assert.True(t, f.Reaches(now.Add(-49*time.Hour), now.Add(-48*time.Hour)), "it may have begun by its end")
	assert.False(t, f.Reaches(now.Add(-72*time.Hour), now.Add(-49*time.Hour)), "before its times")
	assert.False(t, f.Reaches(f.At, f.At.Add(time.Hour)), "after it was forgotten")
}

// ForgetDowntime refuses a record reports count (ended after its start,
// or never ended) and an ID that names no record, and changes nothing.
func TestForgetDowntimeRefusesSummableAndUnknown(t *testing.T) {
	t.Parallel()
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	now := time.Now().UTC().Truncate(time.Second)
	goodID := putRecord(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: now.Add(-3 * time.Hour), End: now.Add(-2 * time.Hour), Failures: 5})
	openID := putRecord(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: now.Add(-time.Hour), Failures: 5})
	before, err := c.DowntimeRecords(t.Context())
	require.NoError(t, err)

	for _, id := range []string{goodID, openID} {
		_, err := c.ForgetDowntime(t.Context(), id, "ops-1", "filed")
		require.ErrorIs(t, err, ErrDowntimeRecordSummable, id)
	}
	other := newTestClient(t, "https://other-bank.example", WithStore(mem))
	for _, id := range []string{"00000000000000000001", "", "../x", "a/b", fmt.Sprintf("%020d", now.UnixNano())} {
		_, err := c.ForgetDowntime(t.Context(), id, "ops-1", "filed")
		require.ErrorIs(t, err, ErrNoDowntimeRecord, "%q", id)
	}
	_, err = other.ForgetDowntime(t.Context(), goodID, "ops-1", "filed")
	require.ErrorIs(t, err, ErrNoDowntimeRecord, "another bank's client names none of this bank's records")

	after, err := c.DowntimeRecords(t.Context())
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing changed")

	backID := putRecord(t, mem, c.Scope(), backwardsAt(c.Bank(), now.Add(-30*time.Minute)))
	before, err = c.DowntimeRecords(t.Context())
	require.NoError(t, err)
	for _, w := range [][2]string{{"", "filed"}, {"ops-1", " "}, {"ops-1", strings.Repeat("x", 513)}} {
		_, err := c.ForgetDowntime(t.Context(), backID, w[0], w[1])
		require.Error(t, err, "who and why must be given: %q", w)
	}

	after, err = c.DowntimeRecords(t.Context())
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing changed")
	forgotten, err := c.ForgottenDowntimes(t.Context())
	require.NoError(t, err)
	assert.Empty(t, forgotten, "a refusal leaves no trace")
}

// An unreadable record, which Downtimes fails on, is listed (Unreadable)
// and can be forgotten.
func TestForgetUnreadableDowntime(t *testing.T) {
	t.Parallel()
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	now := time.Now().UTC()
	id := fmt.Sprintf("%020d", now.Add(-time.Hour).UnixNano())
	require.NoError(t, mem.Put(t.Context(), downtimePrefix(c.Scope())+id, []byte(`{"start":`), DowntimeKept))
	_, err := c.Downtimes(t.Context(), now.Add(-24*time.Hour), now)
	require.Error(t, err)

	recs, err := c.DowntimeRecords(t.Context())
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.True(t, recs[0].Unreadable)
	assert.True(t, recs[0].Blocking())

	got, err := c.ForgetDowntime(t.Context(), id, "ops-1", "filed")
	require.NoError(t, err)
	assert.True(t, got.Unreadable)
	_, err = c.Downtimes(t.Context(), now.Add(-24*time.Hour), now)
	require.NoError(t, err)
}

// racingStore runs during before each Update (ForgetDowntime makes one),
// as another replica writing meanwhile would.
type racingStore struct {
	store.Store
	during func()
}

func (s racingStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	if s.during != nil {
		s.during()
	}
	return s.Store.Update(ctx, key, fn)
}

// Replicas that write records while a record is forgotten lose nothing:
// a new record another replica writes meanwhile is kept; a replica's
// close merged into the backwards record before the forget, which makes
// it end after its start, has it refused and kept; a replica's account
// merged after the forget is written as a record again.
func TestForgetDowntimeKeepsWhatReplicasWrite(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC().Truncate(time.Second)

	t.Run("a new record meanwhile", func(t *testing.T) {
		mem := store.NewMemoryStore()
		replica := newTestClient(t, "https://bank.example", WithStore(mem))
		back := backwardsAt(replica.Bank(), now.Add(-2*time.Hour))
		backID := putRecord(t, mem, replica.Scope(), back)
		fresh := Downtime{Bank: replica.Bank(), Start: now.Add(-time.Minute), Failures: 5}
		c := newTestClient(t, "https://bank.example", WithStore(racingStore{Store: mem, during: func() {
			replica.bankHealth().writeRecord(BreakerChange{To: BreakerOpen, Downtime: fresh})
		}}))
		_, err := c.ForgetDowntime(t.Context(), backID, "ops-1", "filed with the bank")
		require.NoError(t, err)
		recs, err := c.DowntimeRecords(t.Context())
		require.NoError(t, err)
		require.Len(t, recs, 1, "the replica's new record is kept")
		assert.True(t, recs[0].Downtime.Start.Equal(fresh.Start))
	})

	t.Run("a close merged into it before", func(t *testing.T) {
		mem := store.NewMemoryStore()
		replica := newTestClient(t, "https://bank.example", WithStore(mem))
		start := now.Add(-2 * time.Hour)
		back := backwardsAt(replica.Bank(), start)
		back.End = time.Time{}
		back.Start = start.Add(time.Minute) // its start written by a clock ahead
		backID := fmt.Sprintf("%020d", start.UnixNano())
		raw, err := json.Marshal(Downtime{Bank: back.Bank, Start: back.Start, End: start, Failures: 5})
		require.NoError(t, err)
		require.NoError(t, mem.Put(t.Context(), downtimePrefix(replica.Scope())+backID, raw, DowntimeKept))
		// The opener, running, closes with its own account: start at
		// the key's time, the end the first that proves the bank back.
		closed := Downtime{Bank: replica.Bank(), Start: start, End: start.Add(30 * time.Second), Failures: 2}
		c := newTestClient(t, "https://bank.example", WithStore(racingStore{Store: mem, during: func() {
			replica.bankHealth().writeRecord(BreakerChange{To: BreakerClosed, Downtime: closed})
		}}))
		_, err = c.ForgetDowntime(t.Context(), backID, "ops-1", "filed with the bank")
		require.ErrorIs(t, err, ErrDowntimeRecordSummable, "the merged record ends after its start: reports count it")
		recs, err := c.DowntimeRecords(t.Context())
		require.NoError(t, err)
		require.Len(t, recs, 1, "kept")
		assert.False(t, recs[0].Downtime.Backwards())
	})

	t.Run("a failure merged into it before", func(t *testing.T) {
		mem := store.NewMemoryStore()
		replica := newTestClient(t, "https://bank.example", WithStore(mem))
		back := backwardsAt(replica.Bank(), now.Add(-2*time.Hour))
		backID := putRecord(t, mem, replica.Scope(), back)
		more := back
		more.Failures = 1
		more.Evidence = []Evidence{{RequestID: "r2", At: back.Start, Result: "timeout", Operation: "accounts.List"}}
		c := newTestClient(t, "https://bank.example", WithStore(racingStore{Store: mem, during: func() {
			replica.bankHealth().writeRecord(BreakerChange{To: BreakerClosed, Downtime: more})
		}}))
		_, err := c.ForgetDowntime(t.Context(), backID, "ops-1", "filed")
		require.ErrorIs(t, err, ErrDowntimeRecordChanged, "still backwards, but not the record read: nothing changed")
		recs, err := c.DowntimeRecords(t.Context())
		require.NoError(t, err)
		require.Len(t, recs, 1, "kept")
		assert.Equal(t, 6, recs[0].Downtime.Failures, "with the replica's failure")
		forgotten, err := c.ForgottenDowntimes(t.Context())
		require.NoError(t, err)
		assert.Empty(t, forgotten, "the trace went with the refusal")
	})

	t.Run("an account merged after", func(t *testing.T) {
		mem := store.NewMemoryStore()
		c := newTestClient(t, "https://bank.example", WithStore(mem))
		back := backwardsAt(c.Bank(), now.Add(-2*time.Hour))
		backID := putRecord(t, mem, c.Scope(), back)
		_, err := c.ForgetDowntime(t.Context(), backID, "ops-1", "filed with the bank")
		require.NoError(t, err)
		replica := newTestClient(t, "https://bank.example", WithStore(mem))
		late := Downtime{Bank: c.Bank(), Start: back.Start, End: back.Start.Add(time.Minute), Failures: 1}
		replica.bankHealth().writeRecord(BreakerChange{To: BreakerClosed, Downtime: late})
		recs, err := c.DowntimeRecords(t.Context())
		require.NoError(t, err)
		require.Len(t, recs, 1, "the replica's account is written as a record again, not lost")
		assert.Equal(t, backID, recs[0].ID)
		assert.Equal(t, 1, recs[0].Downtime.Failures)
	})
}
