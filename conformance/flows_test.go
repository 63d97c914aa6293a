package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/basket"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/tpp"
)

// externalBBAN is a Norwegian account number with a valid MOD-11 check
// digit outside the emulator's customers.
const externalBBAN = "86011117947"

// externalIBAN is a German IBAN with valid check digits.
const externalIBAN = "DE89370400440532013000"

// private is the PSU-Context of payment creation: the PSU acts as a
// private person (docs/interface.md section 4.2).
var private = client.WithPSUContext(client.Private)

// flows drive the SDK against the emulator; every call they make is
// validated. Each runs on its own emulator.
var flows = []struct {
	name string
	run  func(*env)
}{
	{"accounts and card accounts", accountFlow},
	{"Norwegian domestic payment", domesticFlow},
	{"SEPA payment", sepaFlow},
	{"periodic payment", periodicFlow},
	{"bulk payment", bulkFlow},
	{"signing basket", basketFlow},
	{"TPP contact", tppFlow},
	{"corporate agreements and the PISP's user", corporateFlow},
	{"sandbox mock data", sandboxFlow},
	{"error answers", errorFlow},
}

// TestConformance validates every request of the SDK and every answer of
// the emulator in the flows, and the platform's answer documents in
// testdata/platform, against the Berlin Group 1.3.9 file. Findings are
// excused only by deviations (the platform's documented differences) and,
// while listed, knownDefects; every entry of both tables must be needed.
func TestConformance(t *testing.T) {
	led := newLedger()
	t.Run("flows", func(t *testing.T) {
		for _, f := range flows {
			t.Run(f.name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t, led)
				f.run(e)
				e.verify()
				if !t.Failed() {
					led.done()
				}
			})
		}
		t.Run("platform documents", func(t *testing.T) {
			t.Parallel()
			if platformDocuments(t, led) && !t.Failed() {
				led.done()
			}
		})
	})
	complete := func(t *testing.T) {
		t.Helper()
		if n := led.completed(); n != len(flows)+1 {
			t.Skipf("%d of %d flows ran to their end (a -run filter or a failure): usage unknown", n, len(flows)+1)
		}
	}
	t.Run("every deviation is needed", func(t *testing.T) {
		complete(t)
		for _, u := range led.unused(led.deviations, led.devUsed) {
			t.Errorf("deviation 11.%s excused nothing: remove the operation from it, or the entry", u)
		}
	})
	t.Run("every known defect still occurs", func(t *testing.T) {
		complete(t)
		for _, u := range led.unused(led.defects, led.defUsed) {
			t.Errorf("known defect %s no longer occurs: remove it from knownDefects", u)
		}
	})
	t.Run("every deviation's evidence is recorded", func(t *testing.T) {
		complete(t)
		for i, d := range deviations {
			shown := slices.Clone(led.shown[i])
			sort.Strings(shown)
			assert.Equal(t, d.Recorded, shown, "deviation 11.%d: the recorded answer documents that show it", i+1)
		}
	})
	t.Run("docs/openapi.json coverage", func(t *testing.T) {
		complete(t)
		spec, err := loadPlatformSpec()
		require.NoError(t, err)
		all := operationIDs(spec.doc)
		var checks int
		var unexercised []string
		for _, op := range all {
			checks += led.described[op]
			if led.described[op] == 0 {
				unexercised = append(unexercised, op)
			}
		}
		t.Logf("docs/openapi.json: %d exchanges and answer documents validated, over %d of its %d operations; not exercised: %v",
			checks, len(all)-len(unexercised), len(all), unexercised)
		assert.LessOrEqual(t, len(unexercised), maxUnexercised, "operations of docs/openapi.json no flow calls: %v", unexercised)
	})
}

// maxUnexercised bounds the operations of docs/openapi.json that no flow
// calls and no answer document answers, so that a flow dropped by
// mistake shows.
const maxUnexercised = 0

// consent runs the bank-offered consent for customer and returns the
// PSU-ID.
func consent(e *env, ais *accounts.Service, customer string) string {
	e.t.Helper()
	c, err := ais.StartConsent(e.t.Context(), e.present(""))
	require.NoError(e.t, err)
	return e.authorize(c.SCARedirect(), customer)
}

