package reconcile_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
)

// A watch the store garbled (its value is no account key) is no
// "account not watched": a payment to that account, never tracked, is
// not reported as not applicable (nothing to reconcile), and
// TrackJournal does not skip it as one. On the code before, Report
// listed it as not applicable and TrackJournal counted it so: the
// payment was silently never reconciled.
func TestGarbledWatchIsNoUnwatchedAccount(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := store.NewMemoryStore()
	c, j, create := journalCreator(t, st)
	const reqID = "6f1c0e2a-0000-4000-8000-0000000000bb"
	create(reqID, merchantBBAN)
	r, err := reconcile.New(st, reconcile.WithClock(c.Now))
	require.NoError(t, err)
	require.NoError(t, r.Watch(ctx, acct, accounts.Account{BBAN: merchantBBAN}))
	garbled := 0
	for key, err := range st.Keys(ctx, "reconcile/watch/") {
		require.NoError(t, err)
		require.NoError(t, st.Put(ctx, key, []byte("NOT AN ACCOUNT KEY"), 0))
		garbled++
	}
	require.NotZero(t, garbled)

	var reportErr error
	for s, err := range r.Report(ctx, j, date.Date{}, date.Date{}) {
		if err != nil {
			reportErr = err
			break
		}
		assert.NotEqual(t, reconcile.NotApplicable, s.Settlement, "%s is to a watched account", s.Payment)
	}
	require.Error(t, reportErr, "the garbled watch is reported")
	assert.ErrorIs(t, reportErr, reconcile.ErrCorruptState)
	assert.False(t, strings.Contains(reportErr.Error(), merchantBBAN), "no account number in the error: %v", reportErr)

	n, err := r.TrackJournal(ctx, j)
	assert.ErrorIs(t, err, reconcile.ErrCorruptState, "TrackJournal does not skip the payment as not applicable: %+v", n)
}
