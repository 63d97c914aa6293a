package emulator

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Customer types (docs/interface.md section 2.8).
const (
	contextPrivate   = rules.ContextPrivate
	contextCorporate = rules.ContextCorporate
)

// store is the sandbox data: customers with their accounts, card accounts,
// transactions and corporate agreements. Guarded by Server.mu.
//
// Every lookup a call makes goes through an index (by id, customer number,
// BBAN, IBAN, card reference), so no call scans all customers or accounts;
// the add and remove methods below keep the indexes in step, and nothing
// else writes the maps. Listing all customers (GET /v1/sandbox/customers,
// POST /v1/sandbox/initialize) is the only walk over them, since its
// answer holds them all.
type store struct {
	customers      []*customer // in creation order; nil where one was removed (see compact)
	removed        int         // nil entries in customers
	byID           map[string]*customer
	byNumber       map[string]*customer
	accounts       map[string]*account
	byBBAN         map[string]*account
	byIBAN         map[string]*account
	bankCodes      map[string]int // first 4 digits of the 11-digit BBANs -> accounts
	cards          map[string]*cardAccount
	cardRefs       map[string]*cardAccount // by relatedAccount
	agreements     map[string]*agreement   // by id (the UUID)
	mockAgreements map[string]*agreement   // by mockID
	txCount        int                     // transactions of all accounts and card accounts
	seq            int                     // for transaction ids
	ns             string                  // the bank's prefix of derived ids (dataSpec)
}

func newStore() *store {
	return &store{
		byID:           map[string]*customer{},
		byNumber:       map[string]*customer{},
		accounts:       map[string]*account{},
		byBBAN:         map[string]*account{},
		byIBAN:         map[string]*account{},
		bankCodes:      map[string]int{},
		cards:          map[string]*cardAccount{},
		cardRefs:       map[string]*cardAccount{},
		agreements:     map[string]*agreement{},
		mockAgreements: map[string]*agreement{},
	}
}

// customerCount is the number of customers held.
func (st *store) customerCount() int { return len(st.byID) }

// allCustomers yields the customers in creation order.
func (st *store) allCustomers() iter.Seq[*customer] {
	return func(yield func(*customer) bool) {
		for _, c := range st.customers {
			if c != nil && !yield(c) {
				return
			}
		}
	}
}

// addCustomer adds c, which must be new (id and number unused).
func (st *store) addCustomer(c *customer) {
	c.slot = len(st.customers)
	st.customers = append(st.customers, c)
	st.byID[c.id] = c
	st.byNumber[c.number] = c
}

// addAccount adds a to its owner c; a's id and BBAN must be unused.
func (st *store) addAccount(c *customer, a *account) {
	a.owner = c.id
	st.indexAccount(a)
	c.accounts = append(c.accounts, a.id)
}

func (st *store) indexAccount(a *account) {
	st.accounts[a.id] = a
	st.byBBAN[a.bban] = a
	st.byIBAN[a.iban] = a
	if code, ok := bankCode(a.bban); ok {
		st.bankCodes[code]++
	}
	st.txCount += len(a.transactions)
}

// addCard adds k to its owner c; k's id must be unused.
func (st *store) addCard(c *customer, k *cardAccount) {
	k.owner = c.id
	st.indexCard(k)
	c.cards = append(c.cards, k.id)
}

func (st *store) indexCard(k *cardAccount) {
	if k.ref == "" {
		k.ref = encID("relatedAccount/"+k.id, 32)
	}
	st.cards[k.id] = k
	st.cardRefs[k.ref] = k
	st.txCount += len(k.transactions)
}

// addAgreement adds ag to its owner c.
func (st *store) addAgreement(c *customer, ag *agreement) {
	ag.owner = c.id
	if ag.mockID == "" {
		ag.mockID = encID("agreement/"+ag.id, 32)
	}
	st.agreements[ag.id] = ag
	st.mockAgreements[ag.mockID] = ag
	c.agreements = append(c.agreements, ag.id)
}

