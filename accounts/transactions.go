package accounts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/servicecall"
)

// BookingStatus selects which entries a transactions call returns
// (bookingStatus query, docs/interface.md sections 4.5 and 2.9), and tells of each entry
// whether it was booked or pending.
type BookingStatus string

// Booking statuses.
const (
	BookingBooked  BookingStatus = "booked"
	BookingPending BookingStatus = "pending"
	BookingBoth    BookingStatus = "both"
	// BookingAll is named in the platform's release notes; its meaning
	// beyond "both" is not shown.
	BookingAll BookingStatus = "all"
	// BookingInformation marks the entries of a page's Information list
	// (standing orders, Berlin Group "information"). It is an entry's
	// status only, not a query value.
	BookingInformation BookingStatus = "information"
)

// TransactionQuery is the query of a transactions call. The zero query
// asks for both booked and pending entries with the bank's defaults.
//
// Known issue (docs/interface.md section 8): on the production platform, with
// BookingBoth or BookingPending, DateFrom, DateTo and Limit do not filter
// pending entries: every answer carries all of them (the sandbox and card
// accounts are unaffected). [Service.TransactionsIter] yields such a
// repeated pending list only once; a caller reading pages itself sees it
// on every page. Ask for BookingBooked to page through booked entries
// only.
type TransactionQuery struct {
	// BookingStatus defaults to BookingBoth.
	BookingStatus BookingStatus
	// DateFrom and DateTo bound the booking dates; zero means not sent.
	// Without the PSU present only [HistoryWithoutPSU] (90 days) of
	// history is available (docs/interface.md section 8).
	DateFrom, DateTo date.Date
	// Limit is the page size; 0 leaves it to the bank.
	Limit int
	// Offset skips entries; 0 is not sent.
	Offset int
}

// values checks q and returns it as a query.
func (q *TransactionQuery) values() (url.Values, error) {
	v := url.Values{"bookingStatus": {string(BookingBoth)}}
	if q == nil {
		return v, nil
	}
	if q.BookingStatus != "" {
		if err := checkBookingStatus(q.BookingStatus); err != nil {
			return nil, err
		}
		v.Set("bookingStatus", string(q.BookingStatus))
	}
	for _, d := range []struct {
		name string
		d    date.Date
	}{{"dateFrom", q.DateFrom}, {"dateTo", q.DateTo}} {
		if d.d.IsZero() {
			continue
		}
		if p, err := date.Parse(d.d.String()); err != nil || p != d.d {
			return nil, invalid(d.name, "not a calendar date")
		}
		v.Set(d.name, d.d.String())
	}
	if !q.DateFrom.IsZero() && !q.DateTo.IsZero() && q.DateTo.Before(q.DateFrom) {
		return nil, invalid("dateTo", "before dateFrom")
	}
	if q.Limit < 0 {
		return nil, invalid("limit", "negative")
	}
	if q.Offset < 0 {
		return nil, invalid("offset", "negative")
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Offset > 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	return v, nil
}

// checkBookingStatus refuses a bookingStatus that is not booked,
// pending, both or all (docs/interface.md section 2.9), in a
// [TransactionQuery] or in a link's query (checkLinkQuery).
func checkBookingStatus(s BookingStatus) error {
	switch s {
	case BookingBooked, BookingPending, BookingBoth, BookingAll:
		return nil
	}
	return invalid("bookingStatus", fmt.Sprintf("%q is not booked, pending, both or all", clip(string(s))))
}

// TransactionsPage is one answer of GET /v1/accounts/{id}/transactions.
// It encodes back to the bank's shape: decoding a page, encoding it and
// decoding the result gives the same page.
type TransactionsPage struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	// Account is the account reference of the answer (bban and iban;
	// the platform sends no currency here).
	Account AccountReference
	// Booked and Pending are the entries of this page. Known issue
	// (docs/interface.md section 8): with BookingBoth or BookingPending,
	// Pending holds all pending entries, unfiltered by date and limit, on
	// every page.
	Booked, Pending []Transaction
	// Information holds the entries of the Berlin Group information list
	// (standing orders) when the bank sends one; their Status is
	// BookingInformation.
	Information []Transaction
	// Links are the transactions' _links: self and, when there are more
	// entries, next.
	Links client.Links
	// Balances are the balances some banks add to the answer; nil when
	// absent.
	Balances []Balance
	// Extra holds the members of the answer that no field names (a
	// download link, a later version's additions); ReportExtra those of
	// its transactions object. A pending list that is not a list of
	// entries is kept in ReportExtra.
	Extra, ReportExtra Extra

	pendingSum [sha256.Size]byte // digest of the pending list as sent
}

