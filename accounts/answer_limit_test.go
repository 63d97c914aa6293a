package accounts_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// TestOneAnswerHeapBound: the hostile transactions pages that cost the most
// heap within the client's answer limits (the largest number of entries, or
// the largest body) never hold more than 64 MB of heap while they are read
// and decoded, and one past the limits is refused. The peak is sampled
// while the call runs.
func TestOneAnswerHeapBound(t *testing.T) {
	const limit = 64 << 20
	page := func(entry string, n int) string {
		return `{"account":{"iban":"NO8495312776066"},"transactions":{"booked":[` +
			strings.TrimSuffix(strings.Repeat(entry+",", n), ",") + `],"pending":[]}}`
	}
	full := `{"transactionId":"t","bookingDate":"2025-01-01","transactionAmount":{"amount":"1.00","currency":"NOK"},"creditorName":"x","debtorName":"y","remittanceInformationUnstructured":"z"}`
	for _, tc := range []struct {
		name  string
		body  string
		under bool // within the limits
	}{
		{"most entries", page(`{}`, 19_990), true},
		{"most entries with an amount each", page(`{"transactionAmount":{"amount":"1.00","currency":"NOK"}}`, 9_990), true},
		{"full entries", page(full, 9_990), true},
		{"largest body", page(`{"creditorName":"`+strings.Repeat("x", 4<<20-200)+`"}`, 1), true},
		{"too many entries", page(`{}`, 20_001), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newMockService(t)
			httpmock.RegisterResponder(http.MethodGet, baseURL+"/v1/accounts/"+accountID+"/transactions",
				httpmock.NewStringResponder(http.StatusOK, tc.body).HeaderSet(http.Header{"Content-Type": {"application/json"}}))
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			stop, peak := make(chan struct{}), make(chan uint64)
			go func() {
				var m runtime.MemStats
				var top uint64
				for {
					runtime.ReadMemStats(&m)
					top = max(top, m.HeapInuse)
					select {
					case <-stop:
						peak <- top
						return
					case <-time.After(500 * time.Microsecond):
					}
				}
			}()
			got, err := svc.Transactions(t.Context(), accountID, nil, psuPresent()...)
			close(stop)
			var grown uint64
			if top := <-peak; top > before.HeapInuse {
				grown = top - before.HeapInuse
			}
			t.Logf("%s: body %d bytes, peak heap %.1f MB above the start", tc.name, len(tc.body), float64(grown)/(1<<20))
			if !tc.under {
				require.ErrorIs(t, err, client.ErrAnswerTooLarge)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, got)
			assert.Less(t, grown, uint64(limit))
			runtime.KeepAlive(got)
		})
	}
}
