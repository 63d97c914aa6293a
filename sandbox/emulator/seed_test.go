package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// seedSample is a private customer with two accounts (history on the
// first) and a card account, and a corporate one with three accounts in
// two agreements, both with a consent given at.
func seedSample(at time.Time) SeedData {
	day := at.AddDate(0, 0, -1)
	consent := &SeedConsent{At: at}
	return SeedData{Customers: []SeedCustomer{
		{
			Name: "Sara Seedesen",
			Accounts: []SeedAccount{
				{Name: "Brukskonto", Balance: "1000.00", Transactions: []SeedTransaction{
					{BookingDate: day.AddDate(0, 0, -10), Amount: "-250.00", CounterpartyName: "Butikken", CounterpartyBBAN: "12345678903", Remittance: "Mat"},
					{BookingDate: day, Amount: "500.00", CounterpartyName: "Arbeidsgiver", Code: "R_230"},
					{BookingDate: day.AddDate(0, 0, -3), Amount: "-40.50"},
					{Pending: true, BookingDate: day, Amount: "-99.90", Remittance: "Vipps"},
				}},
				{BBAN: "95310000001", Name: "Sparekonto", Product: "SPAREKONTO", CashAccountType: "SVGS", Balance: "20.00"},
			},
			CardAccounts: []SeedCardAccount{{Name: "Visa", CreditLimit: "10000.00", Balance: "-300.00",
				Transactions: []SeedCardTransaction{
					{TransactionDate: day, Amount: "-300.00", OriginalAmount: "-26.00", OriginalCurrency: "EUR", Details: "CAFE"},
					{Pending: true, Amount: "-50.00"},
				}}},
			Consent: consent,
		},
		{
			Corporate: true,
			Name:      "Seed Bakeri AS",
			Accounts:  []SeedAccount{{Balance: "1.00"}, {Balance: "2.00"}, {Balance: "3.00"}},
			Agreements: []SeedAgreement{
				{Accounts: []int{0, 1}},
				{Name: "Seed Bakeri AS avdeling Nord", Accounts: []int{2}},
			},
			Consent: consent,
		},
	}}
}

// noPSU are the headers of a call without the PSU present in a seeded
// session.
func noPSU(sess *SeededSession, corporateID string) []reqOpt {
	o := []reqOpt{hdr("PSU-ID", sess.PSUID), hdr("TPP-Session-ID", sess.TPPSessionID),
		hdr("TPP-Redirect-URI", "https://tpp.example/cb")}
	if corporateID != "" {
		o = append(o, hdr("PSU-Corporate-ID", corporateID))
	}
	return o
}