// Next returns the href of the next page, or "" on the last page. Keep it
// to read the next page later with [Service.NextTransactions] (or
// [Service.TransactionsAt]).
func (p *TransactionsPage) Next() string { return p.Links.Href(client.LinkNext) }

// accountReport is the transactions object of an answer, as decoded.
type accountReport struct {
	Booked      []Transaction   `json:"booked,omitzero"`
	Pending     json.RawMessage `json:"pending,omitempty"`
	Information []Transaction   `json:"information,omitzero"`
	Links       client.Links    `json:"_links,omitzero"`
	extra       Extra
}

// transactionsAnswer is a transactions answer, as decoded.
type transactionsAnswer struct {
	Account      AccountReference `json:"account,omitzero"`
	Transactions accountReport    `json:"transactions,omitzero"`
	Balances     []Balance        `json:"balances,omitzero"`
}

// cardReport is the cardTransactions object of an answer, as decoded.
type cardReport struct {
	Booked  []CardTransaction `json:"booked,omitzero"`
	Pending json.RawMessage   `json:"pending,omitempty"`
	Links   client.Links      `json:"_links,omitzero"`
	extra   Extra
}

// cardTransactionsAnswer is a card transactions answer, as decoded.
type cardTransactionsAnswer struct {
	CardAccount      AccountReference `json:"cardAccount,omitzero"`
	DebitAccounting  *bool            `json:"debitAccounting,omitempty"`
	CardTransactions cardReport       `json:"cardTransactions,omitzero"`
	Balances         []Balance        `json:"balances,omitzero"`
}

type (
	accountReportFields accountReport
	cardReportFields    cardReport
)

var (
	accountReportNames          = namesOf[accountReport]()
	transactionsAnswerNames     = namesOf[transactionsAnswer]()
	cardReportNames             = namesOf[cardReport]()
	cardTransactionsAnswerNames = namesOf[cardTransactionsAnswer]()
)

func (r *accountReport) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var f accountReportFields
	extra, _, err := decodeObject(data, &f, accountReportNames(), nil)
	if err != nil {
		return err
	}
	f.extra = extra
	*r = accountReport(f)
	return nil
}

func (r *cardReport) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var f cardReportFields
	extra, _, err := decodeObject(data, &f, cardReportNames(), nil)
	if err != nil {
		return err
	}
	f.extra = extra
	*r = cardReport(f)
	return nil
}

// decodePending decodes a report's pending list; one that is not a list
// of entries is moved to extra.
func decodePending[T any](raw json.RawMessage, extra *Extra) ([]T, [sha256.Size]byte) {
	var pending []T
	sum, err := decodeList(raw, &pending)
	if err != nil {
		*extra = append(*extra, Member{Name: "pending", Value: normalJSON(raw)})
		return nil, [sha256.Size]byte{}
	}
	return pending, sum
}

// UnmarshalJSON decodes {"account": ..., "transactions": {"booked": [...],
// "pending": [...], "_links": ...}}, keeping the members no field names.
func (p *TransactionsPage) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w transactionsAnswer
	extra, _, err := decodeObject(data, &w, transactionsAnswerNames(), nil)
	if err != nil {
		return err
	}
	r := w.Transactions
	pending, sum := decodePending[Transaction](r.Pending, &r.extra)
	markStatus(r.Booked, BookingBooked)
	markStatus(pending, BookingPending)
	markStatus(r.Information, BookingInformation)
	*p = TransactionsPage{Account: w.Account, Booked: r.Booked, Pending: pending, Information: r.Information,
		Links: r.Links, Balances: w.Balances, Extra: extra, ReportExtra: r.extra, pendingSum: sum}
	return nil
}

// MarshalJSON writes the page in the bank's shape, with its Extra and
// ReportExtra members.
func (p TransactionsPage) MarshalJSON() ([]byte, error) {
	report, err := encodeObject(struct {
		Booked      []Transaction `json:"booked,omitzero"`
		Pending     []Transaction `json:"pending,omitzero"`
		Information []Transaction `json:"information,omitzero"`
		Links       client.Links  `json:"_links,omitzero"`
	}{p.Booked, p.Pending, p.Information, p.Links}, nil, p.ReportExtra)
	if err != nil {
		return nil, err
	}
	return encodeObject(struct {
		Account      AccountReference `json:"account,omitzero"`
		Transactions json.RawMessage  `json:"transactions"`
		Balances     []Balance        `json:"balances,omitzero"`
	}{p.Account, report, p.Balances}, nil, p.Extra)
}

