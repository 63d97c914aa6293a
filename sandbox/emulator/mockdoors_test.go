package emulator

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The two doors of mock data, Controls.Seed and the mock-data operations,
// build through one path (mockbuild.go, mocktx.go, mockcheck.go): these
// tests give both the same input and compare what comes out.

// entriesTwice decodes the booked and pending entries of a transactions
// answer (list is "transactions" or "cardTransactions"), drops their ids
// and checks that each entry appears exactly twice: once from each door.
func entriesTwice(t *testing.T, r *response, list string, booked, pending int) {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var page map[string]struct {
		Booked  []map[string]any `json:"booked"`
		Pending []map[string]any `json:"pending"`
	}
	require.NoError(t, json.Unmarshal(r.body, &page))
	p := page[list]
	require.Len(t, p.Booked, booked, string(r.body))
	require.Len(t, p.Pending, pending, string(r.body))
	seen := map[string]int{}
	for _, e := range append(p.Booked, p.Pending...) {
		delete(e, "transactionId")
		delete(e, "cardTransactionId")
		b, err := json.Marshal(e)
		require.NoError(t, err)
		seen[string(b)]++
	}
	for e, n := range seen {
		assert.Equal(t, 2, n, "once from Seed, once over HTTP: %s", e)
	}
}

// TestTransactionDoorsAgree seeds an account and a card account with
// transactions, posts the same transactions to them over HTTP, and reads
// them back: apart from their ids the two sets are the same. The balance
// follows each door's rule: the seed states it, a posted booking moves it.
func TestTransactionDoorsAgree(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	s := startServer(t, WithClock(clock.Now))
	c := newTPPClient(t, s, "Doors")
	today := clock.Now().In(time.UTC)
	day := func(n int) time.Time { return today.AddDate(0, 0, -n) }
	date := func(n int) string { return day(n).Format(time.DateOnly) }

	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{{
		Accounts: []SeedAccount{{Balance: "1000.00", Transactions: []SeedTransaction{
			{BookingDate: day(3), ValueDate: day(2), Amount: "-250.00", CounterpartyName: "Butikken",
				CounterpartyBBAN: "12345678903", Remittance: "Mat", Code: "R_710"},
			{BookingDate: day(1), Amount: "500.00", CounterpartyName: "Arbeidsgiver", Remittance: "Lønn"},
			{Pending: true, Amount: "-99.90", CounterpartyName: "Kiosk"},
		}}},
		CardAccounts: []SeedCardAccount{{Balance: "-100.00", Transactions: []SeedCardTransaction{
			{TransactionDate: day(2), BookingDate: day(1), Amount: "-45.00", OriginalAmount: "-4.00",
				OriginalCurrency: "EUR", Invoiced: true, Details: "KAFFE"},
			{Pending: true, Amount: "-10.00", Details: "BUSS"},
			// Seed reads an original amount without a currency as in the
			// card's; the operation counts an original amount only with
			// its currency, so the body below gives NOK.
			{TransactionDate: day(4), Amount: "-31.00", OriginalAmount: "-30.00", Details: "GEBYR"},
		}}},
		Consent: &SeedConsent{},
	}}})
	require.NoError(t, err)
	cu := res.Customers[0]
	h := append(noPSU(cu.Session, ""), hdr("PSU-IP-Address", "192.0.2.1"))
	acct, card := "/v1/accounts/"+cu.Accounts[0].ID, "/v1/card-accounts/"+cu.CardAccounts[0].ID
	balances := func(path string) []string {
		t.Helper()
		r := c.get(path+"/balances", h...)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		var b struct {
			Balances []balanceJSON `json:"balances"`
		}
		require.NoError(t, json.Unmarshal(r.body, &b))
		out := make([]string, len(b.Balances))
		for i, x := range b.Balances {
			out[i] = x.BalanceType + " " + x.BalanceAmount.Value.StringFixed(2)
		}
		return out
	}
	assert.Contains(t, balances(acct), "closingBooked 1000.00", "balanceStated: seeded bookings leave the balance")
	assert.Contains(t, balances(card), "interimBooked -100.00")

	r := c.do(http.MethodPost, "/v1/sandbox/accounts/"+cu.Accounts[0].ID+"/transactions", []byte(`[
		{"bookingDate":"`+date(3)+`","valueDate":"`+date(2)+`","transactionAmount":{"amount":"-250.00"},"creditorName":"Butikken","creditorAccount":{"bban":"12345678903"},"remittanceInformationUnstructured":"Mat","proprietaryBankTransactionCode":"R_710"},
		{"bookingDate":"`+date(1)+`","transactionAmount":{"amount":500,"currency":"NOK"},"debtorName":"Arbeidsgiver","remittanceInformationUnstructured":"Lønn"},
		{"bookingStatus":"pending","transactionAmount":{"amount":"-99.90"},"creditorName":"Kiosk"}]`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	r = c.do(http.MethodPost, "/v1/sandbox/card-accounts/"+strings.ReplaceAll(cu.CardAccounts[0].ID, "!", "%21")+"/transactions", []byte(`[
		{"transactionDate":"`+date(2)+`","bookingDate":"`+date(1)+`","transactionAmount":{"amount":"-45.00"},"originalAmount":{"amount":"-4.00","currency":"EUR"},"invoiced":true,"transactionDetails":"KAFFE"},
		{"bookingStatus":"pending","transactionAmount":{"amount":"-10.00"},"transactionDetails":"BUSS"},
		{"transactionDate":"`+date(4)+`","transactionAmount":{"amount":"-31.00"},"originalAmount":{"amount":"-30.00","currency":"NOK"},"transactionDetails":"GEBYR"}]`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))

	entriesTwice(t, c.get(acct+"/transactions?bookingStatus=both", h...), "transactions", 4, 2)
	entriesTwice(t, c.get(card+"/transactions?bookingStatus=both", h...), "cardTransactions", 4, 2)
	assert.Contains(t, balances(acct), "closingBooked 1250.00", "balanceMoves: posted bookings (-250 + 500) move it")
	assert.Contains(t, balances(card), "interimBooked -176.00", "-100 - 45 - 31")
}

// TestDoorsRefuseAlike gives the same invalid input to Seed and to the
// mock-data operation for the same object: both refuse it, at the same
// field (each in its own naming) for the same reason (each in its own
// words), and store nothing. The operation's answer is word for word the
// one it has always given. (A character the bank cannot process is
// refused over HTTP by the request rules before the operation runs, with
// their own words naming the character.)
func TestDoorsRefuseAlike(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Doors")
	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{
		{Number: "15867512345", Accounts: []SeedAccount{{}}, CardAccounts: []SeedCardAccount{{}}},
		{Number: "912345688", Corporate: true, Accounts: []SeedAccount{{}}},
	}})
	require.NoError(t, err)
	priv, corp := res.Customers[0], res.Customers[1]
	txs := "/v1/sandbox/accounts/" + priv.Accounts[0].ID + "/transactions"
	cardTxs := "/v1/sandbox/card-accounts/" + strings.ReplaceAll(priv.CardAccounts[0].ID, "!", "%21") + "/transactions"
	long := func(n int) string { return strings.Repeat("x", n) }

	tx := func(in SeedTransaction) SeedCustomer {
		return SeedCustomer{Accounts: []SeedAccount{{Transactions: []SeedTransaction{in}}}}
	}
	cardTx := func(in SeedCardTransaction) SeedCustomer {
		return SeedCustomer{CardAccounts: []SeedCardAccount{{Transactions: []SeedCardTransaction{in}}}}
	}
	const (
		smiley     = "\U0001F600" // a character the bank cannot process
		seedTx     = "Customers[0].Accounts[0].Transactions[0]."
		seedCardTx = "Customers[0].CardAccounts[0].Transactions[0]."
		emojiText  = " holds U+1F600, a character that the bank's systems cannot process (an emoji or pictograph, or outside the Basic Multilingual Plane)."
	)
	for _, tc := range []struct {
		name                 string
		seed                 SeedCustomer
		seedPath, seedReason string
		url, body            string
		httpPath, httpText   string
	}{
		{"zero amount", tx(SeedTransaction{Amount: "0.00"}), seedTx + "Amount", "must be given and not zero",
			txs, `[{"transactionAmount":{"amount":"0.00"}}]`, "[0].transactionAmount.amount", "The amount must not be zero."},
		{"no amount", tx(SeedTransaction{}), seedTx + "Amount", "must be given and not zero",
			txs, `[{"transactionAmount":{}}]`, "[0].transactionAmount.amount", "The amount must not be zero."},
		{"minor units", tx(SeedTransaction{Amount: "1.001"}), seedTx + "Amount", "is not a valid amount in NOK",
			txs, `[{"transactionAmount":{"amount":1.001}}]`, "[0].transactionAmount.amount", "[0].transactionAmount.amount is not a valid amount in NOK."},
		{"long remittance", tx(SeedTransaction{Amount: "1", Remittance: long(141)}), seedTx + "Remittance", "must be 0 to 140 characters",
			txs, `[{"transactionAmount":{"amount":"1"},"remittanceInformationUnstructured":"` + long(141) + `"}]`,
			"[0].remittanceInformationUnstructured", "[0].remittanceInformationUnstructured is longer than 140 characters."},
		{"long counterparty", tx(SeedTransaction{Amount: "-1", CounterpartyName: long(71)}), seedTx + "CounterpartyName", "must be 0 to 70 characters",
			txs, `[{"transactionAmount":{"amount":"-1"},"creditorName":"` + long(71) + `"}]`,
			"[0].creditorName", "[0].creditorName is longer than 70 characters."},
		{"emoji counterparty", tx(SeedTransaction{Amount: "-1", CounterpartyName: "Kiosk " + smiley}), seedTx + "CounterpartyName",
			"holds a character the bank cannot process",
			txs, `[{"transactionAmount":{"amount":"-1"},"creditorName":"Kiosk ` + smiley + `"}]`,
			"[0].creditorName", "[0].creditorName" + emojiText},
		{"card amount", cardTx(SeedCardTransaction{Amount: "1,5"}), seedCardTx + "Amount", "is not a valid amount in NOK",
			cardTxs, `[{"transactionAmount":{"amount":"1,5"}}]`, "[0].transactionAmount.amount", "[0].transactionAmount.amount is not a valid amount in NOK."},
		{"card original currency", cardTx(SeedCardTransaction{Amount: "-1", OriginalAmount: "-1", OriginalCurrency: "eur"}),
			seedCardTx + "OriginalCurrency", "must be an ISO 4217 code",
			cardTxs, `[{"transactionAmount":{"amount":"-1"},"originalAmount":{"amount":"-1","currency":"eur"}}]`,
			"[0].originalAmount.currency", "currency must be an ISO 4217 code."},
		{"card original minor units", cardTx(SeedCardTransaction{Amount: "-1", OriginalAmount: "-1.5", OriginalCurrency: "JPY"}),
			seedCardTx + "OriginalAmount", "is not a valid amount in JPY",
			cardTxs, `[{"transactionAmount":{"amount":"-1"},"originalAmount":{"amount":"-1.5","currency":"JPY"}}]`,
			"[0].originalAmount.amount", "[0].originalAmount.amount is not a valid amount in JPY."},
		{"long card details", cardTx(SeedCardTransaction{Amount: "-1", Details: long(141)}), seedCardTx + "Details", "must be 0 to 140 characters",
			cardTxs, `[{"transactionAmount":{"amount":"-1"},"transactionDetails":"` + long(141) + `"}]`,
			"[0].transactionDetails", "[0].transactionDetails is longer than 140 characters."},
		{"emoji account name", SeedCustomer{Accounts: []SeedAccount{{Name: "Konto " + smiley}}},
			"Customers[0].Accounts[0].Name", "holds a character the bank cannot process",
			"/v1/sandbox/accounts", `{"customerNumber":"15867512345","name":"Konto ` + smiley + `"}`,
			"name", "name" + emojiText},
		{"long account name", SeedCustomer{Accounts: []SeedAccount{{Name: long(71)}}},
			"Customers[0].Accounts[0].Name", "must be 1 to 70 characters",
			"/v1/sandbox/accounts", `{"customerNumber":"15867512345","name":"` + long(71) + `"}`,
			"name", "name is longer than 70 characters."},
		{"account bban", SeedCustomer{Accounts: []SeedAccount{{BBAN: "95310000018"}}},
			"Customers[0].Accounts[0].BBAN", "must be 11 digits with a valid MOD-11 check digit",
			"/v1/sandbox/accounts", `{"customerNumber":"15867512345","bban":"95310000018"}`,
			"bban", "bban must be 11 digits with a valid MOD11 check digit."},
		{"card credit limit", SeedCustomer{CardAccounts: []SeedCardAccount{{CreditLimit: "ti"}}},
			"Customers[0].CardAccounts[0].CreditLimit", "is not a valid amount in NOK",
			"/v1/sandbox/card-accounts", `{"customerNumber":"15867512345","creditLimit":"ti"}`,
			"creditLimit", "creditLimit is not a valid amount in NOK."},
		{"long masked PAN", SeedCustomer{CardAccounts: []SeedCardAccount{{MaskedPan: long(36)}}},
			"Customers[0].CardAccounts[0].MaskedPan", "must be 1 to 35 characters",
			"/v1/sandbox/card-accounts", `{"customerNumber":"15867512345","maskedPan":"` + long(36) + `"}`,
			"maskedPan", "maskedPan is longer than 35 characters."},
		{"emoji customer name", SeedCustomer{Name: "Kari " + smiley}, "Customers[0].Name", "holds a character the bank cannot process",
			"/v1/sandbox/customers", `{"customerNumber":"15867512399","customerName":"Kari ` + smiley + `"}`,
			"customerName", "customerName" + emojiText},
		{"customer number", SeedCustomer{Number: "1234"}, "Customers[0].Number",
			"must be 11 digits (national identity number) or 9 digits (organisation number)",
			"/v1/sandbox/customers", `{"customerNumber":"1234","customerName":"Kari"}`,
			"customerNumber", "customerNumber must be 11 digits (national identity number) or 9 digits (organisation number)."},
		{"long agreement name", SeedCustomer{Corporate: true, Agreements: []SeedAgreement{{Name: long(71)}}},
			"Customers[0].Agreements[0].Name", "must be 1 to 70 characters",
			"/v1/sandbox/agreements", `{"owner":"` + corp.Number + `","name":"` + long(71) + `"}`,
			"name", "name is longer than 70 characters."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := counts(s)
			_, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{tc.seed}})
			var se *SeedError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.seedPath, se.Path)
			assert.Equal(t, tc.seedReason, se.Reason)

			r := c.do(http.MethodPost, tc.url, []byte(tc.body))
			require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
			var e struct {
				TPPMessages []tppMessage `json:"tppMessages"`
			}
			require.NoError(t, json.Unmarshal(r.body, &e), string(r.body))
			require.Len(t, e.TPPMessages, 1)
			assert.Equal(t, "FORMAT_ERROR", e.TPPMessages[0].Code)
			assert.Equal(t, tc.httpPath, e.TPPMessages[0].Path)
			assert.Equal(t, tc.httpText, e.TPPMessages[0].Text)
			assert.Equal(t, before, counts(s), "nothing stored")
		})
	}
}

