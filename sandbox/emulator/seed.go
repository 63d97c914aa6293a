package emulator

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Bulk seeding, in process, for tests and benchmarks: what the mock-data
// operations and an SCA per PSU would set up over many signed calls,
// in one call.

// SeedData is what [Controls.Seed] adds in one step: customers (PSUs) with
// their accounts, card accounts, transactions and agreements and,
// optionally, a ready AIS consent for the seeding TPP.
//
// The same value (a transaction list, a consent) may be shared by many
// customers or accounts: Seed only reads it.
type SeedData struct {
	// Customers are added in this order, after the server's customers.
	Customers []SeedCustomer
}

// SeedCustomer is a sandbox customer, the PSU behind a PSU-ID.
type SeedCustomer struct {
	// Number is the customer number the PSU types on the SCA page: 11
	// digits (a national identity number) or 9 (an organisation number),
	// unique in the server and not a default customer's. Empty: a free
	// one is drawn (11 digits for a private customer, 9 for a corporate
	// one).
	Number string
	// Corporate makes a corporate customer: its calls need
	// PSU-Corporate-ID, one of its agreements. Otherwise it is private.
	Corporate bool
	// Name is the customer's name, 1 to 70 characters. Empty:
	// "Testkunde" (private) or "Testfirma AS" (corporate).
	Name string
	// Accounts are its accounts, in this order.
	Accounts []SeedAccount
	// CardAccounts are its card accounts, in this order. A card account's
	// related account is the customer's first account.
	CardAccounts []SeedCardAccount
	// Agreements are a corporate customer's agreements. Empty: one
	// agreement named after the customer covering all its accounts. A
	// private customer's seed has none: a limit of Seed, not of the
	// bank (see [Controls.Seed]); POST /v1/sandbox/agreements gives a
	// private customer one.
	Agreements []SeedAgreement
	// Consent, when set, gives the seeding TPP a session with an AIS
	// consent for this customer, as if the PSU had completed the SCA of
	// a consent (see [SeedConsent]). Nil: the TPP must go through SCA.
	Consent *SeedConsent
}

// SeedAccount is an account to add. Amounts are decimal strings ("-12.50")
// with at most the currency's minor units.
type SeedAccount struct {
	// BBAN is the Norwegian account number: 11 digits with a valid MOD-11
	// check digit, unique in the server and not a default account's.
	// Empty: a free one is drawn (the IBAN follows from it).
	BBAN string
	// Currency is an ISO 4217 code; empty: NOK.
	Currency string
	// Name (1 to 70 characters, empty: "Konto"), Product (up to 256
	// characters, empty: BRUKSKONTO) and CashAccountType (up to 256
	// characters, empty: CACC) are shown by the account endpoints.
	Name, Product, CashAccountType string
	// Balance is the closingBooked balance; empty: 0. It is the balance
	// after Transactions: booked transactions do not move it (pending
	// ones make the expected balance, as on the bank).
	Balance string
	// CreditLine is the credit a payment may use beyond the balance;
	// empty: 0.
	CreditLine string
	// Transactions are the account's history, in any order (the bank
	// answers newest first).
	Transactions []SeedTransaction
}

// SeedTransaction is a transaction of a [SeedAccount].
type SeedTransaction struct {
	// Pending makes a pending (reserved) transaction; otherwise it is
	// booked and has a transactionId.
	Pending bool
	// BookingDate is the bank date of the transaction; only its year,
	// month and day count. Zero: today on the server clock (the
	// Europe/Oslo date).
	BookingDate time.Time
	// ValueDate of a booked transaction; zero: the booking date.
	ValueDate time.Time
	// Amount is the signed amount in the account's currency, not zero:
	// negative for money out.
	Amount string
	// CounterpartyName (up to 70 characters) and CounterpartyBBAN (up to
	// 30) or CounterpartyIBAN (up to 34; either taken as written) name
	// the other party: the creditor of money out, the debtor of money in.
	CounterpartyName, CounterpartyBBAN, CounterpartyIBAN string
	// Remittance is remittanceInformationUnstructured, up to 140
	// characters.
	Remittance string
	// Code is the proprietaryBankTransactionCode (such as R_710), up to
	// 256 characters.
	Code string
}