func accountFlow(e *env) {
	t, ctx := e.t, e.t.Context()
	ais := must(accounts.New(e.c))(e.t)

	_, err := ais.List(ctx, nil, e.present(""))
	require.ErrorIs(t, err, client.ErrSCARequired, "first call without consent")
	// The deprecated POST /v1/consents, which the SDK does not call: the
	// platform ignores its body (this one is Berlin Group's) and answers
	// as the bank-offered consent does. Sent without PSU-IP-Address, which
	// neither consent requires (11.26).
	var dep struct {
		Links client.Links `json:"_links"`
	}
	_, err = e.c.Do(ctx, client.Operation{Name: "conformance.DeprecatedConsent", Method: http.MethodPost, Path: "/v1/consents", Repeatable: true,
		Body: json.RawMessage(`{"access":{"allPsd2":"allAccounts"},"recurringIndicator":true,"validUntil":"2099-12-31","frequencyPerDay":4,"combinedServiceIndicator":false}`)},
		&dep, e.absent(""))
	require.NoError(t, err)
	assert.NotEmpty(t, dep.Links.SCARedirect(), "the deprecated consent answers an SCA redirect")
	// A bank-offered consent without PSU-IP-Address (docs/interface.md
	// section 5.14: a TPP that starts it from its back end, the PSU's
	// address unknown) is started as well (11.26).
	bare, err := ais.StartConsent(ctx, e.absent(""))
	require.NoError(t, err)
	assert.NotEmpty(t, bare.SCARedirect())
	psu := consent(e, ais, emulator.CustomerKari)
	opts := e.present(psu)

	list, err := ais.List(ctx, nil, opts)
	require.NoError(t, err)
	require.NotEmpty(t, list)
	_, err = ais.List(ctx, &accounts.ListOptions{WithBalance: true}, opts)
	require.NoError(t, err)
	id := list[0].ResourceID
	acc, err := ais.Get(ctx, id, opts)
	require.NoError(t, err)
	assert.Equal(t, id, acc.ResourceID)
	bal, err := ais.Balances(ctx, id, opts)
	require.NoError(t, err)
	assert.NotEmpty(t, bal.Balances)
	_, err = ais.Balances(ctx, id, e.absent(psu))
	require.NoError(t, err, "balances without the PSU present")

	page, err := ais.Transactions(ctx, id, &accounts.TransactionQuery{Limit: 10}, opts)
	require.NoError(t, err)
	require.NotEmpty(t, page.Next(), "the first page links the next")
	require.NotEmpty(t, page.Booked)
	page2, err := ais.TransactionsAt(ctx, page.Next(), opts)
	require.NoError(t, err)
	assert.NotEmpty(t, page2.Booked)
	_, err = ais.Transactions(ctx, id, &accounts.TransactionQuery{BookingStatus: accounts.BookingBooked,
		DateFrom: date.Of(time.Now().AddDate(0, 0, -30))}, e.absent(psu))
	require.NoError(t, err, "transactions without the PSU present")
	tx, err := ais.TransactionDetails(ctx, id, page.Booked[0].TransactionID, opts)
	require.NoError(t, err)
	assert.Equal(t, page.Booked[0].TransactionID, tx.TransactionID)

	cards, err := ais.CardAccounts(ctx, opts)
	require.NoError(t, err)
	require.NotEmpty(t, cards)
	cardID := cards[0].ResourceID
	card, err := ais.CardAccount(ctx, cardID, opts)
	require.NoError(t, err)
	assert.Equal(t, cardID, card.ResourceID)
	_, err = ais.CardBalances(ctx, cardID, opts)
	require.NoError(t, err)
	_, err = ais.CardTransactions(ctx, cardID, nil, opts)
	require.NoError(t, err)

	e.s.Control().RevokeConsent(emulator.CustomerKari)
	_, err = ais.Balances(ctx, id, opts)
	require.ErrorIs(t, err, client.ErrConsentUnknown, "after the PSU revoked the consent")
}

// kari returns the PSU-ID of customer Kari (after a consent) and her two
// accounts.
func kari(e *env) (string, []accounts.Account) {
	e.t.Helper()
	ais := must(accounts.New(e.c))(e.t)
	psu := consent(e, ais, emulator.CustomerKari)
	list, err := ais.List(e.t.Context(), nil, e.present(psu))
	require.NoError(e.t, err)
	require.GreaterOrEqual(e.t, len(list), 2)
	return psu, list
}