func TestSeedGivesReadySessions(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "Seeder")
	at := clock.Now().Add(-2 * time.Hour) // the PSU is gone: no listing, refresh only
	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, seedSample(at))
	require.NoError(t, err)
	require.Len(t, res.Customers, 2)
	priv, corp := res.Customers[0], res.Customers[1]

	assert.Equal(t, "PRIVATE", priv.Context)
	assert.Len(t, priv.Number, 11)
	assert.Len(t, priv.Accounts, 2)
	assert.Equal(t, "95310000001", priv.Accounts[1].BBAN)
	assert.Equal(t, "95310000001", priv.Accounts[1].IBAN[4:])
	assert.True(t, ibanMod97(priv.Accounts[1].IBAN), priv.Accounts[1].IBAN)
	assert.True(t, rules.ValidNorwegianBBAN(priv.Accounts[0].BBAN), priv.Accounts[0].BBAN)
	assert.Len(t, priv.CardAccounts, 1)
	assert.Empty(t, priv.Agreements)
	require.NotNil(t, priv.Session)
	assert.Equal(t, "PRIVATE", priv.Session.Context)
	assert.Equal(t, at, priv.Session.SCAAt)
	assert.Equal(t, at.Add(90*24*time.Hour), priv.Session.ConsentExpiresAt)
	assert.Empty(t, priv.Session.CorporateIDs)
	assert.Equal(t, s.psuID(c.tpp(t).id, priv.Number), priv.Session.PSUID, "the PSU-ID an SCA would give")

	assert.Equal(t, "CORPORATE", corp.Context)
	assert.Len(t, corp.Number, 9)
	require.Len(t, corp.Agreements, 2)
	require.NotNil(t, corp.Session)
	assert.Equal(t, []string{corp.Agreements[0].ID, corp.Agreements[1].ID}, corp.Session.CorporateIDs)
	assert.Equal(t, []string{corp.Accounts[0].ID, corp.Accounts[1].ID}, corp.Agreements[0].AccountIDs)
	assert.Equal(t, []string{corp.Accounts[2].ID}, corp.Agreements[1].AccountIDs)

	// The ids a session lists, for the SDK's session.
	accts, cards := priv.SessionAccounts("")
	assert.Equal(t, []string{priv.Accounts[0].ID, priv.Accounts[1].ID}, accts)
	assert.Equal(t, []string{priv.CardAccounts[0].ID}, cards)
	accts, cards = corp.SessionAccounts(corp.Agreements[1].ID)
	assert.Equal(t, []string{corp.Accounts[2].ID}, accts)
	assert.Empty(t, cards)
	accts, _ = corp.SessionAccounts("not-an-agreement")
	assert.Nil(t, accts)
	assert.NotEqual(t, priv.Session.TPPSessionID, corp.Session.TPPSessionID, "a session id per customer")

	// Balances and transactions without the PSU, at once.
	h := noPSU(priv.Session, "")
	acct := "/v1/accounts/" + priv.Accounts[0].ID
	r := c.get(acct+"/balances", h...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.NotContains(t, string(r.body), "\n ", "compact JSON")
	var bal struct {
		Balances []balanceJSON `json:"balances"`
	}
	require.NoError(t, json.Unmarshal(r.body, &bal))
	require.Len(t, bal.Balances, 2)
	assert.Equal(t, "1000.00", bal.Balances[0].BalanceAmount.Value.StringFixed(2), "the seeded balance, not moved by the history")
	assert.Equal(t, "900.10", bal.Balances[1].BalanceAmount.Value.StringFixed(2), "expected: booked plus pending")

	r = c.get(acct+"/transactions?bookingStatus=both", h...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	page := decodeTxPage(t, r)
	require.Len(t, page.Transactions.Booked, 3)
	require.Len(t, page.Transactions.Pending, 1)
	first, last := page.Transactions.Booked[0], page.Transactions.Booked[2]
	assert.Equal(t, "500.00", first.TransactionAmount.Value.StringFixed(2), "newest first")
	assert.Equal(t, "Arbeidsgiver", first.DebtorName)
	assert.Nil(t, first.CreditorAccount, "money in shows the payer, not this account")
	assert.Len(t, first.TransactionID, 16)
	assert.Equal(t, "-250.00", last.TransactionAmount.Value.StringFixed(2))
	assert.Equal(t, &accountRef{BBAN: priv.Accounts[0].BBAN, IBAN: priv.Accounts[0].IBAN}, last.DebtorAccount)
	assert.Equal(t, &accountRef{BBAN: "12345678903"}, last.CreditorAccount)
	assert.Equal(t, "Butikken", last.CreditorName)
	assert.Equal(t, "Mat", last.RemittanceInformationUnstructured)

	r = c.get("/v1/card-accounts/"+priv.CardAccounts[0].ID+"/transactions?bookingStatus=both", h...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Contains(t, string(r.body), `"originalAmount":{"amount":"-26.00","currency":"EUR"}`)

	// Listing needs an SCA less than an hour old: the PSU must come back.
	r = c.get("/v1/accounts", h...)
	require.Equal(t, http.StatusUnauthorized, r.status, string(r.body))
	code, _ := r.problem(t)
	assert.Equal(t, "SCA_EXPIRED", code)

	// The budget: 4 calls a day per account without the PSU.
	for range 3 {
		require.Equal(t, http.StatusOK, c.get(acct+"/balances", h...).status)
	}
	assert.Equal(t, http.StatusTooManyRequests, c.get(acct+"/balances", h...).status)

	// Corporate: each agreement is a consented PSU-Corporate-ID covering
	// its accounts.
	for _, tc := range []struct {
		agreement, account int
		want               int
	}{{0, 0, http.StatusOK}, {0, 1, http.StatusOK}, {0, 2, http.StatusNotFound}, {1, 2, http.StatusOK}, {1, 0, http.StatusNotFound}} {
		r := c.get("/v1/accounts/"+corp.Accounts[tc.account].ID+"/balances", noPSU(corp.Session, corp.Agreements[tc.agreement].ID)...)
		assert.Equal(t, tc.want, r.status, "agreement %d, account %d: %s", tc.agreement, tc.account, r.body)
	}
	r = c.get("/v1/agreements", noPSU(corp.Session, "")...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Contains(t, string(r.body), "Seed Bakeri AS avdeling Nord")

	// Another TPP does not have the session.
	other := newTPPClient(t, s, "Other")
	r = other.get(acct+"/balances", h...)
	assert.Equal(t, http.StatusUnauthorized, r.status, string(r.body))
}

func TestSeedFreshAndExpiredConsents(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "Seeder")

	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{
		{Accounts: []SeedAccount{{}, {}}, Consent: &SeedConsent{TPPSessionID: "my-session"}},
		{Accounts: []SeedAccount{{}}, Consent: &SeedConsent{At: clock.Now().Add(-91 * 24 * time.Hour)}},
		{Accounts: []SeedAccount{{}}},
		{Corporate: true, Accounts: make([]SeedAccount, 3), CardAccounts: make([]SeedCardAccount, 1),
			Agreements: []SeedAgreement{{}, {Accounts: []int{2, 0}}}, Consent: &SeedConsent{}},
	}})
	require.NoError(t, err)
	fresh, expired, none, corp := res.Customers[0], res.Customers[1], res.Customers[2], res.Customers[3]

	// What a fresh session lists is what SessionAccounts says.
	for _, ag := range corp.Agreements {
		want, wantCards := corp.SessionAccounts(ag.ID)
		h := append(noPSU(corp.Session, ag.ID), hdr("PSU-IP-Address", "192.0.2.10"))
		assert.Equal(t, want, c.accountIDs(h...))
		r := c.get("/v1/card-accounts", h...)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.Contains(t, string(r.body), wantCards[0])
	}
	accts, _ := corp.SessionAccounts(corp.Agreements[1].ID)
	assert.Equal(t, []string{corp.Accounts[2].ID, corp.Accounts[0].ID}, accts, "in the agreement's order")
	assert.Equal(t, "my-session", fresh.Session.TPPSessionID)
	assert.Equal(t, clock.Now(), fresh.Session.SCAAt, "zero At: now on the server clock")
	assert.Nil(t, none.Session)

	// A fresh SCA lists the accounts, in the seed's order.
	ids := c.accountIDs(append(noPSU(fresh.Session, ""), hdr("PSU-IP-Address", "192.0.2.10"))...)
	assert.Equal(t, []string{fresh.Accounts[0].ID, fresh.Accounts[1].ID}, ids)

	r := c.get("/v1/accounts/"+expired.Accounts[0].ID+"/balances", noPSU(expired.Session, "")...)
	require.Equal(t, http.StatusUnauthorized, r.status, string(r.body))
	code, _ := r.problem(t)
	assert.Equal(t, "CONSENT_EXPIRED", code)
	assert.NotEmpty(t, r.scaRedirect(t))

	// Without a consent the TPP goes through SCA like for any customer.
	psuID := c.login(none.Number, "s-none")
	r = c.get("/v1/accounts/"+none.Accounts[0].ID+"/balances", hdr("PSU-ID", psuID), hdr("TPP-Session-ID", "s-none"),
		hdr("TPP-Redirect-URI", "https://tpp.example/cb"))
	assert.Equal(t, http.StatusOK, r.status, string(r.body))
}

