package emulator

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Default customers (docs/interface.md section 1.5, docs/interface.md section 10 "Session model"). Their
// ids are derived from fixed seeds, so they are the same after every
// initialisation and in every Server.
const (
	// CustomerKari is a private customer with a current account full of
	// history (30 booked transactions over 120 days and 3 pending), a
	// savings account holding only 100.00 NOK (for insufficient-funds
	// tests) and a credit card.
	CustomerKari = "13039319955"
	// CustomerOla is a private customer with 2 accounts and a credit card.
	CustomerOla = "12085592767"
	// CustomerFjordlys is a corporate customer with 2 accounts and 2
	// agreements: the first covers both accounts, the second only the
	// first account.
	CustomerFjordlys = "18129215603"
	// CustomerTestfirma is a corporate customer with 2 accounts and one
	// agreement covering both.
	CustomerTestfirma = "20079518612"
)

var agreementNamespace = uuid.MustParse("0b8a7c1e-3d5f-4f6b-8e2a-9c4d1e7f5a30")

// dataSpec says whose default data a bank holds: the emulator's fixed
// defaults (the zero value: the same ids in every Server), or those of a
// bank of a MultiBank, derived from the bank so that no two banks share
// an account or an id.
type dataSpec struct {
	ns   string // prefix of every derived id: "bank/<host>/"
	code string // the 4-digit bank code of the default accounts; "" keeps the fixed ones
}

// withDefaults makes the bank's default data d's (NewMultiBank).
func withDefaults(d dataSpec) Option { return func(s *Server) { s.data = d } }

// fixedBankCodes are the bank codes of the fixed default accounts and of
// the counterparties and creditors the defaults and the SDK's examples
// use as accounts of other banks; a MultiBank's banks take none of them.
var fixedBankCodes = []string{"9531", "1206", "1812", "2007", "1803", "8112", "9817", "8601"}

// bankDefaults derives the default data of the bank at host: its ids
// from the host name, and a bank code from a hash of it, the next free
// one when taken (used holds the codes of the MultiBank's other banks).
func bankDefaults(host string, used map[string]bool) dataSpec {
	sum := sha256.Sum256([]byte("bank code/" + host))
	n := 1000 + int(binary.BigEndian.Uint32(sum[:4])%9000)
	for {
		code := strconv.Itoa(n)
		if !used[code] && !slices.Contains(fixedBankCodes, code) {
			used[code] = true
			return dataSpec{ns: "bank/" + host + "/", code: code}
		}
		n = 1000 + (n-999)%9000
	}
}

// builder fills a store with mock data.
type builder struct {
	st  *store
	day time.Time
	d   dataSpec
}

func (b *builder) customer(number, typ, name string) *customer {
	c := &customer{id: encID(b.d.ns+"customer/"+number, 48), number: number, typ: typ, name: name}
	b.st.addCustomer(c)
	return c
}

func (b *builder) account(c *customer, ten, name, product, cashType, balance string) *account {
	if b.d.code != "" {
		ten = b.d.code + ten[4:]
	}
	bban := makeBBAN(ten)
	a := &account{
		id: encID(b.d.ns+"account/"+bban, 32), owner: c.id, bban: bban, iban: ibanOf(bban), currency: "NOK",
		name: name, product: product, cashAccountType: cashType, bic: "TSTBNO22",
		booked: decimal.RequireFromString(balance),
	}
	b.st.addAccount(c, a)
	return a
}

func (b *builder) card(c *customer, pan, name, product, limit, booked string, related *account) *cardAccount {
	k := &cardAccount{
		id: encID(b.d.ns+"card/"+c.number+"/"+pan, 32), owner: c.id, maskedPan: pan, currency: "NOK",
		name: name, product: product, creditLimit: decimal.RequireFromString(limit),
		booked: decimal.RequireFromString(booked), relatedBBAN: related.bban,
	}
	b.st.addCard(c, k)
	return k
}