// SeedCardAccount is a card account to add.
type SeedCardAccount struct {
	// MaskedPan (up to 35 characters); empty: a Mastercard-like masked
	// number.
	MaskedPan string
	// Name (1 to 70 characters, empty: "Kredittkort") and Product (up
	// to 256 characters, empty: Kredittkort).
	Name, Product string
	// Currency is an ISO 4217 code; empty: NOK.
	Currency string
	// CreditLimit is the card's credit limit; empty: 0.
	CreditLimit string
	// Balance is the interimBooked balance, negative for debt; empty: 0.
	// Like an account's, it is the balance after Transactions.
	Balance string
	// Transactions are the card's history, in any order.
	Transactions []SeedCardTransaction
}

// SeedCardTransaction is a transaction of a [SeedCardAccount].
type SeedCardTransaction struct {
	// Pending makes a pending transaction; otherwise it is booked.
	Pending bool
	// TransactionDate is the purchase date (year, month, day); zero:
	// today on the server clock.
	TransactionDate time.Time
	// BookingDate of a booked transaction; zero: the transaction date.
	BookingDate time.Time
	// Amount is the signed amount in the card's currency; empty: 0.
	Amount string
	// OriginalAmount (empty: 0) in OriginalCurrency (empty: the card's)
	// is the purchase's own amount; both empty: Amount in the card's
	// currency.
	OriginalAmount, OriginalCurrency string
	// Invoiced tells whether the transaction was on an invoice.
	Invoiced bool
	// Details is transactionDetails, up to 140 characters.
	Details string
}

// SeedAgreement is an agreement of a corporate customer: an id usable as
// PSU-Corporate-ID, engaging some of the customer's accounts.
type SeedAgreement struct {
	// Name is shown by GET /v1/agreements, 1 to 70 characters; empty:
	// the customer's name.
	Name string
	// Accounts are indexes into the customer's Accounts; nil: all of them.
	Accounts []int
}

// SeedConsent is the state after a PSU completed the SCA of an AIS
// consent at the seeding TPP: the TPP can call the account endpoints with
// the session's PSU-ID and TPP-Session-ID (and, for a corporate customer,
// each agreement as PSU-Corporate-ID) without sending the PSU to the bank.
type SeedConsent struct {
	// TPPSessionID is the TPP-Session-ID the SCA completed in, up to 200
	// printable ASCII characters. Empty: a new UUID per customer.
	TPPSessionID string
	// At is when the SCA completed and the consent was given; zero: now on
	// the server clock. It may not be in the future. Within the hour after
	// it, the session may list accounts and read the full history with
	// the PSU present; after it, balances and transactions go on (4 calls
	// a day per account without the PSU) until the consent expires 90
	// days after At. Set it back to test those cases.
	At time.Time
}

// SeedResult is what [Controls.Seed] created: one [SeededCustomer] per
// [SeedData.Customers] entry, in the same order.
type SeedResult struct {
	Customers []SeededCustomer `json:"customers"`
}

// SeededCustomer is a seeded customer: its ids and, with a consent, the
// session a TPP needs. The SDK's sca.Session takes PSUID, TPPSessionID,
// Context, SCAAt and ConsentUntil (ConsentExpiresAt) from [SeededSession],
// PSUCorporateID from [SeededSession.CorporateIDs], and its account ids
// from [SeededCustomer.SessionAccounts].
//
// PSU-IDs, TPP-Session-IDs and account ids are personal data or let a
// reader act in the PSU's session: do not log them.
type SeededCustomer struct {
	// CustomerID is the sandbox customer id (GET and DELETE
	// /v1/sandbox/customers/{id}).
	CustomerID string `json:"customerId"`
	// Number is the customer number (typed on the SCA page).
	Number string `json:"number"`
	// Context is PRIVATE or CORPORATE.
	Context string `json:"context"`
	// Accounts and CardAccounts are in the order of the seed.
	Accounts     []SeededAccount     `json:"accounts"`
	CardAccounts []SeededCardAccount `json:"cardAccounts"`
	// Agreements are the corporate agreements, in the order of the seed.
	Agreements []SeededAgreement `json:"agreements"`
	// Session is the consent's session; nil without [SeedCustomer.Consent].
	Session *SeededSession `json:"session"`
}

