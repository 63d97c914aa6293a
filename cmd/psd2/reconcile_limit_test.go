package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/store"
)

// A -limit that cuts the list cuts neither the counts nor the summary: a
// stalled payment past the limit is still counted, so that a listing
// cut short is never read as "nothing stalled"; the payments listed are
// the earliest of the period. On the code before, the counts and the
// summary covered only the payments listed ("1 payment(s): 1 settled"),
// whichever the store gave first.
func TestReconcileLimitCutsNoCount(t *testing.T) {
	t.Parallel()
	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	seedReconcile(t, st)
	period := seedPeriod(t)

	out, errOut, code := psd2(t, append([]string{"reconcile", "-store", dir, "-limit", "1", "--json"}, period...)...)
	require.Equal(t, exitOK, code, errOut)
	var rep struct {
		Payments []struct{ Payment string } `json:"payments"`
		Counts   map[string]int             `json:"counts"`
		Total    int                        `json:"total"`
		More     bool                       `json:"more"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, map[string]int{"settled": 1, "stalled": 1, "not-executed": 1}, rep.Counts, "every payment of the period counted")
	assert.Equal(t, 3, rep.Total)
	assert.True(t, rep.More)
	require.Len(t, rep.Payments, 1)
	assert.Equal(t, "pay-settled", rep.Payments[0].Payment, "the earliest")

	out, errOut, code = psd2(t, append([]string{"reconcile", "-store", dir, "-limit", "1"}, period...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "3 payment(s): 1 settled, 1 stalled, 1 not-executed")
	assert.Contains(t, out, "raise -limit")
}
