package emulator

import (
	"slices"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// The mock data of a sandbox enters by two doors, Controls.Seed (seed.go)
// and the mock-data operations (mockdata.go, mockagreements.go), and by
// one path: each door turns its input into a spec, and the spec's build
// here (mocktx.go for transactions) fills in defaults, runs the one set
// of input checks (mockcheck.go) and makes the stored object. So a
// customer, account, card account, transaction or agreement is the same,
// and the same input is refused for the same reason, whichever door it
// came through. The checks are the ones the mock-data operations have
// always made and the bounds of the texts they keep (mockcheck.go), no
// stricter: a door may not refuse what the bank takes.
// What stays with a door: reading its own shape (JSON bodies, SeedData,
// with their defaults such as Seed's original currency), naming fields
// (the *Names tables below), wording refusals (SeedError or an error
// answer), drawing free numbers and BBANs, clashes with stored data,
// storing under the server's lock, and Seed's one limit of its own
// (seedOnlyLimit, seed.go).

// Defaults of mock data left empty.
const (
	defaultCurrency        = "NOK"
	defaultAccountName     = "Konto"
	defaultAccountProduct  = "BRUKSKONTO"
	defaultCashAccountType = "CACC"
	defaultCardName        = "Kredittkort"
	defaultCardProduct     = "Kredittkort"
	mockBIC                = "TSTBNO22"
)

// customerSpec is a mock customer as given: number (11 or 9 digits), typ
// (PRIVATE or CORPORATE) and name.
type customerSpec struct {
	number, typ, name string
}

// customerNames are a door's names of the fields of a customerSpec.
type customerNames struct{ number, typ, name string }

var (
	seedCustomerNames = customerNames{number: "Number", typ: "Corporate", name: "Name"}
	mockCustomerNames = customerNames{number: "customerNumber", typ: "customerType", name: "customerName"}
)

// build checks sp and returns the customer of the sandbox of TPP tpp.
// Whether the number is free is the door's to check.
func (sp customerSpec) build(tpp string, n *customerNames) (*customer, *badInput) {
	if !allDigitsN(sp.number, 9, 11) {
		return nil, refuse(n.number, inputProblem{kind: numberInvalid})
	}
	if sp.typ != contextPrivate && sp.typ != contextCorporate {
		return nil, refuse(n.typ, inputProblem{kind: customerTypeBad})
	}
	if bad := refuse(n.name, checkText(sp.name, 1, 70)); bad != nil {
		return nil, bad
	}
	return &customer{id: encID("", 48), number: sp.number, typ: sp.typ, name: sp.name, tpp: tpp}, nil
}

// accountSpec is a mock account as given. Amounts are decimal texts in
// the account's currency; empty is 0. An empty bban is drawn by the door
// before build.
type accountSpec struct {
	bban, currency, name, product, cashAccountType string
	balance, creditLine                            string
}

// accountNames are a door's names of the checked fields of an
// accountSpec (product and cash account type are free text, as the
// mock-data operation has always taken them, of at most maxFreeText
// characters).
type accountNames struct {
	bban, currency, name, product, cashAccountType, balance, creditLine string
}

var (
	seedAccountNames = accountNames{bban: "BBAN", currency: "Currency", name: "Name", product: "Product",
		cashAccountType: "CashAccountType", balance: "Balance", creditLine: "CreditLine"}
	mockAccountNames = accountNames{bban: "bban", currency: "currency", name: "name", product: "product",
		cashAccountType: "cashAccountType", balance: "balance", creditLine: "creditLine"}
)

// build fills the defaults of sp, checks it and returns the account, with
// a new id and no owner yet. Whether the BBAN is free is the door's to
// check.
func (sp accountSpec) build(chk *inputCheck, n *accountNames) (*account, *badInput) {
	cur, name := orDefault(sp.currency, defaultCurrency), orDefault(sp.name, defaultAccountName)
	if bad := refuse(n.currency, checkCurrency(cur)); bad != nil {
		return nil, bad
	}
	if bad := refuse(n.name, checkText(name, 1, 70)); bad != nil {
		return nil, bad
	}
	if bad := refuse(n.product, checkText(sp.product, 0, maxFreeText)); bad != nil {
		return nil, bad
	}
	if bad := refuse(n.cashAccountType, checkText(sp.cashAccountType, 0, maxFreeText)); bad != nil {
		return nil, bad
	}
	balance, p := chk.amount(sp.balance, cur, false)
	if bad := refuse(n.balance, p); bad != nil {
		return nil, bad
	}
	creditLine, p := chk.amount(sp.creditLine, cur, false)
	if bad := refuse(n.creditLine, p); bad != nil {
		return nil, bad
	}
	if !rules.ValidNorwegianBBAN(sp.bban) {
		return nil, refuse(n.bban, inputProblem{kind: bbanInvalid})
	}
	return &account{
		id: encID("", 32), bban: sp.bban, iban: ibanOf(sp.bban), currency: cur, name: name,
		product: orDefault(sp.product, defaultAccountProduct), cashAccountType: orDefault(sp.cashAccountType, defaultCashAccountType),
		bic: mockBIC, booked: balance, creditLine: creditLine,
	}, nil
}

// cardSpec is a mock card account as given; amounts as in accountSpec.
// An empty masked PAN is drawn.
type cardSpec struct {
	maskedPan, currency, name, product string
	creditLimit, balance               string
}

// cardNames are a door's names of the checked fields of a cardSpec (the
// product is free text of at most maxFreeText characters).
type cardNames struct {
	maskedPan, currency, name, product, creditLimit, balance string
}

var (
	seedCardNames = cardNames{maskedPan: "MaskedPan", currency: "Currency", name: "Name", product: "Product",
		creditLimit: "CreditLimit", balance: "Balance"}
	mockCardNames = cardNames{maskedPan: "maskedPan", currency: "currency", name: "name", product: "product",
		creditLimit: "creditLimit", balance: "balance"}
)

// build fills the defaults of sp, checks it and returns the card account,
// with a new id and no owner yet.
func (sp cardSpec) build(chk *inputCheck, n *cardNames) (*cardAccount, *badInput) {
	cur, name := orDefault(sp.currency, defaultCurrency), orDefault(sp.name, defaultCardName)
	pan := sp.maskedPan
	if pan == "" {
		pan = "552216******" + randomDigits(4)
	}
	if bad := refuse(n.currency, checkCurrency(cur)); bad != nil {
		return nil, bad
	}
	if bad := refuse(n.maskedPan, checkText(pan, 1, 35)); bad != nil {
		return nil, bad
	}
	if bad := refuse(n.name, checkText(name, 1, 70)); bad != nil {
		return nil, bad
	}
	if bad := refuse(n.product, checkText(sp.product, 0, maxFreeText)); bad != nil {
		return nil, bad
	}
	creditLimit, p := chk.amount(sp.creditLimit, cur, false)
	if bad := refuse(n.creditLimit, p); bad != nil {
		return nil, bad
	}
	balance, p := chk.amount(sp.balance, cur, false)
	if bad := refuse(n.balance, p); bad != nil {
		return nil, bad
	}
	return &cardAccount{id: encID("", 32), maskedPan: pan, currency: cur, name: name,
		product: orDefault(sp.product, defaultCardProduct), creditLimit: creditLimit, booked: balance}, nil
}

// agreementSpec is a mock agreement as given: its name and the roles it
// starts with. Its owner and accounts are the door's to find: any
// customer may own one, as the mock-data operation has always let it
// (Seed's own limit on private owners is in seed.go, seedOnlyLimit).
type agreementSpec struct {
	name  string
	roles []string
}

// agreementNames are a door's names of the fields of an agreementSpec.
type agreementNames struct{ name string }

var (
	seedAgreementNames = agreementNames{name: "Name"}
	mockAgreementNames = agreementNames{name: "name"}
)

// build checks sp and returns the agreement, with a new id (a UUID, the
// PSU-Corporate-ID), no accounts and no owner yet.
func (sp agreementSpec) build(n *agreementNames) (*agreement, *badInput) {
	if bad := refuse(n.name, checkText(sp.name, 1, 70)); bad != nil {
		return nil, bad
	}
	ag := &agreement{id: newUUID(), name: sp.name}
	ag.addEngagements(nil, sp.roles)
	return ag, nil
}

// addEngagements engages the accounts with the given ids, in order, and
// adds the roles ag does not have yet.
func (ag *agreement) addEngagements(accountIDs, roles []string) {
	for _, id := range accountIDs {
		ag.engage(id)
	}
	for _, r := range roles {
		if !slices.Contains(ag.roles, r) {
			ag.roles = append(ag.roles, r)
		}
	}
}