// SeededAccount is a seeded account.
type SeededAccount struct {
	// ID is the resourceId of the account endpoints.
	ID string `json:"id"`
	// BBAN and IBAN are its account numbers.
	BBAN string `json:"bban"`
	IBAN string `json:"iban"`
}

// SeededAgreement is a seeded corporate agreement.
type SeededAgreement struct {
	// ID is the agreement id, a PSU-Corporate-ID.
	ID string `json:"id"`
	// AccountIDs are the accounts it engages: those a session in it sees.
	AccountIDs []string `json:"accountIds"`
}

// SessionAccounts returns the ids of the accounts and card accounts a
// session of the customer lists: all of a private customer's, and for a
// corporate one the accounts of agreement corporateID (nil for an
// agreement it does not have) and all its card accounts. They are what
// a TPP would have captured by listing accounts right after the SCA.
func (c *SeededCustomer) SessionAccounts(corporateID string) (accountIDs, cardAccountIDs []string) {
	for _, k := range c.CardAccounts {
		cardAccountIDs = append(cardAccountIDs, k.ID)
	}
	if c.Context != contextCorporate {
		for _, a := range c.Accounts {
			accountIDs = append(accountIDs, a.ID)
		}
		return accountIDs, cardAccountIDs
	}
	for _, ag := range c.Agreements {
		if ag.ID == corporateID {
			return slices.Clone(ag.AccountIDs), cardAccountIDs
		}
	}
	return nil, nil
}

// SeededCardAccount is a seeded card account.
type SeededCardAccount struct {
	// ID is the resourceId of the card account endpoints.
	ID string `json:"id"`
	// MaskedPan is its masked card number.
	MaskedPan string `json:"maskedPan"`
}

// SeededSession is the PSU session of a seeded consent, as the SCA
// redirect would have handed it to the TPP.
type SeededSession struct {
	// PSUID is the psu-id: stable per TPP and customer.
	PSUID string `json:"psuId"`
	// TPPSessionID is the TPP-Session-ID of the SCA.
	TPPSessionID string `json:"tppSessionId"`
	// Context is PRIVATE or CORPORATE.
	Context string `json:"context"`
	// CorporateIDs are the agreements the consent covers (CORPORATE):
	// each is a PSU-Corporate-ID, so build one SDK session per id. Empty
	// for a private customer.
	CorporateIDs []string `json:"corporateIds"`
	// SCAAt is when the SCA completed ([SeedConsent.At]).
	SCAAt time.Time `json:"scaAt"`
	// ConsentExpiresAt is when the consent ends, 90 days after SCAAt (the
	// bank's [Profile] may say 180); later AIS calls get 401
	// CONSENT_EXPIRED with a scaRedirect.
	ConsentExpiresAt time.Time `json:"consentExpiresAt"`
}

// ErrUnknownTPP is returned by [Controls.Seed] for a certificate that is not
// registered ([Server.NewTPP], [Server.Trust], [WithTrustedCertificates]).
var ErrUnknownTPP = errors.New("emulator: the TPP certificate is not registered")

// ErrSeedLimit is wrapped by the [SeedError] of seed data that would take
// the server past one of its [Limits].
var ErrSeedLimit = errors.New("emulator: past the server's limits")

// SeedError is the error of [Controls.Seed] for data it refuses. Nothing is
// stored.
type SeedError struct {
	// Path names the refused field ("Customers[3].Accounts[0].BBAN") or,
	// for a cap, the limit ("Limits.Accounts").
	Path string
	// Reason says what is wrong.
	Reason string
	// Err is [ErrSeedLimit] for a cap, else nil.
	Err error
}

