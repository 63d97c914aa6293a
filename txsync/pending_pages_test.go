package txsync_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/store"
	"github.com/tppkit/psd2/txsync"
)

// The production platform lists every pending entry on every page
// (docs/interface.md section 8). When the pending list changes between
// two page reads (an entry booked, a new one authorised), the iterator
// yields each page's list: the entries on both were read twice, and
// Sync took the second listing of each for a twin, reporting a pending
// entry that does not exist (removed again by the next read).
func TestSyncPendingListedAgainOnALaterPageIsOneEntry(t *testing.T) {
	t.Parallel()
	day := time.Now().UTC().Format(time.DateOnly)
	entry := func(id, amount, text string) map[string]any {
		e := map[string]any{"bookingDate": day, "valueDate": day, "remittanceInformationUnstructured": text,
			"transactionAmount": map[string]string{"amount": amount, "currency": "NOK"}}
		if id != "" {
			e["transactionId"] = id
		}
		return e
	}
	a := entry("", "-129.00", "Vipps*Kaffebaren")
	b := entry("", "-54.90", "DAGLIGVARE 1000")
	c := entry("", "-20.00", "KIOSK")
	for _, tc := range []struct {
		name   string
		second []any
		want   int
	}{{"one booked between the pages", []any{b}, 2}, {"one new between the pages", []any{a, b, c}, 3},
		// A bank that pages its pending entries (the sandbox, card
		// accounts) lists other ones on the next page: all are kept.
		{"pending entries paged", []any{c}, 3}} {
		second := tc.second
		t.Run(tc.name, func(t *testing.T) {
			var served atomic.Int64
			bank := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := served.Add(1)
				tx := map[string]any{"booked": []any{entry("t"+strconv.FormatInt(n, 10), "-10.00", "x")}, "pending": []any{a, b}}
				links := map[string]any{}
				if n == 1 {
					links["next"] = map[string]any{"href": "/v1/accounts/acc/transactions?bookingStatus=both&offset=1"}
				} else {
					tx["pending"] = second
				}
				tx["_links"] = links
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(map[string]any{"transactions": tx})
			}))
			t.Cleanup(bank.Close)
			svc, present := bankService(t, bank.URL)
			s, err := txsync.New(store.NewMemoryStore())
			require.NoError(t, err)
			_, err = s.Link(t.Context(), "user-1", []accounts.Account{{ResourceID: "acc", Currency: "NOK"}}, nil)
			require.NoError(t, err)
			d, err := s.Sync(t.Context(), svc, "acc", present)
			require.NoError(t, err)
			var pend int
			for _, e := range d.Added {
				if e.Transaction.Status == accounts.BookingPending {
					pend++
				}
			}
			assert.Equal(t, tc.want, pend, "each pending entry added once")
		})
	}
}
