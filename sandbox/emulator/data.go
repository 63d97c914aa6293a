package emulator

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Customer types (docs/interface.md section 2.8).
const (
	contextPrivate   = "PRIVATE"
	contextCorporate = "CORPORATE"
)

// store is the sandbox data: customers with their accounts, card accounts,
// transactions and corporate agreements. Guarded by Server.mu.
type store struct {
	customers  []*customer // in creation order
	accounts   map[string]*account
	cards      map[string]*cardAccount
	agreements map[string]*agreement
	seq        int // for transaction ids
}

func newStore() *store {
	return &store{
		accounts:   map[string]*account{},
		cards:      map[string]*cardAccount{},
		agreements: map[string]*agreement{},
	}
}

type customer struct {
	id         string // enc!!...
	number     string // customerNumber typed at the SCA page
	typ        string // PRIVATE or CORPORATE
	name       string
	accounts   []string // account ids
	cards      []string // card account ids
	agreements []string // agreement ids (corporate)
	tpp        string   // tppOwner of the TPP that created it; "" for the bank's (mockdata.go)
}

func (c *customer) corporate() bool { return c.typ == contextCorporate }

type account struct {
	id              string
	owner           string // customer id
	bban, iban      string
	currency        string
	name            string
	product         string
	cashAccountType string
	bic             string
	creditLine      decimal.Decimal
	booked          decimal.Decimal // closingBooked balance
	transactions    []*transaction  // booked and pending, any order
}

// available is the available balance: booked plus pending (pending debits
// are negative).
func (a *account) available() decimal.Decimal {
	v := a.booked
	for _, t := range a.transactions {
		if !t.booked {
			v = v.Add(t.amount)
		}
	}
	return v
}

type accountRef struct {
	BBAN string `json:"bban,omitempty"`
	IBAN string `json:"iban,omitempty"`
}

type transaction struct {
	id              string
	booked          bool
	bookingDate     time.Time
	valueDate       time.Time
	amount          decimal.Decimal
	currency        string
	creditorName    string
	debtorName      string
	creditorAccount *accountRef
	debtorAccount   *accountRef
	remittance      string
	code            string // proprietaryBankTransactionCode
}

type cardAccount struct {
	id           string
	owner        string
	maskedPan    string
	currency     string
	name         string
	product      string
	creditLimit  decimal.Decimal
	booked       decimal.Decimal // interimBooked (negative: debt)
	relatedBBAN  string          // an ordinary account of the owner; not the relatedAccount reference (relatedAccount())
	transactions []*cardTransaction
}

type cardTransaction struct {
	id              string
	booked          bool
	bookingDate     time.Time
	transactionDate time.Time
	amount          decimal.Decimal
	currency        string
	originalAmount  decimal.Decimal
	originalCur     string
	invoiced        bool
	details         string
}

type agreement struct {
	id       string // a UUID, usable as PSU-Corporate-ID
	name     string
	owner    string   // customer id
	accounts []string // engaged account ids
	roles    []string
}

// Lookups. All need s.mu held.

func (s *Server) customerByID(id string) *customer {
	for _, c := range s.data.customers {
		if c.id == id {
			return c
		}
	}
	return nil
}

func (s *Server) customerByNumber(n string) *customer {
	for _, c := range s.data.customers {
		if c.number == n {
			return c
		}
	}
	return nil
}

func (s *Server) accountByID(id string) *account { return s.data.accounts[id] }

func (s *Server) cardByID(id string) *cardAccount { return s.data.cards[id] }

func (s *Server) accountByBBAN(bban string) *account {
	for _, a := range s.data.accounts {
		if a.bban == bban {
			return a
		}
	}
	return nil
}

func (s *Server) accountByIBAN(iban string) *account {
	for _, a := range s.data.accounts {
		if a.iban == iban {
			return a
		}
	}
	return nil
}

// relatedAccount is the card account's reference for payments: the
// relatedAccount property of its JSON, and the only value accepted as the
// identification of an NDCT debtorAccount.other with schemeNameProprietary
// creditCardAccount (docs/interface.md section 2.3a). ASSUMPTION: the
// interface does not show its form; the emulator makes it an opaque id
// in the platform's enc!! form derived from the card's id, distinct from
// the resourceId, the masked PAN and every BBAN, so that a TPP must take
// it from the card account details.
func (k *cardAccount) relatedAccount() string { return encID("relatedAccount/"+k.id, 32) }

