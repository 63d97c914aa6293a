package emulator

import (
	"errors"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Settlement: when a payment is executed (ACSC), the bank books its
// debit on the debtor account and, when the creditor account is a
// sandbox account of the same TPP's sandbox (by BBAN or IBAN, of any
// customer), its credit on the creditor account: at the batch run that
// executes it, or at once for an instant payment (approved, it is
// executed without waiting for a batch). The credit echoes the payment's
// references as [creditEcho] says. The settlement controls below change
// how one payment's credit is booked, for tests of code that reconciles
// payments with the credits booked (package reconcile).

// ErrUnknownPayment is returned by a settlement control for a payment id
// the server does not hold, or a payment whose creditor account is not a
// sandbox account (nothing would be booked).
var ErrUnknownPayment = errors.New("emulator: unknown payment, or its creditor account is no sandbox account")

// ErrNotApproved is returned by [Controls.Twin] for a payment whose SCA is
// not done.
var ErrNotApproved = errors.New("emulator: the payment is not approved")

// ErrSettled is returned by [Controls.SetSettlement] for a payment already
// executed (its credit is booked or scheduled) or rejected.
var ErrSettled = errors.New("emulator: the payment is already executed or rejected")

// maxSettlementDays bounds the banking days of a late booking or a return.
const maxSettlementDays = 60

// Settlement says how the bank books the credit of one payment when it is
// executed ([Controls.SetSettlement]); the zero Settlement is the usual
// booking: the whole amount, on the day of execution, never returned.
type Settlement struct {
	// LateDays books the credit this many banking days (Norwegian banking
	// calendar) after the day of execution, at the first batch run on or
	// after that day; 0 books it with the debit. At most 60.
	LateDays int `json:"lateDays,omitempty"`
	// Fee is deducted from the credit (from each credit of a bulk
	// payment): the creditor's bank charged it.
	// In the currency of the instructed amount; a zero value is no fee. It
	// must be less than the amount.
	Fee money.Amount `json:"fee,omitzero"`
	// ReturnDays, when positive, returns the payment this many banking
	// days after its credit was booked, at the first batch run on or
	// after that day: the creditor account is debited with the amount
	// credited, and the debtor account (a sandbox account) credited with
	// the amount debited, both carrying the payment's references and the
	// text "RETUR" before its remittance. At most 60.
	ReturnDays int `json:"returnDays,omitempty"`
}

// SetSettlement sets how the credit of the payment with id paymentID is
// booked when it is executed: late, less a fee, or returned later
// ([Settlement]). Set it before the batch run that executes the payment
// (before the SCA of an instant payment). It returns ErrUnknownPayment
// for an unknown id or a creditor account that is no sandbox account,
// ErrSettled once the payment is executed or rejected, and a
// *[SeedError] for a bad value.
func (c *Controls) SetSettlement(paymentID string, set Settlement) error {
	if set.LateDays < 0 || set.LateDays > maxSettlementDays {
		return &SeedError{Path: "LateDays", Reason: "must be 0 to 60 banking days"}
	}
	if set.ReturnDays < 0 || set.ReturnDays > maxSettlementDays {
		return &SeedError{Path: "ReturnDays", Reason: "must be 0 to 60 banking days"}
	}
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	p, _ := s.settlementPayment(paymentID)
	if p == nil {
		return ErrUnknownPayment
	}
	if !set.Fee.Value.IsZero() {
		a, _ := amountOf(firstCredit(p.body).InstructedAmount)
		if set.Fee.Currency != a.Currency || set.Fee.Value.IsNegative() || !set.Fee.Value.LessThan(a.Value) {
			return &SeedError{Path: "Fee", Reason: "must be in the currency of the instructed amount and less than it"}
		}
	}
	switch p.Status {
	case statusACSC, statusRJCT, statusCANC:
		return ErrSettled
	}
	if s.pay.settlements == nil {
		s.pay.settlements = map[string]Settlement{}
	}
	s.pay.settlements[p.ID] = set
	return nil
}

// Twin makes a twin of the payment with id paymentID: a second payment
// of the same TPP with the same content (debtor, creditor, amount,
// remittance, dates), status and approval, as a PSU who paid the same
// invoice twice on one day (the TPP could make it with
// allowLogicalDuplicate=true). Make it after the payment's SCA and before
// the batch run that executes it: both are executed at that run, and
// their bookings differ only by transactionId. The twin has no
// RequestID (no request of the TPP made it) and counts against the
// server's [Limits] as any payment. It returns the twin;
// ErrUnknownPayment for an unknown id, ErrNotApproved for a payment whose
// SCA is not done.
func (c *Controls) Twin(paymentID string) (Payment, error) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pay.byID[paymentID]
	if p == nil {
		return Payment{}, ErrUnknownPayment
	}
	if !p.approved {
		return Payment{}, ErrNotApproved
	}
	if err := s.roomForTPPPayment(p.tpp); err != nil {
		return Payment{}, err
	}
	if err := s.roomForPayment(); err != nil {
		return Payment{}, err
	}
	twin := *p
	twin.ID = encID("", 48)
	twin.RequestID = ""
	twin.Created = s.now()
	s.pay.list = append(s.pay.list, &twin)
	s.pay.byID[twin.ID] = &twin
	count(&s.usage.payments, p.tpp, 1)
	if set, ok := s.pay.settlements[p.ID]; ok {
		s.pay.settlements[twin.ID] = set
	}
	return twin.snapshot(), nil
}