// removeCustomer removes c with its accounts, card accounts and
// agreements, in time proportional to what c holds.
func (st *store) removeCustomer(c *customer) {
	if st.byID[c.id] != c {
		return
	}
	for _, id := range c.accounts {
		if a := st.accounts[id]; a != nil {
			delete(st.accounts, id)
			delete(st.byBBAN, a.bban)
			delete(st.byIBAN, a.iban)
			if code, ok := bankCode(a.bban); ok {
				if st.bankCodes[code]--; st.bankCodes[code] <= 0 {
					delete(st.bankCodes, code)
				}
			}
			st.txCount -= len(a.transactions)
		}
	}
	for _, id := range c.cards {
		if k := st.cards[id]; k != nil {
			delete(st.cards, id)
			delete(st.cardRefs, k.ref)
			st.txCount -= len(k.transactions)
		}
	}
	for _, id := range c.agreements {
		if ag := st.agreements[id]; ag != nil {
			delete(st.mockAgreements, ag.mockID)
		}
		delete(st.agreements, id)
	}
	delete(st.byID, c.id)
	delete(st.byNumber, c.number)
	st.customers[c.slot] = nil
	st.removed++
	st.compact()
}

// compact closes the gaps removals left in customers once they are more
// than half of it, so that removal stays O(1) amortised.
func (st *store) compact() {
	if st.removed*2 <= len(st.customers) {
		return
	}
	live := st.customers[:0]
	for _, c := range st.customers {
		if c != nil {
			c.slot = len(live)
			live = append(live, c)
		}
	}
	clear(st.customers[len(live):])
	st.customers, st.removed = live, 0
}

// bankCode is the 4-digit bank code of an 11-digit Norwegian BBAN.
func bankCode(bban string) (string, bool) {
	if len(bban) != 11 {
		return "", false
	}
	return bban[:4], true
}

type customer struct {
	id         string // enc!!...
	number     string // customerNumber typed at the SCA page
	typ        string // PRIVATE or CORPORATE
	name       string
	accounts   []string // account ids
	cards      []string // card account ids
	agreements []string // agreement ids (corporate)
	tpp        string   // tppIdentity of the TPP that created it; "" for the bank's (mockdata.go)
	grants     []string // agreements of others it may act for in CORPORATE context (scenario.go)
	slot       int      // index in store.customers
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
	structured      string // remittanceInformationStructured (settle.go)
	endToEndID      string // endToEndId (settle.go)
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
	ref          string          // relatedAccount(), set by store.addCard
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
	id string // a UUID, usable as PSU-Corporate-ID
	// mockID is the id of the mock-data resource: the id of the sandbox
	// customer listing and of /v1/sandbox/agreements/{id}. The platform's
	// listing writes it in its enc!! form (32 bytes), as it does account
	// ids, not as the UUID the PSU-Corporate-ID is.
	mockID   string
	name     string
	owner    string   // customer id
	accounts []string // engaged account ids, in the order engaged
	engaged  map[string]struct{}
	roles    []string
}

// engage adds the account id to the agreement, once.
func (ag *agreement) engage(id string) {
	if ag.covers(id) {
		return
	}
	if ag.engaged == nil {
		ag.engaged = map[string]struct{}{}
	}
	ag.engaged[id] = struct{}{}
	ag.accounts = append(ag.accounts, id)
}

// covers reports whether the account id is engaged in the agreement.
func (ag *agreement) covers(id string) bool {
	_, ok := ag.engaged[id]
	return ok
}

// Lookups in one TPP's sandbox (Server.storeOf). All need s.mu held
// (read or write) and take constant time.

func (st *store) customerByID(id string) *customer { return st.byID[id] }

func (st *store) customerByNumber(n string) *customer {
	if st == nil {
		return nil
	}
	return st.byNumber[n]
}

func (st *store) agreementByID(id string) *agreement {
	if st == nil {
		return nil
	}
	return st.agreements[id]
}

// mockAgreement finds an agreement by the id of its mock-data resource
// (agreement.mockID).
func (st *store) mockAgreement(id string) *agreement {
	if st == nil {
		return nil
	}
	return st.mockAgreements[id]
}