// counts is what a server holds, for checking that a refused seed left
// nothing behind.
func counts(s *Server) [6]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.soleStore()
	if st == nil {
		st = newDefaultStore(s.now(), s.data) // before the TPP's first call: the defaults
	}
	return [6]int{st.customerCount(), len(st.accounts), len(st.cards), len(st.agreements), st.txCount, len(s.sessions)}
}

func TestSeedRefusesBadData(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "Seeder")
	taken, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{
		{Number: "15867512345", Accounts: []SeedAccount{{BBAN: "95310000028"}}},
	}})
	require.NoError(t, err)
	require.Equal(t, "95310000028", taken.Customers[0].Accounts[0].BBAN)
	kariBBAN := func() string {
		s.mu.RLock()
		defer s.mu.RUnlock()
		return s.soleStore().accountByID(s.soleStore().customerByNumber(CustomerKari).accounts[0]).bban
	}()
	before := counts(s)

	one := func(cu SeedCustomer) SeedData { return SeedData{Customers: []SeedCustomer{{}, cu}} }
	acct := func(a SeedAccount) SeedData { return one(SeedCustomer{Accounts: []SeedAccount{a}}) }
	tx := func(t SeedTransaction) SeedData {
		return acct(SeedAccount{Transactions: []SeedTransaction{{Amount: "1"}, t}})
	}
	for _, tc := range []struct {
		name, path string
		data       SeedData
	}{
		{"short number", "Customers[1].Number", one(SeedCustomer{Number: "123"})},
		{"default customer", "Customers[1].Number", one(SeedCustomer{Number: CustomerKari})},
		{"number taken", "Customers[1].Number", one(SeedCustomer{Number: "15867512345"})},
		{"number twice", "Customers[1].Number", SeedData{Customers: []SeedCustomer{{Number: "15867512346"}, {Number: "15867512346"}}}},
		{"emoji name", "Customers[1].Name", one(SeedCustomer{Name: "Kari \U0001F600"})},
		{"long name", "Customers[1].Name", one(SeedCustomer{Name: string(make([]byte, 71))})},
		{"bad check digit", "Customers[1].Accounts[0].BBAN", acct(SeedAccount{BBAN: "95310000018"})},
		{"default BBAN", "Customers[1].Accounts[0].BBAN", acct(SeedAccount{BBAN: kariBBAN})},
		{"BBAN taken", "Customers[1].Accounts[0].BBAN", acct(SeedAccount{BBAN: "95310000028"})},
		{"BBAN twice", "Customers[1].Accounts[1].BBAN", one(SeedCustomer{Accounts: []SeedAccount{{BBAN: "95310000036"}, {BBAN: "95310000036"}}})},
		{"currency", "Customers[1].Accounts[0].Currency", acct(SeedAccount{Currency: "XYZ"})},
		{"minor units", "Customers[1].Accounts[0].Balance", acct(SeedAccount{Balance: "1.234"})},
		{"not an amount", "Customers[1].Accounts[0].CreditLine", acct(SeedAccount{CreditLine: "ten"})},
		{"zero amount", "Customers[1].Accounts[0].Transactions[1].Amount", tx(SeedTransaction{Amount: "0.00"})},
		{"no amount", "Customers[1].Accounts[0].Transactions[1].Amount", tx(SeedTransaction{})},
		{"long remittance", "Customers[1].Accounts[0].Transactions[1].Remittance", tx(SeedTransaction{Amount: "1", Remittance: string(make([]byte, 141))})},
		{"card amount", "Customers[1].CardAccounts[0].Transactions[0].Amount", one(SeedCustomer{CardAccounts: []SeedCardAccount{{Transactions: []SeedCardTransaction{{Amount: "x"}}}}})},
		{"card original currency", "Customers[1].CardAccounts[0].Transactions[0].OriginalCurrency", one(SeedCustomer{CardAccounts: []SeedCardAccount{{Transactions: []SeedCardTransaction{{Amount: "-1", OriginalAmount: "-1", OriginalCurrency: "eur"}}}}})},
		{"private agreements", "Customers[1].Agreements", one(SeedCustomer{Agreements: []SeedAgreement{{}}})},
		{"agreement account", "Customers[1].Agreements[0].Accounts", one(SeedCustomer{Corporate: true, Accounts: []SeedAccount{{}}, Agreements: []SeedAgreement{{Accounts: []int{1}}}})},
		{"future consent", "Customers[1].Consent.At", one(SeedCustomer{Consent: &SeedConsent{At: clock.Now().Add(time.Minute)}})},
		{"session id", "Customers[1].Consent.TPPSessionID", one(SeedCustomer{Consent: &SeedConsent{TPPSessionID: "ø"}})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Control().Seed(t.Context(), c.creds.Certificate, tc.data)
			var se *SeedError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.path, se.Path)
			assert.NotErrorIs(t, err, ErrSeedLimit)
			assert.Contains(t, err.Error(), tc.path)
			assert.Equal(t, before, counts(s), "nothing stored")
		})
	}
}

