package journal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SettledByPerson: a person settled the entry outside the SDK (asked the
// bank or the PSU, looked at the account) with [Journal.SettleByPerson];
// Reason says who and why. The entry is no longer in doubt and nothing is
// sent for it.
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
func (j *Journal) SettleByPerson(ctx context.Context, requestID, by, reason string) (Entry, error) {
	const op = "journal.SettleByPerson"
	for _, f := range []struct{ name, v string }{{"by", by}, {"reason", reason}} {
		if err := checkPersonText(f.v); err != nil {
			return Entry{}, fmt.Errorf("%s: %s %w", op, f.name, err)
		}
	}
	key, err := journalKey(requestID)
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w", op, err)
	}
	now := j.now().UTC()
	err = j.update(ctx, key, func(rec *journalRecord) error {
		if !rec.entry(j).InDoubt() {
			return ErrNotInDoubt
		}
		rec.Resolution = &Resolution{Kind: SettledByPerson, ID: rec.ID,
			Reason: "settled by " + strings.TrimSpace(by) + ": " + strings.TrimSpace(reason), At: now}
		return nil
	})
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w", op, err)
	}
	j.closeDoubt(ctx, key)
	return j.read(ctx, key)
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
