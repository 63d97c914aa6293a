package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// A settled payment holding a reversal the bank dated ahead, past
// -limit, is not plainly settled: the counts cover every payment of the
// period, and so does what they hold. On the code before, -limit 1
// printed "2 payment(s): 2 settled" and the held notes counted the
// listed payments only, so nothing said that the money of one of them
// may be going back; the JSON had no count of it either.
func TestReconcileLimitHidesNoHeldReversal(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := fileStoreDir(t)
	st, err := store.NewFileStore(dir)
	require.NoError(t, err)
	day := seedDay(t)
	now := day.Time(nil).Add(9 * time.Hour)
	r, err := reconcile.New(st, reconcile.WithClock(func() time.Time { return now }))
	require.NoError(t, err)
	require.NoError(t, r.Watch(ctx, reconcileAccount, accounts.Account{BBAN: "86011117947"}))
	kids := []string{"1234567890128", "99887766"}
	var credits []txsync.Entry
	for i, id := range []string{"pay-first", "pay-later"} {
		_, err = r.Track(ctx, reconcile.Payment{RequestID: id, KID: kids[i], Created: now.Add(time.Duration(i) * time.Minute),
			Product: payments.ProductNorwegianDomestic, Amount: money.MustParse("250.00", "NOK"), Status: payments.StatusACTC,
			CreditorBBAN: "86011117947"})
		require.NoError(t, err)
		credits = append(credits, txsync.Entry{Key: txsync.Key(string(reconcileAccount) + "-" + id), Transaction: &accounts.Transaction{
			Status: accounts.BookingBooked, BookingDate: day, TransactionAmount: money.MustParse("250.00", "NOK"), RemittanceInformationUnstructured: kids[i]}})
	}
	round, err := r.Apply(ctx, &txsync.Delta{Account: reconcileAccount, Added: credits})
	require.NoError(t, err)
	require.Len(t, round.Settled, 2)
	ahead := dayAfter(day, 3)
	key := txsync.Key(reconcileAccount + "-back")
	round, err = r.Apply(ctx, &txsync.Delta{Account: reconcileAccount, Added: []txsync.Entry{{Key: key, Transaction: &accounts.Transaction{
		Status: accounts.BookingBooked, BookingDate: ahead, TransactionAmount: money.MustParse("-250.00", "NOK"), RemittanceInformationUnstructured: kids[1]}}},
		Anomalies: []txsync.Anomaly{{Key: key, Kind: txsync.FutureBooked, Date: ahead}}})
	require.NoError(t, err)
	require.Len(t, round.Held, 1, "the reconciler holds the reversal of pay-later")

	out, errOut, code := psd2(t, append([]string{"reconcile", "-store", dir, "-limit", "1"}, seedPeriod(t)...)...)
	t.Logf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "pay-first")
	assert.NotContains(t, out, "pay-later")
	assert.Contains(t, out, "2 payment(s): 2 settled")
	assert.Contains(t, out, "1 payment(s) past -limit, not listed, have a reversal held")

	out, errOut, code = psd2(t, append([]string{"reconcile", "-store", dir, "-limit", "1", "--json"}, seedPeriod(t)...)...)
	require.Equal(t, exitOK, code, errOut)
	var rep struct {
		Total         int  `json:"total"`
		HeldCredits   *int `json:"heldCredits"`
		HeldReversals *int `json:"heldReversals"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, 2, rep.Total)
	if assert.NotNil(t, rep.HeldReversals, "the JSON counts the held reversals of the period") {
		assert.Equal(t, 1, *rep.HeldReversals)
	}
	if assert.NotNil(t, rep.HeldCredits, "and the held credits, 0 included") {
		assert.Equal(t, 0, *rep.HeldCredits)
	}
}
