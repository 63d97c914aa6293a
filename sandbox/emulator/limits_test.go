package emulator

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// assertFull checks the answer past a cap: 507 SYSTEM_ERROR naming it.
func assertFull(t *testing.T, r *response, field string) {
	t.Helper()
	require.Equal(t, http.StatusInsufficientStorage, r.status, string(r.body))
	code, path := r.problem(t)
	assert.Equal(t, "SYSTEM_ERROR", code)
	assert.Equal(t, "Limits."+field, path)
	assert.Contains(t, string(r.body), "emulator.Limits."+field)
}

// defaultCounts counts the default data the caps include.
func defaultCounts() (customers, accounts, agreements, transactions int) {
	st := newDefaultStore(time.Now(), dataSpec{})
	for _, a := range st.accounts {
		transactions += len(a.transactions)
	}
	for _, k := range st.cards {
		transactions += len(k.transactions)
	}
	return len(st.customers), len(st.accounts) + len(st.cards), len(st.agreements), transactions
}

func TestLimitsDefaults(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	assert.Equal(t, DefaultLimits, s.limits)
	s = startServer(t, WithLimits(Limits{Payments: 3, Sessions: -1}))
	want := DefaultLimits
	want.Payments = 3
	assert.Equal(t, want, s.limits)
}

func TestLimitsMockData(t *testing.T) {
	t.Parallel()
	customers, accounts, agreements, transactions := defaultCounts()
	s := startServer(t, WithLimits(Limits{Customers: customers + 1, Accounts: accounts + 1, Agreements: agreements + 1, Transactions: transactions + 2}))
	c := newTPPClient(t, s, "Filler")
	post := func(path, body string) *response {
		t.Helper()
		return c.do(http.MethodPost, path, []byte(body))
	}

	r := post("/v1/sandbox/customers", `{"customerNumber":"912345688","customerType":"CORPORATE","customerName":"Fullt Firma AS"}`)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var cu customerJSON
	require.NoError(t, jsonUnmarshal(r.body, &cu))
	assertFull(t, post("/v1/sandbox/customers", `{"customerNumber":"15867512345","customerName":"Nina Testdatter"}`), "Customers")

	r = post("/v1/sandbox/accounts", `{"customerNumber":"912345688","name":"Drift"}`)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var acc accountJSON
	require.NoError(t, jsonUnmarshal(r.body, &acc))
	assertFull(t, post("/v1/sandbox/accounts", `{"customerNumber":"912345688","name":"Drift 2"}`), "Accounts")
	assertFull(t, post("/v1/sandbox/card-accounts", `{"customerNumber":"912345688"}`), "Accounts")

	ag := `{"owner":"912345688","name":"Fullt Firma AS","engagements":[{"account":{"iban":"` + acc.IBAN + `"},"roles":["VIEW"]}]}`
	require.Equal(t, http.StatusCreated, post("/v1/sandbox/agreements", ag).status)
	assertFull(t, post("/v1/sandbox/agreements", ag), "Agreements")

	tx := `{"transactionAmount":{"amount":"-1.00","currency":"NOK"}}`
	txPath := "/v1/sandbox/accounts/" + acc.ResourceID + "/transactions"
	assertFull(t, post(txPath, "["+tx+","+tx+","+tx+"]"), "Transactions")
	require.Equal(t, http.StatusCreated, post(txPath, "["+tx+","+tx+"]").status)
	assertFull(t, post(txPath, "["+tx+"]"), "Transactions")
	s.mu.Lock()
	assert.Len(t, s.soleStore().accountByID(acc.ResourceID).transactions, 2, "a refused batch adds nothing")
	s.mu.Unlock()

	// Deleting frees room.
	require.Equal(t, http.StatusNoContent, c.do(http.MethodDelete, "/v1/sandbox/customers/"+cu.CustomerID, nil).status)
	assert.Equal(t, http.StatusCreated, post("/v1/sandbox/customers", `{"customerNumber":"15867512345","customerName":"Nina Testdatter"}`).status)
}

