package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/shopspring/decimal"
	"github.com/tppkit/psd2/client"
)

// The mock-data bodies below follow the platform's public seeding scripts
// (PLATFORM.md "EVRY"): amounts are JSON numbers there, not strings.

// Amount is an amount with its currency in mock data: {"amount": 100.5,
// "currency": "NOK"}, the amount a JSON number.
type Amount struct {
	Amount   json.Number `json:"amount"`
	Currency string      `json:"currency"`
}

// Balance is a balance of a mock account: balanceType (for example
// EXPECTED) and balanceAmount.
type Balance struct {
	BalanceType        string `json:"balanceType"`
	BalanceAmount      Amount `json:"balanceAmount"`
	ReferenceDate      string `json:"referenceDate,omitempty"`
	LastChangeDateTime string `json:"lastChangeDateTime,omitempty"`
}

// AccountRef references an account by IBAN and/or BBAN.
type AccountRef struct {
	IBAN string `json:"iban,omitempty"`
	BBAN string `json:"bban,omitempty"`
}

// NewAccount is the body of POST /v1/sandbox/accounts: a mock account of
// the customer CustomerNumber.
type NewAccount struct {
	CustomerNumber  string      `json:"customerNumber"`
	AccountName     string      `json:"accountName"`
	BBAN            string      `json:"bban"`
	IBAN            string      `json:"iban,omitempty"`
	Currency        string      `json:"currency"`
	Product         string      `json:"product,omitempty"`
	CashAccountType string      `json:"cashAccountType,omitempty"`
	CreditLine      json.Number `json:"creditLine,omitempty"`
	Balances        []Balance   `json:"balances,omitempty"`
}

// Account is the sandbox's answer to POST /v1/sandbox/accounts. Fields the
// sandbox does not send stay empty.
type Account struct {
	ResourceID      string       `json:"resourceId"`
	CustomerNumber  string       `json:"customerNumber,omitempty"`
	AccountName     string       `json:"accountName,omitempty"`
	Name            string       `json:"name,omitempty"`
	BBAN            string       `json:"bban,omitempty"`
	IBAN            string       `json:"iban,omitempty"`
	Currency        string       `json:"currency,omitempty"`
	Product         string       `json:"product,omitempty"`
	CashAccountType string       `json:"cashAccountType,omitempty"`
	CreditLine      json.Number  `json:"creditLine,omitempty"`
	Links           client.Links `json:"_links,omitempty"`
}

