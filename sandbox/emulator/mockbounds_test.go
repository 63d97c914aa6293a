package emulator

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The mock-data operations keep what they are sent for the server's
// life: every text they keep is bounded, and so is what one request may
// create, each refused 400 FORMAT_ERROR naming the field, nothing kept.

// TestMockDataTextsBounded: the texts the interface gives no length for
// (an account's product and cash account type, a card's product, a
// transaction's code, an agreement's roles) are at most 256 characters,
// the other party's bban and iban at most 30 and 34 (docs/interface.md
// section 8); past them the operation answers 400 FORMAT_ERROR naming the
// field and keeps nothing (they took anything up to the 1 MiB body). At
// the bound, counted in characters, they are taken. Seed refuses the same,
// naming its own field.
func TestMockDataTextsBounded(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Texts")
	long, atBound := strings.Repeat("x", maxFreeText+1), strings.Repeat("ø", maxFreeText)
	acc := c.do(http.MethodPost, "/v1/sandbox/accounts", []byte(`{"customerNumber":"`+CustomerKari+`","product":"`+atBound+`","cashAccountType":"`+atBound+`"}`))
	require.Equal(t, http.StatusCreated, acc.status, string(acc.body))
	var a accountJSON
	require.NoError(t, json.Unmarshal(acc.body, &a))
	txPath := "/v1/sandbox/accounts/" + a.ResourceID + "/transactions"
	tx := func(fields string) string {
		return `[{"transactionAmount":{"amount":"-1.00"}` + fields + `}]`
	}
	r := c.do(http.MethodPost, txPath, []byte(tx(`,"proprietaryBankTransactionCode":"`+atBound+`","creditorAccount":{"bban":"`+strings.Repeat("1", 30)+`","iban":"`+strings.Repeat("N", 34)+`"}`)))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))

	r = c.do(http.MethodPost, "/v1/sandbox/customers", []byte(`{"customerNumber":"912345688","customerType":"CORPORATE","customerName":"Roller AS"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	r = c.do(http.MethodPost, "/v1/sandbox/accounts", []byte(`{"customerNumber":"912345688"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var corp accountJSON
	require.NoError(t, json.Unmarshal(r.body, &corp))
	engagement := func(roles ...string) string {
		b, _ := json.Marshal(roles)
		return `{"account":{"iban":"` + corp.IBAN + `"},"roles":` + string(b) + `}`
	}
	r = c.do(http.MethodPost, "/v1/sandbox/agreements", []byte(`{"owner":"912345688","name":"Roller","engagements":[`+engagement("VIEW", atBound)+`]}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var ag agreementJSON
	require.NoError(t, json.Unmarshal(r.body, &ag))
	agPath := "/v1/sandbox/agreements/" + ag.ID + "/engagements"
	manyRoles := make([]string, maxAgreementRoles-1) // with VIEW and atBound: one past
	for i := range manyRoles {
		manyRoles[i] = "R" + strconv.Itoa(i)
	}

	roles := func() int {
		s.mu.RLock()
		defer s.mu.RUnlock()
		for _, a := range s.soleStore().agreements {
			if a.name == ag.Name {
				return len(a.roles)
			}
		}
		return -1
	}
	before, rolesBefore := counts(s), roles()
	for _, tc := range []struct{ name, path, body, field string }{
		{"account product", "/v1/sandbox/accounts", `{"customerNumber":"` + CustomerKari + `","product":"` + long + `"}`, "product"},
		{"account type", "/v1/sandbox/accounts", `{"customerNumber":"` + CustomerKari + `","cashAccountType":"` + long + `"}`, "cashAccountType"},
		{"card product", "/v1/sandbox/card-accounts", `{"customerNumber":"` + CustomerKari + `","product":"` + long + `"}`, "product"},
		{"code", txPath, tx(`,"proprietaryBankTransactionCode":"` + long + `"`), "[0].proprietaryBankTransactionCode"},
		{"creditor bban", txPath, tx(`,"creditorAccount":{"bban":"` + strings.Repeat("1", 31) + `"}`), "[0].creditorAccount.bban"},
		{"creditor iban", txPath, tx(`,"creditorAccount":{"iban":"` + strings.Repeat("N", 35) + `"}`), "[0].creditorAccount.iban"},
		{"role", agPath, engagement(long), "engagements[0].roles[0]"},
		{"empty role", agPath, engagement(""), "engagements[0].roles[0]"},
		{"roles", agPath, "[" + engagement("VIEW") + "," + engagement(manyRoles...) + "]", "engagements[1].roles[" + strconv.Itoa(len(manyRoles)-1) + "]"},
	} {
		r := c.do(http.MethodPost, tc.path, []byte(tc.body))
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %s", tc.name, r.body)
		code, at := r.problem(t)
		assert.Equal(t, "FORMAT_ERROR", code, tc.name)
		assert.Equal(t, tc.field, at, tc.name)
		assert.Equal(t, before, counts(s), "%s: nothing stored", tc.name)
		assert.Equal(t, rolesBefore, roles(), "%s: no role kept", tc.name)
	}

	// Seed, the other door, refuses the same texts naming its fields.
	for _, tc := range []struct {
		path string
		data SeedAccount
	}{
		{"Customers[0].Accounts[0].Product", SeedAccount{Product: long}},
		{"Customers[0].Accounts[0].CashAccountType", SeedAccount{CashAccountType: long}},
		{"Customers[0].Accounts[0].Transactions[0].Code", SeedAccount{Transactions: []SeedTransaction{{Amount: "1", Code: long}}}},
		{"Customers[0].Accounts[0].Transactions[0].CounterpartyBBAN", SeedAccount{Transactions: []SeedTransaction{{Amount: "1", CounterpartyBBAN: strings.Repeat("1", 31)}}}},
		{"Customers[0].Accounts[0].Transactions[0].CounterpartyIBAN", SeedAccount{Transactions: []SeedTransaction{{Amount: "1", CounterpartyIBAN: strings.Repeat("N", 35)}}}},
	} {
		_, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{{Accounts: []SeedAccount{tc.data}}}})
		var se *SeedError
		require.ErrorAs(t, err, &se, tc.path)
		assert.Equal(t, tc.path, se.Path)
		assert.Equal(t, before, counts(s), "%s: nothing stored", tc.path)
	}
	_, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{{
		CardAccounts: []SeedCardAccount{{Product: long}}}}})
	var se *SeedError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "Customers[0].CardAccounts[0].Product", se.Path)
}

// TestMockDataCountBounded: one request of the mock-data operations
// holds at most 10,000 entries in its arrays together (transactions,
// engagements, roles); past it the body is refused before it is decoded,
// 400 FORMAT_ERROR naming the first entry past the bound, and nothing is
// kept (10,001 transactions were all created, and a body of empty
// entries was decoded whole, hundreds of thousands of them). Up to it a
// request is taken.
func TestMockDataCountBounded(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Counts")
	r := c.do(http.MethodPost, "/v1/sandbox/accounts", []byte(`{"customerNumber":"`+CustomerKari+`"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var a accountJSON
	require.NoError(t, json.Unmarshal(r.body, &a))
	txPath := "/v1/sandbox/accounts/" + a.ResourceID + "/transactions"
	r = c.do(http.MethodPost, "/v1/sandbox/card-accounts", []byte(`{"customerNumber":"`+CustomerKari+`"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var k cardJSON
	require.NoError(t, json.Unmarshal(r.body, &k))
	entries := func(n int, entry string) []byte {
		return []byte("[" + strings.TrimSuffix(strings.Repeat(entry+",", n), ",") + "]")
	}
	before := counts(s)
	for _, tc := range []struct {
		name, path string
		body       []byte
		field      string
	}{
		{"transactions", txPath, entries(maxMockValues+1, `{"transactionAmount":{"amount":"1.00"}}`), "[10000]"},
		{"empty entries", txPath, entries(300_000, `{}`), "[10000]"},
		{"card transactions", "/v1/sandbox/card-accounts/" + strings.ReplaceAll(k.ResourceID, "!", "%21") + "/transactions", entries(maxMockValues+1, `{}`), "[10000]"},
		{"nesting", txPath, []byte(strings.Repeat("[", 20) + strings.Repeat("]", 20)), "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"},
	} {
		r := c.do(http.MethodPost, tc.path, tc.body)
		require.Equal(t, http.StatusBadRequest, r.status, "%s: %.300s", tc.name, r.body)
		code, at := r.problem(t)
		assert.Equal(t, "FORMAT_ERROR", code, tc.name)
		assert.Equal(t, tc.field, at, tc.name)
		assert.Equal(t, before, counts(s), "%s: nothing stored", tc.name)
	}

	// At the bound: engagements of one account, 10,000 values with the roles.
	r = c.do(http.MethodPost, "/v1/sandbox/customers", []byte(`{"customerNumber":"912345688","customerType":"CORPORATE","customerName":"Mange AS"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	r = c.do(http.MethodPost, "/v1/sandbox/accounts", []byte(`{"customerNumber":"912345688"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var corp accountJSON
	require.NoError(t, json.Unmarshal(r.body, &corp))
	one := `{"account":{"iban":"` + corp.IBAN + `"},"roles":["VIEW"]}`
	body := `{"owner":"912345688","name":"Mange","engagements":` + string(entries(maxMockValues/2, one)) + `}`
	r = c.do(http.MethodPost, "/v1/sandbox/agreements", []byte(body))
	require.Equal(t, http.StatusCreated, r.status, "%.300s", r.body)
}
