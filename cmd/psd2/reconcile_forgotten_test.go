package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
)

// A store whose only watched account was forgotten (Reconciler.Forget,
// what ErrCorruptState tells a service to do) holds no payment's state,
// only the watch and the payments' index the reconciler left: psd2
// reconcile must not list that as a period without payments. On the code
// before, Reconciler.Watching took any key under reconcile/ for a
// watched account's state, and psd2 printed "0 payment(s)", exit 0, for
// a period whose three payments were tracked.
func TestReconcileOfAForgottenAccountIsNoAllClear(t *testing.T) {
	t.Parallel()
	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	seedReconcile(t, st)
	r, err := reconcile.New(st)
	require.NoError(t, err)
	require.NoError(t, r.Forget(t.Context(), reconcileAccount))

	for _, json := range []bool{false, true} {
		args := append([]string{"reconcile", "-store", dir}, seedPeriod(t)...)
		if json {
			args = append(args, "--json")
		}
		out, errOut, code := psd2(t, args...)
		t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		assert.Equal(t, exitRuntime, code, "no watched account's state is no empty period")
		assert.NotContains(t, out, "0 payment(s)")
		assert.NotContains(t, out, `"total": 0`)
		assert.Contains(t, errOut, "no reconciliation state")
	}
}
