package emulator

import "github.com/shopspring/decimal"

// The mock data of a sandbox enters by two doors, Server.Seed (seed.go)
// and the mock-data operations (mockdata.go). Each door checks its input
// and words its refusals in its own way (a SeedError path or a
// tppMessage), but both fill in defaults and build the stored objects
// here, so a customer, account or card account is the same whichever door
// it came through.

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

// newMockCustomer is a customer of the sandbox of TPP tpp.
func newMockCustomer(number, typ, name, tpp string) *customer {
	return &customer{id: encID("", 48), number: number, typ: typ, name: name, tpp: tpp}
}

// accountSpec is a mock account as given, checked by its door.
type accountSpec struct {
	bban, currency, name, product, cashAccountType string
	balance, creditLine                            decimal.Decimal
}

// withDefaults fills the currency and name the caller left empty (they
// are checked after this; product and cash account type are filled by
// build).
func (sp accountSpec) withDefaults() accountSpec {
	sp.currency = orDefault(sp.currency, defaultCurrency)
	sp.name = orDefault(sp.name, defaultAccountName)
	return sp
}

// build is the account, with a new id and no owner yet.
func (sp accountSpec) build() *account {
	return &account{
		id: encID("", 32), bban: sp.bban, iban: ibanOf(sp.bban), currency: sp.currency, name: sp.name,
		product: orDefault(sp.product, defaultAccountProduct), cashAccountType: orDefault(sp.cashAccountType, defaultCashAccountType),
		bic: mockBIC, booked: sp.balance, creditLine: sp.creditLine,
	}
}

// cardSpec is a mock card account as given, checked by its door.
type cardSpec struct {
	maskedPan, currency, name, product string
	creditLimit, balance               decimal.Decimal
}

// withDefaults fills the currency, masked PAN and name the caller left
// empty (checked after this).
func (sp cardSpec) withDefaults() cardSpec {
	sp.currency = orDefault(sp.currency, defaultCurrency)
	if sp.maskedPan == "" {
		sp.maskedPan = "552216******" + randomDigits(4)
	}
	sp.name = orDefault(sp.name, defaultCardName)
	return sp
}

// build is the card account, with a new id and no owner yet.
func (sp cardSpec) build() *cardAccount {
	return &cardAccount{id: encID("", 32), maskedPan: sp.maskedPan, currency: sp.currency, name: sp.name,
		product: orDefault(sp.product, defaultCardProduct), creditLimit: sp.creditLimit, booked: sp.balance}
}