func (b *builder) agreement(c *customer, name string, accts ...*account) *agreement {
	ag := &agreement{
		id: uuid.NewSHA1(agreementNamespace, []byte(b.d.ns+c.number+"/"+name)).String(), name: name, owner: c.id,
		roles: []string{"VIEW", "REGISTER"},
	}
	for _, a := range accts {
		ag.engage(a.id)
	}
	b.st.addAgreement(c, ag)
	return ag
}

// tx adds a transaction daysAgo days before today without moving the
// balance (the opening balances already include the history).
func (b *builder) tx(a *account, daysAgo int, booked bool, amount, text, code string, counter *accountRef, counterName string) {
	d := b.day.AddDate(0, 0, -daysAgo)
	t := &transaction{booked: booked, bookingDate: d, amount: decimal.RequireFromString(amount), currency: a.currency,
		remittance: text, code: code}
	own := &accountRef{BBAN: a.bban, IBAN: a.iban}
	if booked {
		t.id = b.st.nextTxID()
		t.valueDate = d
	}
	if t.amount.IsNegative() {
		t.debtorAccount = own
		t.creditorAccount, t.creditorName = counter, counterName
	} else {
		t.debtorAccount, t.debtorName = counter, counterName
	}
	a.transactions = append(a.transactions, t)
	b.st.txCount++
}

func (b *builder) cardTx(k *cardAccount, daysAgo int, booked bool, amount, original, originalCur, details string, invoiced bool) {
	d := b.day.AddDate(0, 0, -daysAgo)
	t := &cardTransaction{id: b.st.nextTxID()[4:], booked: booked, transactionDate: d,
		amount: decimal.RequireFromString(amount), currency: k.currency,
		originalAmount: decimal.RequireFromString(original), originalCur: originalCur,
		invoiced: invoiced, details: details}
	if booked {
		t.bookingDate = d.AddDate(0, 0, 2)
	}
	k.transactions = append(k.transactions, t)
	b.st.txCount++
}

