package emulator

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMockDataDoorsBuildAlike: an account and a card account given only
// their owner come out the same (defaults, BIC, balances) whether Seed or
// the mock-data operations made them; only ids, owner, BBANs and masked
// PAN (drawn) differ.
func TestMockDataDoorsBuildAlike(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Doors")

	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{{
		Number: "15867512345", Name: "Nina", Accounts: []SeedAccount{{}}, CardAccounts: []SeedCardAccount{{}},
	}}})
	require.NoError(t, err)
	seeded := res.Customers[0]

	r := c.do(http.MethodPost, "/v1/sandbox/customers", []byte(`{"customerNumber":"15867512346","customerName":"Nina"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	r = c.do(http.MethodPost, "/v1/sandbox/accounts", []byte(`{"customerNumber":"15867512346"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var acc struct {
		ResourceID string `json:"resourceId"`
	}
	require.NoError(t, json.Unmarshal(r.body, &acc))
	r = c.do(http.MethodPost, "/v1/sandbox/card-accounts", []byte(`{"customerNumber":"15867512346"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var card struct {
		ResourceID string `json:"resourceId"`
	}
	require.NoError(t, json.Unmarshal(r.body, &card))

	s.mu.RLock()
	st := s.stores[tppIdentity(c.creds.Certificate)]
	a1, a2 := *st.accountByID(seeded.Accounts[0].ID), *st.accountByID(acc.ResourceID)
	k1, k2 := *st.cardByID(seeded.CardAccounts[0].ID), *st.cardByID(card.ResourceID)
	s.mu.RUnlock()

	for _, a := range []*account{&a1, &a2} {
		a.id, a.owner, a.bban, a.iban = "", "", "", ""
	}
	assert.Equal(t, a1, a2)
	assert.Equal(t, "BRUKSKONTO", a2.product)
	for _, k := range []*cardAccount{&k1, &k2} {
		k.id, k.owner, k.ref, k.maskedPan, k.relatedBBAN = "", "", "", "", ""
	}
	assert.Equal(t, k1, k2)
	assert.Equal(t, "Kredittkort", k2.name)
}