// CardTransactionsPage is one answer of GET
// /v1/card-accounts/{id}/transactions. It encodes back to the bank's
// shape: decoding a page, encoding it and decoding the result gives the
// same page.
type CardTransactionsPage struct {
	// Answer gives, by its Meta method, the response metadata of the
	// answer the value was decoded from (X-Request-ID, status, attempts).
	client.Answer

	// CardAccount is the card account reference of the answer
	// (maskedPan).
	CardAccount AccountReference
	// DebitAccounting is true when debits are positive amounts; nil when
	// the bank does not say.
	DebitAccounting *bool
	// Booked and Pending are the entries of this page.
	Booked, Pending []CardTransaction
	// Links are the cardTransactions' _links: self and, when there are
	// more entries, next.
	Links client.Links
	// Balances are the balances some banks add to the answer; nil when
	// absent.
	Balances []Balance
	// Extra holds the members of the answer that no field names;
	// ReportExtra those of its cardTransactions object.
	Extra, ReportExtra Extra

	pendingSum [sha256.Size]byte
}

// Next returns the href of the next page, or "" on the last page.
func (p *CardTransactionsPage) Next() string { return p.Links.Href(client.LinkNext) }

// UnmarshalJSON decodes {"cardAccount": ..., "cardTransactions":
// {"booked": [...], "pending": [...], "_links": ...}}, keeping the members
// no field names.
func (p *CardTransactionsPage) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	var w cardTransactionsAnswer
	extra, _, err := decodeObject(data, &w, cardTransactionsAnswerNames(), nil)
	if err != nil {
		return err
	}
	r := w.CardTransactions
	pending, sum := decodePending[CardTransaction](r.Pending, &r.extra)
	for i := range r.Booked {
		r.Booked[i].Status = BookingBooked
	}
	for i := range pending {
		pending[i].Status = BookingPending
	}
	*p = CardTransactionsPage{CardAccount: w.CardAccount, DebitAccounting: w.DebitAccounting, Booked: r.Booked,
		Pending: pending, Links: r.Links, Balances: w.Balances, Extra: extra, ReportExtra: r.extra, pendingSum: sum}
	return nil
}

// MarshalJSON writes the page in the bank's shape, with its Extra and
// ReportExtra members. A pending entry without an amount is written
// without one.
func (p CardTransactionsPage) MarshalJSON() ([]byte, error) {
	report, err := encodeObject(struct {
		Booked  []CardTransaction `json:"booked,omitzero"`
		Pending []CardTransaction `json:"pending,omitzero"`
		Links   client.Links      `json:"_links,omitzero"`
	}{p.Booked, p.Pending, p.Links}, nil, p.ReportExtra)
	if err != nil {
		return nil, err
	}
	return encodeObject(struct {
		CardAccount      AccountReference `json:"cardAccount,omitzero"`
		DebitAccounting  *bool            `json:"debitAccounting,omitempty"`
		CardTransactions json.RawMessage  `json:"cardTransactions"`
		Balances         []Balance        `json:"balances,omitzero"`
	}{p.CardAccount, p.DebitAccounting, report, p.Balances}, nil, p.Extra)
}

// decodeList decodes a JSON array (absent or null: nothing) into out and
// returns a digest of its compact form, used to recognise the same pending
// list sent again on a later page.
func decodeList[T any](raw json.RawMessage, out *[]T) ([sha256.Size]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return [sha256.Size]byte{}, nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return [sha256.Size]byte{}, err
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(b.Bytes()), nil
}

func markStatus(ts []Transaction, s BookingStatus) {
	for i := range ts {
		ts[i].Status = s
	}
}

// Transactions returns one page of an account's transactions (GET
// /v1/accounts/{id}/transactions). Read further pages with
// [Service.NextTransactions] and the page's Next link, or use
// [Service.TransactionsIter].
//
// Known issue (docs/interface.md section 8): with BookingBoth (the default) or
// BookingPending, the production platform returns all pending entries on
// every page, ignoring DateFrom, DateTo and Limit for them.
//
// Without the PSU present (no PSU-IP-Address) every page counts against
// the account's budget of 4 transactions calls per 24 hours and is refused
// with a *budget.ExhaustedError before it is sent when the budget is
// spent; without the PSU only [HistoryWithoutPSU] of history is
// available, for accounts the PSU used with SCA within
// [OnlineSCARecency].
func (s *Service) Transactions(ctx context.Context, accountID string, q *TransactionQuery, ro ...client.RequestOption) (*TransactionsPage, error) {
	const op = "accounts.Transactions"
	v, refuse := q.values()
	out, _, err := servicecall.Do[TransactionsPage](ctx, s.client(), s.counted(client.Operation{Name: op,
		Path: "/v1/accounts/{accountId}/transactions", Params: map[string]string{"accountId": accountID},
		Query: v, Refuse: refuse}, budget.Transactions, budget.Account(accountID)), ro)
	return out, err
}