func (e *SeedError) Error() string { return "emulator: seed: " + e.Path + ": " + e.Reason }

// Unwrap returns Err.
func (e *SeedError) Unwrap() error { return e.Err }

// Seed adds data to the server in one step, for tests and benchmarks that
// need many PSUs and accounts: it does in process what the mock-data
// operations (docs/interface.md section 4.5) and one SCA per PSU would do
// over many signed calls, and it is fast (10,000 accounts with 10
// transactions each in well under a second). tpp is the seeding TPP's
// certificate, which must be registered (else [ErrUnknownTPP]).
//
// The customers go into that TPP's sandbox as if it had created them: its
// POST /v1/sandbox/initialize removes them, and no other TPP sees them. A
// customer with a [SeedConsent] has a session at that TPP (its PSU-ID,
// TPP-Session-ID and consent are in the result), so the TPP can refresh
// balances and transactions at once, without the PSU.
//
// Seed checks the data with the checks the mock-data operations make of
// their bodies (customer numbers, BBANs with MOD-11 check digits,
// currencies, amounts in the currency's minor units, text lengths and
// the characters the bank cannot process), and refuses nothing else they
// take but one thing, a limit of Seed rather than a rule of the bank:
// agreements for a private customer, whose seeded session could not use
// them. It respects the server's [Limits] (customers, accounts and card
// accounts, agreements, transactions and sessions, each counted with
// what the TPP's sandbox, or for sessions the server, already holds):
// data it refuses gives a [*SeedError] (wrapping [ErrSeedLimit] past a
// cap) and nothing is stored. It is safe to call
// while the server serves requests: the checks and most of the work run
// before it takes the server's lock, which it then holds only to insert.
func (c *Controls) Seed(ctx context.Context, tpp *x509.Certificate, data SeedData) (SeedResult, error) {
	s := c.s
	if err := ctx.Err(); err != nil {
		return SeedResult{}, err
	}
	if tpp == nil {
		return SeedResult{}, ErrUnknownTPP
	}
	fp := fingerprint(tpp)
	s.mu.RLock()
	_, known := s.tpps[fp]
	s.mu.RUnlock()
	if !known {
		return SeedResult{}, ErrUnknownTPP
	}
	if err := seedPastLimits(&data, s.limits); err != nil {
		return SeedResult{}, err
	}
	now := s.now()
	b := &seeder{now: now, chk: newInputCheck(now, true), tppID: tppIdentity(tpp), owner: tppIdentity(tpp), reserved: s.reserved(),
		numbers: map[string]bool{}, bbans: map[string]bool{}}
	plan := make([]*seedPlan, len(data.Customers))
	for i := range data.Customers {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return SeedResult{}, err
			}
		}
		p, err := b.customer(i, &data.Customers[i])
		if err != nil {
			return SeedResult{}, err
		}
		plan[i] = p
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.commitSeedLocked(b, plan); err != nil {
		return SeedResult{}, err
	}
	b.consent = s.profile.consentValidity()
	return b.result(plan), nil // under the lock: a later SCA may change a session
}

// seedPastLimits refuses, before any entry is built, data that alone
// passes a cap of l: a seed of a million accounts costs a count, not the
// building of a million accounts that commitSeedLocked would then refuse.
// (commitSeedLocked counts again, with what the server holds and the
// agreements a corporate customer gets without any.)
func seedPastLimits(data *SeedData, l Limits) error {
	var accounts, agreements, transactions, sessions int
	for i := range data.Customers {
		c := &data.Customers[i]
		accounts += len(c.Accounts) + len(c.CardAccounts)
		agreements += len(c.Agreements)
		for j := range c.Accounts {
			transactions += len(c.Accounts[j].Transactions)
		}
		for j := range c.CardAccounts {
			transactions += len(c.CardAccounts[j].Transactions)
		}
		if c.Consent != nil {
			sessions++
		}
	}
	for _, c := range []struct {
		add, limit  int
		field, what string
	}{
		{len(data.Customers), l.Customers, "Customers", "customers"},
		{accounts, l.Accounts, "Accounts", "accounts and card accounts"},
		{agreements, l.Agreements, "Agreements", "agreements"},
		{transactions, l.Transactions, "Transactions", "transactions"},
		{sessions, l.Sessions, "Sessions", "PSU sessions"},
	} {
		if c.add > c.limit {
			return &SeedError{Path: "Limits." + c.field, Err: ErrSeedLimit,
				Reason: fmt.Sprintf("the seed adds %d %s, the limit is %d (WithLimits)", c.add, c.what, c.limit)}
		}
	}
	return nil
}

