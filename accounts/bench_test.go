package accounts_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
)

// pageServer serves total booked transactions of account "acc", pageSize
// per page, generating each page when it is asked for.
func pageServer(b *testing.B, total, pageSize int) *httptest.Server {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		var buf bytes.Buffer
		buf.WriteString(`{"account":{"bban":"95312776066"},"transactions":{"booked":[`)
		end := min(offset+pageSize, total)
		for i := offset; i < end; i++ {
			if i > offset {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `{"transactionId":"%016d","bookingDate":"2025-03-01","valueDate":"2025-03-01",`+
				`"transactionAmount":{"amount":"-%d.%02d","currency":"NOK"},"creditorName":"Butikk %d",`+
				`"remittanceInformationUnstructured":"Entry %d","proprietaryBankTransactionCode":"R_710"}`,
				i, i%10000, i%100, i%97, i)
		}
		buf.WriteString(`],"pending":[],"_links":{"self":{"href":"/v1/accounts/acc/transactions?bookingStatus=booked&limit=`)
		fmt.Fprintf(&buf, `%d&offset=%d","verbs":["GET"]}`, pageSize, offset)
		if end < total {
			fmt.Fprintf(&buf, `,"next":{"href":"/v1/accounts/acc/transactions?bookingStatus=booked&limit=%d&offset=%d","verbs":["GET"]}`, pageSize, end)
		}
		buf.WriteString(`}}}`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(buf.Bytes())
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkTransactionsIter iterates 10,000 and 100,000 transactions in
// pages of 100 and reports the peak HeapInuse sampled while iterating:
// it stays flat as the number of pages grows, because the iterator holds
// one page at a time.
func BenchmarkTransactionsIter(b *testing.B) {
	const pageSize = 100
	for _, total := range []int{10_000, 100_000} {
		b.Run("transactions="+strconv.Itoa(total), func(b *testing.B) {
			srv := pageServer(b, total, pageSize)
			c, err := client.New(srv.URL+"/api", testtpp.Credentials(b, "Accounts test TPP"), client.WithHTTPClient(srv.Client()))
			if err != nil {
				b.Fatal(err)
			}
			svc := newService(b, c)
			q := &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked, Limit: pageSize}
			ro := psuPresent()
			var peak uint64
			var ms runtime.MemStats
			b.ReportAllocs()
			for b.Loop() {
				runtime.GC()
				n := 0
				for tr, err := range svc.TransactionsIter(b.Context(), "acc", q, ro...) {
					if err != nil {
						b.Fatal(err)
					}
					if tr.TransactionAmount.Currency != "NOK" {
						b.Fatal("bad entry")
					}
					n++
					if n%(pageSize*5) == 0 {
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapInuse)
					}
				}
				if n != total {
					b.Fatalf("got %d transactions, want %d", n, total)
				}
			}
			b.ReportMetric(float64(peak), "peak-heap-B")
			b.ReportMetric(float64(total/pageSize), "pages/op")
		})
	}
}
