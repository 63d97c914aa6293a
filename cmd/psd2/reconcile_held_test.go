package main

import (
	"encoding/json"
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

// TestReconcileShowsAHeldCredit: a credit that matches a payment but
// that the bank dated far ahead (txsync.FutureBooked) is held, not taken
// as the money having arrived. The table marks the payment "(held)" and
// says what that means, and the JSON names the held credit; before, the
// payment read as plainly awaiting, with nothing to tell it from one no
// credit matched.
func TestReconcileShowsAHeldCredit(t *testing.T) {
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
	for i, p := range []reconcile.Payment{
		{RequestID: "pay-held", KID: "1234567890128"},
		{RequestID: "pay-waiting", KID: "99887766"},
	} {
		p.Created, p.Product, p.Amount, p.Status = now.Add(time.Duration(i)*time.Minute), payments.ProductNorwegianDomestic,
			money.MustParse("250.00", "NOK"), payments.StatusACTC
		p.CreditorBBAN = "86011117947"
		_, err := r.Track(ctx, p)
		require.NoError(t, err)
	}
	ahead := dayAfter(day, 3) // within its window, 3 days after the bank day of the read
	key := txsync.Key(reconcileAccount + "-1")
	round, err := r.Apply(ctx, &txsync.Delta{Account: reconcileAccount,
		Added: []txsync.Entry{{Key: key, Transaction: &accounts.Transaction{Status: accounts.BookingBooked, BookingDate: ahead,
			TransactionAmount: money.MustParse("250.00", "NOK"), RemittanceInformationUnstructured: "1234567890128"}}},
		Anomalies: []txsync.Anomaly{{Key: key, Kind: txsync.FutureBooked, Date: ahead}}})
	require.NoError(t, err)
	require.Len(t, round.Held, 1, "the reconciler holds the credit")

	out, errOut, code := psd2(t, append([]string{"reconcile", "-store", dir}, seedPeriod(t)...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `pay-held +domestic +250\.00 NOK +awaiting \(held\)`, out)
	assert.Regexp(t, `pay-waiting +domestic +250\.00 NOK +awaiting +by `, out, "a payment no credit matched is not marked")
	assert.NotRegexp(t, `pay-waiting .*\(held\)`, out)
	assert.Contains(t, out, "1 listed payment(s) marked (held)")

	out, errOut, code = psd2(t, append([]string{"reconcile", "-store", dir, "--json"}, seedPeriod(t)...)...)
	require.Equal(t, exitOK, code, errOut)
	var rep struct {
		Payments []struct{ Payment, Settlement, HeldBooking, HeldBookingDate string } `json:"payments"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Payments, 2)
	assert.Equal(t, "pay-held", rep.Payments[0].Payment)
	assert.Equal(t, "awaiting", rep.Payments[0].Settlement)
	assert.Equal(t, string(key), rep.Payments[0].HeldBooking)
	assert.Equal(t, ahead.String(), rep.Payments[0].HeldBookingDate)
	assert.Empty(t, rep.Payments[1].HeldBooking)
}

// TestReconcileShowsAHeldReversal: a reversal of a settled payment that
// the bank dated far ahead is held, the payment settled: the table marks
// it "(return held)" and says what that means, and the JSON names the
// held reversal.
func TestReconcileShowsAHeldReversal(t *testing.T) {
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
	_, err = r.Track(ctx, reconcile.Payment{RequestID: "pay-paid", KID: "1234567890128", Created: now,
		Product: payments.ProductNorwegianDomestic, Amount: money.MustParse("250.00", "NOK"), Status: payments.StatusACTC,
		CreditorBBAN: "86011117947"})
	require.NoError(t, err)
	ahead := dayAfter(day, 3)
	entry := func(key txsync.Key, on date.Date, amount string) txsync.Entry {
		return txsync.Entry{Key: key, Transaction: &accounts.Transaction{Status: accounts.BookingBooked, BookingDate: on,
			TransactionAmount: money.MustParse(amount, "NOK"), RemittanceInformationUnstructured: "1234567890128"}}
	}
	round, err := r.Apply(ctx, &txsync.Delta{Account: reconcileAccount,
		Added: []txsync.Entry{entry(txsync.Key(reconcileAccount+"-1"), day, "250.00")}})
	require.NoError(t, err)
	require.Len(t, round.Settled, 1)
	key := txsync.Key(reconcileAccount + "-2")
	round, err = r.Apply(ctx, &txsync.Delta{Account: reconcileAccount, Added: []txsync.Entry{entry(key, ahead, "-250.00")},
		Anomalies: []txsync.Anomaly{{Key: key, Kind: txsync.FutureBooked, Date: ahead}}})
	require.NoError(t, err)
	require.Len(t, round.Held, 1, "the reconciler holds the reversal")

	out, errOut, code := psd2(t, append([]string{"reconcile", "-store", dir}, seedPeriod(t)...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `pay-paid +domestic +250\.00 NOK +settled \(return held\)`, out)
	assert.Contains(t, out, "1 listed payment(s) marked (return held)")
	assert.NotContains(t, out, "marked (held)")

	out, errOut, code = psd2(t, append([]string{"reconcile", "-store", dir, "--json"}, seedPeriod(t)...)...)
	require.Equal(t, exitOK, code, errOut)
	var rep struct {
		Payments []struct{ Payment, Settlement, HeldReversal string } `json:"payments"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Payments, 1)
	assert.Equal(t, "settled", rep.Payments[0].Settlement)
	assert.Equal(t, string(key), rep.Payments[0].HeldReversal)
}
