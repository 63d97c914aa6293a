package journal

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/apipath"
	"github.com/tppkit/psd2/store"
)

// ResolutionKind says how [Journal.Resolve] settled a journal entry.
type ResolutionKind string

// Resolution kinds.
const (
	// ResolvedStatus: the id was known; its status was read.
	ResolvedStatus ResolutionKind = "status"
	// ResolvedCreated: the same create sent again was accepted, so the
	// first never reached the bank; the resource exists once, with the
	// resend's id (the PSU still has to approve it: see Answer).
	ResolvedCreated ResolutionKind = "created"
	// ResolvedDuplicate: the resource exists and its id is unknown. The
	// bank refused the same create sent again as a logical duplicate, so
	// the first reached it; or the bank had answered the create with a
	// 2xx status without an id the SDK could read (none, one over
	// [client.MaxIDLength], or a body cut short), and nothing was sent
	// again (Reason says so, ResendRequestID is empty).
	ResolvedDuplicate ResolutionKind = "duplicate"
	// ResolvedNotCreated: the journal already knew that nothing was
	// created (the bank refused the create, or it was never sent).
	ResolvedNotCreated ResolutionKind = "not-created"
	// NeedsPerson: the SDK cannot settle the entry without risking a
	// second resource: it was created with allowLogicalDuplicate (a resend
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
	// ([Create.NotFoundUntilApproved]). For ResolvedCreated it is the
	// transactionStatus of the resend's answer: the status the bank gave
	// the resource it created, at At (a later status read may find
	// another); "" when the answer gave none (or could not be read).
	// A status is recorded as the bank sent it when it is 1 to 4 ASCII
	// letters, the interface's form, and as [UnreadableStatus] otherwise.
	Status string `json:"status,omitempty"`
	// FundsAvailable is the status read's fundsAvailable for
	// ResolvedStatus (for ResolvedCreated, the resend's answer's): false
	// when the bank cannot fund the resource now
	// (a payment in ACCP for lack of funds, whose batch tries again:
	// docs/interface.md sections 2.6 and 3), nil when the bank did not
	// say.
	FundsAvailable *bool `json:"fundsAvailable,omitempty"`
	// ResendRequestID is the X-Request-ID of the resend, when one was
	// sent (ResolvedCreated, ResolvedDuplicate, or NeedsPerson after a
	// refused resend); its own journal entry has Resolves set.
	ResendRequestID string `json:"resendRequestId,omitempty"`
	// Reason explains NeedsPerson and SettledByPerson.
	Reason string `json:"reason,omitempty"`
	// At is when the resolution was made.
	At time.Time `json:"at"`
	// Answer is the bank's answer to the resend for ResolvedCreated, nil
	// otherwise: the document the create returns (a payment's
	// initiation, whose links carry the scaRedirect the PSU approves
	// with). Decode it into the service's type, for example
	// payments.Initiation. It is neither recorded nor printed.
	Answer json.RawMessage `json:"-"`
}

// ErrNotResolvable matches the error of [Journal.Resolve] for an entry it
// must not act on: not from a journal, journaled through a client of
// another TPP or bank, the entry of a resend (resolve its original), or
// settled without a resolution or id to report.
var ErrNotResolvable = errors.New("journal: journal entry not resolvable here")

// ErrNotRecorded matches the error of [Journal.Resolve] that found what
// became of the entry but could not record it in the journal (the store
// failed). The [Resolution] it returns with the error is what it found:
// after a resend that created the resource (ResolvedCreated), its new ID
// and Answer (with the scaRedirect) exist nowhere else, since the entry
// stays in doubt and a later Resolve would send the create again, which
// the bank refuses as a duplicate. Report the Resolution, and record it
// by other means (a person's settlement, [Journal.SettleByPerson]) once
// the store works.
var ErrNotRecorded = errors.New("journal: what Resolve found was not recorded in the journal")

// ErrInFlight matches the error of [Journal.Resolve] for an entry without
// an outcome whose create may still be running: younger than the
// journal's in-flight time ([DefaultInFlight], [WithInFlight]) or
// than its own bound ([Entry.Until]); it may still be on its way
// in another replica, so nothing is sent. [Journal.InDoubt] yields
// such an entry once the time has passed; call Resolve again then.
var ErrInFlight = errors.New("journal: journal entry may still be in flight")