// TestMockDataTakesWhatTheBankTakes posts to the mock-data operations
// input that the interface gives no rule against and the operations have
// always taken: each is created (201) and reads back as given. Seed
// shares the operations' checks, so none of these is a rule of the bank
// the emulator could refuse.
func TestMockDataTakesWhatTheBankTakes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Doors")
	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{{
		Number: "15867512345", Accounts: []SeedAccount{{}}, CardAccounts: []SeedCardAccount{{}}, Consent: &SeedConsent{},
	}}})
	require.NoError(t, err)
	cu := res.Customers[0]
	h := append(noPSU(cu.Session, ""), hdr("PSU-IP-Address", "192.0.2.1"))
	acct := "/v1/accounts/" + cu.Accounts[0].ID
	card := "/v1/card-accounts/" + cu.CardAccounts[0].ID
	txs := "/v1/sandbox/accounts/" + cu.Accounts[0].ID + "/transactions"
	cardTxs := "/v1/sandbox/card-accounts/" + strings.ReplaceAll(cu.CardAccounts[0].ID, "!", "%21") + "/transactions"
	long := func(c byte, n int) string { return strings.Repeat(string(c), n) }

	for _, tc := range []struct {
		name, url, body string
		// read is the path that shows the object; "{id}" stands for the
		// id the creation answered (its resourceId or id).
		read string
		want []string // fragments of the read answer
	}{
		{"zero card amount", cardTxs, `[{"transactionAmount":{"amount":0},"transactionDetails":"ZERO"}]`,
			card + "/transactions?bookingStatus=booked", []string{`"transactionAmount":{"amount":"0.00","currency":"NOK"},"originalAmount":{"amount":"0.00","currency":"NOK"},"invoiced":false,"transactionDetails":"ZERO"`}},
		{"no card amount", cardTxs, `[{"transactionAmount":{},"transactionDetails":"NONE"}]`,
			card + "/transactions?bookingStatus=booked", []string{`"transactionAmount":{"amount":"0.00","currency":"NOK"},"originalAmount":{"amount":"0.00","currency":"NOK"},"invoiced":false,"transactionDetails":"NONE"`}},
		{"card amount in another currency", cardTxs, `[{"transactionAmount":{"amount":"-5.00","currency":"EUR"},"transactionDetails":"EURO"}]`,
			card + "/transactions?bookingStatus=booked", []string{`"transactionAmount":{"amount":"-5.00","currency":"NOK"},"originalAmount":{"amount":"-5.00","currency":"NOK"},"invoiced":false,"transactionDetails":"EURO"`}},
		{"original currency without amount", cardTxs, `[{"transactionAmount":{"amount":"-7.00"},"originalAmount":{"currency":"EUR"},"transactionDetails":"NOAMOUNT"}]`,
			card + "/transactions?bookingStatus=booked", []string{`"transactionAmount":{"amount":"-7.00","currency":"NOK"},"originalAmount":{"amount":"0.00","currency":"EUR"},"invoiced":false,"transactionDetails":"NOAMOUNT"`}},
		{"original amount without currency", cardTxs, `[{"transactionAmount":{"amount":"-8.00"},"originalAmount":{"amount":"x"},"transactionDetails":"NOCURRENCY"}]`,
			card + "/transactions?bookingStatus=booked", []string{`"transactionAmount":{"amount":"-8.00","currency":"NOK"},"originalAmount":{"amount":"-8.00","currency":"NOK"},"invoiced":false,"transactionDetails":"NOCURRENCY"`}},
		{"pending card with a bad booking date", cardTxs, `[{"bookingStatus":"pending","bookingDate":"soon","transactionAmount":{"amount":"-9.00"},"transactionDetails":"PENDING"}]`,
			card + "/transactions?bookingStatus=pending", []string{`"transactionDetails":"PENDING"`}},
		{"long code", txs, `[{"transactionAmount":{"amount":"-1.00"},"proprietaryBankTransactionCode":"` + long('C', 36) + `"}]`,
			acct + "/transactions?bookingStatus=booked", []string{`"proprietaryBankTransactionCode":"` + long('C', 36) + `"`}},
		// The other party's account numbers: any text up to the
		// interface's 30 (bban) and 34 (iban) characters.
		{"long creditor bban", txs, `[{"transactionAmount":{"amount":"-2.00"},"creditorAccount":{"bban":"` + long('1', 30) + `"}}]`,
			acct + "/transactions?bookingStatus=booked", []string{`"creditorAccount":{"bban":"` + long('1', 30) + `"}`}},
		{"long creditor iban", txs, `[{"transactionAmount":{"amount":"-3.00"},"creditorAccount":{"iban":"NO` + long('2', 32) + `"}}]`,
			acct + "/transactions?bookingStatus=booked", []string{`"creditorAccount":{"iban":"NO` + long('2', 32) + `"}`}},
		{"long product and cash account type", "/v1/sandbox/accounts",
			`{"customerId":"` + cu.CustomerID + `","product":"` + long('P', 71) + `","cashAccountType":"` + long('T', 71) + `"}`,
			"/v1/accounts/{id}", []string{`"product":"` + long('P', 71) + `"`, `"cashAccountType":"` + long('T', 71) + `"`}},
		{"long card product", "/v1/sandbox/card-accounts", `{"customerId":"` + cu.CustomerID + `","product":"` + long('K', 71) + `"}`,
			"/v1/card-accounts/{id}", []string{`"product":"` + long('K', 71) + `"`}},
		{"private owner", "/v1/sandbox/agreements", `{"owner":"` + cu.CustomerID + `","name":"Privat avtale"}`,
			"/v1/sandbox/agreements/{id}", []string{`"name":"Privat avtale"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.do(http.MethodPost, tc.url, []byte(tc.body))
			require.Equal(t, http.StatusCreated, r.status, string(r.body))
			read := tc.read
			if strings.Contains(read, "{id}") {
				var made struct {
					ResourceID string `json:"resourceId"`
					ID         string `json:"id"`
				}
				require.NoError(t, json.Unmarshal(r.body, &made))
				id := strings.ReplaceAll(cmp.Or(made.ResourceID, made.ID), "!", "%21")
				require.NotEmpty(t, id, string(r.body))
				read = strings.ReplaceAll(read, "{id}", id)
			}
			r = c.get(read, h...)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			for _, w := range tc.want {
				assert.Contains(t, string(r.body), w)
			}
		})
	}
}

// TestMockDataRefusesInItsOwnOrder gives the mock-data operations input
// with more than one problem: the answer names the problem the operations
// have always named first, word for word.
func TestMockDataRefusesInItsOwnOrder(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Doors")
	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{{
		Number: "15867512345", Accounts: []SeedAccount{{BBAN: "95310000028"}}, CardAccounts: []SeedCardAccount{{}},
	}}})
	require.NoError(t, err)
	cu := res.Customers[0]
	txs := "/v1/sandbox/accounts/" + cu.Accounts[0].ID + "/transactions"
	cardTxs := "/v1/sandbox/card-accounts/" + strings.ReplaceAll(cu.CardAccounts[0].ID, "!", "%21") + "/transactions"
	other := `"debtorAccount":{"bban":"12345678903"}`
	for _, tc := range []struct {
		name, url, body, path, text string
	}{
		{"currency before date", txs, `[{"transactionAmount":{"amount":"1","currency":"EUR"},"bookingDate":"x"}]`,
			"[0].transactionAmount.currency", "The currency must be the account's (NOK)."},
		{"empty amount text", txs, `[{"transactionAmount":{"amount":""}}]`,
			"[0].transactionAmount.amount", "[0].transactionAmount.amount is not a valid amount in NOK."},
		{"amount before date", txs, `[{"transactionAmount":{"amount":"0"},"valueDate":"x"}]`,
			"[0].transactionAmount.amount", "The amount must not be zero."},
		{"date before debtor", txs, `[{"transactionAmount":{"amount":"-1"},"valueDate":"2026-13-01",` + other + `}]`,
			"[0].valueDate", "valueDate must be a date YYYY-MM-DD."},
		{"remittance before names", txs, `[{"transactionAmount":{"amount":"-1"},"debtorName":"` + strings.Repeat("d", 71) +
			`","remittanceInformationUnstructured":"` + strings.Repeat("r", 141) + `"}]`,
			"[0].remittanceInformationUnstructured", "[0].remittanceInformationUnstructured is longer than 140 characters."},
		{"names before debtor", txs, `[{"transactionAmount":{"amount":"-1"},"debtorName":"` + strings.Repeat("d", 71) + `",` + other + `}]`,
			"[0].debtorName", "[0].debtorName is longer than 70 characters."},
		{"debtor", txs, `[{"transactionAmount":{"amount":"-1"},"debtorAccount":{}}]`,
			"[0].debtorAccount", "A mock transaction cannot have another account as debtor."},
		{"second element", txs, `[{"transactionAmount":{"amount":"-1"}},{"bookingStatus":"done"}]`,
			"[1].bookingStatus", "bookingStatus must be booked or pending."},
		{"card original before date", cardTxs, `[{"transactionAmount":{"amount":"-1"},"originalAmount":{"amount":"1.5","currency":"JPY"},"transactionDate":"x"}]`,
			"[0].originalAmount.amount", "[0].originalAmount.amount is not a valid amount in JPY."},
		{"card date before details", cardTxs, `[{"transactionAmount":{"amount":"-1"},"transactionDate":"x","transactionDetails":"` + strings.Repeat("x", 141) + `"}]`,
			"[0].transactionDate", "transactionDate must be a date YYYY-MM-DD."},
		{"card booking date", cardTxs, `[{"transactionAmount":{"amount":"-1"},"bookingDate":"x"}]`,
			"[0].bookingDate", "bookingDate must be a date YYYY-MM-DD."},
		{"empty balance text", "/v1/sandbox/accounts", `{"customerId":"` + cu.CustomerID + `","balance":""}`,
			"balance", "balance is not a valid amount in NOK."},
		{"currency before name", "/v1/sandbox/accounts", `{"customerId":"` + cu.CustomerID + `","currency":"nok","name":"` + strings.Repeat("n", 71) + `"}`,
			"currency", "currency must be an ISO 4217 code."},
		{"card name before limit", "/v1/sandbox/card-accounts", `{"customerId":"` + cu.CustomerID + `","name":"` + strings.Repeat("n", 71) + `","creditLimit":"x"}`,
			"name", "name is longer than 70 characters."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := counts(s)
			r := c.do(http.MethodPost, tc.url, []byte(tc.body))
			require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
			var e struct {
				TPPMessages []tppMessage `json:"tppMessages"`
			}
			require.NoError(t, json.Unmarshal(r.body, &e), string(r.body))
			require.Len(t, e.TPPMessages, 1)
			assert.Equal(t, tc.path, e.TPPMessages[0].Path)
			assert.Equal(t, tc.text, e.TPPMessages[0].Text)
			assert.Equal(t, before, counts(s), "nothing stored")
		})
	}
}

// TestSeedTakesWhatTheOperationsTake seeds what the mock-data operations
// take (TestMockDataTakesWhatTheBankTakes): Seed shares their checks, so
// it takes it too and the session reads it back.
func TestSeedTakesWhatTheOperationsTake(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Doors")
	code, bban, product := strings.Repeat("C", 36), strings.Repeat("1", 30), strings.Repeat("P", 71)
	res, err := s.Control().Seed(t.Context(), c.creds.Certificate, SeedData{Customers: []SeedCustomer{{
		Accounts: []SeedAccount{{Product: product, CashAccountType: product, Transactions: []SeedTransaction{
			{Amount: "-1.00", Code: code, CounterpartyBBAN: bban},
		}}},
		CardAccounts: []SeedCardAccount{{Product: product, Transactions: []SeedCardTransaction{
			{Amount: "0", Details: "ZERO"},
			{Details: "NONE"},
			{Amount: "-7.00", OriginalCurrency: "EUR", Details: "NOAMOUNT"},
		}}},
		Consent: &SeedConsent{},
	}}})
	require.NoError(t, err)
	cu := res.Customers[0]
	h := append(noPSU(cu.Session, ""), hdr("PSU-IP-Address", "192.0.2.1"))
	acct, card := "/v1/accounts/"+cu.Accounts[0].ID, "/v1/card-accounts/"+cu.CardAccounts[0].ID
	for path, want := range map[string][]string{
		acct: {`"product":"` + product + `"`, `"cashAccountType":"` + product + `"`},
		acct + "/transactions?bookingStatus=booked": {`"proprietaryBankTransactionCode":"` + code + `"`,
			`"creditorAccount":{"bban":"` + bban + `"}`},
		card: {`"product":"` + product + `"`},
		card + "/transactions?bookingStatus=booked": {
			`"transactionAmount":{"amount":"0.00","currency":"NOK"},"originalAmount":{"amount":"0.00","currency":"NOK"},"invoiced":false,"transactionDetails":"ZERO"`,
			`"transactionAmount":{"amount":"0.00","currency":"NOK"},"originalAmount":{"amount":"0.00","currency":"NOK"},"invoiced":false,"transactionDetails":"NONE"`,
			`"transactionAmount":{"amount":"-7.00","currency":"NOK"},"originalAmount":{"amount":"0.00","currency":"EUR"},"invoiced":false,"transactionDetails":"NOAMOUNT"`},
	} {
		r := c.get(path, h...)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		for _, w := range want {
			assert.Contains(t, string(r.body), w, path)
		}
	}
}