// ndct is a domestic payment of amount from debtor to the external
// account.
func ndct(amount string, debtor accounts.Account, message string) *payments.NorwegianDomestic {
	return &payments.NorwegianDomestic{
		InstructedAmount:                  money.MustParse(amount, "NOK"),
		CreditorName:                      "Ola Eksempel",
		CreditorAccount:                   payments.AccountReference{BBAN: externalBBAN, Currency: "NOK"},
		CreditorAddress:                   &payments.Address{Street: "Storgata", BuildingNumber: "12", PostalCode: "0155", City: "Oslo", Country: "NO"},
		DebtorAccount:                     payments.AccountReference{BBAN: debtor.BBAN, Currency: debtor.Currency},
		RemittanceInformationUnstructured: message,
	}
}

func domesticFlow(e *env) {
	t, ctx := e.t, e.t.Context()
	psu, list := kari(e)
	opts := e.present(psu)
	pis := must(payments.New(e.c))(e.t)
	product := payments.ProductNorwegianDomestic

	p := ndct("150.00", list[0], "Conformance NDCT")
	init, err := pis.CreateNorwegianDomestic(ctx, p, opts, private)
	require.NoError(t, err)
	_, err = pis.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: product, ID: init.PaymentID}, opts)
	require.ErrorIs(t, err, payments.ErrNotYetReadable, "status before approval (known issue of section 4.2)")
	e.authorize(init.SCARedirect(), emulator.CustomerKari)
	st, err := pis.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: product, ID: init.PaymentID}, opts)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACTC, st.TransactionStatus)
	det, err := pis.Get(ctx, payments.Ref{Service: payments.ServiceSingle, Product: product, ID: init.PaymentID}, opts)
	require.NoError(t, err)
	assert.Equal(t, init.PaymentID, det.PaymentID)
	e.s.Control().RunBatch()
	_, err = pis.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: product, ID: init.PaymentID}, opts)
	require.NoError(t, err)
	_, err = pis.CreateNorwegianDomestic(ctx, p, opts, private)
	var bankErr *client.Error
	require.ErrorAs(t, err, &bankErr, "a logical duplicate")
	_, err = pis.Cancel(ctx, payments.Ref{Service: payments.ServiceSingle, Product: product, ID: init.PaymentID}, opts)
	require.ErrorAs(t, err, &bankErr, "cancelling a signed payment")

	kid := ndct("275.50", list[0], "")
	kid.RemittanceInformationUnstructured = ""
	kid.RemittanceInformationStructuredArray = []payments.StructuredReference{payments.KID("2345676")}
	kid.RequestedExecutionDate = payments.BankToday(time.Now().AddDate(0, 0, 3))
	second, err := pis.CreateNorwegianDomestic(ctx, kid, opts, private, payments.AllowLogicalDuplicate())
	require.NoError(t, err)
	auth, err := pis.StartAuthorisation(ctx, payments.Ref{Service: payments.ServiceSingle, Product: product, ID: second.PaymentID}, opts)
	require.NoError(t, err)
	assert.NotEmpty(t, auth.SCARedirect())
	cancelled, err := pis.Cancel(ctx, payments.Ref{Service: payments.ServiceSingle, Product: product, ID: second.PaymentID}, opts)
	require.NoError(t, err)
	assert.Equal(t, 204, cancelled.StatusCode)

	ais := must(accounts.New(e.c))(e.t)
	cards, err := ais.CardAccounts(ctx, opts)
	require.NoError(t, err)
	require.NotEmpty(t, cards)
	card, err := ais.CardAccount(ctx, cards[0].ResourceID, opts)
	require.NoError(t, err)
	fromCard := ndct("99.00", list[0], "Conformance card NDCT")
	fromCard.DebtorAccount = payments.CardDebtor(card.RelatedAccountID(), card.Currency)
	streamlined := client.Combine(opts, private, client.WithPSUIdentity(emulator.CustomerKari), client.WithAuthMethodPreferred("HA2"),
		client.WithBrandLoggingInformation("Conformance TPP"), client.WithRedirectPreferred(false))
	init, err = pis.CreateNorwegianDomestic(ctx, fromCard, streamlined)
	require.NoError(t, err)
	e.authorize(init.SCARedirect(), emulator.CustomerKari)
	_, err = pis.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: product, ID: init.PaymentID}, opts)
	require.NoError(t, err)
}

