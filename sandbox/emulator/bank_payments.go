package emulator

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/money"
	"github.com/tppkit/psd2/sandbox/emulator/internal/paymentrules"
	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Payment is a snapshot of a payment held by the emulator, as returned by
// [Controls.Payments]. Tests count them, look up the status a TPP should see
// and check that a retried request created nothing.
//
// The payment and signing-basket endpoints, and the rules they apply, are
// described in the package documentation (Payments; Signing baskets).
type Payment struct {
	// ID is the paymentId (enc!!<base64url of 48 bytes>).
	ID string `json:"id"`
	// Service is payments, periodic-payments or bulk-payments.
	Service string `json:"service"`
	// Product is the payment product of the path, e.g.
	// norwegian-domestic-credit-transfers.
	Product string `json:"product"`
	// Status is the transactionStatus (RCVD, PDNG, ACTC, ACSC, ACCP, RJCT,
	// CANC).
	Status string `json:"status"`
	// FundsAvailable is false when the batch found too little money
	// (status ACCP); nil otherwise.
	FundsAvailable *bool `json:"fundsAvailable"`
	// RequestID is the X-Request-ID of the request that created it.
	RequestID string `json:"requestId"`
	// Amount is the instructed amount (for a bulk payment the sum of its
	// payments).
	Amount money.Amount `json:"amount"`
	// Fee is the transactionFees of the creation answer, nil when none.
	Fee *money.Amount `json:"fee"`
	// DebtorAccount and CreditorAccount are the bban, iban or card
	// identification of the request (a bulk payment: CreditorAccount of
	// its first payment).
	DebtorAccount   string `json:"debtorAccount"`
	CreditorAccount string `json:"creditorAccount"`
	CreditorName    string `json:"creditorName"`
	// RequestedExecutionDate is the requested date (YYYY-MM-DD) or "".
	RequestedExecutionDate string `json:"requestedExecutionDate"`
	// BasketID is the signing basket holding the payment, or "".
	BasketID string `json:"basketId"`
	// Created is the emulator time of creation.
	Created time.Time `json:"created"`
}

// paymentState is the payments' part of the Server state (guarded by s.mu).
type paymentState struct {
	list      []*payment // creation order
	byID      map[string]*payment
	lastBatch time.Time // clock time the batch schedule was last looked at
	// settlements are the settlement controls by payment id, due the
	// late credits and returns the batch books on their day (settle.go).
	settlements map[string]Settlement
	due         []*dueBooking
}

// payment is a payment record.
type payment struct {
	Payment
	tpp         string
	body        *paymentrules.Body
	dupKey      string
	approved    bool   // SCA completed
	customer    string // customer id of the PSU who approved it
	corporateID string
}

func (p *payment) snapshot() Payment {
	out := p.Payment
	if p.FundsAvailable != nil {
		v := *p.FundsAvailable
		out.FundsAvailable = &v
	}
	if p.Fee != nil {
		f := *p.Fee
		out.Fee = &f
	}
	return out
}

// href is the payment's self link path.
func (p *payment) href() string {
	return "/v1/" + p.Service + "/" + p.Product + "/" + p.ID
}

// readable applies the known issue of docs/interface.md section 4.2: a single NDCT is
// unreadable before it has been approved.
func (bk *bank) readable(p *payment) error {
	if bk.knownIssues && !p.approved && p.Service == rules.ServicePayments && p.Product == rules.ProductNDCT {
		return errNotFound("The payment cannot be read before it has been approved (known issue of the platform).")
	}
	return nil
}

// paymentApproval returns the SCA callback that approves ps (one payment,
// or the payments of a basket): each still in RCVD becomes ACTC, or PDNG
// when its execution date is after the bank date; periodic payments
// become ACTC. A debtor account the PSU may not use makes the payment
// RJCT and the redirect a failure. Runs with s.mu held.
func (bk *bank) paymentApproval(ps []*payment) func(scaResult) error {
	return func(res scaResult) error {
		if !res.OK {
			return nil // the PSU cancelled: the payments stay RCVD
		}
		today := rules.BankDate(res.Now)
		var refused error
		for _, p := range ps {
			if p.Status != statusRCVD {
				continue
			}
			st := bk.storeOf(p.tpp)
			if !st.mayDebit(res.Customer, res.CorporateID, p.body.DebtorAccount) || bk.paymentBlocked(st, p.body.DebtorAccount) {
				p.Status = statusRJCT
				refused = newError(http.StatusBadRequest, "PAYMENT_FAILED", "The debtor account is not an account the PSU may pay from.")
				continue
			}
			p.approved, p.customer, p.corporateID = true, res.Customer.id, res.CorporateID
			p.Status = statusACTC
			if p.Service != rules.ServicePeriodic && p.RequestedExecutionDate > today {
				p.Status = statusPDNG
			}
			if p.Status == statusACTC && executesAtOnce(p) {
				bk.settle(p, res.Now)
			}
		}
		return refused
	}
}

