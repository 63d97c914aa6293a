package accounts

import (
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

// transactionsLink checks that href is a transactions link
// (<collection><id>/transactions, with any query) on the bank's base URL
// and returns the account id it names. Relative hrefs are those the
// platform sends ("/v1/...", without the base URL's "/api"); absolute ones
// must be on the base URL's scheme and host and under its path.
func (s *Service) transactionsLink(op, collection, href string) (string, error) {
	if s == nil || s.c == nil {
		return "", errNoClient
	}
	base, err := url.Parse(s.c.BaseURL())
	if err != nil {
		return "", &linkError{op: op, reason: "invalid base URL"}
	}
	return parseTransactionsLink(op, base, collection, href)
}

func parseTransactionsLink(op string, base *url.URL, collection, href string) (string, error) {
	if href == "" {
		return "", &linkError{op: op, reason: "empty href"}
	}
	if strings.ContainsAny(href, " \r\n\t#\\") {
		return "", &linkError{op: op, reason: "malformed href"}
	}
	u, err := url.Parse(href)
	if err != nil || u.User != nil || u.Opaque != "" {
		return "", &linkError{op: op, reason: "malformed href"}
	}
	p := u.EscapedPath()
	basePath := strings.TrimRight(base.EscapedPath(), "/")
	if u.IsAbs() || u.Host != "" {
		if !strings.EqualFold(u.Scheme, base.Scheme) || !strings.EqualFold(u.Host, base.Host) {
			return "", &linkError{op: op, reason: "foreign host", cause: client.ErrForeignHost}
		}
		if !strings.HasPrefix(p, basePath+"/") {
			return "", &linkError{op: op, reason: "path outside the base URL"}
		}
		p = p[len(basePath):]
	} else if basePath != "" && strings.HasPrefix(p, basePath+"/") {
		p = p[len(basePath):]
	}
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