// seeder is the Seed door: it turns SeedData into specs, builds them
// outside the lock (mockbuild.go, mocktx.go) and renders their refusals
// as SeedErrors.
type seeder struct {
	consent      time.Duration // the bank's consent validity (Profile)
	reserved     reservedIDs   // the bank's default numbers and BBANs
	now          time.Time
	chk          *inputCheck // today and the parsed amounts, since seeds repeat them
	tppID, owner string
	numbers      map[string]bool // customer numbers of this seed
	bbans        map[string]bool // BBANs of this seed
	counts       struct{ customers, accounts, agreements, transactions, sessions int }
}

// seedPlan is one customer of a seed, built and checked, not yet stored.
type seedPlan struct {
	cu          *customer
	drawnNumber bool // Number was empty: may be drawn again on a clash
	accounts    []*account
	drawnBBAN   []bool
	txs         [][]transaction // per account, stored by commitSeedLocked
	cards       []*cardAccount
	cardTxs     [][]cardTransaction // per card account
	agreements  []*agreement
	consent     *psuState
	psuID       string
}

// seedFail returns the SeedError for the field at path (a format and its
// arguments, rendered only on failure).
func seedFail(reason, format string, args ...any) error {
	return &SeedError{Path: fmt.Sprintf(format, args...), Reason: reason}
}

func (b *seeder) customer(i int, in *SeedCustomer) (*seedPlan, error) {
	p := &seedPlan{}
	typ, name := contextPrivate, in.Name
	if in.Corporate {
		typ = contextCorporate
	}
	if name == "" {
		name = "Testkunde"
		if in.Corporate {
			name = "Testfirma AS"
		}
	}
	number := in.Number
	if number == "" {
		p.drawnNumber = true
		number = b.drawNumber(in.Corporate)
	}
	cu, bad := customerSpec{number: number, typ: typ, name: name}.build(b.owner, &seedCustomerNames)
	switch {
	case bad != nil:
		return nil, bad.seedError(fmt.Sprintf("Customers[%d]", i))
	case b.reserved.numbers[number]:
		return nil, seedFail("is a default customer's", "Customers[%d].Number", i)
	case b.numbers[number]:
		return nil, seedFail("appears twice in the seed", "Customers[%d].Number", i)
	}
	b.numbers[number] = true
	p.cu = cu
	b.counts.customers++

	p.accounts = make([]*account, len(in.Accounts))
	p.drawnBBAN = make([]bool, len(in.Accounts))
	p.txs = make([][]transaction, len(in.Accounts))
	for j := range in.Accounts {
		if err := b.account(i, j, &in.Accounts[j], p); err != nil {
			return nil, err
		}
	}
	p.cards = make([]*cardAccount, len(in.CardAccounts))
	p.cardTxs = make([][]cardTransaction, len(in.CardAccounts))
	for j := range in.CardAccounts {
		if err := b.card(i, j, &in.CardAccounts[j], p); err != nil {
			return nil, err
		}
	}
	if err := b.agreements(i, in, p); err != nil {
		return nil, err
	}
	if c := in.Consent; c != nil {
		if c.TPPSessionID != "" && (len(c.TPPSessionID) > 200 || !printableASCII(c.TPPSessionID)) {
			return nil, seedFail("must be 1 to 200 printable ASCII characters", "Customers[%d].Consent.TPPSessionID", i)
		}
		at := c.At
		if at.IsZero() {
			at = b.now
		}
		if at.After(b.now) {
			return nil, seedFail("is in the future on the server clock", "Customers[%d].Consent.At", i)
		}
		sid := c.TPPSessionID
		if sid == "" {
			sid = uuid.NewString()
		}
		st := &psuState{customer: number, tppSessionID: sid, scaAt: at, consents: map[string]time.Time{}}
		if in.Corporate {
			for _, ag := range p.agreements {
				st.consents[ag.id] = at
			}
		} else {
			st.consents[""] = at
		}
		p.consent = st
		b.counts.sessions++
	}
	return p, nil
}

