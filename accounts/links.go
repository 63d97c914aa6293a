package accounts

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
)

// Collections whose transactions links the Service follows.
const (
	accountsCollection     = "/v1/accounts/"
	cardAccountsCollection = "/v1/card-accounts/"
	transactionsSuffix     = "/transactions"
)

// linkAccount returns the accountOf of a call that follows a transactions
// link: it reads the account id from the call's resolved URL
// (<collection><id>/transactions under the base URL's path, with any
// query) and refuses any other path, or another account than want when
// want is set, with an [ErrUnexpectedLink] before anything is sent. The
// client has already refused a link to another host
// ([client.ErrForeignHost]); this is the one check of the path.
func (s *Service) linkAccount(op, collection, want string) func(*client.Call) (string, error) {
	return func(call *client.Call) (string, error) {
		u, err := url.Parse(call.URL)
		if err != nil {
			return "", unexpectedLink(op, "malformed href", nil)
		}
		base, err := url.Parse(s.c.BaseURL())
		if err != nil {
			return "", unexpectedLink(op, "invalid base URL", nil)
		}
		id, err := transactionsAccount(op, strings.TrimRight(base.EscapedPath(), "/"), collection, u.EscapedPath())
		if err != nil {
			return "", err
		}
		if want != "" && id != want {
			return "", unexpectedLink(op, "the link names another account", nil)
		}
		return id, nil
	}
}

// transactionsAccount returns the account id of the escaped path p, which
// must be <basePath><collection><id>/transactions.
func transactionsAccount(op, basePath, collection, p string) (string, error) {
	if !strings.HasPrefix(p, basePath+"/") {
		return "", unexpectedLink(op, "path outside the base URL", nil)
	}
	p = p[len(basePath):]
	if !strings.HasPrefix(p, collection) || !strings.HasSuffix(p, transactionsSuffix) ||
		len(p) <= len(collection)+len(transactionsSuffix) {
		return "", unexpectedLink(op, "not a transactions path", nil)
	}
	seg := p[len(collection) : len(p)-len(transactionsSuffix)]
	if strings.Contains(seg, "/") {
		return "", unexpectedLink(op, "not a transactions path", nil)
	}
	id, err := url.PathUnescape(seg)
	if err != nil || id == "" || id == "." || id == ".." || strings.ContainsAny(id, "/\x00") {
		return "", unexpectedLink(op, "not a transactions path", nil)
	}
	return id, nil
}

// foreignLink makes the client's refusal of a link to another host
// ([client.ErrForeignHost]) an [ErrUnexpectedLink] too, as that error
// documents, still one *client.NotSentError around one
// *client.ValidationError; any other error is returned as it is.
func foreignLink(op string, err error) error {
	var ns *client.NotSentError
	if !errors.As(err, &ns) || !errors.Is(err, client.ErrForeignHost) || errors.Is(err, ErrUnexpectedLink) {
		return err
	}
	return &client.NotSentError{Operation: ns.Operation, RequestID: ns.RequestID,
		Err: unexpectedLink(op, "link to another host", ns.Err)}
}

// unexpectedLink is the refusal of a link before anything is sent: a
// *client.ValidationError on field "href" that matches
// [ErrUnexpectedLink] (and cause, when set), so that it reads like every
// other refusal before sending wherever it is found (the call's
// declaration, or the budget hook reading the resolved URL).
func unexpectedLink(op, reason string, cause error) error {
	le := &linkError{op: op, reason: reason, cause: cause}
	return &client.ValidationError{Field: "href", Reason: le.Error(), Err: le}
}

// checkLink refuses an empty or malformed href before the client sees it.
func checkLink(op, href string) error {
	if href == "" {
		return unexpectedLink(op, "empty href", nil)
	}
	if strings.ContainsAny(href, " \r\n\t#\\") {
		return unexpectedLink(op, "malformed href", nil)
	}
	u, err := url.Parse(href)
	if err != nil || u.User != nil || u.Opaque != "" {
		return unexpectedLink(op, "malformed href", nil)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return unexpectedLink(op, "malformed href", nil)
	}
	return checkLinkQuery(q)
}

// checkLinkQuery holds the query of a transactions link to the rules a
// [TransactionQuery] follows (docs/interface.md sections 1.7, 2.9 and
// 4.5): a bookingStatus, when given, is booked, pending, both or all;
// dateFrom and dateTo are dates YYYY-MM-DD, dateTo not before dateFrom;
// limit is a whole number from 1, offset one from 0. A parameter the
// link does not carry is not checked, nor one the SDK does not know, so
// every link the bank gives is followed. A break is a
// *client.ValidationError naming the parameter that matches
// [ErrInvalidQuery]: the bank would answer 400, and a call without the
// PSU would spend one of the account's 4 calls a day on it.
func checkLinkQuery(q url.Values) error {
	for _, v := range q["bookingStatus"] {
		if checkBookingStatus(BookingStatus(v)) != nil {
			// Without the value, unlike a TransactionQuery's refusal:
			// a link's value is the bank's text, which may hold an
			// account number or a name, and the error may be logged.
			return invalid("bookingStatus", "not booked, pending, both or all")
		}
	}
	var days [2]date.Date
	for i, name := range []string{"dateFrom", "dateTo"} {
		for _, v := range q[name] {
			// YYYY-MM-DD only, as the bank reads it: date.Parse would
			// also take a date-time, which the bank refuses.
			t, err := time.Parse(time.DateOnly, v)
			if err != nil {
				return invalid(name, "not a date YYYY-MM-DD")
			}
			days[i] = date.Of(t)
		}
	}
	if !days[0].IsZero() && !days[1].IsZero() && days[1].Before(days[0]) {
		return invalid("dateTo", "before dateFrom")
	}
	for _, p := range []struct {
		name string
		min  int
	}{{"limit", 1}, {"offset", 0}} {
		for _, v := range q[p.name] {
			if n, err := strconv.Atoi(v); err != nil || n < p.min {
				return invalid(p.name, fmt.Sprintf("not a whole number from %d", p.min))
			}
		}
	}
	return nil
}