// Resolve settles a journal entry in doubt ([Journal.InDoubt]) with one
// SDK call, recording the result in the entry's journal, and never
// creates a second resource (docs/design.md section 8). It acts on the
// entry as the journal holds it now (another replica may have settled it
// meanwhile), not on the copy passed in:
//
//   - When the resource's id is known, it reads the status
//     (ResolvedStatus); an answer without a transactionStatus is an
//     error matching client.ErrUnusableAnswer, nothing recorded.
//   - When the journal knows nothing was created (refused, not sent), it
//     sends nothing (ResolvedNotCreated; recorded when the entry was
//     still in doubt, an earlier Resolve having left it as NeedsPerson
//     before its outcome was recorded).
//   - When the entry is already settled by an earlier resolution (for
//     example ResolvedDuplicate: the resource exists, its id unknown), or
//     by a person ([Journal.SettleByPerson]), it sends nothing and returns
//     that recorded resolution (its Answer is nil). Resolving every entry
//     of [Journal.Entries] is therefore safe.
//   - When the bank answered the create with a 2xx status but without an
//     id the SDK could read, the resource exists: it sends nothing and
//     reports ResolvedDuplicate.
//   - When the create carried allowLogicalDuplicate in any spelling (any
//     case of the name, padded, any value, in its query or body), it
//     sends nothing and reports NeedsPerson: the bank would not refuse a
//     resend. So it does for an entry that records no [Create]. Either
//     only once its create cannot be on its way any more, nor the bank
//     working on it (below: until then [ErrInFlight]), so that a person
//     it sends to the bank does not hear of no payment that lands a
//     moment later.
//   - When the entry has no outcome and is younger than the in-flight
//     time (the create may still be running in another replica), it
//     sends nothing and returns an error matching [ErrInFlight]. So it
//     does for an entry whose outcome is unknown, until it is older than
//     the in-flight time and its own bound ([Entry.Until]): the client
//     gave up on the create (a timeout, a lost connection, a gateway's
//     504), but the bank may still be working on it, and a resend that
//     arrived before the first was recorded there could pass its
//     duplicate check. Its in-flight lease lives on until then, on the
//     store's clock (a replica whose clock runs ahead waits too).
//     [WithWritersStopped] resolves it at once.
//   - When another Resolve is sending the create again at that moment,
//     it sends nothing and returns a [*ClaimedError] ([ErrClaimed]).
//   - When an earlier Resolve sent the create again and its resolution
//     was never recorded (an error matching [ErrNotRecorded], or a
//     resolver that died), it reads that resend's own entry first: when
//     the resend created the resource, it reads the status of the id it
//     got (ResolvedStatus, with the resend's X-Request-ID) and sends
//     nothing; when the bank accepted it without a readable id, the
//     resource exists (ResolvedDuplicate).
//   - When the entry has no outcome and was never armed (its intent was
//     reported unwritten, so its caller got [client.ErrNotSent], and
//     marking it not sent failed too; or the store failed right after
//     the intent), it sends nothing and reports NeedsPerson: a create
//     reported as not sent is never sent by the SDK.
//   - Otherwise it claims the entry (see [ErrClaimed]) and sends the same
//     body to the same path under c's base URL again, without
//     allowLogicalDuplicate, with a new X-Request-ID (journaled too, with
//     Resolves set) and the entry's session and PSU headers. "Created"
//     means the first never arrived (ResolvedCreated, the new id);
//     the bank's logical-duplicate refusal means it exists
//     (ResolvedDuplicate). Any other refusal is NeedsPerson. Should a
//     person have settled the entry meanwhile (the claim ran out first),
//     their settlement stays in force, and Resolve returns what it found
//     with an error matching [ErrConflict]. Should another Resolve have
//     recorded a resolution that knows the resource's id meanwhile (a
//     resend created it while this one's was on its way), that one stays
//     in force and is returned; this one's finding goes into the Trail.
//
// A resolution that replaces another keeps the old one in the entry's
// Trail ([Entry.Trail]).
//
// opts are added to the resend and the status read (after the entry's
// own headers, so they win): for example a fresh PSU-IP-Address, or
// client.WithRequestID to fix the resend's id. An option that sets
// allowLogicalDuplicate stops the resend before it is sent.
//
// An error (the store, the network, a resend whose outcome is unknown
// again) leaves the entry in doubt: call Resolve again later. The one
// exception is an error matching [ErrNotRecorded]: Resolve found what
// became of the entry and returns it with the error, but the journal
// does not hold it; report it before anything else.
//
// A resource that reached the bank and was later rejected or cancelled no
// longer counts as a duplicate: a resend then creates a new one, which
// the PSU must approve like any other. The platform offers no search of
// payments by content, so for ResolvedDuplicate the first resource's id
// stays unknown; it cannot be approved without its scaRedirect and
// expires unsigned. A created resource whose id the store could not take
// at once is still known (see [Journal.Hook]), so its status is read. For
// what the TPP does after ResolvedDuplicate, and when paying the same
// payee the same amount again with allowLogicalDuplicate is safe, see
// docs/design.md section 8.
//
// c is a client of the TPP and bank the entry was journaled with (the
// same [client.Client.Scope]; a bank that moved host keeps its scope when
// its clients name it with client.WithBank, as package banks does); the
// entry must have been read from j.
func (j *Journal) Resolve(ctx context.Context, c *client.Client, entry Entry, opts ...client.RequestOption) (Resolution, error) {
	const op = "journal.Resolve"
	if j == nil || c == nil {
		return Resolution{}, fmt.Errorf("%s: %w: needs a journal and a client", op, ErrNotResolvable)
	}
	if entry.j != j || entry.key == "" {
		return Resolution{}, fmt.Errorf("%s: %w: the entry was not read from this Journal", op, ErrNotResolvable)
	}
	if entry.scope != c.Scope() {
		return Resolution{}, fmt.Errorf("%s: %w: the entry was journaled by a client of another TPP or bank", op, ErrNotResolvable)
	}
	res, err := j.resolve(ctx, c, entry.key, opts, true)
	if err != nil && !strings.HasPrefix(err.Error(), op+": ") {
		// The client's errors of the status read and the resend name
		// their operation, journal.Resolve, already.
		err = fmt.Errorf("%s: %w", op, err)
	}
	return res, err
}

