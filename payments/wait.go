package payments

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/backoff"
)

// Default polling of [Service.Wait]: the first read after DefaultPollMin,
// each wait half as long again as the one before, up to DefaultPollMax.
// A PSU who just came back from SCA sees an answer within seconds; a
// payment waiting for the bank's batch is read a few times an hour.
const (
	DefaultPollMin = 1 * time.Second
	DefaultPollMax = 30 * time.Second
)

// WithPolling sets the backoff of [Service.Wait]: the first wait is min,
// each next one 1.5 times longer, capped at max. It refuses min <= 0 or
// max < min.
func WithPolling(min, max time.Duration) Option {
	return func(s *Service) error {
		if min <= 0 || max < min {
			return fmt.Errorf("payments: WithPolling needs 0 < min <= max, got %v and %v", min, max)
		}
		s.pollMin, s.pollMax = min, max
		return nil
	}
}

// ErrUnknownStatus matches the error [Service.Wait] returns, together
// with the status response it read, when the bank
// answers a transactionStatus that is not one of this package's statuses
// ([TransactionStatus.IsKnown]), or none at all. docs/interface.md
// section 3 names a status for payments on hold or stopped without giving
// its code; a status the SDK cannot place may be that one, or a new one,
// and neither says whether the payment will move on
// ([TransactionStatus.IsPending] reports false): reading it again until
// ctx ends would hide it. Show the payment to a person, or call Wait again
// later if the caller knows the status passes.
var ErrUnknownStatus = errors.New("payments: the bank answered a payment status the SDK does not know")

// Wait polls a payment's status ([Service.Status]) until it is final
// ([TransactionStatus.IsFinal]: executed, rejected or cancelled) and
// returns that status. It waits between reads with a jittered backoff
// ([WithPolling]; by default from [DefaultPollMin] to [DefaultPollMax]),
// within ctx: give ctx the deadline the caller can afford.
//
// What it does with the answers:
//   - a status that is not known ([TransactionStatus.IsKnown]), an
//     empty one included, ends the wait at once: Wait returns that
//     status response with an error matching [ErrUnknownStatus];
//   - a known status that is not final, and an NDCT the bank does not show
//     before the PSU approved it ([ErrNotYetReadable]), mean "not yet": it
//     reads again;
//   - a read that failed on the way (the client's retries spent,
//     [client.ErrNotSent], a 5xx, 429) is read again at the next step;
//   - any other answer of the bank (a 4xx: the payment is unknown, the
//     consent or session is wrong; a 2xx other than 200, such as a 204,
//     [client.ErrUnexpectedStatus]; an id or status longer than the SDK
//     accepts, [client.ErrValueTooLong]) ends the wait with that error;
//   - when ctx ends first, Wait returns the last status it read (nil if
//     none) with an error matching ctx.Err(); a ctx without a deadline
//     gets one [DefaultWaitLimit] away, so that no Wait polls without
//     end.
//
// opts are the options of each status read (the PSU's session headers).
// A periodic payment is final only once cancelled, rejected or (where the
// bank says so) executed for the last time: give ctx a deadline.
func (s *Service) Wait(ctx context.Context, ref Ref, opts ...client.RequestOption) (*StatusResponse, error) {
	const op = "payments.Wait"
	minWait, maxWait := DefaultPollMin, DefaultPollMax
	if s != nil && s.pollMin != 0 {
		minWait, maxWait = s.pollMin, s.pollMax
	}
	if ctx != nil {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, waitLimit)
			defer cancel()
		}
	}
	var last *StatusResponse
	wait := minWait
	for {
		st, err := s.status(ctx, ref, opts)
		switch {
		case err == nil:
			last = st
			if st.TransactionStatus.IsFinal() {
				return st, nil
			}
			if !st.TransactionStatus.IsKnown() {
				return st, fmt.Errorf("%s: %w: %s", op, ErrUnknownStatus, quoteStatus(st.TransactionStatus))
			}
		case ctx.Err() != nil:
			return last, fmt.Errorf("%s: %w", op, ctx.Err())
		case !waitAgain(err):
			return last, fmt.Errorf("%s: %w", op, err)
		}
		// Jitter in the upper half, so that many waiting PSUs do not poll
		// in step; never sooner than the bank's Retry-After asks (already
		// capped at client.RetryAfterCap). A pause that outlasts ctx ends
		// the wait now, with the bank's answer.
		pause := backoff.Jitter(wait)
		var ce *client.Error
		if errors.As(err, &ce) {
			if ra, ok := ce.RetryAfter(time.Now()); ok && ra > pause {
				if dl, ok := ctx.Deadline(); ok && time.Until(dl) < ra {
					return last, fmt.Errorf("%s: %w", op, err)
				}
				pause = ra
			}
		}
		if !backoff.Sleep(ctx, pause) {
			return last, fmt.Errorf("%s: %w", op, ctx.Err())
		}
		wait = min(wait+wait/2, maxWait)
	}
}

// waitAgain reports whether a failed status read is worth another read.
func waitAgain(err error) bool {
	if errors.Is(err, client.ErrValidation) {
		return false // refused before sending: the same call is refused again
	}
	if errors.Is(err, client.ErrUnexpectedStatus) || errors.Is(err, client.ErrValueTooLong) {
		// The bank answered, but not as the interface says (a 204): a
		// read again would most likely bring the same answer.
		return false
	}
	if errors.Is(err, ErrNotYetReadable) || errors.Is(err, client.ErrNotSent) {
		return true
	}
	var ce *client.Error
	if errors.As(err, &ce) {
		return ce.StatusCode >= 500 || ce.StatusCode == 429
	}
	// A transport error or a timeout: the client spent its retries.
	return !errors.Is(err, client.ErrValidation) && !errors.Is(err, client.ErrResponseSignature)
}

// quoteStatus is an unknown status as an error line shows it: quoted, at
// most 16 characters of the bank's text, "none" when the answer had none.
func quoteStatus(s TransactionStatus) string {
	if s == "" {
		return "none"
	}
	r := []rune(string(s))
	if len(r) > 16 {
		return strconv.Quote(string(r[:16])) + "…"
	}
	return strconv.Quote(string(s))
}

// DefaultWaitLimit bounds a [Service.Wait] whose ctx has no deadline: it
// then ends after a day (the bank's batch, which executes authorised
// payments, runs several times a day) with the last status it read and an
// error matching context.DeadlineExceeded, rather than polling the bank
// for as long as the process lives on a payment that never becomes final
// (one held at ACTC or PDNG, or an NDCT id the bank answers 404 for).
const DefaultWaitLimit = 24 * time.Hour

// waitLimit is DefaultWaitLimit; tests shorten it.
var waitLimit = DefaultWaitLimit
