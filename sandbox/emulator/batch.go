package emulator

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// batchHours are the local hours of the scheduled batch runs, on the
// clock's own time zone (the Location of the times [WithClock] returns).
var batchHours = [...]int{6, 9, 12, 15, 18}

// RunBatch runs the sandbox's simulated payment batch process once, now
// (docs/interface.md section 9.6). It takes payments in ACTC, payments in PDNG whose
// requestedExecutionDate has come, and payments waiting for funds (ACCP
// with fundsAvailable false), in creation order:
//
//	ACTC, due PDNG, waiting ACCP -> ACSC   funds suffice: the debtor account is debited
//	                                       with a booked transaction (a sandbox creditor
//	                                       account is credited, as Controls.SetSettlement
//	                                       says: settle.go)
//	                             -> ACCP   fundsAvailable false; every later run retries
//	                             -> RJCT   the debtor account no longer exists, or the
//	                                       creditor account is unknown (below)
//
// Funds are the debtor account's available balance (booked plus pending)
// plus its credit line, or the unused credit of a card account. Only the
// instructed amount is debited; fees are shown but not charged. An amount
// in another currency than the account's is converted at fixed sandbox
// rates (EUR 11.50, USD 10.50, GBP 13.40, SEK 0.98, DKK 1.54, CHF 12.10
// NOK; other currencies 1 NOK). Then the run books the late credits and
// the returns whose banking day has come ([Settlement]). A creditor account is unknown when it
// carries the 4-digit bank code of a sandbox account (a Norwegian BBAN,
// or the BBAN in a NO IBAN) but is no sandbox account; accounts of other
// banks are assumed to exist. Periodic payments are never processed.
//
// The server also runs the batch by itself when its clock passes 06:00,
// 09:00, 12:00, 15:00 or 18:00 in the clock's own time zone (the Location
// of the times [WithClock] returns), checked before each signed request;
// the first request starts the schedule.
func (c *Controls) RunBatch() {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runBatchLocked(s.now())
}

// runScheduledBatchLocked runs the batch when one of its daily slots has
// passed on the clock since the last look. Called with s.mu held before
// every signed request; the first call only starts the schedule.
func (bk *bank) runScheduledBatchLocked(now time.Time) {
	last := bk.pay.lastBatch
	if last.IsZero() || now.Before(last) {
		bk.pay.lastBatch = now
		return
	}
	if now.Before(nextBatch(last)) {
		return
	}
	bk.pay.lastBatch = now
	bk.runBatchLocked(now)
}

// batchDueLocked reports whether runScheduledBatchLocked would change
// anything at now; while it does not, calls may run under the read lock.
// Needs s.mu held (read or write).
func (bk *bank) batchDueLocked(now time.Time) bool {
	last := bk.pay.lastBatch
	return last.IsZero() || now.Before(last) || !now.Before(nextBatch(last))
}

// nextBatch returns the first batch slot after t, in t's time zone.
func nextBatch(t time.Time) time.Time {
	y, m, d := t.Date()
	for day := 0; ; day++ {
		for _, h := range batchHours {
			slot := time.Date(y, m, d+day, h, 0, 0, 0, t.Location())
			if slot.After(t) {
				return slot
			}
		}
	}
}

// runBatchLocked processes the payments in creation order, then books
// the late credits and returns whose day has come (settle.go). Needs s.mu.
func (bk *bank) runBatchLocked(now time.Time) {
	defer bk.runDueLocked(now)
	date := rules.BankDate(now)
	for _, p := range bk.pay.list {
		if p.Service == rules.ServicePeriodic {
			continue
		}
		switch p.Status {
		case statusACTC:
		case statusPDNG:
			if p.RequestedExecutionDate > date {
				continue
			}
		case statusACCP:
			if p.FundsAvailable == nil || *p.FundsAvailable {
				continue
			}
		default:
			continue
		}
		bk.settle(p, now)
	}
}