// resolve is Resolve on the entry under key, as the journal holds it now.
// again allows one more pass when the entry was settled between its read
// and the claim of its resend.
func (j *Journal) resolve(ctx context.Context, c *client.Client, key string, opts []client.RequestOption, again bool) (Resolution, error) {
	entry, err := j.read(ctx, key)
	if err != nil {
		return Resolution{}, err
	}
	if entry.Resolves != "" {
		return Resolution{}, fmt.Errorf("%w: the entry is a resend; resolve the entry %s", ErrNotResolvable, entry.Resolves)
	}
	if entry.folded {
		// The bank created it: the entry gets the id the hook could
		// only record apart (recordKnown).
		_ = j.keepFold(ctx, key, entry.ID)
	}
	now := j.now()
	var res Resolution
	token := "" // set once a resend claimed the entry
	switch {
	case entry.ID != "":
		res, err = readStatus(ctx, c, entry, opts)
	case entry.Outcome == OutcomeRefused || entry.Outcome == OutcomeNotSent:
		if !entry.InDoubt() {
			return Resolution{Kind: ResolvedNotCreated, At: now.UTC()}, nil
		}
		// Left as needing a person before its outcome was recorded (the
		// store took it late, see recordKnown): nothing was created, and
		// the resolution says so, so that the entry leaves the doubt.
		res = Resolution{Kind: ResolvedNotCreated}
	case !entry.InDoubt():
		// Settled: the create's id is unknown here (the case above has
		// it), so a resolution said the resource exists (or that nothing
		// was created). Sending the create again could make a second
		// one once the first expired.
		if entry.Resolution != nil {
			return *entry.Resolution, nil
		}
		return Resolution{}, fmt.Errorf("%w: the entry is settled (outcome %q) without an id", ErrNotResolvable, entry.Outcome)
	case entry.Outcome == OutcomeUnknown && entry.StatusCode >= 200 && entry.StatusCode <= 299:
		// The bank accepted the create: it exists, with an id the SDK
		// could not read. A resend could only be refused as a duplicate,
		// or, should the bank miss that, make a second one.
		res = Resolution{Kind: ResolvedDuplicate, Reason: answeredReason(entry.StatusCode)}
	case entry.Outcome == "" && entry.Resolution == nil && j.mayBeUnderWay(ctx, entry, now):
		return Resolution{}, fmt.Errorf("%w: no outcome yet, journaled %s ago (in-flight time %s)", ErrInFlight,
			now.Sub(entry.Created).Round(time.Millisecond), j.inFlight)
	case entry.Outcome == OutcomeUnknown && entry.Resolution == nil && j.mayBeUnderWay(ctx, entry, now):
		// The client gave up on the create, but the bank may still be
		// working on it: a resend now could reach the bank before the
		// first is recorded there, and its duplicate check would miss it.
		return Resolution{}, fmt.Errorf("%w: the outcome is unknown, journaled %s ago: the bank may still be working on the create (in-flight time %s)",
			ErrInFlight, now.Sub(entry.Created).Round(time.Millisecond), j.inFlight)
	case entry.AllowLogicalDuplicate || bodyAllowsDuplicate(entry.Body):
		res = Resolution{Kind: NeedsPerson, Reason: "created with allowLogicalDuplicate: a resend would not be refused as a duplicate, so only a person can tell whether the resource exists"}
	case entry.Create.ResultID == "":
		res = Resolution{Kind: NeedsPerson, Reason: noCreateReason}
	case entry.claim.live(now):
		return Resolution{}, &ClaimedError{ResendRequestID: entry.claim.RequestID, Until: entry.claim.Until}
	default:
		if ce, cerr := j.leasedClaim(ctx, key, ""); cerr != nil || ce != nil {
			if cerr != nil {
				return Resolution{}, cerr
			}
			return Resolution{}, ce
		}
		if entry.claim != nil {
			// An earlier Resolve claimed the entry and sent the create
			// again, and its resolution was never recorded (the store
			// failed, ErrNotRecorded, or the resolver died): what its
			// resend created is in the resend's own entry.
			var known bool
			if res, known, err = j.earlierResend(ctx, c, entry, opts); err != nil || known {
				break
			}
		}
		if entry.Outcome == "" {
			armed, aerr := j.armed(ctx, key)
			if aerr != nil {
				return Resolution{}, aerr
			}
			if !armed {
				res = Resolution{Kind: NeedsPerson, Reason: unarmedReason}
				break
			}
		}
		res, token, err = j.resend(ctx, c, entry, opts)
	}
	if err != nil {
		if token != "" {
			j.dropClaim(ctx, key, token)
		}
		if errors.Is(err, errSettledMeanwhile) && again {
			return j.resolve(ctx, c, key, opts, false)
		}
		return Resolution{}, err
	}
	res.At = j.now().UTC()
	kept, conflict, err := j.record(ctx, key, token, res)
	switch {
	case err != nil:
		if token != "" {
			j.dropClaim(ctx, key, token)
		}
		return res, fmt.Errorf("%w: %w", ErrNotRecorded, err)
	case conflict:
		return res, fmt.Errorf("%w: the person's settlement (%s) stands; this resolution is in the entry's trail", ErrConflict, kept.Reason)
	case kept != nil:
		return *kept, nil
	}
	return res, nil
}

