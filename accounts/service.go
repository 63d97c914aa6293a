package accounts

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/servicecall"
)

// Service reads account information for an AISP: bank-offered consent,
// accounts, card accounts, balances, transactions and corporate agreements.
// Every call goes through the [client.Client] it was made with; PSU and
// session headers are per-call [client.RequestOption]s such as
// [client.WithPSU] and [client.WithTPPSessionID], or the client's
// defaults. Every call needs a TPP-Session-ID: one without is refused
// before it is sent with a [*client.ValidationError] naming the header
// (sessionHeaders).
//
// Balances and transactions calls made without the PSU present (no
// PSU-IP-Address) count against the account's without-PSU budget: the
// client's ([budget.Of]), kept in its store, which every Service made on
// one client shares. A Service is safe for concurrent use.
type Service struct {
	c      *client.Client
	budget *budget.Budget
}

// New returns a Service that sends its calls through c. Its balances and
// transactions calls without the PSU count against c's budget
// ([budget.Of]; make it first with budget.New for another limit than 4
// calls in 24 hours), so every Service of c, and every client on the
// same shared store, counts the same calls. New refuses a nil client.
func New(c *client.Client) (*Service, error) {
	if c == nil {
		return nil, errNoClient
	}
	return &Service{c: c, budget: budget.Of(c)}, nil
}

// Client returns the client the Service sends its calls through; its
// budget is [budget.Of] of it.
func (s *Service) Client() *client.Client {
	if s == nil {
		return nil
	}
	return s.c
}

// client is the Service's client, nil for a nil Service: the call
// helper (servicecall.Do) refuses both alike, before sending.
func (s *Service) client() *client.Client {
	if s == nil {
		return nil
	}
	return s.c
}

// counted declares op as a GET of endpoint e that counts against the
// without-PSU budget of the account accountOf names ([budget.Budget.Counted]).
func (s *Service) counted(op client.Operation, e budget.Endpoint, accountOf budget.AccountOf) client.Operation {
	op = read(op)
	if s != nil {
		op = s.budget.Counted(op, e, accountOf)
	}
	return op
}

// readStatuses are the answers docs/interface.md section 10 "Paths" names
// for every account information read: 200. Another 2xx status (a 204
// without a body, a 202) is a *client.UnexpectedStatusError, never an
// empty list, report or page: it says nothing of the account.
var readStatuses = []int{http.StatusOK}

// read declares op a GET whose answer must be 200 (readStatuses), that
// carries the PSU's TPP-Session-ID (sessionHeaders), and whose PSU-Context
// and PSU-Corporate-ID agree (servicecall.CheckCorporateContext: in
// CORPORATE context the bank answers a read without PSU-Corporate-ID
// 400, docs/interface.md sections 5.10 and 7). [Service.Agreements], which
// is how the TPP finds the PSU-Corporate-ID, drops that last check.
func read(op client.Operation) client.Operation {
	op.Method = http.MethodGet
	op.Statuses = readStatuses
	op.Require = sessionHeaders
	op.Validate = func(call *client.Call) error { return servicecall.CheckCorporateContext(call.Header) }
	return op
}

// sessionHeaders are the headers every account information call needs
// besides TPP-Redirect-URI: TPP-Session-ID. The platform keys the PSU's
// session by PSU-ID and TPP-Session-ID, which every AIS call sends
// (docs/interface.md section 10 "Session model"), and any call may start
// SCA (section 5.8: the first account call answers 401 with a
// scaRedirect), whose redirect brings back the TPP-Session-ID of the
// request that started it (section 6). A call without it is refused
// before it is sent with a [*client.ValidationError] naming the header
// (the bank answers 400 HTTP_HEADER_REQUIRED, and a read without the PSU
// would spend one of the account's 4 calls a day on it). PSU-ID is not
// required: the first call of a PSU has none.
var sessionHeaders = []string{"TPP-Session-ID"}

// transactionDetailsKeys are the members a transaction details answer may
// wrap the entry in: "transactionsDetails" (Berlin Group 1.3.x, as the
// platform's documentation shows it) and the singular spelling of later
// versions. An answer without either is read as a bare entry.
var transactionDetailsKeys = []string{"transactionsDetails", "transactionDetails"}

// TransactionDetails returns one transaction of an account (GET
// /v1/accounts/{id}/transactions/{transactionId}), decoded from the
// answer's {"transactionsDetails": {...}}. Use the stable TransactionID of
// a booked entry (docs/interface.md section 2.9); pending entries have
// none. The returned entry's Status is empty: the answer does not say
// whether it is booked.
//
// Without the PSU present (no PSU-IP-Address in ro) the call counts
// against the account's transactions budget of 4 calls per 24 hours,
// shared with the transactions list (budget.Transactions,
// docs/interface.md sections 8 and 10), and is refused with a
// [*budget.ExhaustedError] before it is sent when that budget is spent.
//
// ASSUMPTION (the platform's documentation says only "4 calls per day,
// like the list", docs/interface.md section 10): the bank may count
// transaction details on their own or within the 4 calls of the
// transactions list. The SDK counts them within the list's 4 calls per
// account per 24 hours without the PSU present, whichever transaction is
// read: a bank that counts them on their own allows at least as much, so
// the SDK can only refuse early, never earn a 429, whichever the bank
// does. The endpoint this method counts against is the one place to
// change that.
func (s *Service) TransactionDetails(ctx context.Context, accountID, transactionID string, ro ...client.RequestOption) (*Transaction, error) {
	const op = "accounts.TransactionDetails"
	out, _, err := servicecall.Do[transactionDetails](ctx, s.client(), s.counted(client.Operation{Name: op, Path: "/v1/accounts/{accountId}/transactions/{transactionId}",
		Params: map[string]string{"accountId": accountID, "transactionId": transactionID}},
		budget.Transactions, budget.Account(accountID)), ro)
	if err != nil {
		return nil, err
	}
	out.t.Answer = out.Answer
	return &out.t, nil
}

// transactionDetails decodes a transaction details answer.
type transactionDetails struct {
	client.Answer // the metadata, moved to t by the caller
	t             Transaction
}

func (d *transactionDetails) UnmarshalJSON(data []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	for _, k := range transactionDetailsKeys {
		if inner := bytes.TrimSpace(probe[k]); len(inner) > 0 && inner[0] == '{' {
			return json.Unmarshal(inner, &d.t)
		}
	}
	return json.Unmarshal(data, &d.t)
}
