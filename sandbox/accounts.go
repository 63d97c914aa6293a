package sandbox

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/shopspring/decimal"
	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
	"github.com/tppkit/psd2/money"
)

// Mock-data bodies. docs/interface.md section 4.5 says their payload shapes are "not
// shown" and docs/interface.md section 10 gives only the agreement body, so the shapes of
// accounts, card accounts and transactions below are ASSUMPTIONS, written
// down here and nowhere else; they are the shapes the sandbox/emulator
// package accepts. Amounts in mock data are JSON numbers (docs/interface.md section 10 "JSON
// shapes": sandbox accounts carry numeric amounts).

// Amount is an amount with its currency in mock data: {"amount": 100.5,
// "currency": "NOK"}, the amount a JSON number.
type Amount struct {
	Amount   json.Number `json:"amount"`
	Currency string      `json:"currency,omitempty"`
}

// AccountRef references an account by IBAN and/or BBAN.
type AccountRef struct {
	IBAN string `json:"iban,omitempty"`
	BBAN string `json:"bban,omitempty"`
}

// NewAccount is the body of POST /v1/sandbox/accounts (shape assumed, see
// above): a mock account of the customer given by CustomerID or
// CustomerNumber. An empty BBAN lets the sandbox choose one; Balance is the
// booked balance to start with and CreditLine the credit line, both JSON
// numbers in Currency.
type NewAccount struct {
	CustomerID      string      `json:"customerId,omitempty"`
	CustomerNumber  string      `json:"customerNumber,omitempty"`
	BBAN            string      `json:"bban,omitempty"`
	Currency        string      `json:"currency"`
	Name            string      `json:"name,omitempty"`
	Product         string      `json:"product,omitempty"`
	CashAccountType string      `json:"cashAccountType,omitempty"`
	Balance         json.Number `json:"balance,omitempty"`
	CreditLine      json.Number `json:"creditLine,omitempty"`
}

// Account is the sandbox's answer to POST /v1/sandbox/accounts: the account
// as the account information service shows it (docs/interface.md section 10 "JSON shapes"),
// with its balances and the sandbox's own members (accountName,
// customerNumber, creditLine). Fields the sandbox does not send stay empty.
type Account struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	ResourceID      string `json:"resourceId"`
	BBAN            string `json:"bban,omitempty"`
	IBAN            string `json:"iban,omitempty"`
	Currency        string `json:"currency,omitempty"`
	Name            string `json:"name,omitempty"`
	Product         string `json:"product,omitempty"`
	CashAccountType string `json:"cashAccountType,omitempty"`
	BIC             string `json:"bic,omitempty"`
	// Balances are the account's balances as the sandbox reports them
	// (closingBooked, expected; the amounts strings or JSON numbers).
	Balances []accounts.Balance `json:"balances,omitempty"`
	// AccountName, CustomerNumber (the owner's mocked national identity
	// number) and CreditLine (a JSON number or string, nil when absent,
	// not a number, or beyond printing: see [Account.UnmarshalJSON]) are
	// members the sandbox adds to its accounts.
	AccountName    string           `json:"accountName,omitempty"`
	CustomerNumber string           `json:"customerNumber,omitempty"`
	CreditLine     *decimal.Decimal `json:"creditLine,omitempty"`
	Links          client.Links     `json:"_links,omitempty"`
}