// noCreateReason is the reason of NeedsPerson for an entry that records
// no Create: it does not say how the bank refuses a duplicate.
const noCreateReason = "the entry records no description of its create (a development version wrote it): " +
	"whether a resend would be refused as a duplicate is unknown, so the SDK does not send it again"

// answeredReason is the reason of ResolvedDuplicate for a create the
// bank answered with a 2xx status that carried no usable id.
func answeredReason(status int) string {
	return fmt.Sprintf("the bank answered the create %d %s without an id the SDK could read: it exists, its id unknown; nothing was sent again",
		status, http.StatusText(status))
}

// unarmedReason is the reason of NeedsPerson for an entry without an
// outcome whose open marker is missing (see armedCreates in hook.go).
const unarmedReason = "no outcome, and the journal never recorded that the create was about to be sent " +
	"(its intent was reported unwritten, or the marker after it failed): it was not sent, or sent by a process " +
	"that died before recording the answer; the SDK does not send it again"

// target is the path of the entry's create for c: the path under the
// base URL it was journaled with, so that a bank whose host moved (the
// same scope) is called at its new host. An entry written before the
// path was kept gives its URL, under c's base path when its host is
// another.
func (e Entry) target(c *client.Client) string {
	if e.path != "" {
		return e.path
	}
	u, err := url.Parse(e.URL)
	base, berr := url.Parse(c.BaseURL())
	if err != nil || berr != nil || strings.EqualFold(u.Host, base.Host) {
		return e.URL
	}
	bp := strings.TrimRight(base.EscapedPath(), "/")
	if p := u.EscapedPath(); strings.HasPrefix(p, bp+"/") {
		return strings.TrimPrefix(p, bp)
	}
	return e.URL
}

