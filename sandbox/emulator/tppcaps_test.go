package emulator

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// TestPerTPPCaps: a TPP that fills its share of payments, baskets or
// waiting SCAs gets the 507 itself; another TPP goes on.
func TestPerTPPCaps(t *testing.T) {
	t.Parallel()
	s := startServer(t, WithLimits(Limits{PaymentsPerTPP: 3, BasketsPerTPP: 1, AuthorisationsPerTPP: 3}))
	a := newTPPClient(t, s, "Greedy TPP")
	b := newTPPClient(t, s, "Patient TPP")
	a.pisPSU()
	b.pisPSU() // their SCAs completed: no authorisation waits

	ids, _ := a.newPayments(2) // 2 waiting SCAs
	r := a.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids[0]), a.basketHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body)) // the third
	basketSCA := r.scaRedirect(t)
	r = a.do(http.MethodPost, "/v1/payments/"+rules.ProductSEPA, sepaWith(set("instructedAmount.amount", "977.00")), a.payHeaders()...)
	assertFull(t, r, "AuthorisationsPerTPP")
	r = a.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", "greedy"))
	assertFull(t, r, "AuthorisationsPerTPP")
	r = b.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", "patient"))
	assert.Equal(t, http.StatusCreated, r.status, "another TPP's SCA starts: %s", r.body)

	// Completing an SCA frees its place.
	approve(t, s, basketSCA, CustomerKari)
	r = a.do(http.MethodPost, "/v1/payments/"+rules.ProductSEPA, sepaWith(set("instructedAmount.amount", "978.00")), a.payHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body)) // payment 3 of 3
	r = a.do(http.MethodPost, "/v1/payments/"+rules.ProductSEPA, sepaWith(set("instructedAmount.amount", "979.00")), a.payHeaders()...)
	assertFull(t, r, "PaymentsPerTPP")
	r = a.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids[1]), a.basketHeaders()...)
	assertFull(t, r, "BasketsPerTPP")

	for i, amount := range []string{"11.00", "12.00"} {
		got := b.createPayment("/v1/payments/"+rules.ProductSEPA, sepaWith(set("instructedAmount.amount", amount)))
		assert.NotEmpty(t, got.PaymentID, "payment %d of the other TPP", i+1)
	}
}