// UnrelatedCredit books now, on the creditor account of the payment with
// id paymentID, a credit of the payment's amount from elsewhere: another
// debtor (an account of another bank), the remittance text (may be
// empty; up to 140 characters, checked as a seeded transaction's
// Remittance), no structured reference and no end-to-end id. Code that
// reconciles must not take it for the payment. It returns the credit's
// transactionId; ErrUnknownPayment for an unknown id or a creditor
// account that is no sandbox account.
func (c *Controls) UnrelatedCredit(paymentID, text string) (string, error) {
	if bad := refuse("text", checkText(text, 0, maxRemittance)); bad != nil {
		return "", bad.seedError("")
	}
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	p, st := s.settlementPayment(paymentID)
	if p == nil {
		return "", ErrUnknownPayment
	}
	if err := s.roomForTransactions(st, 1); err != nil {
		return "", &SeedError{Path: "Limits.Transactions", Reason: "the server holds as many transactions as its limit allows", Err: ErrSeedLimit}
	}
	e := firstCredit(p.body)
	to := st.creditorAccount(e.CreditorAccount)
	a, _ := amountOf(e.InstructedAmount)
	t := st.book(to, transaction{
		bookingDate: rules.Today(s.now()), amount: convert(a, to.currency), debtorName: unrelatedDebtorName,
		debtorAccount: &accountRef{BBAN: unrelatedDebtorBBAN}, creditorAccount: &accountRef{BBAN: to.bban, IBAN: to.iban},
		remittance: text, code: codeCredit,
	})
	return t.id, nil
}

// The debtor of [Controls.UnrelatedCredit]: an account of another bank
// (valid MOD-11) and a name of no sandbox customer.
const (
	unrelatedDebtorBBAN = "12345678903"
	unrelatedDebtorName = "Annen Betaler AS"
)

// proprietaryBankTransactionCode of the bookings of a payment, as the
// platform's recorded transactions have them: R_203 a payment debited,
// R_230 an incoming credit.
const (
	codeDebit  = "R_203"
	codeCredit = "R_230"
)

// returnPrefix starts the remittance text of a return.
const returnPrefix = "RETUR "

// settlementPayment returns the payment paymentID and its TPP's sandbox
// when its (first) creditor account is a sandbox account. Needs s.mu.
func (bk *bank) settlementPayment(paymentID string) (*payment, *store) {
	p := bk.pay.byID[paymentID]
	if p == nil {
		return nil, nil
	}
	st := bk.storeOf(p.tpp)
	if st == nil || st.creditorAccount(firstCredit(p.body).CreditorAccount) == nil {
		return nil, nil
	}
	return p, st
}

// creditorAccount returns the sandbox account a creditor reference names:
// by its BBAN, its IBAN, or the BBAN inside a Norwegian IBAN.
func (st *store) creditorAccount(ref *paymentrules.Account) *account {
	if a := st.debtorAccount(ref); a != nil {
		return a
	}
	if ref == nil || ref.BBAN != nil {
		return nil
	}
	if iban := deref(ref.IBAN); len(iban) == 15 && iban[:2] == "NO" {
		return st.accountByBBAN(iban[4:])
	}
	return nil
}

// echo is what a booking of a payment shows of the payment's references.
type echo struct {
	text       string // remittanceInformationUnstructured (and its array)
	structured string // remittanceInformationStructured
	endToEnd   string // endToEndId
}

// creditEcho is the one place that decides how the bookings of a payment
// (its debit, its credit, a return) echo the payment's references. The
// platform's recordings show only the unstructured text, so the rest is
// the emulator's choice (docs/emulator.md, "Settlement"):
//
//   - remittanceInformationUnstructured (and its one-item array): the
//     payment's text, or its first structured reference (the KID) when it
//     has none, as before;
//   - remittanceInformationStructured: the first structured reference
//     (the KID) as a string, the shape of Berlin Group 1.3.9 transactions
//     (remittanceInformationStructuredMax140);
//   - endToEndId: the payment's endToEndIdentification, when it has one;
//   - no entryReference.
func creditEcho(b *paymentrules.Body) echo {
	e := echo{text: remittanceText(b), endToEnd: deref(b.EndToEndIdentification)}
	switch {
	case b.RemittanceInformationStructuredArray != nil && len(*b.RemittanceInformationStructuredArray) > 0:
		e.structured = deref((*b.RemittanceInformationStructuredArray)[0].Reference)
	case b.RemittanceInformationStructured != nil:
		e.structured = deref(b.RemittanceInformationStructured.Reference)
	}
	return e
}