// UnmarshalJSON decodes the sandbox's account answer. A creditLine that
// is not a number (a JSON number or a string holding one), or whose
// exponent is beyond maxCreditLineExponent, leaves CreditLine nil: the
// account was created all the same, and such a value would take minutes
// and gigabytes to write out in full (its JSON, its String).
func (a *Account) UnmarshalJSON(data []byte) error {
	type fields Account
	var v struct {
		fields
		CreditLine json.RawMessage `json:"creditLine"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	v.fields.CreditLine = nil
	var d decimal.Decimal
	if len(v.CreditLine) > 0 && string(v.CreditLine) != "null" && d.UnmarshalJSON(v.CreditLine) == nil &&
		d.Exponent() >= -maxCreditLineExponent && d.Exponent() <= maxCreditLineExponent {
		v.fields.CreditLine = &d
	}
	v.fields.Answer = a.Answer
	*a = Account(v.fields)
	return nil
}

// maxCreditLineExponent bounds the exponent of a creditLine kept, as
// package accounts bounds the one of its accounts: no credit line needs
// more, and a value within it prints at once.
const maxCreditLineExponent = 64

// CreateAccount creates a mock account with POST /v1/sandbox/accounts.
func (s *Service) CreateAccount(ctx context.Context, a *NewAccount, opts ...client.RequestOption) (*Account, error) {
	op := client.Operation{Name: "sandbox.CreateAccount", Method: http.MethodPost, Path: accountsPath, Body: a, Refuse: a.validate(),
		Statuses: createStatuses}
	out, _, err := servicecall.Do[Account](ctx, s.client(), op, opts)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// NewCardAccount is the body of POST /v1/sandbox/card-accounts (shape
// assumed, see above): a mock card account of the customer given by
// CustomerID or CustomerNumber. An empty MaskedPan lets the sandbox choose
// one; CreditLimit and Balance (negative for debt) are JSON numbers.
type NewCardAccount struct {
	CustomerID     string      `json:"customerId,omitempty"`
	CustomerNumber string      `json:"customerNumber,omitempty"`
	MaskedPan      string      `json:"maskedPan,omitempty"`
	Currency       string      `json:"currency"`
	Name           string      `json:"name,omitempty"`
	Product        string      `json:"product,omitempty"`
	CreditLimit    json.Number `json:"creditLimit,omitempty"`
	Balance        json.Number `json:"balance,omitempty"`
}

// CardAccount is the sandbox's answer to POST /v1/sandbox/card-accounts:
// the card account as the account information service shows it.
type CardAccount struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	ResourceID string `json:"resourceId"`
	MaskedPan  string `json:"maskedPan,omitempty"`
	Currency   string `json:"currency,omitempty"`
	Name       string `json:"name,omitempty"`
	Product    string `json:"product,omitempty"`
	// CreditLimit is nil when absent.
	CreditLimit *money.Amount `json:"creditLimit,omitempty"`
	// Balances are the card account's balances (forwardAvailable, ...).
	Balances []accounts.Balance `json:"balances,omitempty"`
	// RelatedAccount is the reference to pay from the card account with
	// (debtorAccount.other.identification of a domestic payment,
	// docs/interface.md section 2.3a), kept as sent; see
	// [CardAccount.RelatedAccountID].
	RelatedAccount json.RawMessage `json:"relatedAccount,omitempty"`
	Links          client.Links    `json:"_links,omitempty"`
}

// RelatedAccountID returns the card account's relatedAccount when it is
// a JSON string, else "": the identification to pay from the card with
// (docs/interface.md section 2.3a).
func (a *CardAccount) RelatedAccountID() string {
	var s string
	if a == nil || len(a.RelatedAccount) == 0 || json.Unmarshal(a.RelatedAccount, &s) != nil {
		return ""
	}
	return s
}

// CreateCardAccount creates a mock card account with POST
// /v1/sandbox/card-accounts.
func (s *Service) CreateCardAccount(ctx context.Context, a *NewCardAccount, opts ...client.RequestOption) (*CardAccount, error) {
	op := client.Operation{Name: "sandbox.CreateCardAccount", Method: http.MethodPost, Path: cardAccountsPath, Body: a, Refuse: a.validate(),
		Statuses: createStatuses}
	out, _, err := servicecall.Do[CardAccount](ctx, s.client(), op, opts)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Booking statuses of mock transactions.
const (
	Booked  = "booked"
	Pending = "pending"
)

// Transaction is one mock transaction for POST
// /v1/sandbox/accounts/{id}/transactions (shape assumed, see above: the
// account information transaction fields plus bookingStatus). Amount is
// signed as seen from the account (negative: a debit). Dates are
// YYYY-MM-DD; an empty BookingStatus means booked.
type Transaction struct {
	BookingStatus                     string      `json:"bookingStatus,omitempty"`
	BookingDate                       string      `json:"bookingDate,omitempty"`
	ValueDate                         string      `json:"valueDate,omitempty"`
	TransactionAmount                 Amount      `json:"transactionAmount"`
	CreditorName                      string      `json:"creditorName,omitempty"`
	CreditorAccount                   *AccountRef `json:"creditorAccount,omitempty"`
	DebtorName                        string      `json:"debtorName,omitempty"`
	DebtorAccount                     *AccountRef `json:"debtorAccount,omitempty"`
	RemittanceInformationUnstructured string      `json:"remittanceInformationUnstructured,omitempty"`
	ProprietaryBankTransactionCode    string      `json:"proprietaryBankTransactionCode,omitempty"`
}

// CreateTransactions adds mock transactions to the mock account accountID
// with POST /v1/sandbox/accounts/{id}/transactions (a JSON array). A
// transaction with another account as debtor yields an error from the
// sandbox (docs/interface.md section 4.5).
func (s *Service) CreateTransactions(ctx context.Context, accountID string, txs []Transaction, opts ...client.RequestOption) error {
	refuse := checkID("accountId", accountID)
	if refuse == nil && len(txs) == 0 {
		refuse = invalid("body", "no transactions given")
	}
	for i, t := range txs {
		if refuse == nil {
			refuse = t.validate(at(i))
		}
	}
	op := client.Operation{Name: "sandbox.CreateTransactions", Method: http.MethodPost,
		Path: accountsPath + "/{accountId}/transactions", Params: map[string]string{"accountId": accountID}, Body: txs, Refuse: refuse,
		Statuses: createStatuses}
	_, _, err := servicecall.Do[struct{}](ctx, s.client(), op, opts)
	return err
}

// CardTransaction is one mock card transaction for POST
// /v1/sandbox/card-accounts/{id}/transactions (shape assumed, see above).
// Dates are YYYY-MM-DD; an empty BookingStatus means booked.
type CardTransaction struct {
	BookingStatus      string  `json:"bookingStatus,omitempty"`
	TransactionDate    string  `json:"transactionDate,omitempty"`
	BookingDate        string  `json:"bookingDate,omitempty"`
	TransactionAmount  Amount  `json:"transactionAmount"`
	OriginalAmount     *Amount `json:"originalAmount,omitempty"`
	Invoiced           bool    `json:"invoiced,omitempty"`
	TransactionDetails string  `json:"transactionDetails,omitempty"`
}

// CreateCardTransactions adds mock transactions to the mock card account
// cardAccountID with POST /v1/sandbox/card-accounts/{id}/transactions.
func (s *Service) CreateCardTransactions(ctx context.Context, cardAccountID string, txs []CardTransaction, opts ...client.RequestOption) error {
	refuse := checkID("cardAccountId", cardAccountID)
	if refuse == nil && len(txs) == 0 {
		refuse = invalid("body", "no transactions given")
	}
	for i, t := range txs {
		if refuse == nil {
			refuse = t.validate(at(i))
		}
	}
	op := client.Operation{Name: "sandbox.CreateCardTransactions", Method: http.MethodPost,
		Path: cardAccountsPath + "/{cardAccountId}/transactions", Params: map[string]string{"cardAccountId": cardAccountID}, Body: txs, Refuse: refuse,
		Statuses: createStatuses}
	_, _, err := servicecall.Do[struct{}](ctx, s.client(), op, opts)
	return err
}

// validate checks a new mock account before it is sent: its owner, a
// Norwegian BBAN (11 digits, MOD-11) when set, an ISO 4217 currency,
// amounts in that currency (checkAmount) and its
// text fields (a name of at most 70 characters; no character the bank
// cannot process in any of them).
func (a *NewAccount) validate() error {
	if a == nil {
		return invalid("body", "no account given")
	}
	if err := checkOwner(a.CustomerID, a.CustomerNumber); err != nil {
		return err
	}
	if a.BBAN != "" {
		if err := checkBBAN("bban", a.BBAN); err != nil {
			return err
		}
	}
	return firstErr(
		checkCurrency("currency", a.Currency, false),
		checkText("name", a.Name, 0, maxName),
		checkText("product", a.Product, 0, 0),
		checkText("cashAccountType", a.CashAccountType, 0, 0),
		checkAmount("balance", a.Balance, a.Currency, true),
		checkAmount("creditLine", a.CreditLine, a.Currency, true),
	)
}

// validate checks a new mock card account before it is sent: its owner,
// an ISO 4217 currency, amounts in that currency (checkAmount) and its
// text fields (a masked PAN
// of at most 35 characters, a name of at most 70; no character the bank
// cannot process in any of them).
func (a *NewCardAccount) validate() error {
	if a == nil {
		return invalid("body", "no card account given")
	}
	if err := checkOwner(a.CustomerID, a.CustomerNumber); err != nil {
		return err
	}
	return firstErr(
		checkText("maskedPan", a.MaskedPan, 0, maxMaskedPan),
		checkCurrency("currency", a.Currency, false),
		checkText("name", a.Name, 0, maxName),
		checkText("product", a.Product, 0, 0),
		checkAmount("creditLimit", a.CreditLimit, a.Currency, true),
		checkAmount("balance", a.Balance, a.Currency, true),
	)
}

// validate checks mock transaction p ("[i].") before it is sent: a
// numeric amount, a currency when set, the status, the dates, the account
// references and the text fields (names 70 characters, remittance 140; no
// character the bank cannot process).
func (t *Transaction) validate(p string) error {
	return firstErr(
		checkCurrency(p+"transactionAmount.currency", t.TransactionAmount.Currency, true),
		checkAmount(p+"transactionAmount.amount", t.TransactionAmount.Amount, t.TransactionAmount.Currency, false),
		checkStatus(p+"bookingStatus", t.BookingStatus),
		checkDate(p+"bookingDate", t.BookingDate),
		checkDate(p+"valueDate", t.ValueDate),
		checkText(p+"creditorName", t.CreditorName, 0, maxName),
		checkRef(p+"creditorAccount", t.CreditorAccount),
		checkText(p+"debtorName", t.DebtorName, 0, maxName),
		checkRef(p+"debtorAccount", t.DebtorAccount),
		checkText(p+"remittanceInformationUnstructured", t.RemittanceInformationUnstructured, 0, maxRemittance),
		checkText(p+"proprietaryBankTransactionCode", t.ProprietaryBankTransactionCode, 0, 0),
	)
}

// validate checks mock card transaction p ("[i].") before it is sent:
// numeric amounts, currencies when set, the status, the dates and the
// details (140 characters, no character the bank cannot process).
func (t *CardTransaction) validate(p string) error {
	errs := []error{
		// The sandbox books a card transaction in the card's currency,
		// which the SDK does not know: the amount's form only.
		checkAmount(p+"transactionAmount.amount", t.TransactionAmount.Amount, "", false),
		checkCurrency(p+"transactionAmount.currency", t.TransactionAmount.Currency, true),
	}
	if t.OriginalAmount != nil {
		errs = append(errs,
			checkAmount(p+"originalAmount.amount", t.OriginalAmount.Amount, t.OriginalAmount.Currency, false),
			checkCurrency(p+"originalAmount.currency", t.OriginalAmount.Currency, true))
	}
	return firstErr(append(errs,
		checkStatus(p+"bookingStatus", t.BookingStatus),
		checkDate(p+"transactionDate", t.TransactionDate),
		checkDate(p+"bookingDate", t.BookingDate),
		checkText(p+"transactionDetails", t.TransactionDetails, 0, maxDetails),
	)...)
}