// executesAtOnce reports whether an approved payment is executed at once
// rather than at the next batch run: a single instant payment (the
// platform's instant product, for transfers between the PSU's own
// accounts) due today.
func executesAtOnce(p *payment) bool {
	return p.Service == rules.ServicePayments && p.Product == rules.ProductInstant
}

// mayDebit reports whether the customer (in the corporate agreement, if
// any) may pay from the account reference.
func (st *store) mayDebit(cu *customer, agreementID string, ref *paymentrules.Account) bool {
	if cu == nil || ref == nil {
		return false
	}
	if ref.Other != nil {
		k := st.cardByReference(deref(ref.Other.Identification))
		return k != nil && k.owner == cu.id
	}
	a := st.debtorAccount(ref)
	if a == nil {
		return false
	}
	for _, v := range st.visibleAccounts(cu, agreementID) {
		if v == a {
			return true
		}
	}
	return false
}

// debtorAccount returns the sandbox account of a bban or iban reference.
func (st *store) debtorAccount(ref *paymentrules.Account) *account {
	switch {
	case ref == nil:
		return nil
	case ref.BBAN != nil:
		return st.accountByBBAN(*ref.BBAN)
	case ref.IBAN != nil:
		return st.accountByIBAN(*ref.IBAN)
	}
	return nil
}

// isDuplicate reports whether a live payment has the duplicate key.
func (bk *bank) isDuplicate(key string) bool {
	for _, p := range bk.pay.list {
		if p.dupKey == key && p.Status != statusRJCT && p.Status != statusCANC {
			return true
		}
	}
	return false
}

// duplicateKey identifies a payment's content for the logical-duplicate
// check: TPP, service, product, debtor, and per payment the creditor,
// amount and remittance, and the execution date.
func duplicateKey(tpp, service, product string, b *paymentrules.Body) string {
	type credit struct {
		Creditor   *paymentrules.Account     `json:"c"`
		Amount     string                    `json:"a"`
		Currency   string                    `json:"x"`
		Text       *string                   `json:"t"`
		Structured *paymentrules.Reference   `json:"s"`
		Array      *[]paymentrules.Reference `json:"r"`
	}
	key := struct {
		TPP, Service, Product string
		Debtor                *paymentrules.Account
		Date, Start           *string
		Credits               []credit
	}{TPP: tpp, Service: service, Product: product, Debtor: b.DebtorAccount, Date: b.RequestedExecutionDate, Start: b.StartDate}
	for _, e := range credits(b) {
		a, _ := amountOf(e.InstructedAmount)
		key.Credits = append(key.Credits, credit{Creditor: e.CreditorAccount, Amount: a.Text(), Currency: a.Currency,
			Text: e.RemittanceInformationUnstructured, Structured: e.RemittanceInformationStructured,
			Array: e.RemittanceInformationStructuredArray})
	}
	out, _ := json.Marshal(key)
	return string(out)
}

// paymentFee returns the transactionFees of p, nil when it is free.
func (bk *bank) paymentFee(p *payment) *money.Amount {
	fee, ok := productFees[p.Product]
	if !ok {
		return nil
	}
	cs := credits(p.body)
	if len(cs) == 1 && bk.storeOf(p.tpp).ownTransfer(p.body.DebtorAccount, cs[0].CreditorAccount) {
		return nil
	}
	fee.Value = fee.Value.Mul(decimal.NewFromInt(int64(len(cs))))
	return &fee
}

// ownTransfer reports whether both references are sandbox accounts of the
// same customer.
func (st *store) ownTransfer(debtor, creditor *paymentrules.Account) bool {
	d, c := st.debtorAccount(debtor), st.debtorAccount(creditor)
	return d != nil && c != nil && d.owner == c.owner
}