func TestLimitsPaymentsAndBaskets(t *testing.T) {
	t.Parallel()
	s := startServer(t, WithLimits(Limits{Payments: 3, Baskets: 1}))
	c := newTPPClient(t, s, "Payer")
	ids, _ := c.newPayments(3)
	s.mu.Lock()
	flows := len(s.flows)
	s.mu.Unlock()
	r := c.do(http.MethodPost, "/v1/payments/"+rules.ProductSEPA+"?allowLogicalDuplicate=true", validSEPA().Bytes(), c.payHeaders()...)
	assertFull(t, r, "Payments")
	assert.Len(t, s.Control().Payments(), 3)
	s.mu.Lock()
	assert.Len(t, s.flows, flows, "a refused payment starts no SCA")
	s.mu.Unlock()

	r = c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids[0]), c.basketHeaders()...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	assertFull(t, c.do(http.MethodPost, "/v1/signing-baskets", basketBody(ids[1]), c.basketHeaders()...), "Baskets")
}

func TestLimitsAuthorisations(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now), WithLimits(Limits{Authorisations: 2}))
	c := newTPPClient(t, s, "Waiter")
	consent := func() *response {
		return c.do(http.MethodPost, "/v1/bank-offered-consents", nil,
			hdr("TPP-Session-ID", uuid.NewString()), hdr("TPP-Redirect-URI", "https://tpp.example/cb"))
	}
	require.Equal(t, http.StatusCreated, consent().status)
	clock.Add(30 * time.Minute)
	young := consent()
	require.Equal(t, http.StatusCreated, young.status)
	assertFull(t, consent(), "Authorisations")
	// A 401 that would carry a scaRedirect is refused the same way.
	assertFull(t, c.get("/v1/accounts", psuHeaders(uuid.NewString(), "s")...), "Authorisations")

	// Past an hour the first is abandoned and makes room; the second still works.
	clock.Add(31 * time.Minute)
	require.Equal(t, http.StatusCreated, consent().status)
	_, err := s.Control().Authorize(t.Context(), young.scaRedirect(t), CustomerOla)
	assert.NoError(t, err)
}

func TestLimitsSessions(t *testing.T) {
	t.Parallel()
	s := startServer(t, WithLimits(Limits{Sessions: 1}))
	c := newTPPClient(t, s, "Sessions")
	c.login(CustomerKari, "s1")
	assertFull(t, c.do(http.MethodPost, "/v1/bank-offered-consents", nil,
		hdr("TPP-Session-ID", "s2"), hdr("TPP-Redirect-URI", "https://tpp.example/cb")), "Sessions")
}

// TestRemovedCustomersLeaveNoState checks that sessions, PSU-IDs and access
// budgets of deleted customers and their accounts are dropped, so that
// create/delete cycles do not grow the server.
func TestRemovedCustomersLeaveNoState(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Cycler")
	for i := range 3 {
		number := "1586751234" + strconv.Itoa(i)
		r := c.do(http.MethodPost, "/v1/sandbox/customers", []byte(`{"customerNumber":"`+number+`","customerName":"Syklus"}`))
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		var cu customerJSON
		require.NoError(t, jsonUnmarshal(r.body, &cu))
		require.Equal(t, http.StatusCreated, c.do(http.MethodPost, "/v1/sandbox/accounts", []byte(`{"customerNumber":"`+number+`"}`)).status)
		sid := uuid.NewString()
		psu := psuHeaders(c.login(number, sid), sid)
		ids := c.accountIDs(psu...)
		require.Len(t, ids, 1)
		// Without the PSU: counts against the access budget.
		require.Equal(t, http.StatusOK, c.get("/v1/accounts/"+ids[0]+"/balances", psu[:3]...).status)
		s.mu.Lock()
		require.Len(t, s.sessions, 1)
		require.Len(t, s.psus, 1)
		require.Equal(t, 1, s.budgets.len())
		s.mu.Unlock()
		require.Equal(t, http.StatusNoContent, c.do(http.MethodDelete, "/v1/sandbox/customers/"+cu.CustomerID, nil).status)
		s.mu.Lock()
		assert.Empty(t, s.sessions)
		assert.Empty(t, s.psus)
		assert.Zero(t, s.budgets.len())
		s.mu.Unlock()
	}
}