// drawNumber returns a random customer number free in this seed (the
// server's are checked under the lock).
func (b *seeder) drawNumber(corporate bool) string {
	for {
		n := "1" + randomDigits(10)
		if corporate {
			n = "9" + randomDigits(8)
		}
		if !b.numbers[n] && !b.reserved.numbers[n] {
			return n
		}
	}
}

// drawBBAN returns a random valid BBAN free in this seed.
func (b *seeder) drawBBAN() string {
	for {
		n := makeBBAN("9" + randomDigits(9))
		if !b.bbans[n] && !b.reserved.bbans[n] {
			return n
		}
	}
}

// account builds the customer's account j (and its transactions) into
// p.
func (b *seeder) account(i, j int, in *SeedAccount, p *seedPlan) error {
	sp := accountSpec{bban: in.BBAN, currency: in.Currency, name: in.Name, product: in.Product,
		cashAccountType: in.CashAccountType, balance: in.Balance, creditLine: in.CreditLine}
	drawn := sp.bban == ""
	if drawn {
		sp.bban = b.drawBBAN()
	}
	a, bad := sp.build(b.chk, &seedAccountNames)
	switch {
	case bad != nil:
		return bad.seedError(fmt.Sprintf("Customers[%d].Accounts[%d]", i, j))
	case b.reserved.bbans[a.bban]:
		return seedFail("is a default account's", "Customers[%d].Accounts[%d].BBAN", i, j)
	case b.bbans[a.bban]:
		return seedFail("appears twice in the seed", "Customers[%d].Accounts[%d].BBAN", i, j)
	}
	b.bbans[a.bban] = true
	if len(in.Transactions) > 0 {
		txs := make([]transaction, len(in.Transactions)) // one allocation for all
		for k := range in.Transactions {
			var bad *badInput
			if txs[k], bad = seedTxSpec(&in.Transactions[k]).build(a, b.chk, &seedTxNames); bad != nil {
				return bad.seedError(fmt.Sprintf("Customers[%d].Accounts[%d].Transactions[%d]", i, j, k))
			}
		}
		p.txs[j] = txs
		b.counts.transactions += len(txs)
	}
	p.accounts[j], p.drawnBBAN[j] = a, drawn
	b.counts.accounts++
	return nil
}

// seedTxSpec is the spec of a seeded transaction: its counterparty is the
// creditor of money out and the debtor of money in.
func seedTxSpec(in *SeedTransaction) *txSpec {
	sp := &txSpec{pending: in.Pending, bookingDate: dayIn{at: in.BookingDate}, valueDate: dayIn{at: in.ValueDate},
		amount: in.Amount, counterpartyName: in.CounterpartyName, remittance: in.Remittance, code: in.Code}
	if in.CounterpartyBBAN != "" || in.CounterpartyIBAN != "" {
		sp.counterpartyAccount = &accountRef{BBAN: in.CounterpartyBBAN, IBAN: in.CounterpartyIBAN}
	}
	return sp
}

