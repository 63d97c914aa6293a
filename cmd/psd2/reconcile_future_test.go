package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/store"
)

// TestReconcileRefusesAPeriodInTheFuture: a period that begins after
// today holds no payment yet, and nothing the store holds can say
// otherwise; it is refused (exit 2), as health report refuses a -from in
// the future, never listed as "0 payment(s)" with exit status 0, as on
// the code before. A -to in the future is today's period so far: listed.
func TestReconcileRefusesAPeriodInTheFuture(t *testing.T) {
	t.Parallel()
	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	seedReconcile(t, st)
	today := date.Of(time.Now().In(date.Oslo()))
	from, to := dayAfter(today, 2), dayAfter(today, 30)
	for _, extra := range [][]string{nil, {"--json"}} {
		args := append([]string{"reconcile", "-store", dir, "-from", from.String(), "-to", to.String()}, extra...)
		out, errOut, code := psd2(t, args...)
		t.Logf("%v: exit %d\nstdout: %s\nstderr: %s", extra, code, out, errOut)
		assert.Equal(t, exitUsage, code, "%v: a period not begun is no all-clear", extra)
		assert.NotContains(t, out, "0 payment(s)", "%v", extra)
		assert.NotContains(t, out, `"payments": []`, "%v", extra)
		assert.Contains(t, errOut, "future", "%v", extra)
	}
	out, errOut, code := psd2(t, "reconcile", "-store", dir, "-from", dayAfter(today, -3).String(), "-to", to.String())
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "payment(s)")
}
