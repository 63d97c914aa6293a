package txsync_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// TestBankDateOutsideYears0To9999: the bank's page carries a
// valueDate as a date-time; date.Parse reads it in Oslo time, so
// "9999-12-31T23:30:00Z" is year 10000 and "0000-01-01T00:00:00+14:00"
// year -1. date.Parse now refuses such a date-time (the entry keeps no
// date). On the code before, txsync stored the entry, but its codec wrote
// a year it refused to read back (y > 9999; a negative year wraps in
// uint64): every later From/Apply of the account failed with
// ErrCorruptState, because of one value the bank sent.
func TestBankDateOutsideYears0To9999(t *testing.T) {
	for _, raw := range []string{"9999-12-31T23:30:00Z", "0000-01-01T00:00:00+14:00"} {
		t.Run(raw, func(t *testing.T) {
			clock := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
			s, err := txsync.New(store.NewMemoryStore(), txsync.WithClock(func() time.Time { return clock }))
			require.NoError(t, err)
			l, err := s.Link(t.Context(), "user-1", []accounts.Account{{ResourceID: "r1", IBAN: "NO9386011117947"}}, nil)
			require.NoError(t, err)
			k := l.Accounts[0].Key
			var page accounts.TransactionsPage
			require.NoError(t, json.Unmarshal([]byte(`{"transactions":{"booked":[{"transactionId":"1","bookingDate":"2026-03-10",
				"valueDate":"`+raw+`","transactionAmount":{"amount":"-10.00","currency":"NOK"},"creditorName":"A"}]}}`), &page))
			require.Len(t, page.Booked, 1)
			t.Logf("bank valueDate %s read as %q", raw, page.Booked[0].ValueDate)
			_, err = s.Apply(t.Context(), k, txsync.Read{Booked: page.Booked})
			require.NoError(t, err)
			_, err = s.From(t.Context(), k)
			require.NoError(t, err, "the state written after one odd bank date can no longer be read")
			_, err = s.Apply(t.Context(), k, txsync.Read{Booked: page.Booked})
			require.NoError(t, err)
		})
	}
}