// card builds the customer's card account j (and its transactions) into
// p.
func (b *seeder) card(i, j int, in *SeedCardAccount, p *seedPlan) error {
	k, bad := cardSpec{maskedPan: in.MaskedPan, currency: in.Currency, name: in.Name, product: in.Product,
		creditLimit: in.CreditLimit, balance: in.Balance}.build(b.chk, &seedCardNames)
	if bad != nil {
		return bad.seedError(fmt.Sprintf("Customers[%d].CardAccounts[%d]", i, j))
	}
	if len(in.Transactions) > 0 {
		txs := make([]cardTransaction, len(in.Transactions))
		for n := range in.Transactions {
			m := &in.Transactions[n]
			sp := cardTxSpec{pending: m.Pending, transactionDate: dayIn{at: m.TransactionDate},
				bookingDate: dayIn{at: m.BookingDate}, amount: m.Amount, originalAmount: m.OriginalAmount,
				originalCurrency: m.OriginalCurrency, invoiced: m.Invoiced, details: m.Details}
			if sp.originalCurrency == "" && sp.originalAmount != "" { // Seed's reading: the card's currency
				sp.originalCurrency = k.currency
			}
			var bad *badInput
			if txs[n], bad = sp.build(k.currency, b.chk, &seedCardTxNames); bad != nil {
				return bad.seedError(fmt.Sprintf("Customers[%d].CardAccounts[%d].Transactions[%d]", i, j, n))
			}
		}
		p.cardTxs[j] = txs
		b.counts.transactions += len(txs)
	}
	p.cards[j] = k
	b.counts.accounts++
	return nil
}

// agreements builds the customer's agreements into p: those given or, for
// a corporate customer without any, one over all its accounts.
func (b *seeder) agreements(i int, in *SeedCustomer, p *seedPlan) error {
	if err := seedOnlyLimit(i, in); err != nil {
		return err
	}
	list := in.Agreements
	if len(list) == 0 && in.Corporate {
		list = []SeedAgreement{{}}
	}
	p.agreements = make([]*agreement, len(list))
	for j, in := range list {
		ag, bad := agreementSpec{name: orDefault(in.Name, p.cu.name), roles: seedAgreementRoles}.build(&seedAgreementNames)
		if bad != nil {
			return bad.seedError(fmt.Sprintf("Customers[%d].Agreements[%d]", i, j))
		}
		ids := make([]string, 0, len(p.accounts))
		if in.Accounts == nil {
			for _, a := range p.accounts {
				ids = append(ids, a.id)
			}
		}
		for _, n := range in.Accounts {
			if n < 0 || n >= len(p.accounts) {
				return seedFail("names an account the customer does not have", "Customers[%d].Agreements[%d].Accounts", i, j)
			}
			ids = append(ids, p.accounts[n].id)
		}
		ag.addEngagements(ids, nil)
		p.agreements[j] = ag
		b.counts.agreements++
	}
	return nil
}

// seedOnlyLimit is the one refusal of Seed beyond the checks it shares
// with the mock-data operations (mockcheck.go), and the one place that
// holds such a refusal. It is a limit of the emulator, not a rule of the
// bank: over HTTP, POST /v1/sandbox/agreements takes any owner.
//
// A private customer's seed has no Agreements. Seed hands out the
// customer's session with its result ([SeededSession]): a private
// session works without a PSU-Corporate-ID, so its consent covers no
// agreement, and its CorporateIDs and [SeededCustomer.SessionAccounts]
// would have to list agreements the session cannot use.
func seedOnlyLimit(i int, in *SeedCustomer) error {
	if !in.Corporate && len(in.Agreements) > 0 {
		return seedFail("a private customer has no agreements", "Customers[%d].Agreements", i)
	}
	return nil
}

// seedAgreementRoles are the roles of a seeded agreement.
var seedAgreementRoles = []string{"VIEW", "REGISTER"}