func TestSeedRespectsLimits(t *testing.T) {
	t.Parallel()
	customers, accounts, agreements, transactions := defaultCounts()
	s := startServer(t, WithLimits(Limits{Customers: customers + 2, Accounts: accounts + 2, Agreements: agreements + 1,
		Transactions: transactions + 2, Sessions: 1}))
	c := newTPPClient(t, s, "Seeder")
	before := counts(s)
	twoTx := []SeedTransaction{{Amount: "1"}, {Amount: "2"}}
	for _, tc := range []struct {
		field string
		data  SeedData
	}{
		{"Customers", SeedData{Customers: make([]SeedCustomer, 3)}},
		{"Accounts", SeedData{Customers: []SeedCustomer{{Accounts: make([]SeedAccount, 2), CardAccounts: make([]SeedCardAccount, 1)}}}},
		{"Agreements", SeedData{Customers: []SeedCustomer{{Corporate: true}, {Corporate: true}}}},
		{"Transactions", SeedData{Customers: []SeedCustomer{{Accounts: []SeedAccount{{Transactions: twoTx}, {Transactions: twoTx[:1]}}}}}},
		{"Sessions", SeedData{Customers: []SeedCustomer{{Consent: &SeedConsent{}}, {Consent: &SeedConsent{}}}}},
	} {
		_, err := s.Control().Seed(t.Context(), c.creds.Certificate, tc.data)
		require.ErrorIs(t, err, ErrSeedLimit, tc.field)
		var se *SeedError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "Limits."+tc.field, se.Path)
		assert.Equal(t, before, counts(s), "nothing stored")
	}
	_, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{
		{Accounts: []SeedAccount{{Transactions: twoTx}}, Consent: &SeedConsent{}},
		{Corporate: true, Accounts: []SeedAccount{{}}},
	}})
	require.NoError(t, err, "up to the caps")
}

