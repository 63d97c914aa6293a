package accounts_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tppkit/psd2/accounts"
)

// benchPage is a transactions answer with n booked entries shaped like the
// platform's.
func benchPage(n int) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"account":{"bban":"95312776066","iban":"NO8495312776066"},"transactions":{"booked":[`)
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"transactionId":"%016d","bookingDate":"2025-03-01","valueDate":"2025-03-01",`+
			`"transactionAmount":{"amount":"-%d.%02d","currency":"NOK"},"creditorName":"Butikk %d",`+
			`"creditorAccount":{"bban":"98176002468"},"debtorAccount":{"bban":"95312776066","iban":"NO8495312776066"},`+
			`"remittanceInformationUnstructured":"Entry %d","remittanceInformationUnstructuredArray":["Entry %d"],`+
			`"proprietaryBankTransactionCode":"R_710","additionalInformationProprietary1":"ref %d"}`,
			i, i%10000, i%100, i%97, i, i, i)
	}
	buf.WriteString(`],"pending":[],"_links":{"self":{"href":"/v1/accounts/acc/transactions?bookingStatus=booked","verbs":["GET"]}}}}`)
	return buf.Bytes()
}

// BenchmarkTransactionsPageDecode decodes a page of 100 entries.
func BenchmarkTransactionsPageDecode(b *testing.B) {
	data := benchPage(100)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var p accounts.TransactionsPage
		if err := json.Unmarshal(data, &p); err != nil {
			b.Fatal(err)
		}
	}
}