// TransactionsAt reads the page at href, a next link kept from an
// earlier page ([TransactionsPage.Next]). The href must be a transactions
// link of an account on the bank's base URL; anything else is refused
// before sending ([ErrUnexpectedLink], [client.ErrForeignHost]), and so is
// a link whose bookingStatus, dateFrom, dateTo, limit or offset breaks
// the rules of [TransactionQuery] ([ErrInvalidQuery], naming the
// parameter). It counts against the budget like [Service.Transactions].
func (s *Service) TransactionsAt(ctx context.Context, href string, ro ...client.RequestOption) (*TransactionsPage, error) {
	return s.transactionsAt(ctx, "accounts.TransactionsAt", href, "", nil, ro)
}

// NextTransactions is [Service.TransactionsAt] for a next link of
// accountID's own pages: a link that names another account is refused
// before sending ([ErrUnexpectedLink]), so that a bank's wrong link cannot
// spend another account's budget or mix its entries into this account's.
func (s *Service) NextTransactions(ctx context.Context, accountID, href string, ro ...client.RequestOption) (*TransactionsPage, error) {
	const op = "accounts.NextTransactions"
	return s.transactionsAt(ctx, op, href, accountID, requiredID("accountId", accountID), ro)
}

func (s *Service) transactionsAt(ctx context.Context, op, href, want string, refuse error, ro []client.RequestOption) (*TransactionsPage, error) {
	out, _, err := servicecall.Do[TransactionsPage](ctx, s.client(), s.counted(client.Operation{Name: op, Path: href,
		Refuse: linkRefusal(op, href, refuse)}, budget.Transactions, s.linkAccount(op, accountsCollection, want)), ro)
	if err != nil {
		return nil, foreignLink(op, err)
	}
	return out, nil
}

// CardTransactions returns one page of a card account's transactions (GET
// /v1/card-accounts/{id}/transactions). The known issue of
// docs/interface.md section 8
// does not affect card accounts. Without the PSU present it counts against
// the card account's budget (see the package documentation).
func (s *Service) CardTransactions(ctx context.Context, cardAccountID string, q *TransactionQuery, ro ...client.RequestOption) (*CardTransactionsPage, error) {
	const op = "accounts.CardTransactions"
	v, refuse := q.values()
	out, _, err := servicecall.Do[CardTransactionsPage](ctx, s.client(), s.counted(client.Operation{Name: op,
		Path: "/v1/card-accounts/{cardAccountId}/transactions", Params: map[string]string{"cardAccountId": cardAccountID},
		Query: v, Refuse: refuse}, budget.CardTransactions, budget.Account(cardAccountID)), cardOptions(ro))
	return out, err
}

// CardTransactionsAt reads the card transactions page at href, a next
// link kept from an earlier page. The href must be a transactions link of
// a card account on the bank's base URL.
func (s *Service) CardTransactionsAt(ctx context.Context, href string, ro ...client.RequestOption) (*CardTransactionsPage, error) {
	return s.cardTransactionsAt(ctx, "accounts.CardTransactionsAt", href, "", nil, ro)
}

// NextCardTransactions is [Service.NextTransactions] for a card
// account's pages.
func (s *Service) NextCardTransactions(ctx context.Context, cardAccountID, href string, ro ...client.RequestOption) (*CardTransactionsPage, error) {
	const op = "accounts.NextCardTransactions"
	return s.cardTransactionsAt(ctx, op, href, cardAccountID, requiredID("cardAccountId", cardAccountID), ro)
}

func (s *Service) cardTransactionsAt(ctx context.Context, op, href, want string, refuse error, ro []client.RequestOption) (*CardTransactionsPage, error) {
	out, _, err := servicecall.Do[CardTransactionsPage](ctx, s.client(), s.counted(client.Operation{Name: op, Path: href,
		Refuse: linkRefusal(op, href, refuse)}, budget.CardTransactions, s.linkAccount(op, cardAccountsCollection, want)), cardOptions(ro))
	if err != nil {
		return nil, foreignLink(op, err)
	}
	return out, nil
}

// invalid refuses an argument before anything is sent: a
// *client.ValidationError on field that matches [ErrInvalidQuery] too.
func invalid(field, reason string) error {
	return &client.ValidationError{Field: field, Reason: reason, Err: ErrInvalidQuery}
}

// requiredID refuses an empty account id that a link must belong to.
func requiredID(field, id string) error {
	if id == "" {
		return invalid(field, "required")
	}
	return nil
}

// linkRefusal is what a call following a link declares as its refusal:
// refuse (an argument already found wrong), or a malformed link
// (checkLink), nil otherwise.
func linkRefusal(op, href string, refuse error) error {
	if refuse != nil {
		return refuse
	}
	return checkLink(op, href)
}