// agreementByEitherID finds an agreement by its id or by its mock-data
// resource's id, for the controls, whose callers may hold either (the
// sandbox listing gives the one, GET /v1/agreements and the SCA callback
// the other).
func (st *store) agreementByEitherID(id string) *agreement {
	if ag := st.agreementByID(id); ag != nil {
		return ag
	}
	return st.mockAgreement(id)
}

func (st *store) accountByID(id string) *account { return st.accounts[id] }

func (st *store) cardByID(id string) *cardAccount { return st.cards[id] }

func (st *store) accountByBBAN(bban string) *account { return st.byBBAN[bban] }

func (st *store) accountByIBAN(iban string) *account { return st.byIBAN[iban] }

// hasBankCode reports whether an 11-digit BBAN carries the bank code of a
// sandbox account (the batch's rule for unknown creditor accounts).
func (st *store) hasBankCode(bban string) bool {
	code, ok := bankCode(bban)
	return ok && st.bankCodes[code] > 0
}

// relatedAccount is the card account's reference for payments: the
// relatedAccount property of its JSON, and the only value accepted as the
// identification of an NDCT debtorAccount.other with schemeNameProprietary
// creditCardAccount (docs/interface.md section 2.3a). ASSUMPTION: the
// interface does not show its form; the emulator makes it an opaque id
// in the platform's enc!! form derived from the card's id, distinct from
// the resourceId, the masked PAN and every BBAN, so that a TPP must take
// it from the card account details.
func (k *cardAccount) relatedAccount() string {
	if k.ref == "" {
		return encID("relatedAccount/"+k.id, 32)
	}
	return k.ref
}

// cardByReference finds the card account whose relatedAccount is ref (the
// identification of an NDCT debtorAccount.other). Its resourceId, masked
// PAN or the BBAN of an ordinary account do not identify it.
func (st *store) cardByReference(ref string) *cardAccount {
	if ref == "" {
		return nil
	}
	return st.cardRefs[ref]
}

// visibleAccount returns the account id if the session of customer c (in
// agreement agreementID, for a corporate one) may see it, else nil.
func (st *store) visibleAccount(c *customer, agreementID, id string) *account {
	a := st.accounts[id]
	if a == nil {
		return nil
	}
	if agreementID == "" { // PRIVATE context: own accounts
		if c.corporate() || a.owner != c.id {
			return nil
		}
		return a
	}
	if ag := st.agreements[agreementID]; ag == nil || !ag.covers(id) {
		return nil
	}
	return a
}

// visibleCard returns the card account id if customer c may see it, else
// nil.
func (st *store) visibleCard(c *customer, agreementID, id string) *cardAccount {
	if k := st.cards[id]; k != nil && k.owner == c.id && (agreementID == "" || c.corporate()) {
		return k
	}
	return nil
}