// CreateAccount creates a mock account with POST /v1/sandbox/accounts.
func (s *Service) CreateAccount(ctx context.Context, a *NewAccount, opts ...client.RequestOption) (*Account, error) {
	if a == nil || a.CustomerNumber == "" || a.BBAN == "" || a.Currency == "" {
		return nil, errors.New("sandbox: a new account needs customerNumber, bban and currency")
	}
	if err := checkNumber("creditLine", a.CreditLine, true); err != nil {
		return nil, err
	}
	for i, b := range a.Balances {
		if err := checkNumber(fmt.Sprintf("balances[%d].balanceAmount.amount", i), b.BalanceAmount.Amount, false); err != nil {
			return nil, err
		}
	}
	var out Account
	op := client.Operation{Name: "sandbox.CreateAccount", Method: http.MethodPost, Path: accountsPath, Body: a}
	if err := s.do(ctx, op, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// NewCardAccount is the body of POST /v1/sandbox/card-accounts.
type NewCardAccount struct {
	CustomerNumber string    `json:"customerNumber"`
	MaskedPan      string    `json:"maskedPan"`
	Currency       string    `json:"currency"`
	Name           string    `json:"name,omitempty"`
	Product        string    `json:"product,omitempty"`
	Status         string    `json:"status,omitempty"`
	CreditLimit    *Amount   `json:"creditLimit,omitempty"`
	Balances       []Balance `json:"balances,omitempty"`
	AccountNumber  string    `json:"accountNumber,omitempty"`
	Expiry         string    `json:"expiry,omitempty"`
}

// CardAccount is the sandbox's answer to POST /v1/sandbox/card-accounts.
type CardAccount struct {
	ResourceID     string       `json:"resourceId"`
	CustomerNumber string       `json:"customerNumber,omitempty"`
	MaskedPan      string       `json:"maskedPan,omitempty"`
	Currency       string       `json:"currency,omitempty"`
	Name           string       `json:"name,omitempty"`
	Product        string       `json:"product,omitempty"`
	Links          client.Links `json:"_links,omitempty"`
}

// CreateCardAccount creates a mock card account with POST
// /v1/sandbox/card-accounts.
func (s *Service) CreateCardAccount(ctx context.Context, a *NewCardAccount, opts ...client.RequestOption) (*CardAccount, error) {
	if a == nil || a.CustomerNumber == "" || a.MaskedPan == "" || a.Currency == "" {
		return nil, errors.New("sandbox: a new card account needs customerNumber, maskedPan and currency")
	}
	if a.CreditLimit != nil {
		if err := checkNumber("creditLimit.amount", a.CreditLimit.Amount, false); err != nil {
			return nil, err
		}
	}
	var out CardAccount
	op := client.Operation{Name: "sandbox.CreateCardAccount", Method: http.MethodPost, Path: cardAccountsPath, Body: a}
	if err := s.do(ctx, op, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// Transaction is one mock transaction for POST
// /v1/sandbox/accounts/{id}/transactions. Amount is signed as seen from
// the account (negative: a debit). Dates are YYYY-MM-DD.
type Transaction struct {
	Amount                            json.Number `json:"amount"`
	Currency                          string      `json:"currency"`
	BookingDate                       string      `json:"bookingDate,omitempty"`
	ValueDate                         string      `json:"valueDate,omitempty"`
	RemittanceInformationUnstructured string      `json:"remittanceInformationUnstructured,omitempty"`
	CreditorID                        string      `json:"creditorId,omitempty"`
	CreditorName                      string      `json:"creditorName,omitempty"`
	CreditorAccount                   *AccountRef `json:"creditorAccount,omitempty"`
	UltimateCreditor                  string      `json:"ultimateCreditor,omitempty"`
	DebtorName                        string      `json:"debtorName,omitempty"`
	DebtorAccount                     *AccountRef `json:"debtorAccount,omitempty"`
	UltimateDebtor                    string      `json:"ultimateDebtor,omitempty"`
	PurposeCode                       string      `json:"purposeCode,omitempty"`
	BankTransactionCode               string      `json:"bankTransactionCode,omitempty"`
}

// CreateTransactions adds mock transactions to the mock account accountID
// with POST /v1/sandbox/accounts/{id}/transactions (a JSON array). An
// account that has another account as debtor yields an error from the
// sandbox (SERVICE.md 4.5).
func (s *Service) CreateTransactions(ctx context.Context, accountID string, txs []Transaction, opts ...client.RequestOption) error {
	if accountID == "" || len(txs) == 0 {
		return errors.New("sandbox: CreateTransactions needs an account id and transactions")
	}
	for i, t := range txs {
		if err := checkNumber(fmt.Sprintf("[%d].amount", i), t.Amount, false); err != nil {
			return err
		}
		if t.Currency == "" {
			return fmt.Errorf("sandbox: [%d].currency is empty", i)
		}
		if err := checkDates(i, t.BookingDate, t.ValueDate); err != nil {
			return err
		}
	}
	op := client.Operation{Name: "sandbox.CreateTransactions", Method: http.MethodPost,
		Path: client.JoinPath(accountsPath, accountID, "transactions"), Body: txs}
	return s.do(ctx, op, nil, opts)
}

// CardTransaction is one mock card transaction for POST
// /v1/sandbox/card-accounts/{id}/transactions. Dates are YYYY-MM-DD.
type CardTransaction struct {
	CardTransactionID              string  `json:"cardTransactionId,omitempty"`
	TerminalID                     string  `json:"terminalId,omitempty"`
	BookingDate                    string  `json:"bookingDate,omitempty"`
	TransactionDate                string  `json:"transactionDate,omitempty"`
	TransactionAmount              Amount  `json:"transactionAmount"`
	OriginalAmount                 *Amount `json:"originalAmount,omitempty"`
	MerchantCategoryCode           string  `json:"merchantCategoryCode,omitempty"`
	MarkupFee                      *Amount `json:"markupFee,omitempty"`
	MarkupFeePercentage            string  `json:"markupFeePercentage,omitempty"`
	CardAcceptorID                 string  `json:"cardAcceptorId,omitempty"`
	MaskedPan                      string  `json:"maskedPan,omitempty"`
	TransactionDetails             string  `json:"transactionDetails,omitempty"`
	Invoiced                       string  `json:"invoiced,omitempty"`
	ProprietaryBankTransactionCode string  `json:"proprietaryBankTransactionCode,omitempty"`
}

// CreateCardTransactions adds mock transactions to the mock card account
// cardAccountID with POST /v1/sandbox/card-accounts/{id}/transactions.
func (s *Service) CreateCardTransactions(ctx context.Context, cardAccountID string, txs []CardTransaction, opts ...client.RequestOption) error {
	if cardAccountID == "" || len(txs) == 0 {
		return errors.New("sandbox: CreateCardTransactions needs a card account id and transactions")
	}
	for i, t := range txs {
		if err := checkNumber(fmt.Sprintf("[%d].transactionAmount.amount", i), t.TransactionAmount.Amount, false); err != nil {
			return err
		}
		if err := checkDates(i, t.BookingDate, t.TransactionDate); err != nil {
			return err
		}
	}
	op := client.Operation{Name: "sandbox.CreateCardTransactions", Method: http.MethodPost,
		Path: client.JoinPath(cardAccountsPath, cardAccountID, "transactions"), Body: txs}
	return s.do(ctx, op, nil, opts)
}

// checkNumber refuses a value that is not a decimal number (json.Number
// would otherwise fail only when the body is encoded).
func checkNumber(field string, n json.Number, optional bool) error {
	if n == "" {
		if optional {
			return nil
		}
		return fmt.Errorf("sandbox: %s is empty", field)
	}
	if _, err := decimal.NewFromString(string(n)); err != nil || !json.Valid([]byte(n)) {
		return fmt.Errorf("sandbox: %s is not a number", field)
	}
	return nil
}

func checkDates(i int, dates ...string) error {
	for _, d := range dates {
		if d == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, d); err != nil {
			return fmt.Errorf("sandbox: [%d] date %q is not YYYY-MM-DD", i, d)
		}
	}
	return nil
}