func TestSeedNeedsARegisteredTPP(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	elsewhere := startServer(t)
	creds, err := elsewhere.NewTPP("Not here")
	require.NoError(t, err)
	_, err = s.Control().Seed(t.Context(), creds.Certificate, SeedData{})
	require.ErrorIs(t, err, ErrUnknownTPP)
	_, err = s.Control().Seed(t.Context(), nil, SeedData{})
	require.ErrorIs(t, err, ErrUnknownTPP)

	s.Trust(creds.Certificate)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = s.Control().Seed(ctx, creds.Certificate, SeedData{Customers: make([]SeedCustomer, 1)})
	require.ErrorIs(t, err, context.Canceled)
	res, err := s.Control().Seed(t.Context(), creds.Certificate, SeedData{Customers: make([]SeedCustomer, 1)})
	require.NoError(t, err)
	assert.Len(t, res.Customers, 1)
}

// TestSeededCustomersBelongToTheTPP checks that seeded customers are the
// seeding TPP's mock data: its reset removes them with their sessions,
// another TPP's keeps them, and only it may delete them.
func TestSeededCustomersBelongToTheTPP(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	owner := newTPPClient(t, s, "Owner")
	other := newTPPClient(t, s, "Other")
	res, err := s.Control().Seed(t.Context(), owner.creds.Certificate, SeedData{Customers: []SeedCustomer{
		{Accounts: []SeedAccount{{}}, CardAccounts: []SeedCardAccount{{}}, Consent: &SeedConsent{}},
		{Corporate: true, Accounts: []SeedAccount{{}}, Consent: &SeedConsent{}},
	}})
	require.NoError(t, err)
	priv := res.Customers[0]
	h := noPSU(priv.Session, "")
	require.Equal(t, http.StatusOK, owner.get("/v1/accounts/"+priv.Accounts[0].ID+"/balances", h...).status)

	r := other.do(http.MethodDelete, "/v1/sandbox/customers/"+priv.CustomerID, nil)
	assert.Equal(t, http.StatusNotFound, r.status, "unknown in the other TPP's sandbox: %s", r.body)
	require.Equal(t, http.StatusOK, other.do(http.MethodPost, "/v1/sandbox/initialize", nil).status)
	r = owner.get("/v1/sandbox/customers/" + priv.CustomerID)
	require.Equal(t, http.StatusOK, r.status, "another TPP's reset keeps them")

	r = owner.do(http.MethodDelete, "/v1/sandbox/customers/"+priv.CustomerID, nil)
	require.Equal(t, http.StatusNoContent, r.status, string(r.body))
	s.mu.RLock()
	assert.Len(t, s.sessions, 1, "the deleted customer's session is gone")
	assert.Len(t, s.psus, 1)
	assert.Zero(t, s.budgets.len(), "with its account's budget")
	s.mu.RUnlock()
	checkIndexes(t, s)

	require.Equal(t, http.StatusOK, owner.do(http.MethodPost, "/v1/sandbox/initialize", nil).status)
	r = owner.get("/v1/sandbox/customers/" + res.Customers[1].CustomerID)
	assert.Equal(t, http.StatusNotFound, r.status, "the owner's reset removes them")
	s.mu.RLock()
	assert.Empty(t, s.sessions)
	assert.Empty(t, s.psus)
	s.mu.RUnlock()
	checkIndexes(t, s)
}

