package budget

import (
	"errors"
	"fmt"
	"time"

	"github.com/tppkit/psd2/client"
)

var (
	// ErrExhausted: the SDK refused, before sending it, a balances or
	// transactions call without the PSU present, because the account has
	// had its 4 such calls in the last 24 hours (docs/interface.md section
	// 8). The error is an [*ExhaustedError]; it also matches
	// [client.ErrAccessExceeded], so that one check covers the SDK's
	// refusal and the bank's 429.
	ErrExhausted = errors.New("budget: the calls without the PSU present are spent")

	// ErrClaimed is matched by the error of [Budget.Reserve] when another
	// holder claimed the account ([ReserveRequest.Claim]).
	ErrClaimed = errors.New("budget: the account is claimed by another refresh")

	// ErrClaimTooLong is matched by the error of [Budget.Reserve] for a
	// request whose claim would hold the account for longer than
	// [MaxClaim]; the error is a [*ClaimTooLongError], and nothing was
	// written.
	ErrClaimTooLong = errors.New("budget: the claim is too long")

	// ErrPaused: a reservation, or a call made with one, met the bank's
	// pause ([Budget.PausedUntil]) for longer than the reservation's
	// MaxWait; nothing was written or sent. The error is a
	// [*PausedError].
	ErrPaused = errors.New("budget: paused at the bank's request")

	// ErrOtherLimit: [New] was asked for a limit other than the one the
	// client's budget already has. A client has one budget with one limit,
	// whatever the number of services made on it.
	ErrOtherLimit = errors.New("budget: the client's budget has another limit")

	errNoBudget = errors.New("budget: no budget (make it with budget.New or budget.Of)")
)

// ExhaustedError is returned, before anything is sent, for a call without
// the PSU present that would exceed the account's budget
// (docs/interface.md section 8). It matches [ErrExhausted] and
// [client.ErrAccessExceeded].
type ExhaustedError struct {
	// Operation names the SDK call, e.g. "accounts.Balances".
	Operation string
	// Endpoint is the counted endpoint.
	Endpoint Endpoint
	// Limit is the number of calls allowed in Window.
	Limit int
	// Window is the rolling window, 24 hours.
	Window time.Duration
	// RetryAt is when the oldest counted call stops counting (Window and
	// [ClockMargin] after it was made), so that one call is allowed
	// again.
	RetryAt time.Time
}

// Error returns one short line. It names no account or PSU.
func (e *ExhaustedError) Error() string {
	return fmt.Sprintf("%s: %d %s calls without the PSU present in %s already made; next allowed at %s",
		e.Operation, e.Limit, e.Endpoint, e.Window, e.RetryAt.UTC().Format(time.RFC3339))
}

// Is matches [ErrExhausted] and [client.ErrAccessExceeded].
func (e *ExhaustedError) Is(target error) bool {
	return target == ErrExhausted || target == client.ErrAccessExceeded
}

// ClaimedError is the refusal of a reservation whose account another
// holder claimed; Until is when the claim ends. It matches [ErrClaimed].
type ClaimedError struct {
	Until time.Time
}

func (e *ClaimedError) Error() string {
	return "budget: the account is claimed by another refresh until " + e.Until.UTC().Format(time.RFC3339)
}

// Is makes the error match [ErrClaimed].
func (e *ClaimedError) Is(target error) bool { return target == ErrClaimed }

// ClaimTooLongError is the refusal of a reservation whose
// [ReserveRequest.ClaimUntil] is more than Max ([MaxClaim]) after the
// budget's now. It matches [ErrClaimTooLong].
type ClaimTooLongError struct {
	Until time.Time
	Max   time.Duration
}

func (e *ClaimTooLongError) Error() string {
	return fmt.Sprintf("budget.Reserve: the claim until %s is longer than %v", e.Until.UTC().Format(time.RFC3339), e.Max)
}

// Is makes the error match [ErrClaimTooLong].
func (e *ClaimTooLongError) Is(target error) bool { return target == ErrClaimTooLong }

// PausedError is the refusal of a reservation, or of a call made with
// one, during the bank's pause ([Budget.PausedUntil]) when the pause
// lasts longer than the reservation may wait ([ReserveRequest.MaxWait]):
// nothing was written or sent. It matches [ErrPaused].
type PausedError struct {
	// Until is when the pause ends, on the system clock.
	Until time.Time
}

func (e *PausedError) Error() string {
	return ErrPaused.Error() + " until " + e.Until.UTC().Format(time.RFC3339)
}

// Is makes the error match [ErrPaused].
func (e *PausedError) Is(target error) bool { return target == ErrPaused }
