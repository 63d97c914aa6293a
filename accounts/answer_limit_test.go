package accounts_test

import (
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
)

// letters is an entry of n unknown members with distinct short names,
// each of value 0.
func letters(n int) string { return lettersOf(n, "0") }

// lettersOf is an entry of n unknown members with distinct short names,
// each of value v.
func lettersOf(n int, v string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + string(rune('a'+i%26)) + strings.Repeat("z", i/26) + `":` + v)
	}
	b.WriteString("}")
	return b.String()
}

// TestOneAnswerHeapBound: the hostile transactions pages that cost the most
// heap within the client's answer limits (the most entries, the most
// members a document type does not name, which it keeps in Extra, both at
// once, the largest values, the largest body) never hold more than 64 MB
// of heap while they are read and decoded, and one past the limits (3.5
// MiB of unknown one-letter members took 134 MiB when only objects were
// counted) is refused. The peak is sampled while the call runs and logged.
// The garbage collector runs at GOGC=25 meanwhile, so that the sample is
// close to the live heap: at the default 100 the heap may hold up to its
// live size again in garbage before a collection, and the peak then
// depends on when collections happen to run on a loaded machine.
func TestOneAnswerHeapBound(t *testing.T) {
	const limit = 64 << 20
	page := func(entry string, n int) string {
		return `{"account":{"iban":"NO8495312776066"},"transactions":{"booked":[` +
			strings.TrimSuffix(strings.Repeat(entry+",", n), ",") + `],"pending":[]}}`
	}
	full := `{"transactionId":"t","bookingDate":"2025-01-01","transactionAmount":{"amount":"1.00","currency":"NOK"},"creditorName":"x","debtorName":"y","remittanceInformationUnstructured":"z"}`
	defer debug.SetGCPercent(debug.SetGCPercent(25))
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
		// Members a document type does not name are kept (Extra).
		{"most unknown members", page(`{"a":0`+strings.Repeat(`,"a":0`, 99_980)+`}`, 1), true},
		{"most distinct unknown members", page(letters(50), 1_950), true},
		{"most entries with unknown members", page(letters(4), 19_990), true},
		{"most entries with long unknown members", page(lettersOf(4, `"`+strings.Repeat("x", 40)+`"`), 19_990), true},
		{"unknown members in many entries", page(letters(8), 11_000), true},
		{"most array elements", page(`{"remittanceInformationUnstructuredArray":[""`+strings.Repeat(`,""`, 99_980)+`]}`, 1), true},
		{"most members in nested objects", page(`{"a":{"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"i":0}}`, 9_000), true},
		{"too many members", page(`{"a":0`+strings.Repeat(`,"a":0`, 100_000)+`}`, 1), false},
		{"3.5 MiB of unknown one-letter members", page(`{"a":0`+strings.Repeat(`,"a":0`, 600_000)+`}`, 1), false},
		{"too many array elements", page(`{"remittanceInformationUnstructuredArray":[""`+strings.Repeat(`,""`, 100_000)+`]}`, 1), false},
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