// commitSeedLocked checks the seed against the server's limits and data
// and stores it, all or nothing. Needs s.mu held for writing.
func (bk *bank) commitSeedLocked(b *seeder, plan []*seedPlan) error {
	st, l := bk.ensureStoreLocked(b.tppID, b.now), bk.limits
	for _, c := range []struct {
		have, add, limit int
		field, what      string
	}{
		{st.customerCount(), b.counts.customers, l.Customers, "Customers", "customers"},
		{len(st.accounts) + len(st.cards), b.counts.accounts, l.Accounts, "Accounts", "accounts and card accounts"},
		{len(st.agreements), b.counts.agreements, l.Agreements, "Agreements", "agreements"},
		{st.txCount, b.counts.transactions, l.Transactions, "Transactions", "transactions"},
		{len(bk.sessions), b.counts.sessions, l.Sessions, "Sessions", "PSU sessions"},
	} {
		if c.have+c.add > c.limit {
			return &SeedError{Path: "Limits." + c.field, Err: ErrSeedLimit,
				Reason: fmt.Sprintf("the server holds %d %s, the seed adds %d, the limit is %d (WithLimits)", c.have, c.what, c.add, c.limit)}
		}
	}
	// Clashes with the server's data: drawn numbers and BBANs are drawn
	// again, given ones are refused. Nothing is stored before all pass.
	for i, p := range plan {
		if st.byNumber[p.cu.number] != nil {
			if !p.drawnNumber {
				return seedFail("is taken by a customer of the server", "Customers[%d].Number", i)
			}
			for st.byNumber[p.cu.number] != nil || b.numbers[p.cu.number] {
				p.cu.number = b.drawNumber(p.cu.corporate())
			}
			b.numbers[p.cu.number] = true
			if p.consent != nil {
				p.consent.customer = p.cu.number
			}
		}
		for j, a := range p.accounts {
			if st.byBBAN[a.bban] == nil {
				continue
			}
			if !p.drawnBBAN[j] {
				return seedFail("is taken by an account of the server", "Customers[%d].Accounts[%d].BBAN", i, j)
			}
			for st.byBBAN[a.bban] != nil || b.bbans[a.bban] {
				a.bban = b.drawBBAN()
			}
			b.bbans[a.bban] = true
			a.iban = ibanOf(a.bban)
		}
	}
	// A seed states its balances: seeded transactions do not move them.
	for _, p := range plan {
		cu := p.cu
		st.addCustomer(cu)
		for j, a := range p.accounts {
			st.addAccount(cu, a)
			st.postTransactions(a, p.txs[j], balanceStated)
		}
		for j, k := range p.cards {
			if len(p.accounts) > 0 {
				k.relatedBBAN = p.accounts[0].bban
			}
			st.addCard(cu, k)
			st.postCardTransactions(k, p.cardTxs[j], balanceStated)
		}
		for _, ag := range p.agreements {
			st.addAgreement(cu, ag)
		}
		if p.consent != nil {
			p.psuID = bk.psuID(b.tppID, cu.number)
			k := sessionKey{b.tppID, p.psuID}
			bk.psus[k] = cu.number
			bk.sessions[k] = p.consent
		}
	}
	return nil
}

// result renders the stored plan. Needs s.mu held.
func (b *seeder) result(plan []*seedPlan) SeedResult {
	out := SeedResult{Customers: make([]SeededCustomer, len(plan))}
	for i, p := range plan {
		c := SeededCustomer{CustomerID: p.cu.id, Number: p.cu.number, Context: p.cu.typ,
			Accounts: make([]SeededAccount, len(p.accounts)), CardAccounts: make([]SeededCardAccount, len(p.cards))}
		for j, a := range p.accounts {
			c.Accounts[j] = SeededAccount{ID: a.id, BBAN: a.bban, IBAN: a.iban}
		}
		for j, k := range p.cards {
			c.CardAccounts[j] = SeededCardAccount{ID: k.id, MaskedPan: k.maskedPan}
		}
		var corporateIDs []string
		for _, ag := range p.agreements {
			c.Agreements = append(c.Agreements, SeededAgreement{ID: ag.id, AccountIDs: slices.Clone(ag.accounts)})
			corporateIDs = append(corporateIDs, ag.id)
		}
		if st := p.consent; st != nil {
			c.Session = &SeededSession{PSUID: p.psuID, TPPSessionID: st.tppSessionID, Context: p.cu.typ,
				CorporateIDs: corporateIDs, SCAAt: st.scaAt, ConsentExpiresAt: st.scaAt.Add(b.consent)}
		}
		out.Customers[i] = c
	}
	return out
}
