package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tppkit/psd2/store"
)

// ASSUMPTION (claims): an entry's create is sent again only under a
// claim. Right before the resend leaves (in its client.Hook, once the
// X-Request-ID is fixed), Resolve writes a claim into the entry in one
// store Update: only while the entry is in doubt and no other live claim
// holds it. While the claim lives, [Journal.SettleByPerson] is refused
// with a [*ClaimedError], and so is another Resolve: at most one resend
// of an entry is on its way at a time, and an operator never settles an
// entry whose resend may be creating the resource at that moment. The
// claim ends when Resolve records what it found (or gives up on a resend
// that never left), and at the latest at its Until: the resend's own
// bound (Entry.Until of the resend) plus claimMargin for the recording
// of the resolution, and at least the journal's in-flight time, so that
// a resolver that died leaves nothing locked for longer. A resend whose
// outcome is unknown keeps its claim until then: the bank may still be
// working on it, and a resend sent meanwhile could pass its duplicate
// check (as for a first create, see ErrInFlight). A person's
// settlement is never replaced by a resolution: one that comes after it
// (its claim outlived) goes into the entry's Trail, and Resolve reports
// the conflict ([ErrConflict]).

// claimMargin is the time a claim allows Resolve to record its
// resolution after the resend and the recording of its outcome are over.
const claimMargin = outcomeTimeout

// claim is a Resolve's hold on an entry while it sends the create again,
// stored in the entry.
type claim struct {
	// Token is the claiming Resolve's own random token.
	Token string `json:"token"`
	// RequestID is the resend's X-Request-ID.
	RequestID string `json:"requestId"`
	// Until is when the claim ends at the latest.
	Until time.Time `json:"until"`
}

// live reports whether c holds its entry at now.
func (c *claim) live(now time.Time) bool { return c != nil && now.Before(c.Until) }

// ErrClaimed matches the error of [Journal.SettleByPerson] and
// [Journal.Resolve] for an entry whose create a Resolve is sending again
// at that moment: nothing was changed or sent. Call again once the
// resend is over (its resolution may settle the entry), at the latest at
// the [ClaimedError]'s Until.
var ErrClaimed = errors.New("journal: a Resolve is sending the entry's create again")

// ClaimedError is the error of [Journal.SettleByPerson] and
// [Journal.Resolve] for an entry a Resolve has claimed to send its create
// again; it matches [ErrClaimed].
type ClaimedError struct {
	// ResendRequestID is the X-Request-ID of the resend on its way.
	ResendRequestID string
	// Until is when the claim ends at the latest, on the journal's clock.
	Until time.Time
}

// Error says that a resend is on its way, and until when at the latest.
func (e *ClaimedError) Error() string {
	return fmt.Sprintf("journal: a Resolve is sending the entry's create again (X-Request-ID %s); try again after it is over, at the latest at %s",
		e.ResendRequestID, e.Until.UTC().Format(time.RFC3339))
}

// Is makes a ClaimedError match [ErrClaimed].
func (e *ClaimedError) Is(target error) bool { return target == ErrClaimed }

// Claimed returns the claim that holds the entry at now, as a
// [*ClaimedError] (the resend's X-Request-ID and when the claim ends at
// the latest), or nil when no Resolve is sending its create again: an
// operator's tool shows it, and an operator waits for the resend before
// settling the entry by hand. now is the journal's clock (time.Now, or
// the client's of [WithClient]).
func (e Entry) Claimed(now time.Time) *ClaimedError {
	if !e.claim.live(now) {
		return nil
	}
	return &ClaimedError{ResendRequestID: e.claim.RequestID, Until: e.claim.Until}
}

// ErrConflict matches the error of [Journal.Resolve] when a person
// settled the entry ([Journal.SettleByPerson]) while Resolve was sending
// its create again, after Resolve's claim had run out (a resolver slower
// than its bound). The person's settlement stays in force; what Resolve
// found is returned with the error (with the bank's Answer) and kept in
// the entry's Trail. Check the person's decision against it: for
// [ResolvedCreated], the resource exists now.
var ErrConflict = errors.New("journal: a person settled the entry while Resolve sent its create again")

// errSettledMeanwhile stops a claim on an entry that is no longer in
// doubt: it was settled since Resolve read it.
var errSettledMeanwhile = errors.New("journal: entry settled meanwhile")

// errNotOurClaim stops the release of a claim that is not the caller's.
var errNotOurClaim = errors.New("journal: not our claim")

// takeClaim claims the entry under key for the resend requestID of the
// Resolve whose token is token, until until: an error matching
// errSettledMeanwhile when the entry is no longer in doubt, a
// *ClaimedError when another live claim holds it.
//
// The claim is taken first as a lease (see leases): a store value under
// claimKey whose ttl is the claim's remaining time, written only when no
// other Resolve's lease lives, so that replicas whose clocks disagree
// still see one claim at a time.
func (j *Journal) takeClaim(ctx context.Context, key, token, requestID string, until time.Time) error {
	now := j.now()
	c := &claim{Token: token, RequestID: requestID, Until: until}
	lease, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrJournal, err)
	}
	err = j.st.Update(ctx, claimKey(key), func(old []byte, found bool) ([]byte, time.Duration, error) {
		if found {
			if o, ok := readLease(old); !ok || o.Token != token {
				return nil, 0, o.error()
			}
		}
		return lease, until.Sub(now), nil
	})
	if err != nil {
		return err
	}
	err = j.update(ctx, key, func(rec *journalRecord) error {
		if !rec.inDoubt() {
			return errSettledMeanwhile
		}
		if c := rec.Claim; c.live(now) && c.Token != token {
			return &ClaimedError{ResendRequestID: c.RequestID, Until: c.Until}
		}
		rec.Claim = c
		return nil
	})
	if err != nil {
		j.dropLease(ctx, key, token)
	}
	return err
}

