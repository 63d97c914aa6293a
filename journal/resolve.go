package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/apipath"
)

// Create describes a kind of create to the journal: which member of the
// bank's 2xx answer names the created resource, how the bank refuses a
// second, identical create because the first exists, and how it answers
// a status read before the PSU approved. Each entry records it, so that
// any process resolves the entry without knowing the service that made
// it.
type Create struct {
	// ResultID is the member of the bank's answer that holds the created
	// resource's id, such as "paymentId" or "basketId"; required.
	ResultID string `json:"resultId"`
	// DuplicateStatus and DuplicateCode are the bank's refusal of a
	// resend that says the first create exists: its HTTP status and a
	// tppMessages code it carries (400 PAYMENT_FAILED for a payment on
	// this platform, 409 STATUS_INVALID for a signing basket). A refusal
	// of a resend that is not this one needs a person.
	DuplicateStatus int    `json:"duplicateStatus"`
	DuplicateCode   string `json:"duplicateCode"`
	// NotFoundUntilApproved says that the bank answers a status read of
	// a resource it created with 404 until the PSU approved it (a known
	// issue of the platform); Resolve then reports the id with an empty
	// status instead of an error.
	NotFoundUntilApproved bool `json:"notFoundUntilApproved,omitempty"`
}

// ResolutionKind says how [Journal.Resolve] settled a journal entry.
type ResolutionKind string

// Resolution kinds.
const (
	// ResolvedStatus: the id was known; its status was read.
	ResolvedStatus ResolutionKind = "status"
	// ResolvedCreated: the same create sent again was accepted, so the
	// first never reached the bank; the payment exists once, with the
	// resend's id (the PSU still has to approve it: see Answer).
	ResolvedCreated ResolutionKind = "created"
	// ResolvedDuplicate: the bank refused the same create sent again as a
	// logical duplicate, so the first reached it and the payment exists
	// (its id is unknown: the bank never sent it).
	ResolvedDuplicate ResolutionKind = "duplicate"
	// ResolvedNotCreated: the journal already knew that nothing was
	// created (the bank refused the create, or it was never sent).
	ResolvedNotCreated ResolutionKind = "not-created"
	// NeedsPerson: the SDK cannot settle the entry without risking a
	// second payment: it was created with allowLogicalDuplicate (a resend
	// would not be refused as a duplicate), or the bank refused the
	// resend for another reason. Reason says which; the entry stays in
	// doubt.
	NeedsPerson ResolutionKind = "needs-person"
)

// Resolution is what [Journal.Resolve] found out about a journal entry,
// also recorded in the entry ([Entry.Resolution]).
type Resolution struct {
	// Kind says how the entry was settled.
	Kind ResolutionKind `json:"kind"`
	// ID is the created resource's id when known: ResolvedStatus and
	// ResolvedCreated. Recorded under its version 1 name.
	ID string `json:"paymentId,omitempty"`
	// Status is the transactionStatus read for ResolvedStatus; "" when
	// the bank cannot show the resource yet
	// ([Create.NotFoundUntilApproved]).
	Status string `json:"status,omitempty"`
	// ResendRequestID is the X-Request-ID of the resend, when one was
	// sent (ResolvedCreated, ResolvedDuplicate, or NeedsPerson after a
	// refused resend); its own journal entry has Resolves set.
	ResendRequestID string `json:"resendRequestId,omitempty"`
	// Reason explains NeedsPerson.
	Reason string `json:"reason,omitempty"`
	// At is when the resolution was made.
	At time.Time `json:"at"`
	// Answer is the bank's answer to the resend for ResolvedCreated (its
	// links carry the scaRedirect the PSU approves with), nil otherwise.
	// It is neither recorded nor printed; package payments decodes it.
	Answer json.RawMessage `json:"-"`
}

// ErrNotResolvable matches the error of [Journal.Resolve] for an entry it
// must not act on: not from a journal, journaled through a client of
// another TPP or bank, the entry of a resend (resolve its original), or
// settled without a resolution or payment id to report.
var ErrNotResolvable = errors.New("journal: journal entry not resolvable here")

