package otel_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/store"

	psd2otel "github.com/tppkit/psd2/otel"
)

// TestJournalInDoubtCountsALostEntry: a payment in doubt whose journal
// entry is lost, only its open marker left, counts as in doubt: the
// gauge never reads 0 while the payment may exist.
func TestJournalInDoubtCountsALostEntry(t *testing.T) {
	st := store.NewMemoryStore()
	require.NoError(t, st.Put(t.Context(), "journal/open/lost-1", []byte(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)), 0))
	j, err := journal.New(st)
	require.NoError(t, err)
	r := newObservedRig(t)
	_, err = r.obs.RegisterGauges(psd2otel.Gauges{InDoubt: psd2otel.JournalInDoubt(j)})
	require.NoError(t, err)
	m, ok := find(r.collect(t), psd2otel.MetricJournalInDoubt)
	require.True(t, ok)
	assert.EqualValues(t, 1, m.Data.(metricdata.Gauge[int64]).DataPoints[0].Value)
}

// Entries the journal cannot read count as in doubt, and so does every
// entry after them: the gauge observes the count beside the failed read.
// It observed nothing.
func TestJournalInDoubtCountsAnUnreadableEntry(t *testing.T) {
	st := store.NewMemoryStore()
	marked := []byte(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano))
	for _, id := range []string{"dmg-1", "dmg-2"} {
		require.NoError(t, st.Put(t.Context(), "journal/open/"+id, marked, 0))
		require.NoError(t, st.Put(t.Context(), "journal/entry/"+id, []byte(`{"intent":`), 0))
	}
	require.NoError(t, st.Put(t.Context(), "journal/open/lost-1", marked, 0))
	j, err := journal.New(st)
	require.NoError(t, err)
	n, err := psd2otel.JournalInDoubt(j)(t.Context())
	require.ErrorIs(t, err, journal.ErrEntryUnreadable)
	assert.EqualValues(t, 3, n)
	r := newObservedRig(t)
	_, err = r.obs.RegisterGauges(psd2otel.Gauges{InDoubt: psd2otel.JournalInDoubt(j)})
	require.NoError(t, err)
	m, ok := find(r.collect(t), psd2otel.MetricJournalInDoubt)
	require.True(t, ok)
	assert.EqualValues(t, 3, m.Data.(metricdata.Gauge[int64]).DataPoints[0].Value)
}
