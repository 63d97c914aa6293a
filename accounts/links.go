package accounts

import (
	"errors"
	"net/url"
	"strings"

	"github.com/tppkit/psd2/client"
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
			return "", &linkError{op: op, reason: "malformed href"}
		}
		base, err := url.Parse(s.c.BaseURL())
		if err != nil {
			return "", &linkError{op: op, reason: "invalid base URL"}
		}
		id, err := transactionsAccount(op, strings.TrimRight(base.EscapedPath(), "/"), collection, u.EscapedPath())
		if err != nil {
			return "", err
		}
		if want != "" && id != want {
			return "", &linkError{op: op, reason: "the link names another account"}
		}
		return id, nil
	}
}

// transactionsAccount returns the account id of the escaped path p, which
// must be <basePath><collection><id>/transactions.
func transactionsAccount(op, basePath, collection, p string) (string, error) {
	if !strings.HasPrefix(p, basePath+"/") {
		return "", &linkError{op: op, reason: "path outside the base URL"}
	}
	p = p[len(basePath):]
	if !strings.HasPrefix(p, collection) || !strings.HasSuffix(p, transactionsSuffix) ||
		len(p) <= len(collection)+len(transactionsSuffix) {
		return "", &linkError{op: op, reason: "not a transactions path"}
	}
	seg := p[len(collection) : len(p)-len(transactionsSuffix)]
	if strings.Contains(seg, "/") {
		return "", &linkError{op: op, reason: "not a transactions path"}
	}
	id, err := url.PathUnescape(seg)
	if err != nil || id == "" || id == "." || id == ".." || strings.ContainsAny(id, "/\x00") {
		return "", &linkError{op: op, reason: "not a transactions path"}
	}
	return id, nil
}

// foreignLink makes the client's refusal of a link to another host
// ([client.ErrForeignHost]) an [ErrUnexpectedLink] too, as that error
// documents; any other error is returned as it is.
func foreignLink(op string, err error) error {
	if errors.Is(err, client.ErrForeignHost) && !errors.Is(err, ErrUnexpectedLink) {
		return &linkError{op: op, reason: "link to another host", cause: err}
	}
	return err
}

// checkLink refuses an empty or malformed href before the client sees it.
func checkLink(op, href string) error {
	if href == "" {
		return &linkError{op: op, reason: "empty href"}
	}
	if strings.ContainsAny(href, " \r\n\t#\\") {
		return &linkError{op: op, reason: "malformed href"}
	}
	if u, err := url.Parse(href); err != nil || u.User != nil || u.Opaque != "" {
		return &linkError{op: op, reason: "malformed href"}
	}
	return nil
}
