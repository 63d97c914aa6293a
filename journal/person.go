package journal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// SettledByPerson: a person settled the entry outside the SDK (asked the
// bank or the PSU, looked at the account) with [Journal.SettleByPerson];
// Reason says who and why. The entry is no longer in doubt, nothing is
// sent for it, and no resolution replaces it.
const SettledByPerson ResolutionKind = "settled-by-person"

// maxPersonText bounds who and why of [Journal.SettleByPerson].
const maxPersonText = 500

// ErrNotInDoubt matches the error of [Journal.SettleByPerson] for an
// entry that is not in doubt: settled already, or the entry of a resend.
var ErrNotInDoubt = errors.New("journal: entry not in doubt")

// SettleByPerson records that a person, by, settled the entry of
// requestID for reason (both required: one line of printable text, at
// most 500 characters; write no PSU data in them). It sends nothing: use
// it for an entry [Journal.Resolve] left as [NeedsPerson], or one a person
// knows more about than the SDK can find out. The entry must be in doubt
// ([Entry.InDoubt]); otherwise the error matches [ErrNotInDoubt]
// and nothing changes. It returns the entry as recorded.
//
// While a Resolve is sending the entry's create again, the settlement is
// refused with a [*ClaimedError] (matching [ErrClaimed]): that resend may
// be creating the resource at that very moment. The refused settlement
// is kept in the entry's Trail; look at the entry again once the resend
// is over. A settlement recorded here is never replaced by a resolution
// (see [ErrConflict]). An entry without an outcome whose create may still
// be running, or whose outcome is unknown while the bank may still be
// working on it (see [ErrInFlight]), is refused with an error matching
// ErrInFlight, unless the Journal was made [WithWritersStopped].
//
// A lost entry (see [Lost]: only its open marker is left) is settled
// too: the settlement is recorded as an entry of its own with Lost set,
// kept for the retention, and the marker removed.
func (j *Journal) SettleByPerson(ctx context.Context, requestID, by, reason string) (Entry, error) {
	const op = "journal.SettleByPerson"
	for _, f := range []struct{ name, v string }{{"by", by}, {"reason", reason}} {
		if err := checkPersonText(f.v); err != nil {
			return Entry{}, fmt.Errorf("%s: %s %w", op, f.name, err)
		}
	}
	e, err := j.Entry(ctx, requestID)
	if errors.Is(err, ErrLost) {
		// Only its open marker is left: the settlement is recorded as
		// an entry of its own, and the marker removed.
		marker, l, lost, lerr := j.lostMarker(ctx, requestID)
		switch {
		case lerr != nil:
			return Entry{}, fmt.Errorf("%s: %w", op, lerr)
		case !lost:
			return Entry{}, fmt.Errorf("%s: %w", op, err)
		}
		settled := "settled by " + strings.TrimSpace(by) + ": " + strings.TrimSpace(reason) + " (its entry was lost: only its open marker was left)"
		e, err := j.settleLost(ctx, marker, l, settled)
		if err != nil {
			return Entry{}, fmt.Errorf("%s: %w", op, err)
		}
		return e, nil
	}
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w", op, err)
	}
	// The leases of the create and of a resend (see leases), read before
	// the update: they hold whatever this journal's clock says.
	flying := false
	if !j.stopped {
		if flying, err = j.flying(ctx, e.key); err != nil {
			return Entry{}, fmt.Errorf("%s: %w", op, err)
		}
	}
	leased, err := j.leasedClaim(ctx, e.key, "")
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w", op, err)
	}
	now := j.now().UTC()
	settled := "settled by " + strings.TrimSpace(by) + ": " + strings.TrimSpace(reason)
	var claimed *ClaimedError
	err = j.update(ctx, e.key, func(rec *journalRecord) error {
		claimed = nil
		if !rec.inDoubt() {
			return ErrNotInDoubt
		}
		if rec.Outcome == "" || rec.Outcome == OutcomeUnknown {
			// The create may still be on its way, or the bank still
			// working on it (outcome unknown, see Resolve): a person who
			// asks the bank now may hear of no payment that lands a
			// moment later. So too when Resolve left it as NeedsPerson
			// (the entry is in doubt, so its resolution is none or that
			// one): Resolve reports NeedsPerson for a create carrying
			// allowLogicalDuplicate, or recording no Create, without
			// waiting for the bank.
			if e := rec.entry(j, e.key); !j.stopped && (flying || j.youngAt(e, now)) {
				what := "no outcome yet"
				if rec.Outcome == OutcomeUnknown {
					what = "the outcome is unknown and the bank may still be working on the create"
				}
				return fmt.Errorf("%w: %s, journaled %s ago (in-flight time %s)", ErrInFlight, what,
					now.Sub(e.Created).Round(time.Millisecond), j.inFlight)
			}
		}
		c := rec.Claim
		if !c.live(now) && leased != nil {
			c = &claim{RequestID: leased.ResendRequestID, Until: leased.Until}
		}
		if c.live(now) || leased != nil {
			claimed = &ClaimedError{ResendRequestID: c.RequestID, Until: c.Until}
			rec.Trail = withTrail(rec.Trail, refusedSettlement(settled, c, now))
			return nil
		}
		if old := rec.Resolution; old != nil {
			rec.Trail = withTrail(rec.Trail, *old)
		}
		rec.Resolution = &Resolution{Kind: SettledByPerson, ID: rec.ID, Reason: settled, At: now}
		return nil
	})
	switch {
	case err != nil:
		return Entry{}, fmt.Errorf("%s: %w", op, err)
	case claimed != nil:
		return Entry{}, fmt.Errorf("%s: %w", op, claimed)
	}
	j.closeDoubt(ctx, e.key)
	return j.read(ctx, e.key)
}

// checkPersonText refuses an empty, overlong or multi-line text.
func checkPersonText(s string) error {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return errors.New("is empty")
	case !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxPersonText:
		return fmt.Errorf("is not valid UTF-8 of at most %d characters", maxPersonText)
	case strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) >= 0:
		return errors.New("holds a line break or control character")
	}
	return nil
}
