package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/servicecall"
	"github.com/tppkit/psd2/money"
)

// CardAccount is a card account the PSU consented to (GET
// /v1/card-accounts; the Berlin Group 1.3.9 cardAccountDetails schema).
// Members no field names are kept in Extra.
type CardAccount struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts);
	// zero for an element of a list, whose metadata the list's call has.
	client.Answer

	ResourceID string `json:"resourceId"`
	// MaskedPAN is the card number with the middle digits masked, e.g.
	// "552216******4810".
	MaskedPAN string `json:"maskedPan,omitempty"`
	Currency  string `json:"currency,omitempty"`
	OwnerName string `json:"ownerName,omitempty"`
	// DisplayName is the name the PSU gave the card account.
	DisplayName string `json:"displayName,omitempty"`
	// DebitAccounting is true when debits are reported as positive
	// amounts; nil when the bank does not say.
	DebitAccounting *bool  `json:"debitAccounting,omitempty"`
	Details         string `json:"details,omitempty"`
	// Name is at most 70 characters. Before the longer-names switch
	// (x-accept-fix longer-names, the default since 1 Oct 2024,
	// docs/interface.md section 9) the platform sent card account names
	// cut to a shorter length; a bank still on the old mapping may do so.
	Name    string `json:"name,omitempty"`
	Product string `json:"product,omitempty"`
	Status  string `json:"status,omitempty"`
	Usage   string `json:"usage,omitempty"`
	// CreditLimit is nil when absent.
	CreditLimit *money.Amount `json:"creditLimit,omitempty"`
	Balances    []Balance     `json:"balances,omitzero"`
	// RelatedAccount is the reference to use as
	// debtorAccount.other.identification when paying from this card
	// account (docs/interface.md section 2.3a), kept as sent; see
	// [CardAccount.RelatedAccountID].
	RelatedAccount json.RawMessage `json:"relatedAccount,omitempty"`
	Links          client.Links    `json:"_links,omitzero"`

	// Extra holds the members of the card account that no field names.
	Extra Extra `json:"-"`
}

// cardAcceptFixes are the x-accept-fix switches every card account call
// sends (docs/interface.md section 9): card account names of up to 70
// characters, and TransactionAmount as the billed amount with OriginalAmount in the
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
// switch (x-accept-fix, the default since 13 Nov 2024, docs/interface.md
// section 9):
// TransactionAmount is the amount billed on the card account in its
// currency, OriginalAmount the amount in the merchant's currency (for
// example -452.30 NOK and -39.90 EUR). Before the switch the platform
// mapped the two the other way round; a bank still on the old mapping, or
// a call that opts out of the switch, may send them swapped.
type CardTransaction struct {
	// Status says whether the entry came from the booked or the pending
	// list of its page. It is not a field of the bank's document.
	Status BookingStatus `json:"-"`

	// CardTransactionID is the bank's id of the entry. One with a
	// control character, bytes that are not UTF-8 or spaces around it is
	// set aside as a [Transaction.TransactionID] is: decoding leaves
	// CardTransactionID empty, keeps the bank's value in Extra (as
	// "cardTransactionId") and says why in CardTransactionIDErr.
	CardTransactionID string `json:"cardTransactionId,omitempty"`
	// CardTransactionIDErr is nil, or why the cardTransactionId the bank
	// sent was set aside: a [*client.MalformedValueError] that quotes
	// nothing of it.
	CardTransactionIDErr error  `json:"-"`
	TerminalID           string `json:"terminalId,omitempty"`
	// TransactionDate is the purchase date; BookingDate is zero for
	// pending entries.
	TransactionDate date.Date `json:"transactionDate,omitzero"`
	// AcceptorTransactionDateTime is the time of the purchase at the
	// merchant's terminal, as sent (ISO 8601 date-time).
	AcceptorTransactionDateTime string    `json:"acceptorTransactionDateTime,omitempty"`
	BookingDate                 date.Date `json:"bookingDate,omitzero"`
	ValueDate                   date.Date `json:"valueDate,omitzero"`
	// TransactionAmount is zero when the bank sent none (a pending entry
	// may have none).
	TransactionAmount money.Amount   `json:"transactionAmount"`
	CurrencyExchange  []ExchangeRate `json:"currencyExchange,omitzero"`
	OriginalAmount    *money.Amount  `json:"originalAmount,omitempty"`
	// MarkupFee is the currency markup fee; MarkupFeePercentage its rate
	// as sent.
	MarkupFee            *money.Amount `json:"markupFee,omitempty"`
	MarkupFeePercentage  string        `json:"markupFeePercentage,omitempty"`
	CardAcceptorID       string        `json:"cardAcceptorId,omitempty"`
	CardAcceptorAddress  *Address      `json:"cardAcceptorAddress,omitempty"`
	CardAcceptorPhone    string        `json:"cardAcceptorPhone,omitempty"`
	MerchantCategoryCode string        `json:"merchantCategoryCode,omitempty"`
	// MaskedPAN is the card's masked number (the Berlin Group spells the
	// member maskedPAN; both spellings are read).
	MaskedPAN          string `json:"maskedPan,omitempty"`
	TransactionDetails string `json:"transactionDetails,omitempty"`
	// Invoiced says whether the entry is on an invoice already; nil when
	// the bank does not say.
	Invoiced                       *bool  `json:"invoiced,omitempty"`
	ProprietaryBankTransactionCode string `json:"proprietaryBankTransactionCode,omitempty"`

	// Extra holds the members of the entry that no field names.
	Extra Extra `json:"-"`
}