// checkIndexes compares the store's indexes with what a scan finds.
func checkIndexes(t *testing.T, s *Server) {
	t.Helper()
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.soleStore()
	if st == nil {
		return // no TPP has called yet: no sandbox to check
	}
	n, tx := 0, 0
	for cu := range st.allCustomers() {
		n++
		assert.Same(t, cu, st.byID[cu.id])
		assert.Same(t, cu, st.byNumber[cu.number])
		assert.Same(t, cu, st.customers[cu.slot])
		for _, id := range cu.accounts {
			a := st.accounts[id]
			require.NotNil(t, a)
			assert.Equal(t, cu.id, a.owner)
			assert.Same(t, a, st.byBBAN[a.bban])
			assert.Same(t, a, st.byIBAN[a.iban])
			assert.Positive(t, st.bankCodes[a.bban[:4]])
			tx += len(a.transactions)
		}
		for _, id := range cu.cards {
			k := st.cards[id]
			require.NotNil(t, k)
			assert.Same(t, k, st.cardRefs[k.relatedAccount()])
			tx += len(k.transactions)
		}
		for _, id := range cu.agreements {
			ag := st.agreements[id]
			require.NotNil(t, ag)
			assert.Equal(t, cu.id, ag.owner)
			assert.Len(t, ag.engaged, len(ag.accounts))
		}
	}
	assert.Equal(t, n, st.customerCount())
	assert.Len(t, st.byNumber, n)
	assert.Len(t, st.byBBAN, len(st.accounts))
	assert.Len(t, st.byIBAN, len(st.accounts))
	assert.Len(t, st.cardRefs, len(st.cards))
	assert.Equal(t, tx, st.txCount)
	codes := map[string]int{}
	for _, a := range st.accounts {
		codes[a.bban[:4]]++
	}
	assert.Equal(t, codes, st.bankCodes)
}