func sepaFlow(e *env) {
	t, ctx := e.t, e.t.Context()
	psu, list := kari(e)
	opts := e.present(psu)
	pis := must(payments.New(e.c))(e.t)

	init, err := pis.CreateSEPA(ctx, &payments.SEPA{
		EndToEndIdentification:            "CONFORMANCE-SEPA-1",
		InstructedAmount:                  money.MustParse("25.00", "EUR"),
		CreditorName:                      "Muster GmbH",
		CreditorAccount:                   payments.AccountReference{IBAN: externalIBAN, Currency: "EUR"},
		CreditorAddress:                   &payments.Address{Street: "Hauptstrasse", City: "Berlin", Country: "DE"},
		DebtorAccount:                     payments.AccountReference{IBAN: list[0].IBAN, Currency: list[0].Currency},
		RemittanceInformationUnstructured: "Conformance SEPA",
	}, opts, private)
	require.NoError(t, err)
	st, err := pis.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: init.PaymentID}, opts)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusRCVD, st.TransactionStatus)
	e.authorize(init.SCARedirect(), emulator.CustomerKari)
	_, err = pis.Status(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: init.PaymentID}, opts)
	require.NoError(t, err)
	det, err := pis.Get(ctx, payments.Ref{Service: payments.ServiceSingle, Product: payments.ProductSEPA, ID: init.PaymentID}, opts)
	require.NoError(t, err)
	assert.Equal(t, "CONFORMANCE-SEPA-1", det.EndToEndIdentification)
}

// followLinks reads the status and the details of a payment by the
// links of its creation answer.
func followLinks(ctx context.Context, t *testing.T, pis *payments.Service, init *payments.Initiation, opts client.RequestOption) {
	t.Helper()
	_, err := pis.StatusAt(ctx, init.Links.Href(client.LinkStatus), opts)
	require.NoError(t, err)
	_, err = pis.GetAt(ctx, init.Links.Href(client.LinkSelf), opts)
	require.NoError(t, err)
}

func periodicFlow(e *env) {
	t, ctx := e.t, e.t.Context()
	psu, list := kari(e)
	opts := e.present(psu)
	pis := must(payments.New(e.c))(e.t)

	start := payments.BankToday(time.Now().AddDate(0, 0, 7))
	end := payments.BankToday(time.Now().AddDate(1, 0, 7))
	body := map[string]any{
		"instructedAmount":                  map[string]string{"amount": "500.00", "currency": "NOK"},
		"creditorName":                      "Ola Eksempel",
		"creditorAccount":                   map[string]string{"bban": externalBBAN, "currency": "NOK"},
		"creditorAddress":                   map[string]string{"country": "NO"},
		"debtorAccount":                     map[string]string{"bban": list[0].BBAN, "currency": list[0].Currency},
		"remittanceInformationUnstructured": "Conformance standing order",
		"startDate":                         start.String(),
		"endDate":                           end.String(),
		"frequency":                         "Monthly",
		"executionRule":                     "following",
		"dayOfExecution":                    "15",
	}
	init, err := pis.CreatePeriodic(ctx, payments.ProductNorwegianDomestic, body, opts, private)
	require.NoError(t, err)
	followLinks(ctx, t, pis, init, opts)
	e.authorize(init.SCARedirect(), emulator.CustomerKari)
	followLinks(ctx, t, pis, init, opts)
}

func bulkFlow(e *env) {
	t, ctx := e.t, e.t.Context()
	psu, list := kari(e)
	opts := e.present(psu)
	pis := must(payments.New(e.c))(e.t)

	entry := func(amount string) map[string]any {
		return map[string]any{
			"instructedAmount":                  map[string]string{"amount": amount, "currency": "NOK"},
			"creditorName":                      "Ola Eksempel",
			"creditorAccount":                   map[string]string{"bban": externalBBAN, "currency": "NOK"},
			"creditorAddress":                   map[string]string{"country": "NO"},
			"remittanceInformationUnstructured": "Conformance bulk",
		}
	}
	init, err := pis.CreateBulk(ctx, payments.ProductNorwegianDomestic, map[string]any{
		"batchBookingPreferred": true,
		"debtorAccount":         map[string]string{"bban": list[0].BBAN, "currency": list[0].Currency},
		"payments":              []any{entry("10.00"), entry("20.00")},
	}, opts, private)
	require.NoError(t, err)
	followLinks(ctx, t, pis, init, opts)
	e.authorize(init.SCARedirect(), emulator.CustomerKari)
	followLinks(ctx, t, pis, init, opts)
}

