package emulator

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
	"github.com/tppkit/psd2/signing"
)

func listCustomers(t *testing.T, c *tppClient) []customerJSON {
	t.Helper()
	r := c.get("/v1/sandbox/customers?withAccounts=true&withAgreements=true")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var out []customerJSON
	require.NoError(t, json.Unmarshal(r.body, &out))
	return out
}

func TestDefaultSandboxData(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Seeder")
	type summary struct {
		Number, Type        string
		Accounts, Cards, Ag int
	}
	var got []summary
	for _, cu := range listCustomers(t, c) {
		got = append(got, summary{cu.CustomerNumber, cu.CustomerType, len(cu.Accounts), len(cu.CardAccounts), len(cu.Agreements)})
		assert.True(t, strings.HasPrefix(cu.CustomerID, "enc!!"))
		assert.Len(t, cu.CustomerID, 5+64, "48-byte ids without padding")
	}
	assert.Equal(t, []summary{
		{CustomerKari, "PRIVATE", 2, 1, 0},
		{CustomerOla, "PRIVATE", 2, 1, 0},
		{CustomerFjordlys, "CORPORATE", 2, 0, 2},
		{CustomerTestfirma, "CORPORATE", 2, 0, 1},
	}, got)

	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.soleStore().accounts {
		assert.True(t, rules.ValidNorwegianBBAN(a.bban), a.bban)
		assert.True(t, ibanMod97(a.iban), a.iban)
		assert.Len(t, a.iban, 15)
		assert.True(t, strings.HasSuffix(a.id, "="), "32-byte ids end in =")
	}
	for _, ag := range s.soleStore().agreements {
		_, err := uuid.Parse(ag.id)
		assert.NoError(t, err, "agreement ids are UUIDs (PSU-Corporate-ID)")
	}
	kari := s.soleStore().customerByNumber(CustomerKari)
	first := s.soleStore().accountByID(kari.accounts[0])
	booked, pending := 0, 0
	oldest := rules.Today(s.now())
	for _, tx := range first.transactions {
		if tx.booked {
			booked++
			if tx.bookingDate.Before(oldest) {
				oldest = tx.bookingDate
			}
		} else {
			pending++
		}
	}
	assert.GreaterOrEqual(t, booked, 25)
	assert.Equal(t, 3, pending)
	assert.Greater(t, rules.Today(s.now()).Sub(oldest), 100*24*time.Hour)
	assert.Equal(t, "100.00", s.soleStore().accountByID(kari.accounts[1]).booked.StringFixed(2))
}