// withEcho sets t's references from e.
func (t transaction) withEcho(e echo) transaction {
	t.remittance, t.structured, t.endToEndID = e.text, e.structured, e.endToEnd
	return t
}

// dueBooking is a booking the batch makes on or after a day: a late
// credit, or a return.
type dueBooking struct {
	st   *store   // the TPP's sandbox it was planned in
	acct *account // the account to book on
	day  time.Time
	tx   transaction
	// back, for a late credit to be returned, is the return's debtor-side
	// booking (nil: no return, or a debtor of no sandbox account's).
	returnDays int
	back       *account
	backTx     transaction
}

// bankingDaysAfter returns the date (midnight UTC, as rules.Today) n
// Norwegian banking days after day (package date's calendar).
func bankingDaysAfter(day time.Time, n int) time.Time {
	return date.AddBankingDays(date.Of(day), n).Time(time.UTC)
}

// bookCredit books the credit of one payment credit e on to (and plans a
// return), as the payment's Settlement says. debtor is the debtor's
// sandbox account (nil for a card or another bank's account) and debited
// the amount taken from it. Needs s.mu.
func (bk *bank) bookCredit(st *store, p *payment, e *paymentrules.Body, to, debtor *account, debtorName string, from *accountRef, debited decimal.Decimal, day time.Time) {
	set := bk.pay.settlements[p.ID]
	a, _ := amountOf(e.InstructedAmount)
	if !set.Fee.Value.IsZero() && set.Fee.Currency == a.Currency {
		a.Value = a.Value.Sub(set.Fee.Value)
	}
	ec := creditEcho(e)
	credit := transaction{
		bookingDate: day, amount: convert(a, to.currency), debtorName: debtorName,
		debtorAccount: from, creditorAccount: &accountRef{BBAN: to.bban, IBAN: to.iban}, code: codeCredit,
	}.withEcho(ec)
	due := &dueBooking{st: st, acct: to, day: bankingDaysAfter(day, set.LateDays), tx: credit, returnDays: set.ReturnDays}
	if set.ReturnDays > 0 && debtor != nil {
		due.back = debtor
		due.backTx = transaction{
			amount: debited, debtorName: deref(e.CreditorName), debtorAccount: &accountRef{BBAN: to.bban, IBAN: to.iban},
			creditorAccount: from, code: codeCredit,
		}.withEcho(ec)
		due.backTx.remittance = returnPrefix + ec.text
	}
	if set.LateDays == 0 {
		bk.bookDue(due, day)
		return
	}
	bk.pay.due = append(bk.pay.due, due)
}

// bookDue books d on day, and plans its return. Needs s.mu.
func (bk *bank) bookDue(d *dueBooking, day time.Time) {
	d.tx.bookingDate = day
	d.st.book(d.acct, d.tx)
	if d.returnDays <= 0 {
		return
	}
	ret := d.tx
	ret.amount = ret.amount.Neg()
	ret.creditorName, ret.debtorName = d.tx.debtorName, ""
	ret.creditorAccount, ret.debtorAccount = d.tx.debtorAccount, d.tx.creditorAccount
	ret.code = codeDebit
	ret.remittance = returnPrefix + d.tx.remittance
	bk.pay.due = append(bk.pay.due, &dueBooking{st: d.st, acct: d.acct, day: bankingDaysAfter(day, d.returnDays), tx: ret})
	if d.back != nil {
		bk.pay.due = append(bk.pay.due, &dueBooking{st: d.st, acct: d.back, day: bankingDaysAfter(day, d.returnDays), tx: d.backTx})
	}
}

// runDueLocked books every planned booking whose day has come, in the
// order planned; one planned in a sandbox since replaced (initialised) is
// dropped. Needs s.mu.
func (bk *bank) runDueLocked(now time.Time) {
	today := rules.Today(now)
	var keep []*dueBooking
	due := bk.pay.due
	bk.pay.due = nil
	for _, d := range due {
		switch {
		case !bk.liveStore(d.st) || d.st.accountByID(d.acct.id) != d.acct:
		case d.day.After(today):
			keep = append(keep, d)
		default:
			bk.bookDue(d, today)
		}
	}
	bk.pay.due = append(keep, bk.pay.due...)
}

// liveStore reports whether st is still a TPP's sandbox.
func (bk *bank) liveStore(st *store) bool {
	for _, v := range bk.stores {
		if v == st {
			return true
		}
	}
	return false
}