// TestIndexesFollowChanges runs the operations that change the data (mock
// data over HTTP, seeding, deleting, resetting, the payment batch) and
// checks the indexes after each.
func TestIndexesFollowChanges(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Indexer")
	checkIndexes(t, s)
	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: make([]SeedCustomer, 8)})
	require.NoError(t, err)
	checkIndexes(t, s)

	post := func(path, body string) []byte {
		t.Helper()
		r := c.do(http.MethodPost, path, []byte(body))
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		return r.body
	}
	post("/v1/sandbox/customers", `{"customerNumber":"912345688","customerType":"CORPORATE","customerName":"Indeks AS"}`)
	var a accountJSON
	require.NoError(t, json.Unmarshal(post("/v1/sandbox/accounts", `{"customerNumber":"912345688","balance":"10.00"}`), &a))
	post("/v1/sandbox/card-accounts", `{"customerNumber":"912345688"}`)
	post("/v1/sandbox/accounts/"+a.ResourceID+"/transactions", `[{"transactionAmount":{"amount":"5.00"}},{"bookingStatus":"pending","transactionAmount":{"amount":"-1.00"}}]`)
	post("/v1/sandbox/agreements", `{"owner":"912345688","name":"Indeks AS","engagements":[{"account":{"iban":"`+a.IBAN+`"}}]}`)
	checkIndexes(t, s)

	// Delete most seeded customers: the customer list compacts.
	for _, cu := range res.Customers[:6] {
		require.Equal(t, http.StatusNoContent, c.do(http.MethodDelete, "/v1/sandbox/customers/"+cu.CustomerID, nil).status)
		checkIndexes(t, s)
	}
	r := c.get("/v1/sandbox/customers")
	require.Equal(t, http.StatusOK, r.status)
	var list []customerJSON
	require.NoError(t, json.Unmarshal(r.body, &list))
	require.Len(t, list, 4+2+1)
	assert.Equal(t, res.Customers[6].CustomerID, list[4].CustomerID, "creation order is kept")
	assert.Equal(t, "912345688", list[6].CustomerNumber)

	s.Control().RunBatch()
	checkIndexes(t, s)
	require.Equal(t, http.StatusOK, c.do(http.MethodPost, "/v1/sandbox/initialize", nil).status)
	checkIndexes(t, s)
	assert.Equal(t, 4, counts(s)[0])
}

// TestSeedIsAtomicUnderConcurrency seeds, refreshes and deletes at once
// (run with -race): every seed is whole and the indexes hold.
func TestSeedIsAtomicUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Busy")
	base, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{
		{Accounts: []SeedAccount{{Transactions: []SeedTransaction{{Amount: "1"}}}}, Consent: &SeedConsent{}},
	}})
	require.NoError(t, err)
	sess, id := base.Customers[0].Session, base.Customers[0].Accounts[0].ID
	errs := make(chan error, 8)
	for w := range 4 {
		go func() {
			var err error
			defer func() { errs <- err }()
			for range 5 {
				if w%2 == 0 {
					var res SeedResult
					if res, err = s.Control().Seed(context.Background(), c.creds.Certificate, SeedData{Customers: make([]SeedCustomer, 20)}); err != nil {
						return
					}
					if len(res.Customers) != 20 {
						err = errors.New("a partial seed")
						return
					}
					continue
				}
				req := c.build(http.MethodGet, "/v1/accounts/"+id+"/transactions?bookingStatus=both", nil,
					append(noPSU(sess, ""), hdr("PSU-IP-Address", "192.0.2.1"))...)
				resp, e := c.hc.Do(req)
				if e != nil {
					err = e
					return
				}
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = errors.New(resp.Status)
					return
				}
			}
		}()
	}
	for range 4 {
		require.NoError(t, <-errs)
	}
	assert.Equal(t, 4+1+2*5*20, counts(s)[0])
	checkIndexes(t, s)
}