// readStatus reads {path}/{id}/status of the entry's created resource.
func readStatus(ctx context.Context, c *client.Client, e Entry, opts []client.RequestOption) (Resolution, error) {
	// The id is the bank's answer to the create: "." or ".." would change
	// the path read.
	if err := apipath.Check(e.Create.ResultID, e.ID); err != nil {
		return Resolution{}, err
	}
	href := apipath.Join(e.target(c), e.ID, "status")
	var out struct {
		TransactionStatus string `json:"transactionStatus"`
		FundsAvailable    *bool  `json:"fundsAvailable"`
	}
	op := client.Operation{Name: "journal.Resolve", Method: http.MethodGet, Path: href}
	_, err := c.Do(ctx, op, &out, append(e.options(), opts...)...)
	switch {
	case err != nil && e.Create.NotFoundUntilApproved && errors.Is(err, client.ErrNotFound):
		return Resolution{Kind: ResolvedStatus, ID: e.ID}, nil
	case err != nil:
		return Resolution{}, err
	case out.TransactionStatus == "":
		// An empty Status says the bank cannot show the resource before
		// the PSU approved it (the 404 above): an answer without a
		// status says nothing of it, and is no resolution.
		return Resolution{}, fmt.Errorf("journal: %w: the status read holds no transactionStatus: the resource's status is unknown", client.ErrUnusableAnswer)
	}
	return Resolution{Kind: ResolvedStatus, ID: e.ID, Status: recordedStatus(out.TransactionStatus), FundsAvailable: out.FundsAvailable}, nil
}

// UnreadableStatus is the [Resolution.Status] recorded for a
// transactionStatus the bank answered that is no status code of the
// interface's form (1 to 4 ASCII letters: RCVD, ACSC): longer, or with
// other characters. The bank's text is not recorded (it may be of any
// length, and hold a line break, a terminal escape or a person's data);
// that the bank answered a status is.
const UnreadableStatus = "UNREADABLE"

// maxStatusLength bounds a transactionStatus recorded as the bank sent
// it: the interface's codes are four letters (ISO 20022).
const maxStatusLength = 4

// recordedStatus is the transactionStatus s as a Resolution records it:
// s when it is empty or 1 to maxStatusLength ASCII letters, else
// UnreadableStatus.
func recordedStatus(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > maxStatusLength {
		return UnreadableStatus
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return UnreadableStatus
		}
	}
	return s
}

// UnmarshalJSON reads a recorded Resolution, its Status bounded as
// recordedStatus records it: an entry an earlier release stored with
// the bank's text whole is read, printed and exported bounded.
func (r *Resolution) UnmarshalJSON(b []byte) error {
	type plain Resolution
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	p.Status = recordedStatus(p.Status)
	*r = Resolution(p)
	return nil
}

