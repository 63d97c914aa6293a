package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// TestReconcileRefusesAPeriodBeyondRetention: the reconciler keeps a
// payment reconcile.Retention (120 days) after its creation, and drops
// it at its account's next read; a period that begins before then is
// refused, never listed as "0 payment(s)" (health report refuses a
// period older than its records in the same way). On the code before,
// the payments of 150 days ago, tracked and then dropped, were listed as
// none, exit status 0.
func TestReconcileRefusesAPeriodBeyondRetention(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	real := time.Now()
	now := real.Add(-150 * 24 * time.Hour)
	r, err := reconcile.New(st, reconcile.WithClock(func() time.Time { return now }))
	require.NoError(t, err)
	require.NoError(t, r.Watch(ctx, reconcileAccount, accounts.Account{BBAN: "86011117947"}))
	_, err = r.Track(ctx, reconcile.Payment{RequestID: "pay-old", KID: "1234567890128", Status: payments.StatusACTC,
		Created: now, Product: payments.ProductNorwegianDomestic, Amount: money.MustParse("250.00", "NOK"), CreditorBBAN: "86011117947"})
	require.NoError(t, err)
	_, err = r.Payment(ctx, "pay-old")
	require.NoError(t, err, "tracked")
	// The account is read today: the payment of 150 days ago goes.
	now = real
	_, err = r.Apply(ctx, &txsync.Delta{Account: reconcileAccount})
	require.NoError(t, err)
	_, err = r.Payment(ctx, "pay-old")
	require.ErrorIs(t, err, reconcile.ErrNotTracked, "gone past the retention")

	day := date.Of(real.Add(-150 * 24 * time.Hour).In(date.Oslo()))
	for _, extra := range [][]string{nil, {"--json"}} {
		args := append([]string{"reconcile", "-store", dir, "-from", day.String(), "-to", day.String()}, extra...)
		out, errOut, code := psd2(t, args...)
		t.Logf("%v: exit %d\nstdout: %s\nstderr: %s", extra, code, out, errOut)
		assert.NotEqual(t, exitOK, code, "%v: a period whose payments the store no longer keeps is no all-clear", extra)
		assert.NotContains(t, out, "0 payment(s)", "%v", extra)
		assert.NotContains(t, out, `"payments": []`, "%v", extra)
		assert.Contains(t, errOut, "120 days", "%v: the error says how long payments are kept", extra)
	}

	// A period within the retention is listed.
	from := date.Of(real.Add(-100 * 24 * time.Hour).In(date.Oslo()))
	out, errOut, code := psd2(t, "reconcile", "-store", dir, "-from", from.String())
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "0 payment(s)")
}
