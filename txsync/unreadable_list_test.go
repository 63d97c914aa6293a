package txsync_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// A page whose booked or pending list is not a list of entries (a bank's
// error text in its place, an object) does not say that the account has
// no entries: read as an empty list, every tracked entry was reported
// removed (BookedGone, PendingVanished) and came back as added under a
// new key on the next sound read. The read now fails with
// accounts.ErrUnreadableList and nothing is applied.
func TestSyncPageWithUnreadableListAppliesNothing(t *testing.T) {
	t.Parallel()
	day := time.Now().UTC().Format(time.DateOnly)
	entry := `{"transactionId":"t1","bookingDate":"` + day + `","transactionAmount":{"amount":"-1.00","currency":"NOK"}}`
	pend := `{"bookingDate":"` + day + `","transactionAmount":{"amount":"-2.00","currency":"NOK"}}`
	for _, odd := range []string{
		`{"booked":"temporarily unavailable","pending":[` + pend + `]}`,
		`{"booked":[` + entry + `],"pending":{"entry":` + pend + `}}`,
		`"temporarily unavailable"`,
	} {
		var served atomic.Int64
		bank := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			report := `{"booked":[` + entry + `],"pending":[` + pend + `]}`
			if served.Add(1) == 2 {
				report = odd
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"account":{"bban":"95312776066"},"transactions":`+report+`}`)
		}))
		t.Cleanup(bank.Close)
		svc, present := bankService(t, bank.URL)
		s, err := txsync.New(store.NewMemoryStore())
		require.NoError(t, err)
		_, err = s.Link(t.Context(), "user-1", []accounts.Account{{ResourceID: "acc", Currency: "NOK"}}, nil)
		require.NoError(t, err)
		d, err := s.Sync(t.Context(), svc, "acc", present)
		require.NoError(t, err)
		require.Len(t, d.Added, 2)

		d, err = s.Sync(t.Context(), svc, "acc", present)
		assert.ErrorIs(t, err, accounts.ErrUnreadableList, odd)
		if d != nil {
			assert.Empty(t, d.Removed, "%s: entries removed because the bank's list was unreadable", odd)
		}
		d, err = s.Sync(t.Context(), svc, "acc", present)
		require.NoError(t, err)
		assert.Empty(t, d.Added, "%s: entries added again", odd)
		assert.Empty(t, d.Removed, odd)
	}
}