// earlierResend reads the entry of the resend that e's ended claim names
// (an earlier Resolve's whose resolution was not recorded): when the
// resend created the resource, with its id, it reads that resource's
// status (ResolvedStatus, with the resend's X-Request-ID); when the bank
// accepted it without an id the SDK could read, the resource exists
// (ResolvedDuplicate). known is false when the resend's entry says
// neither (absent, not sent, refused, outcome unknown): the bank is done
// with it once its claim is over, and the create may be sent again, the
// bank refusing it as a duplicate should the resend have arrived.
func (j *Journal) earlierResend(ctx context.Context, c *client.Client, e Entry, opts []client.RequestOption) (res Resolution, known bool, err error) {
	key, err := entryKey(current, e.claim.RequestID)
	if err != nil {
		return Resolution{}, false, nil
	}
	r, err := j.read(ctx, key)
	switch {
	case errors.Is(err, store.ErrNotStored):
		return Resolution{}, false, nil
	case err != nil:
		return Resolution{}, false, err
	case r.Resolves != e.RequestID:
		return Resolution{}, false, nil
	case r.ID != "":
		created := e
		created.ID = r.ID
		res, err := readStatus(ctx, c, created, opts)
		if err != nil {
			return Resolution{}, true, err
		}
		res.ResendRequestID = r.RequestID
		return res, true, nil
	case r.Outcome == OutcomeUnknown && r.StatusCode >= 200 && r.StatusCode <= 299:
		return Resolution{Kind: ResolvedDuplicate, ResendRequestID: r.RequestID, Reason: answeredReason(r.StatusCode)}, true, nil
	}
	return Resolution{}, false, nil
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

// resend claims the entry and sends its create again without
// allowLogicalDuplicate, and interprets the answer. token is the claim's
// when it was taken (the caller ends it).
func (j *Journal) resend(ctx context.Context, c *client.Client, e Entry, opts []client.RequestOption) (res Resolution, token string, err error) {
	var requestID string
	var sent client.Result // what the resend's journal hook was told
	mine := rand.Text()
	journaled := j.hook(e.scope, c.LongestCall(), e.Create, e.RequestID)
	op := client.Operation{
		Name:       "journal.Resolve",
		Method:     http.MethodPost,
		Path:       e.target(c),
		Body:       json.RawMessage(e.Body),
		Repeatable: false, // the resend is a create: sent once
		ResultID:   e.Create.ResultID,
		// An answer whose links name the resource created it, as the
		// service's own create takes it (Create.IDFromLinks).
		ResultIDFromLinks: e.Create.IDFromLinks,
		Hook: func(ctx context.Context, call *client.Call) (func(client.Result), error) {
			requestID = call.RequestID
			// The claim lasts as long as the resend may be under way at
			// the bank: its bound, and at least the in-flight time, as
			// Resolve waits for a first create (see claimUntil).
			if err := j.takeClaim(ctx, e.key, mine, call.RequestID, j.claimUntil(ctx, c.LongestCall())); err != nil {
				return nil, err
			}
			token = mine
			after, err := journaled(ctx, call)
			if err != nil || after == nil {
				return after, err
			}
			return func(r client.Result) {
				sent = r
				after(r)
			}, nil
		},
	}
	// The answer is decoded as a struct, as the service's own create
	// decodes it, so that the client refuses it alike: one naming a
	// member in two cases (client.ErrAmbiguousAnswer) is no answer to hand
	// out, its links perhaps not the bank's, and the create's outcome is
	// unknown with its 2xx status (the resource exists, handled below).
	var answer rawAnswer
	_, err = c.Do(ctx, op, &answer, append(e.options(), opts...)...)
	out := answer.raw
	var ce *client.Error
	switch {
	case err != nil && sent.ResultID != "" && sent.StatusCode >= 200 && sent.StatusCode <= 299:
		// The bank created it and gave its id; another member of the
		// answer could not be read (the resend's own entry holds it as
		// created).
		var answer json.RawMessage
		if json.Valid(out) {
			answer = out
		}
		status, funds := createdStatus(answer)
		return Resolution{Kind: ResolvedCreated, ID: sent.ResultID, Status: status, FundsAvailable: funds, ResendRequestID: requestID, Answer: answer}, token, nil
	case err != nil && sent.StatusCode >= 200 && sent.StatusCode <= 299:
		// The bank accepted the resend without an id the SDK could read:
		// it exists, as for a first create answered so. Sending it again
		// could only make a second one.
		return Resolution{Kind: ResolvedDuplicate, ResendRequestID: requestID, Reason: answeredReason(sent.StatusCode)}, token, nil
	case err != nil && token != "" && sent.Sent && errors.Is(err, client.ErrOutcomeUnknown):
		// The resend may have reached the bank, which may still be
		// working on it: its claim stays until claimUntil, so that no
		// Resolve sends the create once more meanwhile.
		return Resolution{}, "", err
	case err == nil:
		var ids map[string]json.RawMessage
		var id string
		if json.Unmarshal(out, &ids) == nil {
			_ = json.Unmarshal(ids[e.Create.ResultID], &id)
		}
		if id == "" {
			id = sent.ResultID // from the answer's links (Create.IDFromLinks)
		}
		status, funds := createdStatus(out)
		return Resolution{Kind: ResolvedCreated, ID: id, Status: status, FundsAvailable: funds, ResendRequestID: requestID, Answer: out}, token, nil
	case errors.As(err, &ce) && existsRefusal(e, ce):
		return Resolution{Kind: ResolvedDuplicate, ResendRequestID: requestID}, token, nil
	case errors.As(err, &ce) && ce.StatusCode >= 400 && ce.StatusCode < 500 && !errors.Is(err, client.ErrOutcomeUnknown):
		code := ""
		if len(ce.Messages) > 0 {
			code = " " + client.SafeCode(ce.Messages[0].Code) // a bank's code can hold any text
		}
		return Resolution{Kind: NeedsPerson, ResendRequestID: requestID,
			Reason: fmt.Sprintf("the bank refused the resend (%d%s), not as a duplicate: whether the first create arrived is unknown", ce.StatusCode, code)}, token, nil
	}
	return Resolution{}, token, err
}

// rawAnswer keeps a resend's answer as it came. It is a struct, so that
// the client checks the answer's top-level members as it does for any
// create decoded into the service's type (client.ErrAmbiguousAnswer); a
// json.RawMessage would take an ambiguous answer as it is.
type rawAnswer struct{ raw json.RawMessage }

// UnmarshalJSON keeps b.
func (a *rawAnswer) UnmarshalJSON(b []byte) error {
	a.raw = append(json.RawMessage(nil), b...)
	return nil
}

// claimUntil is the end of the claim of a resend sent now with ctx,
// bounded by longest: the resend's own bound (Entry.Until of the resend)
// plus claimMargin, and at least the in-flight time. A resend whose
// outcome is unknown keeps its claim until then (the bank may still be
// working on it), as Resolve waits for a first create whose outcome is
// unknown ([ErrInFlight]).
func (j *Journal) claimUntil(ctx context.Context, longest time.Duration) time.Time {
	now, until := j.callBound(ctx, longest)
	return latestOf(until.Add(claimMargin), now.Add(j.inFlight))
}

// latestOf returns the later of a and b.
func latestOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// existsRefusal reports whether the bank's refusal of a resend says the
// first create exists.
func existsRefusal(e Entry, ce *client.Error) bool {
	return e.Create.DuplicateStatus != 0 && ce.StatusCode == e.Create.DuplicateStatus &&
		e.Create.DuplicateCode != "" && ce.HasCode(e.Create.DuplicateCode) && !errors.Is(ce, client.ErrOutcomeUnknown)
}

// createdStatus is the transactionStatus and fundsAvailable of the
// answer to a resend that created the resource; "" and nil when it has
// none (or is no JSON object).
func createdStatus(answer json.RawMessage) (string, *bool) {
	var out struct {
		TransactionStatus string `json:"transactionStatus"`
		FundsAvailable    *bool  `json:"fundsAvailable"`
	}
	if json.Unmarshal(answer, &out) != nil {
		return "", nil
	}
	return recordedStatus(out.TransactionStatus), out.FundsAvailable
}