// newDefaultStore returns the state after sandbox initialisation, with
// transaction dates relative to now, the default data of d.
func newDefaultStore(now time.Time, d dataSpec) *store {
	st := newStore()
	st.ns = d.ns
	b := &builder{st: st, day: rules.Today(now), d: d}

	kari := b.customer(CustomerKari, contextPrivate, "Kari Testperson")
	brukskonto := b.account(kari, "9531277606", "Brukskonto", "BRUKSKONTO", "CACC", "15234.75")
	b.account(kari, "9531762150", "Høyrentekonto", "SPAREKONTO", "SVGS", "100.00")
	kariCard := b.card(kari, "552216******4810", "Mastercard Gull", "Kredittkort Gull", "50000.00", "-6874.60", brukskonto)

	employer := &accountRef{BBAN: makeBBAN("1803723455")}
	power := &accountRef{BBAN: makeBBAN("8112737834")}
	landlord := &accountRef{BBAN: makeBBAN("9817600246")}
	pattern := []struct {
		amount, text, code string
		counter            *accountRef
		name               string
	}{
		{"-389.40", "MATBUTIKKEN STORGATA 12 TESTBY", "R_710", nil, ""},
		{"-1249.00", "Strøm", "R_203", power, "Eksempel Kraft AS"},
		{"32500.00", "Lønn", "R_230", employer, "Testfirma Nord AS"},
		{"-8750.00", "Husleie", "R_203", landlord, "Utleier Testesen"},
		{"-45.00", "Kontohold", "R_760", nil, ""},
		{"-212.50", "APOTEK TESTBY", "R_710", nil, ""},
	}
	for i := 0; i < 30; i++ {
		p := pattern[i%len(pattern)]
		b.tx(brukskonto, 2+i*4, true, p.amount, p.text, p.code, p.counter, p.name)
	}
	b.tx(brukskonto, 0, false, "-129.00", "Vipps*Kaffebaren Testby", "R_946", nil, "")
	b.tx(brukskonto, 1, false, "-54.90", "DAGLIGVARE 1000 TESTBY", "R_943", nil, "")
	b.tx(brukskonto, 8, false, "-499.00", "NETTHANDEL TESTBUTIKK", "R_943", nil, "")
	b.cardTx(kariCard, 9, true, "-452.30", "-39.90", "EUR", "CAFE EXEMPLE PARIS FR", false)
	b.cardTx(kariCard, 22, true, "-899.00", "-899.00", "NOK", "SPORT TESTBUTIKKEN TESTBY", true)
	b.cardTx(kariCard, 40, true, "-1520.00", "-1520.00", "NOK", "FLYSELSKAP TEST", true)
	b.cardTx(kariCard, 1, false, "-215.00", "-215.00", "NOK", "KIOSKEN TESTBY STASJON", false)

	ola := b.customer(CustomerOla, contextPrivate, "Ola Testmann")
	olaBruk := b.account(ola, "1206559276", "Brukskonto", "BRUKSKONTO", "CACC", "8420.10")
	olaSpar := b.account(ola, "1206559281", "Sparekonto", "SPAREKONTO", "SVGS", "52000.00")
	olaCard := b.card(ola, "492501******1234", "Visa Classic", "Kredittkort", "20000.00", "-1200.00", olaBruk)
	b.tx(olaBruk, 3, true, "-649.00", "MATBUTIKKEN TESTBY", "R_710", nil, "")
	b.tx(olaBruk, 12, true, "29800.00", "Lønn", "R_230", employer, "Testfirma Nord AS")
	b.tx(olaBruk, 20, true, "-7900.00", "Husleie", "R_203", landlord, "Utleier Testesen")
	b.tx(olaBruk, 0, false, "-89.00", "Vipps*Bakeriet", "R_946", nil, "")
	b.tx(olaSpar, 30, true, "2000.00", "Overføring", "R_230", &accountRef{BBAN: olaBruk.bban}, "Ola Testmann")
	b.cardTx(olaCard, 5, true, "-1200.00", "-1200.00", "NOK", "ELEKTROBUTIKKEN TESTBY", false)
	b.cardTx(olaCard, 0, false, "-75.00", "-75.00", "NOK", "PARKERING TESTBY", false)

	fjordlys := b.customer(CustomerFjordlys, contextCorporate, "Fjordlys Bakeri AS")
	fDrift := b.account(fjordlys, "1812921560", "Driftskonto", "BEDRIFTSKONTO", "CACC", "254300.00")
	fSkatt := b.account(fjordlys, "1812921570", "Skattetrekkskonto", "SKATTETREKK", "TAXE", "48210.00")
	b.tx(fDrift, 2, true, "-15400.00", "Mel og gjær", "R_203", power, "Eksempel Kraft AS")
	b.tx(fDrift, 6, true, "84200.00", "Kortomsetning", "R_230", employer, "Testfirma Nord AS")
	b.tx(fSkatt, 14, true, "12050.00", "Skattetrekk", "R_230", &accountRef{BBAN: fDrift.bban}, "Fjordlys Bakeri AS")
	b.agreement(fjordlys, "Fjordlys Bakeri AS", fDrift, fSkatt)
	b.agreement(fjordlys, "Fjordlys Bakeri AS avdeling Nord", fDrift)

	testfirma := b.customer(CustomerTestfirma, contextCorporate, "Testfirma Nord AS")
	tDrift := b.account(testfirma, "2007951861", "Driftskonto", "BEDRIFTSKONTO", "CACC", "1204500.00")
	tSpar := b.account(testfirma, "2007951871", "Bedriftsplassering", "PLASSERING", "SVGS", "500000.00")
	b.tx(tDrift, 4, true, "-32500.00", "Lønn", "R_230", employer, "Kari Testperson")
	b.tx(tDrift, 0, false, "-2500.00", "Leverandør", "R_203", power, "Eksempel Kraft AS")
	b.agreement(testfirma, "Testfirma Nord AS", tDrift, tSpar)
	return b.st
}