func basketFlow(e *env) {
	t, ctx := e.t, e.t.Context()
	psu, list := kari(e)
	opts := e.present(psu)
	pis := must(payments.New(e.c))(e.t)
	bsk := must(basket.New(e.c))(e.t)

	var ids []string
	for i, amount := range []string{"40.00", "60.00", "80.00"} {
		init, err := pis.CreateNorwegianDomestic(ctx, ndct(amount, list[0], "Conformance basket "+string(rune('1'+i))), opts, private)
		require.NoError(t, err)
		ids = append(ids, init.PaymentID)
	}
	b, err := bsk.Create(ctx, ids[:2], opts)
	require.NoError(t, err)
	got, err := bsk.Get(ctx, b.BasketID, opts)
	require.NoError(t, err)
	assert.ElementsMatch(t, ids[:2], got.PaymentIDs)
	_, err = bsk.Status(ctx, b.BasketID, opts)
	require.NoError(t, err)
	auth, err := bsk.StartAuthorisation(ctx, b.BasketID, opts)
	require.NoError(t, err)
	e.authorize(auth.SCARedirect(), emulator.CustomerKari)
	st, err := bsk.Status(ctx, b.BasketID, opts)
	require.NoError(t, err)
	assert.Equal(t, payments.StatusACTC, st.TransactionStatus)
	each, err := bsk.PaymentStatuses(ctx, basket.Refs(payments.ProductNorwegianDomestic, ids[:2]...), opts)
	require.NoError(t, err)
	for _, p := range each {
		require.NoError(t, p.Err)
	}

	other, err := bsk.Create(ctx, ids[2:], opts)
	require.NoError(t, err)
	require.NoError(t, bsk.Delete(ctx, other.BasketID, opts))
}

func tppFlow(e *env) {
	t, ctx := e.t, e.t.Context()
	svc, err := tpp.New(e.c)
	require.NoError(t, err)
	opts := client.WithRedirectURI(redirectURI)
	_, err = svc.SetContact(ctx, "psd2-operations@tpp.example", opts)
	require.NoError(t, err)
	got, err := svc.Contact(ctx, opts)
	require.NoError(t, err)
	assert.Equal(t, "psd2-operations@tpp.example", got.Email)
}

// corporateFlow starts a corporate PSU's SCA as a PISP does (GET
// /v1/user: 401 with the redirect, then 200 once the session has a fresh
// SCA) and lists the PSU's corporate agreements (GET /v1/agreements).
func corporateFlow(e *env) {
	t, ctx := e.t, e.t.Context()
	corporate := client.WithPSUContext(client.Corporate)
	r, needed, err := sca.User(ctx, e.c, e.present(""), corporate)
	require.NoError(t, err)
	require.True(t, needed, "GET /v1/user without a session starts SCA")
	cb, err := e.s.Control().AuthorizeCorporate(ctx, r.String(), emulator.CustomerFjordlys, "")
	require.NoError(t, err)
	psu, corporateID := cb.Query().Get("psu-id"), cb.Query().Get("psu-corporate-id")
	require.NotEmpty(t, psu)
	require.NotEmpty(t, corporateID, "the callback names the chosen agreement")
	opts := client.Combine(client.WithTPPSessionID(e.sid), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: psu, CorporateID: corporateID, IPAddress: psuIP}), corporate)

	_, needed, err = sca.User(ctx, e.c, opts)
	require.NoError(t, err)
	assert.False(t, needed, "the session's SCA is fresh")

	// The agreements are account information: they need the PSU's consent.
	ais := must(accounts.New(e.c))(t)
	c, err := ais.StartConsent(ctx, client.WithTPPSessionID(e.sid), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: psu, CorporateID: corporateID, IPAddress: psuIP}))
	require.NoError(t, err)
	cb, err = e.s.Control().AuthorizeCorporate(ctx, c.SCARedirect(), emulator.CustomerFjordlys, corporateID)
	require.NoError(t, err)
	opts = client.Combine(client.WithTPPSessionID(e.sid), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: cb.Query().Get("psu-id"), CorporateID: corporateID, IPAddress: psuIP}), corporate)
	ags, err := ais.Agreements(ctx, opts)
	require.NoError(t, err)
	require.Len(t, ags, 2, "Fjordlys has two agreements")
	assert.Equal(t, corporateID, ags[0].ID)
}