// book adds a booked transaction to a and moves its balance by tx.amount.
func (st *store) book(a *account, tx transaction) *transaction {
	tx.booked = true
	if tx.id == "" {
		tx.id = st.nextTxID()
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
	st.txCount++
	return t
}

// bookCard adds a card transaction to k; a booked one moves the balance.
func (st *store) bookCard(k *cardAccount, t *cardTransaction) {
	k.transactions = append(k.transactions, t)
	if t.booked {
		k.booked = k.booked.Add(t.amount)
	}
	st.txCount++
}

// nextTxID returns a 16-digit transaction id, stable for a given sequence.
func (st *store) nextTxID() string {
	st.seq++
	sum := sha256.Sum256([]byte(st.ns + "tx" + strconv.Itoa(st.seq)))
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
func (st *store) accountsOf(c *customer) []*account {
	out := make([]*account, 0, len(c.accounts))
	for _, id := range c.accounts {
		if a := st.accounts[id]; a != nil {
			out = append(out, a)
		}
	}
	return out
}

// visibleAccounts are the accounts a session may see: all of a private
// customer's, the engaged accounts of the agreement for a corporate one.
func (st *store) visibleAccounts(c *customer, agreementID string) []*account {
	if agreementID == "" { // PRIVATE context: own accounts
		if c.corporate() {
			return nil
		}
		return st.accountsOf(c)
	}
	ag := st.agreements[agreementID]
	if ag == nil {
		return nil
	}
	var out []*account
	for _, id := range ag.accounts {
		if a := st.accounts[id]; a != nil {
			out = append(out, a)
		}
	}
	return out
}

func (st *store) visibleCards(c *customer, agreementID string) []*cardAccount {
	if agreementID != "" && !c.corporate() { // a private PSU for a company: not its own cards
		return nil
	}
	out := make([]*cardAccount, 0, len(c.cards))
	for _, id := range c.cards {
		if k := st.cards[id]; k != nil {
			out = append(out, k)
		}
	}
	return out
}

// agreementOf returns the customer's agreement id, or nil.
func (st *store) agreementOf(c *customer, id string) *agreement {
	if ag := st.agreements[id]; ag != nil && (ag.owner == c.id || slices.Contains(c.grants, id)) {
		return ag
	}
	return nil
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
			if rules.ValidNorwegianBBAN(s + string(d)) {
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

// Locking. Server.mu is a sync.RWMutex. The AIS calls that only read the
// state (accounts, card accounts, their balances and transactions, GET
// /v1/agreements and /v1/user, the sandbox's customer listings) are
// registered with handleRead and run under its read lock, so any number
// of them run at once, JSON encoding included. Their one write, the
// access budget, has its own sharded locks (budgetTable). All other
// calls, the SCA page and the in-process methods take the write lock. A
// read call that must write after all (it answers with a scaRedirect and
// so starts an authorisation, or the payment batch is due) is run again
// under the write lock; nothing it did before is kept.

// errNeedsWrite tells run that a handler running under the read lock must
// run again under the write lock (startSCA returns it).
var errNeedsWrite = errors.New("emulator: the call needs the write lock")

// lockState is the Server's bookkeeping for run.
type lockState struct {
	readRoutes map[string]bool // full ServeMux patterns of handleRead's handlers
	wait       *lockTimer      // tests only: time spent acquiring s.mu
}

// lockTimer adds up the time spent waiting for a lock. Tests set it to
// measure lock contention; it is nil otherwise.
type lockTimer struct {
	n, total, max atomic.Int64 // acquisitions, nanoseconds waited, longest wait
}

func (l *lockTimer) add(d time.Duration) {
	l.n.Add(1)
	l.total.Add(int64(d))
	for {
		m := l.max.Load()
		if int64(d) <= m || l.max.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// handleRead registers a handler that only reads the state (see Locking):
// it runs under the read lock.
func (s *Server) handleRead(mux *http.ServeMux, pattern string, h handler) {
	if s.lk.readRoutes == nil {
		s.lk.readRoutes = map[string]bool{}
	}
	s.lk.readRoutes[strings.Replace(pattern, " ", " "+apiPrefix, 1)] = true
	s.handle(mux, pattern, h)
}

// run runs a verified call's handler under s.mu: the read lock for the
// routes of handleRead unless the batch is due, else (or when the handler
// asks for it with errNeedsWrite) the write lock, after the scheduled
// batch.
func (s *Server) run(c *call, h handler) error {
	if s.lk.readRoutes[c.r.Pattern] {
		s.timed(s.mu.RLock)
		if !s.batchDueLocked(c.now) {
			c.readOnly = true
			err := h(c)
			c.readOnly = false
			s.mu.RUnlock()
			if !errors.Is(err, errNeedsWrite) {
				return err
			}
			c.status, c.out, c.hdr = 0, nil, nil
		} else {
			s.mu.RUnlock()
		}
	}
	s.timed(s.mu.Lock)
	defer s.mu.Unlock()
	s.runScheduledBatchLocked(c.now)
	return h(c)
}

// timed calls lock, timing the wait when a test asked for it.
func (s *Server) timed(lock func()) {
	if lt := s.lk.wait; lt != nil {
		start := time.Now()
		lock()
		lt.add(time.Since(start))
		return
	}
	lock()
}
