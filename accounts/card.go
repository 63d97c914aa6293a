package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/money"
)

// CardAccount is a card account the PSU consented to (GET
// /v1/card-accounts, PLATFORM.md "JSON shapes").
type CardAccount struct {
	ResourceID string `json:"resourceId"`
	// MaskedPAN is the card number with the middle digits masked, e.g.
	// "552216******4810".
	MaskedPAN string `json:"maskedPan,omitempty"`
	Currency  string `json:"currency,omitempty"`
	// Name is at most 70 characters. Before the longer-names switch
	// (x-accept-fix longer-names, the default since 1 Oct 2024,
	// SERVICE.md 9) the platform sent card account names cut to a shorter
	// length; a bank still on the old mapping may do so.
	Name    string `json:"name,omitempty"`
	Product string `json:"product,omitempty"`
	Status  string `json:"status,omitempty"`
	Usage   string `json:"usage,omitempty"`
	// CreditLimit is nil when absent.
	CreditLimit *money.Amount `json:"creditLimit,omitempty"`
	Balances    []Balance     `json:"balances,omitempty"`
	// RelatedAccount is the reference to use as
	// debtorAccount.other.identification when paying from this card
	// account (SERVICE.md 2.3a), kept as sent; see
	// [CardAccount.RelatedAccountID].
	RelatedAccount json.RawMessage `json:"relatedAccount,omitempty"`
	Links          client.Links    `json:"_links,omitempty"`
}

// cardAcceptFixes are the x-accept-fix switches every card account call
// sends (SERVICE.md 9): card account names of up to 70 characters, and
// TransactionAmount as the billed amount with OriginalAmount in the
// merchant's currency. Both are the platform's default since autumn 2024;
// ASSUMPTION (the safe option): asking for them explicitly keeps the
// mapping documented on [CardAccount] and [CardTransaction] even on a bank
// that still runs the old one. This is the one place to change them.
var cardAcceptFixes = []client.AcceptFix{client.AcceptLongerNames, client.AcceptCardAccountSwitch}

// cardOptions puts the card switches before the caller's options.
func cardOptions(ro []client.RequestOption) []client.RequestOption {
	return append([]client.RequestOption{client.WithCallAcceptFix(cardAcceptFixes...)}, ro...)
}

// RelatedAccountID returns RelatedAccount when the bank sent it as a JSON
// string, else "" (absent, null, or another JSON type). It is the one
// value that identifies this card account as the debtor of a Norwegian
// domestic payment (docs/interface.md section 2.3a; its resourceId and
// masked PAN do not): pass it with the card's Currency to
// payments.CardDebtor, which builds the debtorAccount.
func (a *CardAccount) RelatedAccountID() string {
	var s string
	if a == nil || len(a.RelatedAccount) == 0 || json.Unmarshal(a.RelatedAccount, &s) != nil {
		return ""
	}
	return s
}

// CardTransaction is one entry of a card account's transactions.
//
// Amounts follow the cardaccount-switch-originalamount-and-transactionamount
// switch (x-accept-fix, the default since 13 Nov 2024, SERVICE.md 9):
// TransactionAmount is the amount billed on the card account in its
// currency, OriginalAmount the amount in the merchant's currency (for
// example -452.30 NOK and -39.90 EUR). Before the switch the platform
// mapped the two the other way round; a bank still on the old mapping, or
// a call that opts out of the switch, may send them swapped.
type CardTransaction struct {
	// Status says whether the entry came from the booked or the pending
	// list of its page. It is not a field of the bank's document.
	Status BookingStatus `json:"-"`

	CardTransactionID string `json:"cardTransactionId,omitempty"`
	// TransactionDate is the purchase date; BookingDate is zero for
	// pending entries.
	TransactionDate   Date          `json:"transactionDate,omitzero"`
	BookingDate       Date          `json:"bookingDate,omitzero"`
	ValueDate         Date          `json:"valueDate,omitzero"`
	TransactionAmount money.Amount  `json:"transactionAmount"`
	OriginalAmount    *money.Amount `json:"originalAmount,omitempty"`
	// Invoiced says whether the entry is on an invoice already; nil when
	// the bank does not say.
	Invoiced                       *bool  `json:"invoiced,omitempty"`
	TransactionDetails             string `json:"transactionDetails,omitempty"`
	MaskedPAN                      string `json:"maskedPan,omitempty"`
	MerchantCategoryCode           string `json:"merchantCategoryCode,omitempty"`
	CardAcceptorID                 string `json:"cardAcceptorId,omitempty"`
	ProprietaryBankTransactionCode string `json:"proprietaryBankTransactionCode,omitempty"`
}

// CardAccounts returns the card accounts the PSU consented to (GET
// /v1/card-accounts). A PSU without cards gets an empty list; a bank
// without card support answers 404, returned as a
// [*CardAccountsNotSupportedError] ([ErrCardAccountsNotSupported]).
func (s *Service) CardAccounts(ctx context.Context, ro ...client.RequestOption) ([]CardAccount, error) {
	var out struct {
		CardAccounts []CardAccount `json:"cardAccounts"`
	}
	err := s.get(ctx, "accounts.CardAccounts", "/v1/card-accounts", nil, &out, cardOptions(ro))
	var ce *client.Error
	if errors.As(err, &ce) && ce.StatusCode == http.StatusNotFound {
		return nil, &CardAccountsNotSupportedError{Err: ce}
	}
	if err != nil {
		return nil, err
	}
	if out.CardAccounts == nil {
		out.CardAccounts = []CardAccount{}
	}
	return out.CardAccounts, nil
}

// CardAccount returns one card account (GET /v1/card-accounts/{id}). The
// answer may be wrapped as {"cardAccount": {...}} or bare.
func (s *Service) CardAccount(ctx context.Context, cardAccountID string, ro ...client.RequestOption) (*CardAccount, error) {
	const op = "accounts.CardAccount"
	if cardAccountID == "" {
		return nil, errEmptyID(op)
	}
	out := wrapped[CardAccount]{key: "cardAccount"}
	if err := s.get(ctx, op, client.JoinPath("/v1/card-accounts", cardAccountID), nil, &out, cardOptions(ro)); err != nil {
		return nil, err
	}
	return &out.v, nil
}

// CardBalances returns a card account's balances (GET
// /v1/card-accounts/{id}/balances).
//
// Without the PSU present it counts against the card account's budget like
// [Service.Balances] (see [Budget] for why card calls count).
func (s *Service) CardBalances(ctx context.Context, cardAccountID string, ro ...client.RequestOption) (*BalanceReport, error) {
	const op = "accounts.CardBalances"
	if cardAccountID == "" {
		return nil, errEmptyID(op)
	}
	var out BalanceReport
	err := s.counted(ctx, op, EndpointCardBalances, cardAccountID, ro, func() error {
		return s.get(ctx, op, client.JoinPath("/v1/card-accounts", cardAccountID, "balances"), nil, &out, cardOptions(ro))
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}