// sandboxFlow calls every mock-data operation of package sandbox:
// initialisation, customers (list, create, read, delete), a mock account
// and card account with transactions, and a mock agreement.
func sandboxFlow(e *env) {
	t, ctx := e.t, e.t.Context()
	sb := must(sandbox.New(e.c))(t)
	opts := client.WithRedirectURI(redirectURI)

	require.NoError(t, sb.Initialize(ctx, opts))
	all, err := sb.Customers(ctx, &sandbox.CustomersQuery{WithAccounts: true, WithAgreements: true}, opts)
	require.NoError(t, err)
	require.NotEmpty(t, all)
	_, err = sb.Customers(ctx, nil, opts)
	require.NoError(t, err)

	cu, err := sb.CreateCustomer(ctx, &sandbox.NewCustomer{CustomerNumber: "15867512345", CustomerType: client.Private,
		CustomerName: "Kari Testperson"}, opts)
	require.NoError(t, err)
	acc, err := sb.CreateAccount(ctx, &sandbox.NewAccount{CustomerID: cu.CustomerID, Currency: "NOK", Name: "Brukskonto",
		Balance: "1000.50"}, opts)
	require.NoError(t, err)
	require.NotEmpty(t, acc.ResourceID)
	today := e.clk.Now().Format(time.DateOnly)
	require.NoError(t, sb.CreateTransactions(ctx, acc.ResourceID, []sandbox.Transaction{{
		BookingDate: today, ValueDate: today, TransactionAmount: sandbox.Amount{Amount: "-120.00", Currency: "NOK"},
		CreditorName: "Ola Eksempel", CreditorAccount: &sandbox.AccountRef{BBAN: externalBBAN},
		RemittanceInformationUnstructured: "Conformance mock transaction",
	}, {
		BookingStatus: sandbox.Pending, TransactionAmount: sandbox.Amount{Amount: "45.00", Currency: "NOK"}, DebtorName: "Ola Eksempel",
	}}, opts))
	card, err := sb.CreateCardAccount(ctx, &sandbox.NewCardAccount{CustomerID: cu.CustomerID, Currency: "NOK", Name: "Kredittkort",
		CreditLimit: "20000"}, opts)
	require.NoError(t, err)
	require.NoError(t, sb.CreateCardTransactions(ctx, card.ResourceID, []sandbox.CardTransaction{{
		TransactionDate: today, BookingDate: today, TransactionAmount: sandbox.Amount{Amount: "-99.90", Currency: "NOK"},
		OriginalAmount: &sandbox.Amount{Amount: "-8.50", Currency: "EUR"}, TransactionDetails: "Conformance card purchase",
	}}, opts))

	var corporate *sandbox.Customer
	for i := range all {
		if all[i].CustomerNumber == emulator.CustomerTestfirma {
			corporate = &all[i]
		}
	}
	require.NotNil(t, corporate, "the default corporate customer")
	ag, err := sb.CreateAgreement(ctx, &sandbox.NewAgreement{Owner: corporate.CustomerNumber, Name: "Conformance agreement",
		Engagements: []sandbox.Engagement{{Customer: cu.CustomerNumber, Account: sandbox.AccountRef{BBAN: acc.BBAN},
			Roles: []string{sandbox.RoleView, sandbox.RoleRegister}}}}, opts)
	require.NoError(t, err)
	assert.Equal(t, []string{acc.ResourceID}, ag.Engagements)

	// The links of the agreement, which package sandbox does not call:
	// the emulator serves them, and docs/openapi.json describes them.
	agPath := "/v1/sandbox/agreements/{agreementId}"
	param := map[string]string{"agreementId": ag.ID}
	var one sandbox.Agreement
	_, err = e.c.Do(ctx, client.Operation{Name: "conformance.GetAgreement", Method: http.MethodGet, Path: agPath, Params: param}, &one, opts)
	require.NoError(t, err)
	assert.Equal(t, ag.ID, one.ID)
	var engaged struct {
		Engagements []string `json:"engagements"`
	}
	_, err = e.c.Do(ctx, client.Operation{Name: "conformance.ListEngagements", Method: http.MethodGet, Path: agPath + "/engagements", Params: param}, &engaged, opts)
	require.NoError(t, err)
	assert.Equal(t, []string{acc.ResourceID}, engaged.Engagements)
	_, err = e.c.Do(ctx, client.Operation{Name: "conformance.AddEngagements", Method: http.MethodPost, Path: agPath + "/engagements", Params: param,
		Repeatable: true, Body: sandbox.Engagement{Customer: cu.CustomerNumber, Account: sandbox.AccountRef{BBAN: acc.BBAN}, Roles: []string{sandbox.RoleView}}}, &one, opts)
	require.NoError(t, err)
	_, err = e.c.Do(ctx, client.Operation{Name: "conformance.DeleteAgreement", Method: http.MethodDelete, Path: agPath, Params: param}, nil, opts)
	require.NoError(t, err)

	got, err := sb.Customer(ctx, cu.CustomerID, opts)
	require.NoError(t, err)
	assert.Equal(t, []string{acc.ResourceID}, got.Accounts)
	assert.Equal(t, []string{card.ResourceID}, got.CardAccounts)
	require.NoError(t, sb.DeleteCustomer(ctx, cu.CustomerID, opts))
}