// readLease reads a claim lease; false when it cannot be read (held by
// an unknown writer: taken as another's).
func readLease(b []byte) (*claim, bool) {
	var c claim
	if json.Unmarshal(b, &c) != nil || c.Token == "" {
		return &c, false
	}
	return &c, true
}

// error is the *ClaimedError of a lease held by another Resolve.
func (c *claim) error() *ClaimedError {
	return &ClaimedError{ResendRequestID: c.RequestID, Until: c.Until}
}

// leasedClaim returns the claim lease of the entry under key as a
// *ClaimedError when it lives and is not token's, nil otherwise.
func (j *Journal) leasedClaim(ctx context.Context, key, token string) (*ClaimedError, error) {
	b, err := j.st.Get(ctx, claimKey(key))
	switch {
	case errors.Is(err, store.ErrNotStored):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	if c, ok := readLease(b); !ok || c.Token != token {
		return c.error(), nil
	}
	return nil, nil
}

// dropLease removes the claim lease of token on the entry under key, if
// it is still token's, without the call's cancellation. Best effort: the
// lease expires anyway.
func (j *Journal) dropLease(ctx context.Context, key, token string) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	_ = j.st.Update(dctx, claimKey(key), func(old []byte, found bool) ([]byte, time.Duration, error) {
		if c, ok := readLease(old); !found || !ok || c.Token != token {
			return nil, 0, errNotOurClaim
		}
		return nil, 0, nil // deletes the lease
	})
}

// dropClaim ends the claim of token on the entry under key, if it still
// holds it, without the call's cancellation. Best effort: the claim ends
// at its Until anyway. The ended claim stays in the entry (its Until
// zero) until a resolution is recorded or another claim replaces it: it
// names the resend, whose own entry may know what the resend created
// when its resolution was not recorded (see earlierResend).
func (j *Journal) dropClaim(ctx context.Context, key, token string) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	_ = j.update(dctx, key, func(rec *journalRecord) error {
		if rec.Claim == nil || rec.Claim.Token != token {
			return errNotOurClaim
		}
		rec.Claim = &claim{Token: token, RequestID: rec.Claim.RequestID}
		return nil
	})
	j.dropLease(ctx, key, token)
}

// withTrail returns trail with r added (without its Answer), keeping the
// last maxTrail.
func withTrail(trail []Resolution, r Resolution) []Resolution {
	r.Answer = nil
	trail = append(trail, r)
	if n := len(trail) - maxTrail; n > 0 {
		trail = slices.Clone(trail[n:])
	}
	return trail
}

// sameFinding reports whether a and b say the same, whenever made.
func sameFinding(a, b Resolution) bool {
	return a.Kind == b.Kind && a.ID == b.ID && a.Status == b.Status && sameFunds(a.FundsAvailable, b.FundsAvailable) &&
		a.Reason == b.Reason && a.ResendRequestID == b.ResendRequestID
}

// sameFunds reports whether two FundsAvailable say the same.
func sameFunds(a, b *bool) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// record writes res, what the Resolve with token (empty when it sent
// nothing) found, into the entry under key, ending its claim. It returns
// the resolution in force afterwards when it is not res (a person's, one
// that knows the id res lacks, or a settled one a NeedsPerson does not
// replace), and whether a person's settlement stood against a resend
// (ErrConflict).
func (j *Journal) record(ctx context.Context, key, token string, res Resolution) (kept *Resolution, conflict bool, err error) {
	settled := false
	err = j.update(ctx, key, func(rec *journalRecord) error {
		kept, conflict = nil, false
		if token != "" && rec.Claim != nil && rec.Claim.Token == token {
			rec.Claim = nil
		}
		r := res
		r.Answer = nil
		switch old := rec.Resolution; {
		case old != nil && old.Kind == SettledByPerson:
			// A person's settlement is never replaced.
			rec.Trail = withTrail(rec.Trail, r)
			k := *old
			kept, conflict = &k, token != ""
		case old != nil && old.ID != "" && res.ID == "":
			// Never replace a resolution that knows the id by one that
			// does not (a concurrent resolver's duplicate after our
			// creation); that one is in force, and what Resolve reports.
			rec.Trail = withTrail(rec.Trail, r)
			k := *old
			kept = &k
		case old != nil && old.Kind != NeedsPerson && res.Kind == NeedsPerson:
			// Nor a settled resolution by one that needs a person (a
			// refused resend after another settled it): the entry would
			// be in doubt again.
			rec.Trail = withTrail(rec.Trail, r)
			k := *old
			kept = &k
		default:
			if old != nil && !sameFinding(*old, r) {
				rec.Trail = withTrail(rec.Trail, *old)
			}
			rec.Resolution = &r
		}
		settled = rec.settled()
		return nil
	})
	if err == nil && token != "" {
		j.dropLease(ctx, key, token)
	}
	if err == nil && settled {
		j.closeDoubt(ctx, key)
	}
	return kept, conflict, err
}

// refusedSettlement is the Trail item of a person's settlement, whose
// Reason is settled, refused at at because of the claim c.
func refusedSettlement(settled string, c *claim, at time.Time) Resolution {
	return Resolution{Kind: SettledByPerson, At: at, ResendRequestID: c.RequestID,
		Reason: "refused while a Resolve was sending the create again: " + settled}
}
