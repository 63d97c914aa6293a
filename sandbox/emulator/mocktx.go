package emulator

import (
	"cmp"
	"slices"
	"time"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// Transactions of mock data: one builder per kind (txSpec for accounts,
// cardTxSpec for card accounts) used by every door (Controls.Seed,
// Controls.AddTransaction and AddTwins, the mock-data operations), and one
// way to store them (store.postTransactions, store.postCardTransactions)
// whose only difference between the doors is the balanceRule.

// balanceRule is what storing a booked mock transaction does to the
// booked balance of its account or card account. It is the one place
// where the doors differ on balances, and each door states its rule where
// it stores:
//
//   - Controls.Seed: balanceStated. A SeedAccount's Balance (a
//     SeedCardAccount's too) is the balance after its Transactions, as a
//     bank statement states it, so seeded transactions leave it as given.
//   - The mock-data operations (POST /v1/sandbox/accounts/{id}/transactions
//     and card-accounts/{id}/transactions) and Controls.AddTransaction,
//     AddTwins: balanceMoves. They add to an account that already has a
//     balance, and a booking moves it, as on the bank.
//
// Pending transactions never move the booked balance.
type balanceRule bool

const (
	// balanceStated leaves the booked balance as the door stated it.
	balanceStated balanceRule = false
	// balanceMoves adds each booked amount to the booked balance.
	balanceMoves balanceRule = true
)

// txSpec is an account transaction as a door gives it, in the bank's
// terms (the AIS transaction fields). The other party is given either
// side by side (creditor and debtor, as the mock-data operations take
// them) or as the counterparty (as a SeedTransaction gives it), which
// build puts on the creditor side of money out and the debtor side of
// money in.
type txSpec struct {
	pending bool
	// bookingDate none is today; valueDate none is the booking date (a
	// pending transaction keeps none).
	bookingDate, valueDate dayIn
	// amount is the signed decimal text, not zero (empty is zero);
	// currency, when given, must be the account's.
	amount, currency string

	creditorName, debtorName string
	creditorAccount          *accountRef
	counterpartyName         string
	counterpartyAccount      *accountRef
	// debtorAccount, when given, must be the account itself
	// (docs/interface.md section 4.5: a mock transaction whose debtor is
	// another account fails). It is not stored as given: the account is the
	// debtor of money out in any case (postTransactions) and money in
	// does not show it.
	debtorAccount *accountRef

	remittance, code string
}

// txNames are a door's names of the fields of a txSpec.
type txNames struct {
	amount, currency, bookingDate, valueDate   string
	creditorName, debtorName, counterpartyName string
	creditorBBAN, creditorIBAN                 string
	counterpartyBBAN, counterpartyIBAN         string
	debtorAccount, remittance, code            string
}

var (
	seedTxNames = txNames{amount: "Amount", bookingDate: "BookingDate", valueDate: "ValueDate",
		counterpartyName: "CounterpartyName", counterpartyBBAN: "CounterpartyBBAN", counterpartyIBAN: "CounterpartyIBAN",
		remittance: "Remittance", code: "Code"}
	mockTxNames = txNames{amount: "transactionAmount.amount", currency: "transactionAmount.currency",
		bookingDate: "bookingDate", valueDate: "valueDate", creditorName: "creditorName", debtorName: "debtorName",
		creditorBBAN: "creditorAccount.bban", creditorIBAN: "creditorAccount.iban",
		debtorAccount: "debtorAccount", remittance: "remittanceInformationUnstructured", code: "proprietaryBankTransactionCode"}
)

// Length limits of transaction texts, in characters: the interface's
// for names, remittance and the other party's account numbers
// (rules.MaxBBANLen, rules.MaxIBANLen; docs/interface.md section 8),
// maxFreeText for the code, for which it gives none.
const (
	maxPartyName  = 70
	maxRemittance = 140
)

// build checks sp and returns the transaction on account a: no id yet
// (postTransactions gives it), the other party shown as the bank shows
// it. The account itself appears when stored, as the debtor account of
// money out; money in does not show it. The checks run in the order the
// mock-data operation has always run them, so an input with several
// problems is refused for the same one.
func (sp *txSpec) build(a *account, chk *inputCheck, n *txNames) (transaction, *badInput) {
	cur := a.currency
	if sp.currency != "" && sp.currency != cur {
		return transaction{}, refuse(n.currency, inputProblem{kind: currencyOther, currency: cur})
	}
	v, p := chk.amount(sp.amount, cur, true)
	if bad := refuse(n.amount, p); bad != nil {
		return transaction{}, bad
	}
	booking, p := chk.dayOr(sp.bookingDate, chk.today)
	if bad := refuse(n.bookingDate, p); bad != nil {
		return transaction{}, bad
	}
	value, p := chk.dayOr(sp.valueDate, time.Time{})
	if bad := refuse(n.valueDate, p); bad != nil {
		return transaction{}, bad
	}
	type text struct {
		v, field string
		max      int
	}
	texts := []text{
		{sp.remittance, n.remittance, maxRemittance}, {sp.creditorName, n.creditorName, maxPartyName},
		{sp.debtorName, n.debtorName, maxPartyName}, {sp.counterpartyName, n.counterpartyName, maxPartyName},
		{sp.code, n.code, maxFreeText},
	}
	if r := sp.creditorAccount; r != nil {
		texts = append(texts, text{r.BBAN, n.creditorBBAN, rules.MaxBBANLen}, text{r.IBAN, n.creditorIBAN, rules.MaxIBANLen})
	}
	if r := sp.counterpartyAccount; r != nil {
		texts = append(texts, text{r.BBAN, n.counterpartyBBAN, rules.MaxBBANLen}, text{r.IBAN, n.counterpartyIBAN, rules.MaxIBANLen})
	}
	for _, f := range texts {
		if bad := refuse(f.field, checkText(f.v, 0, f.max)); bad != nil {
			return transaction{}, bad
		}
	}
	if d := sp.debtorAccount; d != nil &&
		((d.BBAN != "" && d.BBAN != a.bban) || (d.IBAN != "" && d.IBAN != a.iban) || (d.BBAN == "" && d.IBAN == "")) {
		return transaction{}, refuse(n.debtorAccount, inputProblem{kind: debtorOther})
	}
	t := transaction{booked: !sp.pending, bookingDate: booking, amount: v, currency: cur,
		creditorName: sp.creditorName, debtorName: sp.debtorName, remittance: sp.remittance, code: sp.code}
	if t.booked {
		t.valueDate = value
	}
	if v.IsNegative() { // money out: the other party is the creditor
		t.creditorName = cmp.Or(sp.creditorName, sp.counterpartyName)
		t.creditorAccount = cmp.Or(sp.creditorAccount, sp.counterpartyAccount)
	} else { // money in: the other party is the debtor
		t.debtorName = cmp.Or(sp.debtorName, sp.counterpartyName)
		t.debtorAccount = sp.counterpartyAccount
	}
	return t, nil
}

// postTransactions stores the built transactions ts on account a of st,
// in order (ts backs them: do not reuse it). A booked one gets a
// transactionId unless it has one and a value date unless it has one
// (its booking date); money out shows a as its debtor account; rule says
// whether booked amounts move a's booked balance.
func (st *store) postTransactions(a *account, ts []transaction, rule balanceRule) {
	own := &accountRef{BBAN: a.bban, IBAN: a.iban}
	a.transactions = slices.Grow(a.transactions, len(ts))
	for i := range ts {
		t := &ts[i]
		if t.booked {
			if t.id == "" {
				t.id = st.nextTxID()
			}
			if t.valueDate.IsZero() {
				t.valueDate = t.bookingDate
			}
			if rule == balanceMoves {
				a.booked = a.booked.Add(t.amount)
			}
		}
		if t.amount.IsNegative() {
			t.debtorAccount = own
		}
		a.transactions = append(a.transactions, t)
	}
	st.txCount += len(ts)
}

// cardTxSpec is a card transaction as a door gives it.
type cardTxSpec struct {
	pending bool
	// transactionDate none is today; bookingDate none is the transaction
	// date (a pending transaction has none, and a given one is ignored).
	transactionDate, bookingDate dayIn
	// amount is the signed decimal text in the card's currency; empty is
	// zero, and zero is taken (the mock-data operation always took it).
	amount string
	// originalAmount in originalCurrency is the purchase's own amount,
	// counted only with an originalCurrency (empty amount: 0). No
	// originalCurrency: the original is amount in the card's currency.
	originalAmount, originalCurrency string
	invoiced                         bool
	details                          string
}

// cardTxNames are a door's names of the fields of a cardTxSpec.
type cardTxNames struct {
	amount, originalAmount, originalCurrency, transactionDate, bookingDate, details string
}

var (
	seedCardTxNames = cardTxNames{amount: "Amount", originalAmount: "OriginalAmount",
		originalCurrency: "OriginalCurrency", transactionDate: "TransactionDate", bookingDate: "BookingDate", details: "Details"}
	mockCardTxNames = cardTxNames{amount: "transactionAmount.amount", originalAmount: "originalAmount.amount",
		originalCurrency: "originalAmount.currency", transactionDate: "transactionDate", bookingDate: "bookingDate",
		details: "transactionDetails"}
)

// maxCardDetails is the longest transactionDetails, in characters.
const maxCardDetails = 140

// build checks sp and returns the transaction on a card account in
// currency cur, without an id yet (postCardTransactions gives it). The
// checks run in the order the mock-data operation has always run them.
func (sp *cardTxSpec) build(cur string, chk *inputCheck, n *cardTxNames) (cardTransaction, *badInput) {
	v, p := chk.amount(sp.amount, cur, false)
	if bad := refuse(n.amount, p); bad != nil {
		return cardTransaction{}, bad
	}
	t := cardTransaction{booked: !sp.pending, amount: v, currency: cur, originalAmount: v, originalCur: cur,
		invoiced: sp.invoiced, details: sp.details}
	if oc := sp.originalCurrency; oc != "" {
		if bad := refuse(n.originalCurrency, checkCurrency(oc)); bad != nil {
			return cardTransaction{}, bad
		}
		ov, p := chk.amount(sp.originalAmount, oc, false)
		if bad := refuse(n.originalAmount, p); bad != nil {
			return cardTransaction{}, bad
		}
		t.originalAmount, t.originalCur = ov, oc
	}
	if t.transactionDate, p = chk.dayOr(sp.transactionDate, chk.today); !p.ok() {
		return cardTransaction{}, refuse(n.transactionDate, p)
	}
	if t.booked {
		if t.bookingDate, p = chk.dayOr(sp.bookingDate, t.transactionDate); !p.ok() {
			return cardTransaction{}, refuse(n.bookingDate, p)
		}
	}
	if bad := refuse(n.details, checkText(sp.details, 0, maxCardDetails)); bad != nil {
		return cardTransaction{}, bad
	}
	return t, nil
}

// postCardTransactions stores the built transactions ts on card account k
// of st, in order (ts backs them), each with a new id; rule says whether
// booked amounts move k's booked balance.
func (st *store) postCardTransactions(k *cardAccount, ts []cardTransaction, rule balanceRule) {
	k.transactions = slices.Grow(k.transactions, len(ts))
	for i := range ts {
		t := &ts[i]
		t.id = st.nextTxID()[4:]
		if t.booked && rule == balanceMoves {
			k.booked = k.booked.Add(t.amount)
		}
		k.transactions = append(k.transactions, t)
	}
	st.txCount += len(ts)
}
