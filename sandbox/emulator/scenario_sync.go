package emulator

import (
	"crypto/x509"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Scenario controls for transaction synchronisation: what a bank does to
// an account's transactions between two reads that a TPP must cope with
// (docs/interface.md section 2.9 and the known issue of section 8). A test
// adds entries with [Controls.AddTransaction] and changes them with the
// other controls; each returns a reference to the entry it made or
// changed. The reference of a booked entry is its transactionId; that of
// a pending entry is the emulator's own handle (the bank sends no id for
// pending entries). References are personal data of a kind: do not log
// them.
//
// The known issue's unfiltered pending list is [WithKnownIssues](true),
// or [Controls.SetUnfilteredPending] between reads.

// ErrUnknownTransaction is returned by a scenario control for an account
// id or a reference the server does not hold, or a reference to an entry
// of the wrong kind (a booked entry where a pending one is needed).
var ErrUnknownTransaction = errors.New("emulator: unknown account or transaction")

// AddTransaction adds an entry to the account with resource id accountID,
// checked as [Controls.Seed] checks a [SeedTransaction] (and against the
// server's [Limits]); a booked entry moves the booked balance. It returns
// the entry's reference.
func (c *Controls) AddTransaction(accountID string, in SeedTransaction) (string, error) {
	refs, err := c.AddTwins(accountID, in, 1)
	if err != nil {
		return "", err
	}
	return refs[0], nil
}

// AddTwins adds n identical entries (two 49.00 NOK coffees on one day):
// same dates, amount, counterparty and text; booked twins differ only by
// their transactionId. It returns their references in order.
func (c *Controls) AddTwins(accountID string, in SeedTransaction, n int) ([]string, error) {
	s := c.s
	if n < 1 {
		return nil, &SeedError{Path: "n", Reason: "must be at least 1"}
	}
	chk := newInputCheck(s.now(), false)
	s.mu.Lock()
	defer s.mu.Unlock()
	st, a := s.scenarioAccount(accountID)
	if a == nil {
		return nil, ErrUnknownTransaction
	}
	if err := s.roomForTransactions(st, n); err != nil {
		return nil, &SeedError{Path: "Limits.Transactions", Reason: "the server holds as many transactions as its limit allows", Err: ErrSeedLimit}
	}
	t, bad := seedTxSpec(&in).build(a, chk, &seedTxNames)
	if bad != nil {
		return nil, bad.seedError("")
	}
	ts := make([]transaction, n)
	for i := range ts {
		ts[i] = t
		if !t.booked {
			ts[i].id = scenarioPendingRef(st.nextTxID())
		}
	}
	st.postTransactions(a, ts, balanceMoves) // added to a live account: bookings move its balance
	refs := make([]string, n)
	for i := range ts {
		refs[i] = ts[i].id
	}
	return refs, nil
}

// scenarioPendingRef makes the handle of a pending entry from a fresh id, so that
// it can never be taken for a transactionId.
func scenarioPendingRef(id string) string { return "pending-" + id }

// scenarioFind returns the entry of a with reference ref and whether it is
// booked as wanted; nil when a has none.
func scenarioFind(a *account, ref string, booked bool) *transaction {
	if a == nil || ref == "" {
		return nil
	}
	for _, t := range a.transactions {
		if t.id == ref && t.booked == booked {
			return t
		}
	}
	return nil
}

// ChangeTransactionID gives the booked entry ref of the account another
// transactionId, as banks were seen to do (the entry is otherwise the
// same), and returns the new one.
func (c *Controls) ChangeTransactionID(accountID, ref string) (string, error) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	st, a := s.scenarioAccount(accountID)
	t := scenarioFind(a, ref, true)
	if t == nil {
		return "", ErrUnknownTransaction
	}
	t.id = st.nextTxID()
	return t.id, nil
}

// BookPending books the pending entry ref of the account: it leaves the
// pending list and comes back as a booked entry with a new
// transactionId, booked on bookingDate (zero: today on the server clock)
// and, when amount is not empty, for that amount instead (a tip, a
// currency conversion). It returns the booked entry's transactionId.
func (c *Controls) BookPending(accountID, ref string, bookingDate time.Time, amount string) (string, error) {
	s := c.s
	chk := newInputCheck(s.now(), false)
	s.mu.Lock()
	defer s.mu.Unlock()
	st, a := s.scenarioAccount(accountID)
	t := scenarioFind(a, ref, false)
	if t == nil {
		return "", ErrUnknownTransaction
	}
	u := *t
	if amount != "" {
		v, p := chk.amount(amount, a.currency, false)
		if bad := refuse("amount", p); bad != nil {
			return "", bad.seedError("")
		}
		u.amount = v
	}
	u.id, u.bookingDate = "", chk.day(bookingDate)
	u.valueDate = u.bookingDate
	scenarioRemove(st, a, t)
	return st.book(a, u).id, nil
}