// Address is a postal address in a bank document (the card acceptor's).
type Address struct {
	StreetName     string `json:"streetName,omitempty"`
	BuildingNumber string `json:"buildingNumber,omitempty"`
	TownName       string `json:"townName,omitempty"`
	PostCode       string `json:"postCode,omitempty"`
	Country        string `json:"country,omitempty"`
	// Extra holds the members of the address that no field names.
	Extra Extra `json:"-"`
}

type (
	cardAccountFields CardAccount
	cardAccountWire   struct {
		cardAccountFields
		CreditLimit *docAmount `json:"creditLimit,omitempty"`
	}
	cardTransactionFields CardTransaction
	cardTransactionWire   struct {
		cardTransactionFields
		TransactionAmount docAmount  `json:"transactionAmount,omitzero"`
		OriginalAmount    *docAmount `json:"originalAmount,omitempty"`
		MarkupFee         *docAmount `json:"markupFee,omitempty"`
	}
	addressFields Address
)

var (
	cardAccountNames     = namesOf[CardAccount]()
	cardTransactionNames = namesOf[CardTransaction]()
	addressNames         = namesOf[Address]()
)

// UnmarshalJSON decodes a card account, keeping the members no field
// names.
func (a *CardAccount) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w cardAccountWire
	extra, _, err := decodeObject(data, &w, cardAccountNames(), nil)
	if err != nil {
		return err
	}
	f := w.cardAccountFields
	f.CreditLimit = (*money.Amount)(w.CreditLimit)
	f.Extra = extra
	*a = CardAccount(f)
	return nil
}

// MarshalJSON writes the card account with its Extra members.
func (a CardAccount) MarshalJSON() ([]byte, error) {
	return encodeObject(cardAccountWire{cardAccountFields(a), (*docAmount)(a.CreditLimit)}, nil, a.Extra)
}

// UnmarshalJSON decodes a card transaction, keeping the members no field
// names. It keeps t.Status.
func (t *CardTransaction) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w cardTransactionWire
	extra, _, err := decodeObject(data, &w, cardTransactionNames(), nil)
	if err != nil {
		return err
	}
	f := w.cardTransactionFields
	f.Status = t.Status
	f.TransactionAmount = money.Amount(w.TransactionAmount)
	f.OriginalAmount = (*money.Amount)(w.OriginalAmount)
	f.MarkupFee = (*money.Amount)(w.MarkupFee)
	f.Extra = extra
	if f.CardTransactionIDErr, err = setAside("cardTransactionId", &f.CardTransactionID, &f.Extra); err != nil {
		return err
	}
	*t = CardTransaction(f)
	return nil
}

// MarshalJSON writes the card transaction with its Extra members; an
// absent amount stays absent.
func (t CardTransaction) MarshalJSON() ([]byte, error) {
	return encodeObject(cardTransactionWire{cardTransactionFields(t), docAmount(t.TransactionAmount),
		(*docAmount)(t.OriginalAmount), (*docAmount)(t.MarkupFee)}, nil, t.Extra)
}

// UnmarshalJSON decodes an address, keeping the members no field names.
func (a *Address) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var f addressFields
	extra, _, err := decodeObject(data, &f, addressNames(), nil)
	if err != nil {
		return err
	}
	f.Extra = extra
	*a = Address(f)
	return nil
}

// MarshalJSON writes the address with its Extra members.
func (a Address) MarshalJSON() ([]byte, error) {
	return encodeObject(addressFields(a), nil, a.Extra)
}

// CardAccounts returns the card accounts the PSU consented to (GET
// /v1/card-accounts). A PSU without cards gets an empty list; a bank
// without card support answers 404, returned as a
// [*CardAccountsNotSupportedError] ([ErrCardAccountsNotSupported]).
func (s *Service) CardAccounts(ctx context.Context, ro ...client.RequestOption) ([]CardAccount, error) {
	out, _, err := servicecall.Do[struct {
		CardAccounts []CardAccount `json:"cardAccounts"`
	}](ctx, s.client(), read(client.Operation{Name: "accounts.CardAccounts", Path: "/v1/card-accounts"}), cardOptions(ro))
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
	for i := range out.CardAccounts {
		if err := checkResourceID("accounts.CardAccounts", "cardAccounts", i, out.CardAccounts[i].ResourceID); err != nil {
			return nil, err
		}
	}
	return out.CardAccounts, nil
}

// CardAccount returns one card account (GET /v1/card-accounts/{id}). The
// answer may be wrapped as {"cardAccount": {...}} or bare.
func (s *Service) CardAccount(ctx context.Context, cardAccountID string, ro ...client.RequestOption) (*CardAccount, error) {
	const op = "accounts.CardAccount"
	out, _, err := servicecall.Do[wrapped[CardAccount, cardAccountKey]](ctx, s.client(), read(client.Operation{Name: op,
		Path: "/v1/card-accounts/{cardAccountId}", Params: map[string]string{"cardAccountId": cardAccountID}}), cardOptions(ro))
	if err != nil {
		return nil, err
	}
	if err := checkResourceID(op, "", -1, out.v.ResourceID); err != nil {
		return nil, err
	}
	out.v.Answer = out.Answer
	return &out.v, nil
}

// CardBalances returns a card account's balances (GET
// /v1/card-accounts/{id}/balances).
//
// Without the PSU present it counts against the card account's budget like
// [Service.Balances] (the package documentation says why card calls count).
func (s *Service) CardBalances(ctx context.Context, cardAccountID string, ro ...client.RequestOption) (*BalanceReport, error) {
	const op = "accounts.CardBalances"
	out, _, err := servicecall.Do[BalanceReport](ctx, s.client(), s.counted(client.Operation{Name: op,
		Path: "/v1/card-accounts/{cardAccountId}/balances", Params: map[string]string{"cardAccountId": cardAccountID}},
		budget.CardBalances, budget.Account(cardAccountID)), cardOptions(ro))
	return out, err
}
