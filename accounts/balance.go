package accounts

import (
	"context"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/servicecall"
	"github.com/tppkit/psd2/money"
)

// BalanceType is a balance's balanceType. A
// value not among the constants (the sandbox sends "authorised" in account
// lists) is kept as sent.
type BalanceType string

// Balance types of the platform.
const (
	BalanceClosingBooked    BalanceType = "closingBooked"
	BalanceExpected         BalanceType = "expected"
	BalanceOpeningBooked    BalanceType = "openingBooked"
	BalanceInterimAvailable BalanceType = "interimAvailable"
	// BalanceInterimBooked is also sent for card accounts since release
	// 1.23.7 (docs/interface.md section 9).
	BalanceInterimBooked    BalanceType = "interimBooked"
	BalanceForwardAvailable BalanceType = "forwardAvailable"
	BalanceNonInvoiced      BalanceType = "nonInvoiced"
)

// Known reports whether t is one of the balance types above.
func (t BalanceType) Known() bool {
	switch t {
	case BalanceClosingBooked, BalanceExpected, BalanceOpeningBooked, BalanceInterimAvailable,
		BalanceInterimBooked, BalanceForwardAvailable, BalanceNonInvoiced:
		return true
	}
	return false
}

// Balance is one balance of an account or card account (the Berlin
// Group 1.3.9 balance schema; members it does not name are kept in Extra).
type Balance struct {
	// BalanceAmount is zero when the bank sent none.
	BalanceAmount money.Amount `json:"balanceAmount"`
	BalanceType   BalanceType  `json:"balanceType"`
	// CreditLimitIncluded is nil when the bank does not say.
	CreditLimitIncluded *bool     `json:"creditLimitIncluded,omitempty"`
	ReferenceDate       date.Date `json:"referenceDate,omitzero"`
	LastChangeDateTime  string    `json:"lastChangeDateTime,omitempty"`
	// LastCommittedTransaction is the entryReference of the last entry
	// the balance includes, to tell whether every entry is known.
	LastCommittedTransaction string `json:"lastCommittedTransaction,omitempty"`
	// Extra holds the members of the balance that no field names.
	Extra Extra `json:"-"`
}

// BalanceReport is the answer of [Service.Balances] and
// [Service.CardBalances]: the account (or card account) reference and its
// balances.
type BalanceReport struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	// Account is set for an account's balances (bban, iban, currency).
	Account *AccountReference `json:"account,omitempty"`
	// CardAccount is set for a card account's balances (maskedPan).
	CardAccount *AccountReference `json:"cardAccount,omitempty"`
	// DebitAccounting, in a card account's answer, is true when debits
	// are positive amounts; nil when the bank does not say.
	DebitAccounting *bool        `json:"debitAccounting,omitempty"`
	Balances        []Balance    `json:"balances"`
	Links           client.Links `json:"_links,omitzero"`
	// Extra holds the members of the answer that no field names.
	Extra Extra `json:"-"`
}

type (
	balanceFields Balance
	balanceWire   struct {
		balanceFields
		BalanceAmount docAmount `json:"balanceAmount,omitzero"`
	}
	balanceReportFields BalanceReport
)

var (
	balanceNames       = namesOf[Balance]()
	balanceReportNames = namesOf[BalanceReport]()
)

// UnmarshalJSON decodes a balance, keeping the members no field names.
func (b *Balance) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w balanceWire
	extra, _, err := decodeObject(data, &w, balanceNames(), nil)
	if err != nil {
		return err
	}
	f := w.balanceFields
	f.BalanceAmount = money.Amount(w.BalanceAmount)
	f.Extra = extra
	*b = Balance(f)
	return nil
}

// MarshalJSON writes the balance with its Extra members.
func (b Balance) MarshalJSON() ([]byte, error) {
	return encodeObject(balanceWire{balanceFields(b), docAmount(b.BalanceAmount)}, nil, b.Extra)
}

// UnmarshalJSON decodes a balances answer, keeping the members no field
// names.
func (r *BalanceReport) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var f balanceReportFields
	extra, _, err := decodeObject(data, &f, balanceReportNames(), nil)
	if err != nil {
		return err
	}
	f.Extra = extra
	*r = BalanceReport(f)
	return nil
}

// MarshalJSON writes the answer with its Extra members.
func (r BalanceReport) MarshalJSON() ([]byte, error) {
	return encodeObject(balanceReportFields(r), nil, r.Extra)
}

// Find returns the first balance of type t and whether there is one.
func (r *BalanceReport) Find(t BalanceType) (Balance, bool) {
	if r == nil {
		return Balance{}, false
	}
	for _, b := range r.Balances {
		if b.BalanceType == t {
			return b, true
		}
	}
	return Balance{}, false
}

// Balances returns an account's balances (GET /v1/accounts/{id}/balances).
//
// Without the PSU present (no PSU-IP-Address in ro) the call counts
// against the account's budget of 4 balances calls per 24 hours
// (docs/interface.md section 8) and is refused with a *budget.ExhaustedError before it
// is sent when the budget is spent.
func (s *Service) Balances(ctx context.Context, accountID string, ro ...client.RequestOption) (*BalanceReport, error) {
	const op = "accounts.Balances"
	out, _, err := servicecall.Do[BalanceReport](ctx, s.client(), s.counted(client.Operation{Name: op,
		Path: "/v1/accounts/{accountId}/balances", Params: map[string]string{"accountId": accountID}},
		budget.Balances, budget.Account(accountID)), ro)
	return out, err
}