// DropPending removes the pending entry ref from the account, as a bank
// drops an authorisation that is never booked.
func (c *Controls) DropPending(accountID, ref string) error {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	st, a := s.scenarioAccount(accountID)
	t := scenarioFind(a, ref, false)
	if t == nil {
		return ErrUnknownTransaction
	}
	scenarioRemove(st, a, t)
	return nil
}

// scenarioRemove takes t out of a, an account of st. Needs s.mu held.
func scenarioRemove(st *store, a *account, t *transaction) {
	a.transactions = slices.DeleteFunc(a.transactions, func(x *transaction) bool { return x == t })
	st.txCount--
}

// scenarioAccount finds the account with resource id id in whichever TPP's
// sandbox holds it (resource ids are unique across them), with that
// sandbox. Needs s.mu held.
func (bk *bank) scenarioAccount(id string) (*store, *account) {
	for _, st := range bk.stores {
		if a := st.accountByID(id); a != nil {
			return st, a
		}
	}
	return nil, nil
}

// SetUnfilteredPending turns the known issue of docs/interface.md section
// 8 on or off from now on: with it, every page with bookingStatus both or
// pending carries all pending entries of the account, whatever dateFrom,
// dateTo and limit say ([WithKnownIssues] sets it at start).
func (c *Controls) SetUnfilteredPending(on bool) {
	s := c.s
	s.mu.Lock()
	s.unfilteredPending = on
	s.mu.Unlock()
}

// Reconsent plays a new consent of the customer with id customerID (a
// [SeededCustomer.CustomerID]) at the TPP with certificate tpp, completed
// now: the bank lists the customer's accounts and card accounts under new
// resource ids (the old ones answer 404), and the session gets a new
// TPP-Session-ID and SCA time. The result holds the new ids and session,
// as [Controls.Seed] reports them.
func (c *Controls) Reconsent(tpp *x509.Certificate, customerID string) (SeededCustomer, error) {
	s := c.s
	if tpp == nil {
		return SeededCustomer{}, ErrUnknownTPP
	}
	fp := fingerprint(tpp)
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, known := s.tpps[fp]; !known {
		return SeededCustomer{}, ErrUnknownTPP
	}
	tppID := tppIdentity(tpp)
	data := s.storeOf(tppID)
	var cu *customer
	if data != nil {
		cu = data.customerByID(customerID)
	}
	if cu == nil {
		return SeededCustomer{}, ErrUnknownTransaction
	}
	renamed := map[string]string{}
	p := &seedPlan{cu: cu}
	for i, id := range cu.accounts {
		a := data.accounts[id]
		if a == nil {
			continue
		}
		delete(data.accounts, id)
		a.id = encID("", 32)
		data.accounts[a.id] = a
		cu.accounts[i], renamed[id] = a.id, a.id
		p.accounts = append(p.accounts, a)
	}
	for i, id := range cu.cards {
		k := data.cards[id]
		if k == nil {
			continue
		}
		delete(data.cards, id)
		k.id = encID("", 32)
		data.cards[k.id] = k
		cu.cards[i] = k.id
		p.cards = append(p.cards, k)
	}
	for _, agID := range cu.agreements {
		ag := data.agreements[agID]
		if ag == nil {
			continue
		}
		old := ag.accounts
		ag.accounts, ag.engaged = nil, nil
		for _, id := range old {
			if n, ok := renamed[id]; ok {
				id = n
			}
			ag.engage(id)
		}
		p.agreements = append(p.agreements, ag)
	}
	psu := s.psuID(tppID, cu.number)
	st := &psuState{customer: cu.number, tppSessionID: uuid.NewString(), scaAt: now, consents: map[string]time.Time{}}
	if cu.corporate() {
		for _, ag := range p.agreements {
			st.consents[ag.id] = now
		}
	} else {
		st.consents[""] = now
	}
	k := sessionKey{tppID, psu}
	s.psus[k] = cu.number
	s.sessions[k] = st
	p.consent, p.psuID = st, psu
	b := &seeder{tppID: tppID, consent: s.profile.consentValidity()}
	return b.result([]*seedPlan{p}).Customers[0], nil
}
