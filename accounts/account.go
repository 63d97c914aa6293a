package accounts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/shopspring/decimal"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
)

// CashAccountType is an account's cashAccountType. With the
// cash-account-type-iso switch (x-accept-fix, the default since 13 Nov
// 2024, docs/interface.md section 9) it is an ISO 20022 ExternalCashAccountType1Code such
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
// switch.
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

// Account is an account the PSU consented to (GET /v1/accounts; the
// Berlin Group 1.3.9 accountDetails schema and the sandbox's extras).
// Fields the bank does not send stay empty; members no field names are
// kept in Extra.
type Account struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts);
	// zero for an element of a list, whose metadata the list's call has.
	client.Answer

	// ResourceID identifies the account in later calls. It has the
	// platform's "enc!!<base64url>=" form; prefer the hrefs of Links.
	ResourceID string `json:"resourceId"`
	BBAN       string `json:"bban,omitempty"`
	IBAN       string `json:"iban,omitempty"`
	MSISDN     string `json:"msisdn,omitempty"`
	Currency   string `json:"currency,omitempty"`
	// Name is the bank's name of the account, DisplayName the name the
	// PSU gave it.
	Name            string          `json:"name,omitempty"`
	DisplayName     string          `json:"displayName,omitempty"`
	Product         string          `json:"product,omitempty"`
	CashAccountType CashAccountType `json:"cashAccountType,omitempty"`
	// Status is enabled, deleted or blocked; empty means enabled.
	Status string `json:"status,omitempty"`
	BIC    string `json:"bic,omitempty"`
	// LinkedAccounts names the accounts linked to this one (a card
	// account's), as sent.
	LinkedAccounts string `json:"linkedAccounts,omitempty"`
	// Usage is PRIV (private) or ORGA (professional).
	Usage   string `json:"usage,omitempty"`
	Details string `json:"details,omitempty"`
	// Balances are present when the accounts were listed with
	// ListOptions.WithBalance.
	Balances []Balance `json:"balances,omitzero"`
	// Links holds self, balances and transactions. The transactions href
	// already carries ?bookingStatus=both.
	Links     client.Links `json:"_links,omitzero"`
	OwnerName string       `json:"ownerName,omitempty"`

	// Sandbox extras: the sandbox's account lists also carry these.
	AccountName    string `json:"accountName,omitempty"`
	CustomerNumber string `json:"customerNumber,omitempty"`
	// CreditLine is the sandbox's numeric creditLine (a JSON number or
	// string), nil when absent.
	CreditLine *decimal.Decimal `json:"creditLine,omitempty"`

	// Extra holds the members of the account that no field names.
	Extra Extra `json:"-"`
}

// AccountReference identifies an account inside another document (the
// account of a balances or transactions answer, a transaction's creditor
// or debtor account, a card account's maskedPan): the Berlin Group
// accountReference.
type AccountReference struct {
	IBAN      string `json:"iban,omitempty"`
	BBAN      string `json:"bban,omitempty"`
	PAN       string `json:"pan,omitempty"`
	MaskedPAN string `json:"maskedPan,omitempty"`
	MSISDN    string `json:"msisdn,omitempty"`
	Currency  string `json:"currency,omitempty"`
	// OtherAccountIdentification is an identification of another scheme.
	OtherAccountIdentification string `json:"otherAccountIdentification,omitempty"`
	// Extra holds the members of the reference that no field names.
	Extra Extra `json:"-"`
}

type (
	accountFields          Account
	accountReferenceFields AccountReference
)

var (
	accountNames          = namesOf[Account]()
	accountReferenceNames = namesOf[AccountReference]()
)

// UnmarshalJSON decodes an account, keeping the members no field names.
// A creditLine that is not a readable number is kept in Extra.
func (a *Account) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var f accountFields
	extra, _, err := decodeObject(data, &f, accountNames(), nil)
	if err != nil {
		return err
	}
	if f.CreditLine != nil && !printable(*f.CreditLine) {
		// Kept as sent: printing it in full would take too long.
		f.CreditLine = nil
		extra = append(extra, Member{Name: "creditLine", Value: lastMember(data, "creditLine")})
	}
	f.Extra = extra
	*a = Account(f)
	return nil
}

// MarshalJSON writes the account with its Extra members.
func (a Account) MarshalJSON() ([]byte, error) {
	return encodeObject(accountFields(a), nil, a.Extra)
}

// printable reports whether v's exponent allows printing it in full.
func printable(v decimal.Decimal) bool {
	e := v.Exponent()
	return e >= -maxPrintExponent && e <= maxPrintExponent
}