// errorFlow provokes the emulator's error answers, so that their bodies
// (tppMessages codes by status) are checked too. Requests the SDK would
// refuse go out with client.WithoutValidation.
func errorFlow(e *env) {
	t, ctx := e.t, e.t.Context()
	psu, list := kari(e)
	opts := e.present(psu)
	pis := must(payments.New(e.c))(e.t)
	unchecked := client.WithoutValidation()
	var bankErr *client.Error
	expect := func(status int, code string, err error) {
		t.Helper()
		require.ErrorAs(t, err, &bankErr)
		assert.Equal(t, status, bankErr.StatusCode)
		assert.True(t, bankErr.HasCode(code), "want %s, got %v", code, err)
	}

	badBBAN := ndct("10.00", list[0], "Conformance bad account")
	badBBAN.CreditorAccount.BBAN = "86011117948"
	_, err := pis.CreateNorwegianDomestic(ctx, badBBAN, opts, private, unchecked)
	expect(400, client.CodeFormatError, err)

	badKID := ndct("11.00", list[0], "")
	badKID.RemittanceInformationUnstructured = ""
	badKID.RemittanceInformationStructuredArray = []payments.StructuredReference{payments.KID("2345678")}
	_, err = pis.CreateNorwegianDomestic(ctx, badKID, opts, private, unchecked)
	expect(400, client.CodeKIDInvalid, err)

	past := ndct("12.00", list[0], "Conformance past date")
	past.RequestedExecutionDate = payments.BankToday(e.clk.Now().AddDate(0, 0, -2))
	_, err = pis.CreateNorwegianDomestic(ctx, past, opts, private, unchecked)
	expect(400, client.CodeExecutionDateInvalid, err)

	_, err = pis.Create(ctx, payments.Product("instant-sepa-credit-transfers"), ndct("13.00", list[0], "Conformance product"), opts, private, unchecked)
	expect(404, client.CodeProductUnknown, err)

	bulk, err := pis.CreateBulk(ctx, payments.ProductNorwegianDomestic, map[string]any{
		"debtorAccount": map[string]string{"bban": list[0].BBAN, "currency": list[0].Currency},
		"payments": []any{map[string]any{
			"instructedAmount": map[string]string{"amount": "14.00", "currency": "NOK"},
			"creditorName":     "Ola Eksempel",
			"creditorAccount":  map[string]string{"bban": externalBBAN, "currency": "NOK"},
			"creditorAddress":  map[string]string{"country": "NO"},
		}},
	}, opts, private)
	require.NoError(t, err)
	_, err = must(basket.New(e.c))(t).Create(ctx, []string{bulk.PaymentID}, opts)
	expect(400, client.CodeReferenceMixInvalid, err)

	ais := must(accounts.New(e.c))(t)
	for range 4 {
		_, err = ais.Balances(ctx, list[0].ResourceID, e.absent(psu))
		require.NoError(t, err)
	}
	// A second client of the same TPP keeps its own count of the calls
	// without the PSU, so its fifth call reaches the bank.
	_, err = must(accounts.New(e.client()))(t).Balances(ctx, list[0].ResourceID, e.absent(psu))
	expect(429, client.CodeAccessExceeded, err)

	e.clk.Add(61 * time.Minute)
	_, err = ais.List(ctx, nil, opts)
	expect(401, client.CodeSCAExpired, err)
	e.clk.Add(91 * 24 * time.Hour)
	_, err = ais.Balances(ctx, list[0].ResourceID, opts)
	expect(401, client.CodeConsentExpired, err)
}

// must takes the results of a constructor and returns a function that
// fails the test on the error or returns the value:
// must(accounts.New(c))(t).
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		require.NoError(t, err)
		return v
	}
}
