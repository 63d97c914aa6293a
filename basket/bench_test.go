package basket_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/tppkit/psd2/basket"
)

// BenchmarkValidatePaymentIDs measures the check Create runs before
// sending a full basket.
func BenchmarkValidatePaymentIDs(b *testing.B) {
	list := ids(basket.MaxPayments)
	b.ReportAllocs()
	for b.Loop() {
		if err := basket.ValidatePaymentIDs(list); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeBasket measures decoding the GET answer (the payments
// field name).
func BenchmarkDecodeBasket(b *testing.B) {
	data := doc(b, "signing-basket-get.json")
	b.ReportAllocs()
	for b.Loop() {
		var bk basket.Basket
		if err := json.Unmarshal(data, &bk); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreate measures one Create through the whole client pipeline
// (options, body, Digest, RSA signature, decoding) against httpmock.
func BenchmarkCreate(b *testing.B) {
	svc := mockBank(b)
	httpmock.RegisterResponder(http.MethodPost, basketURL, httpmock.NewBytesResponder(http.StatusCreated, doc(b, "signing-basket-create-201.json")))
	list := ids(basket.MaxPayments)
	opts := basketOpts()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Create(b.Context(), list, opts...); err != nil {
			b.Fatal(err)
		}
	}
}
