package txsync_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// An account whose entries carry long texts (a counterparty and a
// message of 140 characters each, in letters of four bytes: emoji in
// Vipps messages) made a state of 2.6 MB at the default limit of 2,000
// entries: the store refuses values past 1 MiB, so the read failed, and
// every later read of the account with it. The state keeps what fits in
// the store's bound: the entries past it count in Overflow, as those past
// the entry limit do, and a read of the same entries again reports
// nothing but its overflow.
func TestStateStaysWithinTheStoreBound(t *testing.T) {
	s, k := linked(t)
	ctx := t.Context()
	text := strings.Repeat("😀", 140)
	var bs []accounts.Transaction
	for i := range txsync.DefaultMaxEntries {
		bs = append(bs, booked(t, fmt.Sprintf("%0140d", i), "2026-03-10", "-10.00", text, text))
	}
	d, err := s.Apply(ctx, k, txsync.Read{Booked: bs})
	require.NoError(t, err)
	assert.Positive(t, d.Overflow)
	assert.Equal(t, len(bs), len(d.Added)+d.Overflow)
	n, err := s.StateSize(ctx, k)
	require.NoError(t, err)
	assert.LessOrEqual(t, n, store.MaxValueLen)
	again, err := s.Apply(ctx, k, txsync.Read{Booked: bs})
	require.NoError(t, err)
	assert.Empty(t, again.Added)
	assert.Empty(t, again.Changed)
	assert.Empty(t, again.Removed)
	assert.Equal(t, d.Overflow, again.Overflow)
}