// UnmarshalJSON decodes a reference, keeping the members no field names.
func (r *AccountReference) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var f accountReferenceFields
	extra, _, err := decodeObject(data, &f, accountReferenceNames(), nil)
	if err != nil {
		return err
	}
	f.Extra = extra
	*r = AccountReference(f)
	return nil
}

// MarshalJSON writes the reference with its Extra members.
func (r AccountReference) MarshalJSON() ([]byte, error) {
	return encodeObject(accountReferenceFields(r), nil, r.Extra)
}

// ListOptions are the query of [Service.List].
type ListOptions struct {
	// WithBalance asks for each account's balances in the list
	// (withBalance=true).
	WithBalance bool
}

// List returns the accounts the PSU consented to (GET /v1/accounts). The
// platform lists accounts only within the hour after SCA; the first call without a session answers 401 with a
// scaRedirect ([client.ErrSCARequired]). An answer holding a resourceId
// that no later call's path could carry is refused with a
// [*client.MalformedValueError] (over-long: a [*client.ValueTooLongError])
// naming its place in the list and quoting nothing of it; Get,
// CardAccounts and CardAccount refuse one so too.
func (s *Service) List(ctx context.Context, opts *ListOptions, ro ...client.RequestOption) ([]Account, error) {
	var q url.Values
	if opts != nil && opts.WithBalance {
		q = url.Values{"withBalance": {"true"}}
	}
	out, _, err := servicecall.Do[struct {
		Accounts []Account `json:"accounts"`
	}](ctx, s.client(), read(client.Operation{Name: "accounts.List", Path: "/v1/accounts", Query: q}), ro)
	if err != nil {
		return nil, err
	}
	for i := range out.Accounts {
		if err := checkResourceID("accounts.List", "accounts", i, out.Accounts[i].ResourceID); err != nil {
			return nil, err
		}
	}
	return out.Accounts, nil
}

// Get returns one account (GET /v1/accounts/{id}).
func (s *Service) Get(ctx context.Context, accountID string, ro ...client.RequestOption) (*Account, error) {
	out, _, err := servicecall.Do[wrapped[Account, accountKey]](ctx, s.client(), read(client.Operation{Name: "accounts.Get",
		Path: "/v1/accounts/{accountId}", Params: map[string]string{"accountId": accountID}}), ro)
	if err != nil {
		return nil, err
	}
	if err := checkResourceID("accounts.Get", "", -1, out.v.ResourceID); err != nil {
		return nil, err
	}
	out.v.Answer = out.Answer
	return &out.v, nil
}

// checkResourceID checks the resourceId of an account or card account of
// the bank's answer with client.CheckID, when the answer names one: the
// id of the i-th element of the list named list, or of the one resource
// the answer is when i is negative. It is the id every later call puts
// in its path (balances, transactions, the next links), the one
// txsync.Link keeps a key under and refresh.Remember stores in the
// session. An over-long one is a *client.ValueTooLongError, one that no
// path could carry (a control character, a terminal escape, bytes that
// are not UTF-8, spaces around it, a dot segment) a
// *client.MalformedValueError; neither quotes the id. Such an id was
// handed to the caller as the bank's: printed or stored by the TPP, and
// refused only by the call that put it in a path, or, in a listing, by
// sca.Session.WithAccounts after the listing was paid for. The whole
// answer is refused, as a basket answer with such a payment id is: the
// SDK cannot tell which account the bank meant, nor whether the other
// ids of that answer are the bank's.
//
// An answer without a resourceId is left as it was (the interface
// requires one; refresh.Remember passes over such an account and
// txsync.Link refuses it).
func checkResourceID(op, list string, i int, id string) error {
	if id == "" {
		return nil
	}
	field := "resourceId"
	if i >= 0 {
		field = list + "[" + strconv.Itoa(i) + "].resourceId"
	}
	if err := client.CheckID(field, id); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// wrapped decodes a single resource either wrapped in an object under key
// ({"account": {...}}, the Berlin Group shape) or
// bare, since no recording of the platform's answer exists.
type wrapped[T any, K wrapKey] struct {
	client.Answer // the metadata, moved to v by the caller
	v             T
}

// wrapKey names the member a wrapped resource may be under.
type wrapKey interface{ key() string }

// accountKey and cardAccountKey are the members of an account and of a
// card account.
type (
	accountKey     struct{}
	cardAccountKey struct{}
)

func (accountKey) key() string     { return "account" }
func (cardAccountKey) key() string { return "cardAccount" }

func (w *wrapped[T, K]) UnmarshalJSON(data []byte) error {
	var k K
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	if inner, ok := probe[k.key()]; ok && len(bytes.TrimSpace(inner)) > 0 && bytes.TrimSpace(inner)[0] == '{' {
		return json.Unmarshal(inner, &w.v)
	}
	return json.Unmarshal(data, &w.v)
}