// cardByReference finds the card account whose relatedAccount is ref (the
// identification of an NDCT debtorAccount.other). Its resourceId, masked
// PAN or the BBAN of an ordinary account do not identify it.
func (s *Server) cardByReference(ref string) *cardAccount {
	if ref == "" {
		return nil
	}
	for _, c := range s.data.cards {
		if c.relatedAccount() == ref {
			return c
		}
	}
	return nil
}

// book adds a booked transaction to a and moves its balance by tx.amount.
func (s *Server) book(a *account, tx transaction) *transaction {
	tx.booked = true
	if tx.id == "" {
		tx.id = s.data.nextTxID()
	}
	if tx.currency == "" {
		tx.currency = a.currency
	}
	if tx.valueDate.IsZero() {
		tx.valueDate = tx.bookingDate
	}
	t := &tx
	a.transactions = append(a.transactions, t)
	a.booked = a.booked.Add(tx.amount)
	return t
}

// nextTxID returns a 16-digit transaction id, stable for a given sequence.
func (st *store) nextTxID() string {
	st.seq++
	sum := sha256.Sum256([]byte("tx" + strconv.Itoa(st.seq)))
	n := uint64(0)
	for _, b := range sum[:8] {
		n = n<<8 | uint64(b)
	}
	id := strconv.FormatUint(n%1e16, 10)
	for len(id) < 16 {
		id = "0" + id
	}
	return id
}

// accountsOf returns the customer's accounts in the order they were added.
func (s *Server) accountsOf(c *customer) []*account {
	out := make([]*account, 0, len(c.accounts))
	for _, id := range c.accounts {
		if a := s.data.accounts[id]; a != nil {
			out = append(out, a)
		}
	}
	return out
}

// visibleAccounts are the accounts a session may see: all of a private
// customer's, the engaged accounts of the agreement for a corporate one.
func (s *Server) visibleAccounts(c *customer, agreementID string) []*account {
	if !c.corporate() {
		return s.accountsOf(c)
	}
	ag := s.data.agreements[agreementID]
	if ag == nil {
		return nil
	}
	var out []*account
	for _, id := range ag.accounts {
		if a := s.data.accounts[id]; a != nil {
			out = append(out, a)
		}
	}
	return out
}

func (s *Server) visibleCards(c *customer) []*cardAccount {
	out := make([]*cardAccount, 0, len(c.cards))
	for _, id := range c.cards {
		if k := s.data.cards[id]; k != nil {
			out = append(out, k)
		}
	}
	return out
}

// agreementOf returns the customer's agreement id, or nil.
func (s *Server) agreementOf(c *customer, id string) *agreement {
	if !slices.Contains(c.agreements, id) {
		return nil
	}
	return s.data.agreements[id]
}

// encID returns a platform-style id "enc!!<base64url>" of n bytes derived
// from seed (deterministic, so the default data keeps its ids across
// initialisations); an empty seed gives a random id.
func encID(seed string, n int) string {
	b := make([]byte, 0, n)
	if seed == "" {
		b = append(b, randomBytes(n)...)
	} else {
		for i := 0; len(b) < n; i++ {
			sum := sha256.Sum256([]byte(seed + "#" + strconv.Itoa(i)))
			b = append(b, sum[:]...)
		}
		b = b[:n]
	}
	return "enc!!" + base64.URLEncoding.EncodeToString(b)
}

// randomDigits returns n random decimal digits.
func randomDigits(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = '0' + b[i]%10
	}
	return string(b)
}

// makeBBAN completes ten digits with the MOD-11 check digit (as the
// platform computes it), moving to the next number when no check digit exists.
func makeBBAN(ten string) string {
	n, _ := strconv.ParseUint(ten, 10, 64)
	for ; ; n++ {
		s := strconv.FormatUint(n%1e10, 10)
		for len(s) < 10 {
			s = "0" + s
		}
		for d := byte('0'); d <= '9'; d++ {
			if validNorwegianBBAN(s + string(d)) {
				return s + string(d)
			}
		}
	}
}

// ibanOf returns the Norwegian IBAN of a BBAN (ISO 13616, mod-97).
func ibanOf(bban string) string {
	// "NO" = 23 24; check digits computed over BBAN + "2324" + "00".
	digits := bban + "232400"
	rem := 0
	for i := 0; i < len(digits); i++ {
		rem = (rem*10 + int(digits[i]-'0')) % 97
	}
	check := 98 - rem
	return "NO" + strconv.Itoa(check/10) + strconv.Itoa(check%10) + bban
}

func newUUID() string { return uuid.NewString() }