// settle runs one payment through the batch.
func (bk *bank) settle(p *payment, now time.Time) {
	st := bk.storeOf(p.tpp) // the payment's TPP's sandbox (views.go)
	if st == nil {
		p.Status, p.FundsAvailable = statusRJCT, nil
		return
	}
	ref := p.body.DebtorAccount
	var (
		acct *account
		card *cardAccount
	)
	if ref != nil && ref.Other != nil {
		card = st.cardByReference(deref(ref.Other.Identification))
	} else {
		acct = st.debtorAccount(ref)
	}
	if (acct == nil && card == nil) || bk.paymentBlocked(st, ref) { // scenario.go
		p.Status, p.FundsAvailable = statusRJCT, nil
		return
	}
	cs := credits(p.body)
	for _, e := range cs {
		if st.creditorUnknown(e.CreditorAccount) {
			p.Status, p.FundsAvailable = statusRJCT, nil
			return
		}
	}

	var cur string
	var funds decimal.Decimal
	if acct != nil {
		cur, funds = acct.currency, acct.available().Add(acct.creditLine)
	} else {
		cur, funds = card.currency, card.creditLimit.Add(card.booked)
		for _, t := range card.transactions {
			if !t.booked {
				funds = funds.Add(t.amount)
			}
		}
	}
	if convert(p.Amount, cur).GreaterThan(funds) {
		no := false
		p.Status, p.FundsAvailable = statusACCP, &no
		return
	}

	day := rules.Today(now)
	debtorName := ""
	if acct != nil {
		if cu := st.customerByID(acct.owner); cu != nil {
			debtorName = cu.name
		}
	}
	from := plainRef(ref)
	if acct != nil {
		from = &accountRef{BBAN: acct.bban, IBAN: acct.iban}
	}
	for _, e := range cs {
		a, _ := amountOf(e.InstructedAmount)
		debit := convert(a, cur)
		if acct != nil {
			st.book(acct, transaction{
				bookingDate: day, amount: debit.Neg(), creditorName: deref(e.CreditorName),
				creditorAccount: plainRef(e.CreditorAccount), debtorAccount: &accountRef{BBAN: acct.bban, IBAN: acct.iban},
				code: codeDebit,
			}.withEcho(creditEcho(e)))
		} else {
			st.bookCard(card, &cardTransaction{
				id: st.nextTxID()[4:], booked: true, bookingDate: day, transactionDate: day,
				amount: debit.Neg(), currency: card.currency, originalAmount: a.Value.Neg(), originalCur: a.Currency,
				details: deref(e.CreditorName),
			})
		}
		if to := st.creditorAccount(e.CreditorAccount); to != nil { // settle.go
			bk.bookCredit(st, p, e, to, acct, debtorName, from, debit, day)
		}
	}
	p.Status, p.FundsAvailable = statusACSC, nil
}

// creditorUnknown is the emulator's rejection rule: a creditor account in
// this bank (its Norwegian BBAN, or the BBAN inside a NO IBAN, starts with
// the 4-digit bank code of a sandbox account) that is not a sandbox
// account does not exist, and the payment is rejected. Accounts of other
// banks are assumed to exist.
func (st *store) creditorUnknown(ref *paymentrules.Account) bool {
	if ref == nil {
		return true
	}
	if st.debtorAccount(ref) != nil {
		return false
	}
	bban := deref(ref.BBAN)
	if ref.BBAN == nil && len(deref(ref.IBAN)) == 15 && deref(ref.IBAN)[:2] == "NO" {
		bban = deref(ref.IBAN)[4:]
	}
	return st.hasBankCode(bban)
}

// plainRef converts a request's account reference for a transaction.
func plainRef(a *paymentrules.Account) *accountRef {
	if a == nil {
		return nil
	}
	return &accountRef{BBAN: deref(a.BBAN), IBAN: deref(a.IBAN)}
}

// remittanceText is the text a booked transaction shows.
func remittanceText(b *paymentrules.Body) string {
	switch {
	case b.RemittanceInformationUnstructured != nil:
		return *b.RemittanceInformationUnstructured
	case b.RemittanceInformationStructuredArray != nil && len(*b.RemittanceInformationStructuredArray) > 0:
		return deref((*b.RemittanceInformationStructuredArray)[0].Reference)
	case b.RemittanceInformationStructured != nil:
		return deref(b.RemittanceInformationStructured.Reference)
	}
	return ""
}

// sandboxRates are fixed NOK prices of one unit of a currency, for
// payments in another currency than the debtor's account. Currencies not
// listed count as 1 NOK.
var sandboxRates = map[string]decimal.Decimal{
	"NOK": decimal.NewFromInt(1),
	"EUR": decimal.RequireFromString("11.50"),
	"USD": decimal.RequireFromString("10.50"),
	"GBP": decimal.RequireFromString("13.40"),
	"SEK": decimal.RequireFromString("0.98"),
	"DKK": decimal.RequireFromString("1.54"),
	"CHF": decimal.RequireFromString("12.10"),
}

// convert returns a's value in currency to, rounded to to's minor units.
func convert(a money.Amount, to string) decimal.Decimal {
	if a.Currency == to {
		return a.Value
	}
	rate := func(c string) decimal.Decimal {
		if r, ok := sandboxRates[c]; ok {
			return r
		}
		return decimal.NewFromInt(1)
	}
	units, _ := money.MinorUnits(to)
	return a.Value.Mul(rate(a.Currency)).Div(rate(to)).Round(int32(units))
}