// ErrInFlight matches the error of [Journal.Resolve] for an entry without
// an outcome whose create may still be running: younger than the
// journal's in-flight time ([DefaultInFlight], [WithInFlight]) or
// than its own bound ([Entry.Until]); it may still be on its way
// in another replica, so nothing is sent. [Journal.InDoubt] yields
// such an entry once the time has passed; call Resolve again then.
var ErrInFlight = errors.New("journal: journal entry may still be in flight")

// Resolve settles a journal entry in doubt ([Journal.InDoubt]) with one
// SDK call, recording the result in the entry's journal, and never
// creates a second payment (docs/design.md section 8). It acts on the
// entry as the journal holds it now (another replica may have settled it
// meanwhile), not on the copy passed in:
//
//   - When the payment's id is known, it reads the status
//     (ResolvedStatus).
//   - When the journal knows nothing was created (refused, not sent), it
//     sends nothing (ResolvedNotCreated).
//   - When the entry is already settled by an earlier resolution (for
//     example ResolvedDuplicate: the payment exists, its id unknown), it
//     sends nothing and returns that recorded resolution (its Answer
//     is nil). Resolving every entry of [Journal.Entries] is therefore
//     safe.
//   - When the create carried allowLogicalDuplicate in any spelling (any
//     case of the name, padded, any value, in its query or body), it
//     sends nothing and reports NeedsPerson: the bank would not refuse a
//     resend.
//   - When the entry has no outcome and is younger than the in-flight
//     time (the create may still be running in another replica), it
//     sends nothing and returns an error matching [ErrInFlight].
//   - When the entry has no outcome and was never armed (its intent was
//     reported unwritten, so its caller got [client.ErrNotSent], and
//     marking it not sent failed too; or the store failed right after
//     the intent), it sends nothing and reports NeedsPerson: a create
//     reported as not sent is never sent by the SDK.
//   - Otherwise it sends the same body to the same URL again, without
//     allowLogicalDuplicate, with a new X-Request-ID (journaled too, with
//     Resolves set) and the entry's session and PSU headers. "Created"
//     means the first never arrived (ResolvedCreated, the new id);
//     the bank's logical-duplicate refusal means it exists
//     (ResolvedDuplicate). Any other refusal is NeedsPerson.
//
// opts are added to the resend and the status read (after the entry's
// own headers, so they win): for example a fresh PSU-IP-Address, or
// client.WithRequestID to fix the resend's id. An option that sets
// allowLogicalDuplicate stops the resend before it is sent.
//
// An error (the store, the network, a resend whose outcome is unknown
// again) leaves the entry in doubt: call Resolve again later. Replicas
// may resolve the same entry at once: the bank's duplicate check lets at
// most one resend create the payment.
//
// A payment that reached the bank and was later rejected or cancelled no
// longer counts as a duplicate: a resend then creates a new payment, which
// the PSU must approve like any other. The platform offers no search of
// payments by content, so for ResolvedDuplicate the first payment's id
// stays unknown; it cannot be approved without its scaRedirect and
// expires unsigned. A created payment whose id the store could not take
// at once is still known (see [Journal.Hook]), so its status is read. For
// what the TPP does after ResolvedDuplicate, and when paying the same
// payee the same amount again with allowLogicalDuplicate is safe, see
// docs/design.md section 8.
//
// c is the client of the TPP and bank the entry was journaled with; the
// entry must have been read from j.
func (j *Journal) Resolve(ctx context.Context, c *client.Client, entry Entry, opts ...client.RequestOption) (Resolution, error) {
	const op = "journal.Resolve"
	if j == nil || c == nil {
		return Resolution{}, fmt.Errorf("%s: %w: needs a journal and a client", op, ErrNotResolvable)
	}
	if entry.j != j {
		return Resolution{}, fmt.Errorf("%s: %w: the entry was not read from this Journal", op, ErrNotResolvable)
	}
	if entry.scope != c.Scope() {
		return Resolution{}, fmt.Errorf("%s: %w: the entry was journaled by a client of another TPP or bank", op, ErrNotResolvable)
	}
	key, err := journalKey(entry.RequestID)
	if err != nil {
		return Resolution{}, fmt.Errorf("%s: %w", op, err)
	}
	// What another replica may have learnt meanwhile counts.
	if entry, err = j.read(ctx, key); err != nil {
		return Resolution{}, fmt.Errorf("%s: %w", op, err)
	}
	if entry.Resolves != "" {
		return Resolution{}, fmt.Errorf("%s: %w: the entry is a resend; resolve the entry %s", op, ErrNotResolvable, entry.Resolves)
	}
	if entry.folded {
		// The bank created it: the entry gets the id the hook could
		// only record apart (recordCreated).
		_ = j.keepFold(ctx, key, entry.ID)
	}
	var res Resolution
	switch {
	case entry.ID != "":
		res, err = readStatus(ctx, c, entry, opts)
	case entry.Outcome == OutcomeRefused || entry.Outcome == OutcomeNotSent:
		return Resolution{Kind: ResolvedNotCreated, At: j.now().UTC()}, nil
	case !entry.InDoubt():
		// Settled: the create's id is unknown here (the case above has
		// it), so a resolution said the payment exists (or that nothing
		// was created). Sending the create again could make a second
		// payment once the first expired.
		if entry.Resolution != nil {
			return *entry.Resolution, nil
		}
		return Resolution{}, fmt.Errorf("%s: %w: the entry is settled (outcome %q) without a payment id", op, ErrNotResolvable, entry.Outcome)
	case entry.AllowLogicalDuplicate || bodyAllowsDuplicate(entry.Body):
		res = Resolution{Kind: NeedsPerson, Reason: "created with allowLogicalDuplicate: a resend would not be refused as a duplicate, so only a person can tell whether the payment exists"}
	case entry.Outcome == "" && entry.Resolution == nil && j.underWay(entry, j.now()):
		return Resolution{}, fmt.Errorf("%s: %w: no outcome yet, journaled %s ago (in-flight time %s)", op, ErrInFlight,
			j.now().Sub(entry.Created).Round(time.Millisecond), j.inFlight)
	default:
		if entry.Outcome == "" {
			armed, aerr := j.armed(ctx, key)
			if aerr != nil {
				return Resolution{}, fmt.Errorf("%s: %w", op, aerr)
			}
			if !armed {
				res = Resolution{Kind: NeedsPerson, Reason: unarmedReason}
				break
			}
		}
		res, err = j.resend(ctx, c, entry, opts)
	}
	if err != nil {
		// The client's errors of the status read and the resend name
		// their operation, journal.Resolve, already.
		if !strings.HasPrefix(err.Error(), op+": ") {
			err = fmt.Errorf("%s: %w", op, err)
		}
		return Resolution{}, err
	}
	res.At = j.now().UTC()
	settled := false
	var kept *Resolution
	err = j.update(ctx, key, func(rec *journalRecord) error {
		kept = nil
		switch old := rec.Resolution; {
		case old != nil && old.ID != "" && res.ID == "":
			// Never replace a resolution that knows the id by one that
			// does not (a concurrent resolver's duplicate after our
			// creation).
		case old != nil && old.Kind != NeedsPerson && res.Kind == NeedsPerson:
			// Nor a settled resolution by one that needs a person (a
			// concurrent resolver's refused resend after the first
			// settled it): the entry would be in doubt again.
			k := *old
			kept = &k
		default:
			r := res
			r.Answer = nil
			rec.Resolution = &r
		}
		settled = rec.settled()
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("%s: recording the resolution: %w", op, err)
	}
	if settled {
		j.closeDoubt(ctx, key)
	}
	if kept != nil {
		return *kept, nil
	}
	return res, nil
}

// readStatus reads {url}/{id}/status of the entry's created resource.
func readStatus(ctx context.Context, c *client.Client, e Entry, opts []client.RequestOption) (Resolution, error) {
	// The id is the bank's answer to the create: "." or ".." would change
	// the path read.
	if err := apipath.Check(e.Create.ResultID, e.ID); err != nil {
		return Resolution{}, err
	}
	href := apipath.Join(e.URL, e.ID, "status")
	var out struct {
		TransactionStatus string `json:"transactionStatus"`
	}
	op := client.Operation{Name: "journal.Resolve", Method: http.MethodGet, Path: href}
	_, err := c.Do(ctx, op, &out, append(e.options(), opts...)...)
	switch {
	case err != nil && e.Create.NotFoundUntilApproved && errors.Is(err, client.ErrNotFound):
		return Resolution{Kind: ResolvedStatus, ID: e.ID}, nil
	case err != nil:
		return Resolution{}, err
	}
	return Resolution{Kind: ResolvedStatus, ID: e.ID, Status: out.TransactionStatus}, nil
}

// options are the request options of a resend: the entry's own headers.
func (e Entry) options() []client.RequestOption {
	var ro []client.RequestOption
	for name, vs := range e.header {
		if len(vs) > 0 && vs[0] != "" {
			ro = append(ro, client.WithHeader(name, vs[0]))
		}
	}
	return ro
}

// resend sends the entry's create again without allowLogicalDuplicate and
// interprets the answer.
func (j *Journal) resend(ctx context.Context, c *client.Client, e Entry, opts []client.RequestOption) (Resolution, error) {
	var requestID string
	hook := j.hook(e.scope, c.LongestCall(), e.Create, e.RequestID)
	op := client.Operation{
		Name:       "journal.Resolve",
		Method:     http.MethodPost,
		Path:       e.URL,
		Body:       json.RawMessage(e.Body),
		Repeatable: false, // the resend is a create: sent once
		ResultID:   e.Create.ResultID,
		Hook: func(ctx context.Context, call *client.Call) (func(client.Result), error) {
			requestID = call.RequestID
			return hook(ctx, call)
		},
	}
	var out json.RawMessage
	_, err := c.Do(ctx, op, &out, append(e.options(), opts...)...)
	var ce *client.Error
	switch {
	case err == nil:
		var ids map[string]json.RawMessage
		var id string
		if json.Unmarshal(out, &ids) == nil {
			_ = json.Unmarshal(ids[e.Create.ResultID], &id)
		}
		return Resolution{Kind: ResolvedCreated, ID: id, ResendRequestID: requestID, Answer: out}, nil
	case errors.As(err, &ce) && existsRefusal(e, ce):
		return Resolution{Kind: ResolvedDuplicate, ResendRequestID: requestID}, nil
	case errors.As(err, &ce) && ce.StatusCode >= 400 && ce.StatusCode < 500 && !errors.Is(err, client.ErrOutcomeUnknown):
		code := ""
		if len(ce.Messages) > 0 {
			code = " " + ce.Messages[0].Code
		}
		return Resolution{Kind: NeedsPerson, ResendRequestID: requestID,
			Reason: fmt.Sprintf("the bank refused the resend (%d%s), not as a duplicate: whether the first create arrived is unknown", ce.StatusCode, code)}, nil
	}
	return Resolution{}, err
}

// unarmedReason is the reason of NeedsPerson for an entry without an
// outcome whose open marker is missing (see armedCreates in journal.go).
const unarmedReason = "no outcome, and the journal never recorded that the create was about to be sent " +
	"(its intent was reported unwritten, or the marker after it failed): it was not sent, or sent by a process " +
	"that died before recording the answer; the SDK does not send it again"

// existsRefusal reports whether the bank's refusal of a resend says the
// first create exists.
func existsRefusal(e Entry, ce *client.Error) bool {
	return e.Create.DuplicateStatus != 0 && ce.StatusCode == e.Create.DuplicateStatus &&
		e.Create.DuplicateCode != "" && ce.HasCode(e.Create.DuplicateCode) && !errors.Is(ce, client.ErrOutcomeUnknown)
}
