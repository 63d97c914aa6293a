package refresh

import (
	"errors"
	"net/http"
	"time"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/txsync"
)

// verdict is what an error means for a job.
type verdict struct {
	outcome Outcome
	// retryAfter is the bank's Retry-After, when it sent one.
	retryAfter time.Duration
	hasRetry   bool
	// rateLimit: a 429 that is not the account's budget, with a
	// Retry-After: every call should wait.
	rateLimit bool
	// budget holds the SDK's refusal, with its RetryAt.
	budget *budget.ExhaustedError
	// paused holds the budget's refusal during the bank's pause.
	paused *budget.PausedError
	// down holds the client's refusal while the bank's circuit breaker
	// is open.
	down *client.BankUnavailableError
}

// classify sorts the error of a call into an outcome:
//
//   - the SDK's budget refusal, and the bank's 429 ACCESS_EXCEEDED: the
//     account's budget is spent (BudgetExhausted);
//   - any answer asking for SCA (a scaRedirect), 401 or 403 CONSENT_*
//     or SCA_EXPIRED, 401 PSU_CREDENTIALS_INVALID, CONSENT_UNKNOWN (revoked),
//     and a session the SDK cannot send: ReconnectNeeded;
//   - another 429 (a rate limit), the bank's pause (ErrPaused), 5xx, and
//     every failure without an answer (not sent, timed out, cut off,
//     unreadable): Transient;
//   - another 4xx, a call the client refused to send as it stands
//     (client.ErrValidation: an invalid query or link, a missing
//     TPP-Redirect-URI), and a read cut short (ErrReadTooLarge): Refused.
func classify(err error) verdict {
	var be *budget.ExhaustedError
	if errors.As(err, &be) {
		return verdict{outcome: BudgetExhausted, budget: be}
	}
	var pe *budget.PausedError
	if errors.As(err, &pe) {
		return verdict{outcome: Transient, paused: pe}
	}
	var down *client.BankUnavailableError
	if errors.As(err, &down) {
		return verdict{outcome: Transient, down: down}
	}
	if errors.Is(err, sca.ErrInvalidSession) || errors.Is(err, ErrConsentEnded) {
		return verdict{outcome: ReconnectNeeded}
	}
	if errors.Is(err, ErrInvalidJob) || errors.Is(err, ErrReadTooLarge) || errors.Is(err, txsync.ErrNotLinked) ||
		errors.Is(err, txsync.ErrCorruptState) || errors.Is(err, txsync.ErrNewerState) || errors.Is(err, client.ErrValidation) {
		return verdict{outcome: Refused}
	}
	var ce *client.Error
	if !errors.As(err, &ce) {
		return verdict{outcome: Transient}
	}
	v := verdict{}
	v.retryAfter, v.hasRetry = ce.RetryAfter(time.Now())
	switch {
	case ce.Is(client.ErrSCARequired), ce.Is(client.ErrConsentExpired), ce.Is(client.ErrConsentInvalid),
		ce.Is(client.ErrConsentUnknown), ce.Is(client.ErrSCAExpired):
		v.outcome = ReconnectNeeded
	case (ce.StatusCode == http.StatusUnauthorized || ce.StatusCode == http.StatusForbidden) &&
		(ce.HasCode(client.CodeConsentExpired) || ce.HasCode(client.CodeConsentInvalid) || ce.HasCode(client.CodeSCAExpired)):
		// The same codes as 403, as some banks send them: the consent is
		// gone whatever the status.
		v.outcome = ReconnectNeeded
	case ce.StatusCode == http.StatusUnauthorized && !ce.Is(client.ErrCertificate):
		// 401 PSU_CREDENTIALS_INVALID and the like: the session is not
		// one the bank knows any more.
		v.outcome = ReconnectNeeded
	case ce.StatusCode == http.StatusTooManyRequests && ce.HasCode(client.CodeAccessExceeded):
		v.outcome = BudgetExhausted
	case ce.StatusCode == http.StatusTooManyRequests && v.hasRetry:
		v.outcome, v.rateLimit = Transient, true
	case ce.StatusCode == http.StatusTooManyRequests && ce.Is(client.ErrAccessExceeded):
		// A 429 without Retry-After or a code: the budget at the bank
		// (the client marked it spent).
		v.outcome = BudgetExhausted
	case ce.StatusCode == http.StatusTooManyRequests:
		// Another code without Retry-After: a limit that is not the
		// budget, which the client did not mark spent.
		v.outcome = Transient
	case ce.StatusCode >= 500 || ce.StatusCode == http.StatusRequestTimeout:
		v.outcome = Transient
	default:
		v.outcome = Refused
	}
	return v
}

// errorCode returns the HTTP status and first tppMessages code of a
// bank's answer, for the log and a Result's JSON: the code as
// client.SafeCode gives it, one of the interface's codes or "OTHER",
// since a bank's code field can hold any text, personal data included.
func errorCode(err error) (int, string) {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return 0, ""
	}
	code := ""
	if len(ce.Messages) > 0 {
		code = client.SafeCode(ce.Messages[0].Code)
	}
	return ce.StatusCode, code
}
