package accounts

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"

	"github.com/shopspring/decimal"
	"github.com/tppkit/psd2/client"
)

// CashAccountType is an account's cashAccountType. With the
// cash-account-type-iso switch (x-accept-fix, the default since 13 Nov
// 2024, SERVICE.md 9) it is an ISO 20022 ExternalCashAccountType1Code such
// as CACC; banks on the older mapping send the legacy values (Current,
// Savings, Commission, TransactingAccount). Any other value is kept as
// sent.
type CashAccountType string

// ISO 20022 cash account types seen on the platform.
const (
	CashAccountCurrent     CashAccountType = "CACC" // current account
	CashAccountSavings     CashAccountType = "SVGS" // savings account
	CashAccountTax         CashAccountType = "TAXE" // tax withholding account
	CashAccountLoan        CashAccountType = "LOAN"
	CashAccountCard        CashAccountType = "CARD"
	CashAccountTransacting CashAccountType = "TRAN"
	CashAccountSalary      CashAccountType = "SLRY"
	CashAccountOther       CashAccountType = "OTHR"
	CashAccountCommission  CashAccountType = "COMM"
)

// Legacy cashAccountType values sent without the cash-account-type-iso
// switch (PLATFORM.md "JSON shapes").
const (
	CashAccountLegacyCurrent     CashAccountType = "Current"
	CashAccountLegacySavings     CashAccountType = "Savings"
	CashAccountLegacyCommission  CashAccountType = "Commission"
	CashAccountLegacyTransacting CashAccountType = "TransactingAccount"
)

// IsLegacy reports whether t is one of the values of the platform's
// mapping before the cash-account-type-iso switch.
func (t CashAccountType) IsLegacy() bool {
	switch t {
	case CashAccountLegacyCurrent, CashAccountLegacySavings, CashAccountLegacyCommission, CashAccountLegacyTransacting:
		return true
	}
	return false
}

// Account is an account the PSU consented to (GET /v1/accounts,
// PLATFORM.md "JSON shapes"). Fields the bank does not send stay empty.
type Account struct {
	// ResourceID identifies the account in later calls. It has the
	// platform's "enc!!<base64url>=" form; prefer the hrefs of Links.
	ResourceID      string          `json:"resourceId"`
	BBAN            string          `json:"bban,omitempty"`
	IBAN            string          `json:"iban,omitempty"`
	Currency        string          `json:"currency,omitempty"`
	Name            string          `json:"name,omitempty"`
	Product         string          `json:"product,omitempty"`
	CashAccountType CashAccountType `json:"cashAccountType,omitempty"`
	BIC             string          `json:"bic,omitempty"`
	Status          string          `json:"status,omitempty"`
	OwnerName       string          `json:"ownerName,omitempty"`
	// Balances are present when the accounts were listed with
	// ListOptions.WithBalance.
	Balances []Balance `json:"balances,omitempty"`
	// Links holds self, balances and transactions. The transactions href
	// already carries ?bookingStatus=both.
	Links client.Links `json:"_links,omitempty"`

	// Sandbox extras (PLATFORM.md): the sandbox's account lists also
	// carry these.
	AccountName    string `json:"accountName,omitempty"`
	CustomerNumber string `json:"customerNumber,omitempty"`
	// CreditLine is the sandbox's numeric creditLine (a JSON number or
	// string), nil when absent.
	CreditLine *decimal.Decimal `json:"creditLine,omitempty"`
}

// AccountReference identifies an account inside another document (the
// account of a balances or transactions answer, a transaction's creditor
// or debtor account, a card account's maskedPan).
type AccountReference struct {
	IBAN      string `json:"iban,omitempty"`
	BBAN      string `json:"bban,omitempty"`
	PAN       string `json:"pan,omitempty"`
	MaskedPAN string `json:"maskedPan,omitempty"`
	Currency  string `json:"currency,omitempty"`
}

// ListOptions are the query of [Service.List].
type ListOptions struct {
	// WithBalance asks for each account's balances in the list
	// (withBalance=true).
	WithBalance bool
}

// List returns the accounts the PSU consented to (GET /v1/accounts). The
// platform lists accounts only within the hour after SCA (PLATFORM.md
// "Session model"); the first call without a session answers 401 with a
// scaRedirect ([client.ErrSCARequired]).
func (s *Service) List(ctx context.Context, opts *ListOptions, ro ...client.RequestOption) ([]Account, error) {
	var q url.Values
	if opts != nil && opts.WithBalance {
		q = url.Values{"withBalance": {"true"}}
	}
	var out struct {
		Accounts []Account `json:"accounts"`
	}
	if err := s.get(ctx, "accounts.List", "/v1/accounts", q, &out, ro); err != nil {
		return nil, err
	}
	return out.Accounts, nil
}

// Get returns one account (GET /v1/accounts/{id}).
func (s *Service) Get(ctx context.Context, accountID string, ro ...client.RequestOption) (*Account, error) {
	if accountID == "" {
		return nil, errEmptyID("accounts.Get")
	}
	var out wrapped[Account]
	out.key = "account"
	if err := s.get(ctx, "accounts.Get", client.JoinPath("/v1/accounts", accountID), nil, &out, ro); err != nil {
		return nil, err
	}
	return &out.v, nil
}

// wrapped decodes a single resource either wrapped in an object under key
// ({"account": {...}}, the Berlin Group shape assumed by PLATFORM.md) or
// bare, since no recording of the platform's answer exists.
type wrapped[T any] struct {
	key string
	v   T
}

func (w *wrapped[T]) UnmarshalJSON(data []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	if inner, ok := probe[w.key]; ok && len(bytes.TrimSpace(inner)) > 0 && bytes.TrimSpace(inner)[0] == '{' {
		return json.Unmarshal(inner, &w.v)
	}
	return json.Unmarshal(data, &w.v)
}
