package client

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// A downtime record that began before the period and ended within it,
// or runs on, is one of the period's, cut to it: the outage was on at
// the period's start.
func TestDowntimesRecordBeganBeforeThePeriod(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)

	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: from.Add(-time.Hour), End: from.Add(30 * time.Minute), LastFailure: from.Add(10 * time.Minute), Failures: 9})
	downs, err := c.Downtimes(t.Context(), from, to)
	require.NoError(t, err)
	require.Len(t, downs, 1)
	a := Report(c.Bank(), downs, from, to, to)
	assert.Equal(t, 1, a.Count)
	assert.Equal(t, 30*time.Minute, a.Unavailable, "cut to the period")
	assert.Equal(t, 10*time.Minute, a.Seen)

	open := store.NewMemoryStore()
	c = newTestClient(t, "https://bank.example", WithStore(open))
	putDowntime(t, open, c.Scope(), Downtime{Bank: c.Bank(), Start: from.Add(-time.Hour), LastFailure: from.Add(-time.Hour), Failures: 5})
	downs, err = c.Downtimes(t.Context(), from, to)
	require.NoError(t, err)
	require.Len(t, downs, 1, "under way since before the period")
	a = Report(c.Bank(), downs, from, to, from.Add(2*time.Hour))
	assert.Equal(t, 2*time.Hour, a.Unavailable, "from the period's start to now")
}

// A record that ends before it starts (the clock of the process that
// wrote its end was behind, or stepped back) says the bank was down from
// its start for a time nobody knows: a period it may reach into gets it,
// as stored, and its report says its figures leave it out, never that
// the bank was available. On the code before, Downtimes left out such a
// record that started before the period (its end is before it), and
// Report summed one to nothing: no unavailability, 100% uptime.
func TestDowntimesBackwardsRecordIsNeverLeftOut(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)
	for _, tc := range []struct {
		name       string
		start, end time.Time
	}{
		{"before the period", from.Add(-time.Minute), from.Add(-2 * time.Minute)},
		{"starts in it, ends before it", from.Add(time.Minute), from.Add(-time.Minute)},
		{"within it", from.Add(time.Hour), from.Add(time.Hour - time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := store.NewMemoryStore()
			c := newTestClient(t, "https://bank.example", WithStore(mem))
			putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: tc.start, End: tc.end, LastFailure: tc.start, Failures: 5})
			downs, err := c.Downtimes(t.Context(), from, to)
			require.NoError(t, err)
			require.Len(t, downs, 1, "never left out")
			assert.True(t, downs[0].End.Equal(tc.end), "given as stored")
			assert.True(t, downs[0].Backwards())
			a := Report(c.Bank(), downs, from, to, to)
			assert.Equal(t, 1, a.Backwards)
			text := a.String()
			assert.NotContains(t, text, "unavailable: 0 time(s)")
			assert.Contains(t, text, "uptime at most 100.000%")
			assert.Contains(t, text, "end before they start")
			assert.Contains(t, text, "BEFORE ITS START")
		})
	}

	// A record after it bounds its end: a period after that does not get it.
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: from.Add(-time.Hour), End: from.Add(-2 * time.Hour), Failures: 5})
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: from.Add(-30 * time.Minute), End: from.Add(-20 * time.Minute), Failures: 5})
	downs, err := c.Downtimes(t.Context(), from, to)
	require.NoError(t, err)
	assert.Empty(t, downs)
}

// A record that starts after the period but ends before it starts, its
// end within the period (the clock that wrote its start was ahead of the
// one that wrote its end), may be an outage of the period: Downtimes
// gives it, as it gives one that starts within it, and reads on past the
// first record that starts after the period to find it. On the code
// before, Downtimes stopped at that first record and left it out.
func TestDowntimesBackwardsRecordAfterThePeriodEndingInIt(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)
	mem := store.NewMemoryStore()
	c := newTestClient(t, "https://bank.example", WithStore(mem))
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: from.Add(time.Hour), End: from.Add(2 * time.Hour), LastFailure: from.Add(time.Hour), Failures: 5})
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: to.Add(time.Hour), End: to.Add(2 * time.Hour), LastFailure: to.Add(time.Hour), Failures: 5})
	back := Downtime{Bank: c.Bank(), Start: to.Add(3 * time.Hour), End: to.Add(-30 * time.Minute), LastFailure: to.Add(3 * time.Hour), Failures: 5}
	putDowntime(t, mem, c.Scope(), back)
	putDowntime(t, mem, c.Scope(), Downtime{Bank: c.Bank(), Start: to.Add(5 * time.Hour), End: to.Add(6 * time.Hour), LastFailure: to.Add(5 * time.Hour), Failures: 5})

	downs, err := c.Downtimes(t.Context(), from, to)
	require.NoError(t, err)
	require.Len(t, downs, 2, "the period's record and the backwards one that ends in it")
	assert.True(t, downs[1].Start.Equal(back.Start))
	assert.True(t, downs[1].Backwards())
	a := Report(c.Bank(), downs, from, to, to)
	assert.Equal(t, 1, a.Backwards)
	assert.Contains(t, a.String(), "uptime at most")

	// A backwards record whose end is after the period is not the
	// period's.
	downs, err = c.Downtimes(t.Context(), from, to.Add(-time.Hour))
	require.NoError(t, err)
	assert.Len(t, downs, 1)
}