// ibanMod97 checks an IBAN's check digits independently of ibanOf.
func ibanMod97(iban string) bool {
	r := iban[4:] + iban[:4]
	var digits strings.Builder
	for _, ch := range r {
		if ch >= 'A' && ch <= 'Z' {
			digits.WriteString(big.NewInt(int64(ch - 'A' + 10)).String())
		} else {
			digits.WriteRune(ch)
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

func TestMockDataLifecycle(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Seeder")

	r := c.do(http.MethodPost, "/v1/sandbox/customers", []byte(`{"customerNumber":"15867512345","customerType":"PRIVATE","customerName":"Nina Testdatter"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var cu customerJSON
	require.NoError(t, json.Unmarshal(r.body, &cu))
	assert.Equal(t, "15867512345", cu.CustomerNumber)
	dup := c.do(http.MethodPost, "/v1/sandbox/customers", []byte(`{"customerNumber":"15867512345","customerName":"X"}`))
	assert.Equal(t, http.StatusConflict, dup.status)

	r = c.do(http.MethodPost, "/v1/sandbox/accounts", []byte(`{"customerNumber":"15867512345","name":"Nina sin konto","balance":"2500.50"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var acc accountJSON
	require.NoError(t, json.Unmarshal(r.body, &acc))
	assert.True(t, rules.ValidNorwegianBBAN(acc.BBAN))
	assert.Equal(t, "2500.50", acc.Balances[0].BalanceAmount.Text())

	r = c.do(http.MethodPost, "/v1/sandbox/card-accounts", []byte(`{"customerId":"`+cu.CustomerID+`","name":"Nina kort","creditLimit":10000}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var card cardJSON
	require.NoError(t, json.Unmarshal(r.body, &card))

	txs := `[{"bookingDate":"` + rules.Today(s.now()).AddDate(0, 0, -1).Format(time.DateOnly) + `","transactionAmount":{"amount":"-100.00","currency":"NOK"},"creditorName":"Butikk","creditorAccount":{"bban":"12345678903"},"remittanceInformationUnstructured":"Kjøp"},
	         {"bookingStatus":"pending","transactionAmount":{"amount":-20,"currency":"NOK"},"debtorAccount":{"bban":"` + acc.BBAN + `"}}]`
	r = c.do(http.MethodPost, "/v1/sandbox/accounts/"+acc.ResourceID+"/transactions", []byte(txs))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var made []transactionJSON
	require.NoError(t, json.Unmarshal(r.body, &made))
	require.Len(t, made, 2)
	assert.NotEmpty(t, made[0].TransactionID)
	assert.Empty(t, made[1].TransactionID)

	// Another account as debtor: 400 (docs/interface.md section 4.5), nothing added.
	bad := `[{"transactionAmount":{"amount":"-1.00","currency":"NOK"}},{"transactionAmount":{"amount":"-5.00","currency":"NOK"},"debtorAccount":{"bban":"95312776066"}}]`
	r = c.do(http.MethodPost, "/v1/sandbox/accounts/"+acc.ResourceID+"/transactions", []byte(bad))
	require.Equal(t, http.StatusBadRequest, r.status)
	_, at := r.problem(t)
	assert.Equal(t, "[1].debtorAccount", at)
	for body, want := range map[string]int{
		`{"not":"an array"}`: 400,
		`[]`:                 400,
		`[{"transactionAmount":{"amount":"1.001","currency":"NOK"}}]`:         400,
		`[{"transactionAmount":{"amount":"1.00","currency":"EUR"}}]`:          400,
		`[{"bookingDate":"yesterday","transactionAmount":{"amount":"1.00"}}]`: 400,
	} {
		assert.Equal(t, want, c.do(http.MethodPost, "/v1/sandbox/accounts/"+acc.ResourceID+"/transactions", []byte(body)).status, body)
	}
	assert.Equal(t, http.StatusNotFound, c.do(http.MethodPost, "/v1/sandbox/accounts/enc!!nope=/transactions", []byte(txs)).status)

	r = c.do(http.MethodPost, "/v1/sandbox/card-accounts/"+strings.ReplaceAll(card.ResourceID, "!", "%21")+"/transactions",
		[]byte(`[{"transactionAmount":{"amount":"-45.00","currency":"NOK"},"originalAmount":{"amount":"-4.00","currency":"EUR"},"transactionDetails":"KAFFE"}]`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))

	// The new customer can log in and read the mock data.
	sid := uuid.NewString()
	psu := psuHeaders(c.login("15867512345", sid), sid)
	ids := c.accountIDs(psu...)
	require.Equal(t, []string{acc.ResourceID}, ids)
	r = c.get("/v1/accounts/"+ids[0]+"/transactions?bookingStatus=both", psu...)
	require.Equal(t, http.StatusOK, r.status)
	p := decodeTxPage(t, r)
	assert.Len(t, p.Transactions.Booked, 1)
	assert.Len(t, p.Transactions.Pending, 1)
	r = c.get("/v1/accounts/"+ids[0]+"/balances", psu...)
	assert.Contains(t, string(r.body), `"amount":"2400.50"`, "booked mock transactions move the balance")

	// Agreements for a corporate customer.
	r = c.do(http.MethodPost, "/v1/sandbox/customers", []byte(`{"customerNumber":"912345688","customerType":"CORPORATE","customerName":"Nytt Firma AS"}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	r = c.do(http.MethodPost, "/v1/sandbox/accounts", []byte(`{"customerNumber":"912345688","name":"Drift"}`))
	require.Equal(t, http.StatusCreated, r.status)
	var corpAcc accountJSON
	require.NoError(t, json.Unmarshal(r.body, &corpAcc))
	r = c.do(http.MethodPost, "/v1/sandbox/agreements", []byte(`{"owner":"912345688","name":"Nytt Firma AS","engagements":[{"customer":"912345688","account":{"iban":"`+corpAcc.IBAN+`"},"roles":["VIEW","REGISTER"]}]}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var ag agreementJSON
	require.NoError(t, json.Unmarshal(r.body, &ag))
	assert.Equal(t, []string{corpAcc.ResourceID}, ag.Engagements)
	r = c.do(http.MethodPost, "/v1/sandbox/agreements", []byte(`{"owner":"912345688","name":"X","engagements":[{"account":{"iban":"NO0000000000000"}}]}`))
	assert.Equal(t, http.StatusNotFound, r.status)

	// Delete, then initialise: only the defaults remain.
	r = c.do(http.MethodDelete, "/v1/sandbox/customers/"+cu.CustomerID, nil)
	require.Equal(t, http.StatusNoContent, r.status)
	assert.Equal(t, http.StatusNotFound, c.do(http.MethodDelete, "/v1/sandbox/customers/"+cu.CustomerID, nil).status)
	assert.Len(t, listCustomers(t, c), 5)
	before := listCustomers(t, c)[0]
	r = c.do(http.MethodPost, "/v1/sandbox/initialize", nil)
	require.Equal(t, http.StatusOK, r.status)
	after := listCustomers(t, c)
	assert.Len(t, after, 4)
	assert.Equal(t, before, after[0], "default ids survive initialisation")
}

func TestCustomersQueryFlags(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Seeder")
	r := c.get("/v1/sandbox/customers")
	require.Equal(t, http.StatusOK, r.status)
	var out []customerJSON
	require.NoError(t, json.Unmarshal(r.body, &out))
	require.Len(t, out, 4)
	assert.Empty(t, out[0].Accounts)
	assert.Empty(t, out[2].Agreements)
	assert.Equal(t, http.StatusBadRequest, c.get("/v1/sandbox/customers?withAccounts=yes").status)
	r = c.get("/v1/sandbox/customers/" + out[0].CustomerID)
	require.Equal(t, http.StatusOK, r.status)
	for body, want := range map[string]int{
		`{"customerNumber":"123","customerName":"X"}`:                                400,
		`{"customerNumber":"15867512399","customerType":"OTHER","customerName":"X"}`: 400,
		`{"customerNumber":"15867512399","customerName":""}`:                         400,
		`{"customerNumber":15867512399}`:                                             400,
	} {
		assert.Equal(t, want, c.do(http.MethodPost, "/v1/sandbox/customers", []byte(body)).status, body)
	}
}

// customerNumbers lists the customer numbers of the sandbox and, per
// number, how many accounts the customer has.
func customerNumbers(t *testing.T, c *tppClient) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, cu := range listCustomers(t, c) {
		out[cu.CustomerNumber] = len(cu.Accounts)
	}
	return out
}

// TestEachTPPHasItsOwnSandbox: no TPP sees or changes another's mock
// data, and initialisation leaves exactly the default customers in the
// caller's view, whatever another TPP did.
func TestEachTPPHasItsOwnSandbox(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := newTPPClient(t, s, "TPP A")
	b := newTPPClient(t, s, "TPP B")
	create := func(c *tppClient, number string) customerJSON {
		t.Helper()
		r := c.do(http.MethodPost, "/v1/sandbox/customers", []byte(`{"customerNumber":"`+number+`","customerName":"Egen Kunde"}`))
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		var cu customerJSON
		require.NoError(t, json.Unmarshal(r.body, &cu))
		r = c.do(http.MethodPost, "/v1/sandbox/accounts", []byte(`{"customerNumber":"`+number+`"}`))
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		var acc struct {
			ResourceID string `json:"resourceId"`
		}
		require.NoError(t, json.Unmarshal(r.body, &acc))
		cu.Accounts = []string{acc.ResourceID}
		return cu
	}
	defaults := map[string]int{CustomerKari: 2, CustomerOla: 2, CustomerFjordlys: 2, CustomerTestfirma: 2}
	ofA := create(a, "15867512345")
	ofB := create(b, "15867512346")

	// A changes the default customers in its own sandbox: an account more
	// for Kari, Ola deleted. B sees the defaults as they are.
	require.Equal(t, http.StatusCreated, a.do(http.MethodPost, "/v1/sandbox/accounts", []byte(`{"customerNumber":"`+CustomerKari+`"}`)).status)
	var ola customerJSON
	for _, cu := range listCustomers(t, a) {
		if cu.CustomerNumber == CustomerOla {
			ola = cu
		}
	}
	require.Equal(t, http.StatusNoContent, a.do(http.MethodDelete, "/v1/sandbox/customers/"+ola.CustomerID, nil).status)
	assert.Equal(t, map[string]int{CustomerKari: 3, CustomerFjordlys: 2, CustomerTestfirma: 2, "15867512345": 1}, customerNumbers(t, a))
	wantB := map[string]int{"15867512346": 1}
	for n, k := range defaults {
		wantB[n] = k
	}
	assert.Equal(t, wantB, customerNumbers(t, b), "B sees none of A's mock data")
	for _, c := range []*tppClient{a, b} {
		other := ofB
		if c == b {
			other = ofA
		}
		assert.Equal(t, http.StatusNotFound, c.get("/v1/sandbox/customers/"+other.CustomerID).status)
		r := c.do(http.MethodDelete, "/v1/sandbox/customers/"+other.CustomerID, nil)
		assert.Equal(t, http.StatusNotFound, r.status, "another TPP's customer is unknown")
		r = c.do(http.MethodPost, "/v1/sandbox/accounts/"+other.Accounts[0]+"/transactions",
			[]byte(`[{"transactionAmount":{"amount":"-1.00","currency":"NOK"}}]`))
		assert.Equal(t, http.StatusNotFound, r.status, "another TPP's account is unknown")
	}
	// A default customerNumber stays reserved.
	r := a.do(http.MethodPost, "/v1/sandbox/customers", []byte(`{"customerNumber":"`+CustomerOla+`","customerName":"Ikke Ola"}`))
	assert.Equal(t, http.StatusConflict, r.status, "a default customerNumber is reserved")

	// B's customer cannot authenticate at A's SCA: its customer number is
	// unknown in A's sandbox.
	href := a.do(http.MethodPost, "/v1/bank-offered-consents", nil, hdr("TPP-Session-ID", "a-sca")).scaRedirect(t)
	_, err := s.Control().Authorize(context.Background(), href, "15867512346")
	assert.ErrorIs(t, err, ErrSCAFailed)

	// A initialises: exactly the 4 default customers, as new; B's sandbox
	// is untouched.
	r = a.do(http.MethodPost, "/v1/sandbox/initialize", nil)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var answered []customerJSON
	require.NoError(t, json.Unmarshal(r.body, &answered))
	assert.Len(t, answered, 4)
	assert.Equal(t, defaults, customerNumbers(t, a))
	assert.Equal(t, wantB, customerNumbers(t, b))

	// B initialises: its customer goes too.
	require.Equal(t, http.StatusOK, b.do(http.MethodPost, "/v1/sandbox/initialize", nil).status)
	assert.Equal(t, defaults, customerNumbers(t, b))
}

// tppWithCert is a TPP client with a certificate the test makes: subject
// organizationIdentifier org ("" for none).
func tppWithCert(t *testing.T, s *Server, org string) *tppClient {
	t.Helper()
	key, err := testKey()
	require.NoError(t, err)
	subject := pkix.Name{CommonName: "TPP " + org}
	if org != "" {
		subject.ExtraNames = []pkix.AttributeTypeAndValue{{Type: oidOrganizationIdentifier, Value: org}}
	}
	from, to := validity(s.now(), 1)
	der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: randomSerial(), Subject: subject, NotBefore: from, NotAfter: to,
		KeyUsage: x509.KeyUsageDigitalSignature,
	}, s.ca.cert, key.Public(), s.ca.key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	s.Trust(cert)
	creds := &signing.Credentials{Certificate: cert, Key: key}
	signer, err := signing.NewSigner(key, signing.KeyID(cert))
	require.NoError(t, err)
	return &tppClient{t: t, s: s, creds: creds, signer: signer, hc: s.Client()}
}

// TestMockDataOwner: mock data belongs to the TPP as everything else the
// emulator keeps does (tppIdentity): a renewed certificate with the same
// organizationIdentifier is the same TPP, and so is a certificate without
// one that has the same subject.
func TestMockDataOwner(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	first := tppWithCert(t, s, "PSDNO-FSA-11111111")
	renewed := tppWithCert(t, s, "PSDNO-FSA-11111111")
	other := tppWithCert(t, s, "PSDNO-FSA-22222222")
	plain := tppWithCert(t, s, "")
	plain2 := tppWithCert(t, s, "")

	assert.Equal(t, "org:PSDNO-FSA-11111111", first.tpp(t).id)
	assert.Equal(t, first.tpp(t).id, renewed.tpp(t).id, "one organisation, one TPP")
	assert.NotEqual(t, first.tpp(t).id, other.tpp(t).id)
	assert.Equal(t, `subject:CN=TPP\ `, plain.tpp(t).id, "RFC 2253 escapes the trailing space")
	assert.Equal(t, plain.tpp(t).id, plain2.tpp(t).id, "without organisation, the subject decides")

	for _, c := range []*tppClient{first, other, plain, plain2} {
		number := "1586751234" + strconv.Itoa(len(customerNumbers(t, c)))
		r := c.do(http.MethodPost, "/v1/sandbox/customers", []byte(`{"customerNumber":"`+number+`","customerName":"Kunde"}`))
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
	}
	assert.Len(t, customerNumbers(t, first), 5, "its own and the 4 defaults")
	assert.Equal(t, customerNumbers(t, first), customerNumbers(t, renewed), "a renewal sees the same sandbox")
	assert.Len(t, customerNumbers(t, other), 5)
	assert.Len(t, customerNumbers(t, plain), 6, "plain and plain2 are one TPP")
	// The renewed certificate resets what the first one created.
	require.Equal(t, http.StatusOK, renewed.do(http.MethodPost, "/v1/sandbox/initialize", nil).status)
	assert.Len(t, customerNumbers(t, first), 4)
	assert.Len(t, customerNumbers(t, other), 5, "other's customer stays")
	// plain's initialisation removes plain2's customers: one TPP.
	require.Equal(t, http.StatusOK, plain.do(http.MethodPost, "/v1/sandbox/initialize", nil).status)
	assert.Len(t, customerNumbers(t, plain2), 4)
}

// TestAgreementLinksAnswer: every link of an agreement the customer
// listing advertises answers (200, not 404), for each of its verbs.
func TestAgreementLinksAnswer(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Agreement links TPP")
	other := newTPPClient(t, s, "Other TPP")
	var ag agreementJSON
	for _, cu := range listCustomers(t, c) {
		if cu.CustomerNumber == CustomerFjordlys {
			require.NotEmpty(t, cu.Agreements)
			ag = cu.Agreements[0]
		}
	}
	require.Equal(t, []string{"GET", "DELETE"}, ag.Links["self"].Verbs)
	require.Equal(t, []string{"GET", "POST"}, ag.Links["engagements"].Verbs)

	r := c.get(ag.Links["self"].Href)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var got agreementJSON
	require.NoError(t, json.Unmarshal(r.body, &got))
	assert.Equal(t, ag, got)
	// Default ids are the same in every sandbox: another TPP deleting its
	// copy of the agreement leaves this TPP's.
	require.Equal(t, http.StatusNoContent, other.do(http.MethodDelete, ag.Links["self"].Href, nil).status)
	assert.Equal(t, http.StatusNotFound, other.get(ag.Links["self"].Href).status)
	assert.Equal(t, http.StatusOK, c.get(ag.Links["self"].Href).status)

	r = c.get(ag.Links["engagements"].Href)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var eng struct {
		Engagements []string `json:"engagements"`
	}
	require.NoError(t, json.Unmarshal(r.body, &eng))
	assert.Equal(t, ag.Engagements, eng.Engagements)

	// Engage an account of another customer (Testfirma's), then delete.
	var iban string
	id := c.tpp(t).id
	for _, cu := range listCustomers(t, c) {
		if cu.CustomerNumber == CustomerTestfirma {
			s.mu.RLock()
			iban = s.storeOf(id).accountByID(cu.Accounts[0]).iban
			s.mu.RUnlock()
		}
	}
	r = c.do(http.MethodPost, ag.Links["engagements"].Href, []byte(`{"account":{"iban":"`+iban+`"},"roles":["VIEW"]}`))
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	require.NoError(t, json.Unmarshal(c.get(ag.Links["engagements"].Href).body, &eng))
	assert.Len(t, eng.Engagements, len(ag.Engagements)+1)
	r = c.do(http.MethodPost, ag.Links["engagements"].Href, []byte(`[{"account":{"iban":"NO0000000000000"}}]`))
	assert.Equal(t, http.StatusNotFound, r.status)

	require.Equal(t, http.StatusNoContent, c.do(http.MethodDelete, ag.Links["self"].Href, nil).status)
	assert.Equal(t, http.StatusNotFound, c.get(ag.Links["self"].Href).status)
	for _, cu := range listCustomers(t, c) {
		for _, a := range cu.Agreements {
			assert.NotEqual(t, ag.ID, a.ID, "gone from its customer")
		}
	}
}

// TestMockAgreementIDs: the sandbox listing names a mock agreement by
// the mock-data resource's id, in the platform's enc!! form (as its
// listing does), not by the UUID that is its PSU-Corporate-ID; an SCA
// approved with the listing's id (the controls take either) gives the
// UUID as psu-corporate-id, and GET /v1/agreements lists that UUID.
func TestMockAgreementIDs(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Agreement ids TPP")
	var ag agreementJSON
	for _, cu := range listCustomers(t, c) {
		if cu.CustomerNumber == CustomerFjordlys {
			require.NotEmpty(t, cu.Agreements)
			ag = cu.Agreements[0]
		}
	}
	require.True(t, strings.HasPrefix(ag.ID, "enc!!"), ag.ID)
	assert.Equal(t, "/v1/sandbox/agreements/"+ag.ID, ag.Links["self"].Href)

	sid := uuid.NewString()
	cb := c.consent(sid, func(href string) (*url.URL, error) {
		return s.Control().AuthorizeCorporate(t.Context(), href, CustomerFjordlys, ag.ID)
	})
	corp := cb.Query().Get("psu-corporate-id")
	require.NoError(t, uuid.Validate(corp), cb.String())
	r := c.get("/v1/agreements", psuHeaders(cb.Query().Get("psu-id"), sid)...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var list struct {
		Agreements []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"agreements"`
	}
	require.NoError(t, json.Unmarshal(r.body, &list))
	require.NotEmpty(t, list.Agreements)
	assert.Equal(t, corp, list.Agreements[0].ID)
	assert.Equal(t, ag.Name, list.Agreements[0].Name)

	// The UUID is no mock-data id.
	assert.Equal(t, http.StatusNotFound, c.get("/v1/sandbox/agreements/"+corp).status)
}
