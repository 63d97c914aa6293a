package accounts

import (
	"errors"

	"github.com/tppkit/psd2/client"
)

// Errors of this package. The bank's own answers are [*client.Error]s;
// besides the sentinels below, match them with the client's:
//
//   - [client.ErrSCARequired]: any answer with a scaRedirect link (a first
//     call without consent, a session that is no longer valid, the SCA
//     hour or the consent ended). Send the PSU to the link, which
//     [client.SCARedirect] returns.
//   - [client.ErrSCAExpired]: 401 SCA_EXPIRED, the SCA of the session is
//     older than one hour (listing accounts, card accounts and the full
//     history need a new one); the consent lives on, balances and
//     transactions of the last [HistoryWithoutPSU] still answer.
//   - [client.ErrConsentExpired]: 401 CONSENT_EXPIRED, the consent ended
//     (sca.Session.LearnConsentEnd records when).
//   - [client.ErrConsentUnknown]: 403 CONSENT_UNKNOWN, the PSU revoked the
//     consent with the bank (docs/interface.md section 1.8;
//     sca.Session.LearnConsentEnd records it).
//   - [client.ErrAccessExceeded]: 429 ACCESS_EXCEEDED, the without-PSU
//     budget of docs/interface.md section 8 is spent at the bank.
//     [budget.ErrExhausted], the SDK's refusal before sending, matches it
//     too.
//   - [client.ErrNotFound]: 404.
var (
	// ErrCardAccountsNotSupported: the bank answered 404 to GET
	// /v1/card-accounts, which means it offers no card accounts at all
	// (a PSU without cards gets 200 with an empty list). The error is a
	// [*CardAccountsNotSupportedError].
	ErrCardAccountsNotSupported = errors.New("accounts: the bank does not offer card accounts")

	// ErrInvalidQuery: a [TransactionQuery] is not acceptable, or a
	// next link was followed for an empty account id. The client refused
	// the call before sending it: the error also matches
	// client.ErrNotSent and client.ErrValidation, and errors.As gives the
	// *client.ValidationError naming the field. An account id that cannot
	// be a path segment (empty, ".", "..") is refused the same way, by
	// the client, without this sentinel.
	ErrInvalidQuery = errors.New("accounts: invalid query")

	// ErrUnexpectedLink: a link to follow (a stored next link, or the next
	// link of a page) is not a transactions link of the expected account
	// on the bank's base URL; nothing was sent. Like every refusal before
	// sending it is a *client.NotSentError matching client.ErrNotSent and
	// client.ErrValidation, with a *client.ValidationError on field
	// "href". A link to another host is refused with
	// [client.ErrForeignHost], which the error also matches.
	ErrUnexpectedLink = errors.New("accounts: link is not a transactions link of this account")

	// ErrTooManyPages: an iteration over transactions pages met a next
	// link past [MaxPages] pages (a bank whose next links never end); it
	// was not followed.
	ErrTooManyPages = errors.New("accounts: more transactions pages than MaxPages")

	// ErrUnreadableList: an iteration over transactions pages
	// ([Service.TransactionsIter], [Service.CardTransactionsIter]) read
	// a page whose booked, pending or information list, or whose
	// transactions object, is not what the interface sends (a text, an
	// object where a list belongs). The page decodes, the value kept in
	// its ReportExtra or Extra, but its entries are unknown: yielded as
	// none, they would read as an account without them, and a sync would
	// report every entry it tracks removed. The error names the member,
	// never its value.
	ErrUnreadableList = errors.New("accounts: a transactions page's list of entries is unreadable")

	// ErrNoSCARedirect: the bank answered the bank-offered consent request
	// without a scaRedirect link, or with one the PSU must not be sent to
	// (not an absolute https URL: javascript:, a relative link...).
	ErrNoSCARedirect = errors.New("accounts: consent answer has no scaRedirect link")

	errNoClient = errors.New("accounts: Service has no client")
)

// CardAccountsNotSupportedError is returned by [Service.CardAccounts] when
// the bank answers 404: it has no card account support. It matches
// [ErrCardAccountsNotSupported] with errors.Is and unwraps to the bank's
// [*client.Error].
type CardAccountsNotSupportedError struct {
	// Err is the bank's 404 answer.
	Err *client.Error
}

// Error returns one short line.
func (e *CardAccountsNotSupportedError) Error() string {
	return ErrCardAccountsNotSupported.Error() + " (" + e.Err.Error() + ")"
}

// Unwrap returns the bank's answer.
func (e *CardAccountsNotSupportedError) Unwrap() error { return e.Err }

// Is matches [ErrCardAccountsNotSupported].
func (e *CardAccountsNotSupportedError) Is(target error) bool {
	return target == ErrCardAccountsNotSupported
}

// linkError is an [ErrUnexpectedLink] that may also wrap
// [client.ErrForeignHost].
type linkError struct {
	op     string
	reason string
	cause  error
}

func (e *linkError) Error() string {
	return e.op + ": " + ErrUnexpectedLink.Error() + ": " + e.reason
}

func (e *linkError) Is(target error) bool { return target == ErrUnexpectedLink }

func (e *linkError) Unwrap() error { return e.cause }
