package journal

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/backoff"
	"github.com/tppkit/psd2/store"
)

// journalHeaders are the request headers an entry keeps so that
// [Journal.Resolve] can send the same create again from another process:
// the session and PSU headers the bank requires on a create
// (docs/interface.md sections 4.1 to 4.3) and those that shape the SCA.
// X-PSU-IDENTITY (a national identity number) is not kept.
var journalHeaders = []string{
	"TPP-Session-ID", "TPP-Redirect-URI", "TPP-Redirect-Preferred", "TPP-Brand-Logging-Information",
	"PSU-ID", "PSU-Corporate-ID", "PSU-Context", "PSU-IP-Address", "PSU-IP-Port", "PSU-User-Agent",
	"PSU-Device-ID", "PSU-Geo-Location", "X-PSU-AuthMethod-Preferred",
}

// errRequestIDReused refuses a create whose X-Request-ID the journal
// already holds: its record is the evidence of the earlier call.
var errRequestIDReused = errors.New("the X-Request-ID is already in the journal (each create needs its own)")

// Hook returns the [client.Hook] that journals one create sent through
// c: pass it as the Hook of the create's [client.Operation]. The entry
// keeps c's [client.Client.Scope] (an entry is resolved only through a
// client of the same TPP and bank) and is in flight for at least c's
// [client.Client.LongestCall]; create describes the kind of create
// (its ResultID is required) and is recorded with the entry.
//
// Before the first attempt it records the intent, and returns an error
// (so the client sends nothing: [client.ErrNotSent]) when the store
// fails, or does not answer within 10 s whatever the call's context (a
// slow or hung database), or the X-Request-ID is already journaled. As
// a store may have written the intent all the same, it then marks the
// entry not sent ([OutcomeNotSent]) before returning, without the call's
// cancellation; should that fail too, the entry stays without an outcome
// and unarmed, and the SDK never sends it (see [Journal.Resolve]). After
// the call it records the outcome, retrying the store a few times;
// should that still fail for an outcome that is unknown, the entry stays
// without an outcome and [Journal.InDoubt] reports it later. A known
// outcome (created with its id, refused, not sent) never falls back to
// "no outcome" that Resolve would send again: the entry is disarmed and
// the outcome kept being recorded in the background ([Journal.Flush]
// waits for it), see recordKnown.
func (j *Journal) Hook(c *client.Client, create Create) client.Hook {
	if c == nil || create.ResultID == "" {
		return func(context.Context, *client.Call) (func(client.Result), error) {
			return nil, fmt.Errorf("%w: Hook needs a client and a Create with its ResultID", ErrJournal)
		}
	}
	return j.hook(c.Scope(), c.LongestCall(), create, "")
}

// hook is Hook for a create or, with resolves set, for the resend of
// [Journal.Resolve], which must never carry allowLogicalDuplicate.
// longest bounds the call (client.Client.LongestCall).
func (j *Journal) hook(scope string, longest time.Duration, create Create, resolves string) client.Hook {
	return func(ctx context.Context, call *client.Call) (func(client.Result), error) {
		if j == nil || j.st == nil {
			return nil, fmt.Errorf("%w: no journal (use journal.New)", ErrJournal)
		}
		u, err := url.Parse(call.URL)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrJournal, err)
		}
		allowDup := logicalDuplicateAllowed(u.RawQuery) || bodyAllowsDuplicate(call.Body)
		if resolves != "" && allowDup {
			return nil, fmt.Errorf("%w: a resolving resend must not carry allowLogicalDuplicate", ErrJournal)
		}
		u.RawQuery, u.ForceQuery, u.Fragment = "", false, ""
		key, err := entryKey(current, call.RequestID)
		if err != nil {
			return nil, err
		}
		created, until := j.callBound(ctx, longest)
		rec := journalRecord{
			V: 1, RequestID: call.RequestID, Operation: call.Operation, Create: &create,
			URL: u.String(), Path: call.Path, Body: slices.Clone(call.Body), Header: map[string]string{},
			AllowLogicalDuplicate: allowDup, Scope: scope, Created: created, Resolves: resolves,
			Until: &until, Intent: rand.Text(),
		}
		for _, h := range journalHeaders {
			if v := call.Header.Get(h); v != "" {
				rec.Header[http.CanonicalHeaderKey(h)] = v
			}
		}
		b, err := json.Marshal(&rec)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrJournal, err)
		}
		err = j.st.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
			if !found {
				return b, 0, nil
			}
			if intentOf(old) == rec.Intent {
				return old, 0, nil // this call's own write, retried by the store
			}
			return nil, 0, errRequestIDReused
		})
		if err != nil {
			if errors.Is(err, errRequestIDReused) {
				return nil, fmt.Errorf("%w: recording the intent: %w", ErrJournal, err)
			}
			// The store may have written the intent all the same (see
			// armedCreates): settle it as not sent before saying so.
			if serr := j.settleNotSent(ctx, key, rec.Intent); serr != nil {
				return nil, fmt.Errorf("%w: recording the intent: %w; marking it not sent: %w", ErrJournal, err, serr)
			}
			return nil, fmt.Errorf("%w: recording the intent: %w", ErrJournal, err)
		}
		// The in-flight lease keeps the entry in flight on the store's
		// clock (see leases), and the open marker arms it (see
		// armedCreates); the failure of either does not stop the call. A
		// resend has neither: its original has, and its claim holds it.
		if resolves == "" {
			if ttl := leaseTTL(created, until, j.now()); ttl > 0 {
				_ = j.st.Put(ctx, flightKey(key), []byte(until.Format(time.RFC3339Nano)), ttl)
			}
			_ = j.putMarker(ctx, key, rec.Created)
		}
		return func(r client.Result) { j.settleWithin(ctx, key, r) }, nil
	}
}

// callBound returns the time now and when a call made now with ctx,
// bounded by longest (client.Client.LongestCall), and the recording of
// its outcome are over at the latest (Entry.Until). The call is sent
// after the hook's own writes (the intent, its in-flight lease, then the open marker), each of
// which may take the store's bound (boundedStore.Wait): on a context
// without a deadline, where the client's bound of the call starts when it
// is sent, a slow store would otherwise move the call's end past Until,
// and a replica could resolve a create still on its way.
func (j *Journal) callBound(ctx context.Context, longest time.Duration) (now, until time.Time) {
	now = j.now().UTC()
	longest += preSendWrites * j.storeWait()
	if dl, ok := ctx.Deadline(); ok {
		longest = min(longest, max(time.Until(dl), 0))
	}
	return now, now.Add(longest + outcomeTimeout)
}

// preSendWrites is the number of store calls a create's hook makes
// before the create is sent: its intent, its in-flight lease and its
// open marker.
const preSendWrites = 3

// storeWait is the bound of each of j's store calls (storeTimeout, or a
// test's).
func (j *Journal) storeWait() time.Duration {
	if b, ok := j.st.(boundedStore); ok {
		return b.Wait
	}
	return storeTimeout
}

// settleWithin settles the outcome r of the create under key (settle)
// on a goroutine of its own, and waits for it as long as the caller's
// context lasts: the caller's deadline bounds the whole call, the bank's
// answer included, whatever the store does. A recording not over by then
// goes on without the caller, within its own bounds (outcomeTimeout, then
// recordKnown's), and Flush waits for it. The entry stays in flight for
// as long (Entry.Until counts outcomeTimeout), so that no replica
// resolves it meanwhile.
func (j *Journal) settleWithin(ctx context.Context, key string, r client.Result) {
	done := j.track()
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer done()
		j.settle(ctx, key, r)
	}()
	select {
	case <-ended:
	case <-ctx.Done():
	}
}

// track counts one write under way in the background, for Flush, until
// the returned func is called.
func (j *Journal) track() func() { return j.writes.Track() }

// settle records the outcome r of the create under key, retrying the
// store a few times within outcomeTimeout, without the call's
// cancellation. Should that fail for an outcome that is known (created,
// refused, not sent), see recordKnown.
func (j *Journal) settle(ctx context.Context, key string, r client.Result) {
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), outcomeTimeout)
	defer cancel()
	o, id, _, _ := outcomeOf(r)
	for try := range outcomeTries {
		if j.recordOutcome(octx, key, r) == nil {
			return
		}
		if o == OutcomeCreated && j.putCreated(octx, key, id) == nil {
			return
		}
		if try+1 == outcomeTries || !backoff.Sleep(octx, time.Duration(try+1)*100*time.Millisecond) {
			break
		}
	}
	if o != OutcomeUnknown {
		j.recordKnown(ctx, key, r)
	}
}

// ASSUMPTION (recordKnown): an entry whose outcome is known must never
// fall back to "no outcome", which Resolve would answer by sending the
// body again. A create the bank answered with 201 and its id exists (and
// the bank accepts a resend once the first payment was cancelled or
// rejected); a create the client reported as not sent was told to its
// caller as [client.ErrNotSent], which the SDK never sends later; one the
// bank refused was told to its caller as refused. When the entry's update
// (and, for a created id, the one Put of the id under the created prefix
// "journal/created/") does not land within outcomeTimeout, the hook
// removes the entry's open marker (an unarmed entry without an outcome
// is never sent again: Resolve reports NeedsPerson, see armedCreates),
// and keeps trying the writes in the background, with backoff, for up
// to createdRetryFor or until one lands; [Journal.Flush] waits for them.
// Reading an entry without an outcome folds in its created id. What
// remains is the process dying before any of these writes lands, which
// is the same as dying between the call's end and its recording.

// recordKnown disarms the entry under key and keeps recording the known
// outcome r (for a created id, the id) in the background (see the
// ASSUMPTION above).
func (j *Journal) recordKnown(ctx context.Context, key string, r client.Result) {
	o, id, _, _ := outcomeOf(r)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	_ = j.st.Delete(dctx, doubtKey(key))
	cancel()
	if o == OutcomeCreated {
		r = client.Result{Sent: true, StatusCode: http.StatusCreated, ResultID: id}
	}
	done := j.track()
	go func() {
		defer done()
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createdRetryFor)
		defer cancel()
		for wait := 200 * time.Millisecond; ; wait = min(2*wait, 30*time.Second) {
			if !backoff.Sleep(bctx, wait) {
				return
			}
			if j.recordOutcome(bctx, key, r) == nil || o == OutcomeCreated && j.putCreated(bctx, key, id) == nil {
				return
			}
		}
	}()
}

// ASSUMPTION (armedCreates): a store may commit a write and still report
// an error (pgstore when the connection drops, or the call's context
// ends, after COMMIT was sent; a FileStore whose directory sync fails
// after the rename). Whatever is written last before a create leaves can
// be such a write, so the journal cannot always record durably that a
// create it refused (ErrNotSent) was not sent. It therefore arms an entry
// only after its intent was reported written: the hook writes the intent
// first and the open marker ("journal/open/...") after it, then
// sends, even when the marker write fails. The one rule, applied by
// [Journal.Resolve] through armed: an entry with no outcome is sent again
// only when its open marker exists. One whose marker is missing is either
// a create the hook refused (its intent reported failed, and marking it
// not sent failed too), a process that died between the two writes
// (nothing sent), or, after a marker write that failed, a process that
// sent and died before recording the outcome: Resolve reports it as
// NeedsPerson and never sends it, and InDoubt, which reads only markers,
// does not yield it. A create reported as ErrNotSent is thus never sent by
// the SDK, at the price that this last, doubly failed case waits for a
// person (it is listed by Entries). An outcome that leaves the entry in
// doubt (unknown) writes the marker again. Entries written before this
// rule had their marker written first and stay armed.

// settleNotSent marks the entry under key as not sent after its intent
// was reported unwritten: only when it exists, was written by the call
// whose token is intent, and has no outcome or resolution; otherwise
// there is nothing to do. It runs without the call's cancellation, for
// at most settleTimeout.
func (j *Journal) settleNotSent(ctx context.Context, key, intent string) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	now := j.now().UTC()
	var err error
	for range outcomeTries {
		err = j.st.Update(sctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
			if !found {
				return nil, 0, errNothingToSettle
			}
			var rec journalRecord
			if json.Unmarshal(old, &rec) != nil || rec.Intent != intent || rec.Outcome != "" || rec.Resolution != nil {
				return nil, 0, errNothingToSettle
			}
			rec.Outcome, rec.OutcomeAt = OutcomeNotSent, &now
			b, err := marshalKeeping(&rec, old)
			if err != nil {
				return nil, 0, err
			}
			return b, j.retention, nil
		})
		if err == nil || errors.Is(err, errNothingToSettle) {
			return nil
		}
		if sctx.Err() != nil {
			break
		}
	}
	return err
}

// errNothingToSettle stops settleNotSent without a write: the entry is
// absent or not the call's own open intent.
var errNothingToSettle = errors.New("nothing to settle")

// intentOf returns the intent token of a stored entry, "" when it has
// none or cannot be read.
func intentOf(b []byte) string {
	var rec struct {
		Intent string `json:"intent"`
	}
	if json.Unmarshal(b, &rec) != nil {
		return ""
	}
	return rec.Intent
}

// outcomeOf maps a call's result to an outcome.
func outcomeOf(r client.Result) (o Outcome, id string, status int, codes []string) {
	var ce *client.Error
	switch {
	case r.ResultID != "" && (r.Err == nil || r.StatusCode >= 200 && r.StatusCode <= 299):
		// A 2xx answer with the created id: the resource exists, even
		// when another member of the answer could not be read (the
		// caller's error then says the outcome is unknown to it).
		return OutcomeCreated, r.ResultID, r.StatusCode, nil
	case !r.Sent:
		return OutcomeNotSent, "", 0, nil
	case errors.Is(r.Err, client.ErrOutcomeUnknown):
		o = OutcomeUnknown
	case errors.As(r.Err, &ce) && ce.StatusCode >= 400 && ce.StatusCode < 500:
		o = OutcomeRefused
	default:
		o = OutcomeUnknown
	}
	if errors.As(r.Err, &ce) {
		for _, m := range ce.Messages {
			codes = append(codes, m.Code)
		}
	}
	return o, "", r.StatusCode, codes
}

// leaseTTL is the ttl of an in-flight lease, written at now, of an
// entry created at created that is in flight until end: the time left
// until end, and never more than end is after created, so that a
// writer's clock that stepped back since the entry's creation (an NTP
// step, a reset) does not hold the entry for as long as the step.
func leaseTTL(created, end, now time.Time) time.Duration {
	return min(end.Sub(now), end.Sub(created))
}

// recordOutcome adds r's outcome to the entry under key.
func (j *Journal) recordOutcome(ctx context.Context, key string, r client.Result) error {
	o, id, status, codes := outcomeOf(r)
	now := j.now().UTC()
	settled, open := false, false
	var created time.Time
	var bankDone time.Time // unknown outcome: when the bank is taken to be done
	err := j.update(ctx, key, func(rec *journalRecord) error {
		rec.Outcome, rec.OutcomeAt, rec.StatusCode, rec.Codes = o, &now, status, codes
		if id != "" {
			rec.ID = id
		}
		settled, created = rec.settled(), rec.Created
		open = !settled && rec.Resolves == ""
		if o == OutcomeUnknown && open {
			bankDone = rec.entry(j, key).bankDone(j.inFlight)
		}
		return nil
	})
	if err == nil {
		if ttl := leaseTTL(created, bankDone, now); ttl > 0 {
			// The outcome is unknown: the bank may still be working on
			// the create. Its lease now runs until the entry is old
			// enough (see Resolve), on the store's clock, so that a
			// replica whose clock runs ahead does not send it again
			// sooner (see leases).
			_ = j.st.Put(ctx, flightKey(key), []byte(bankDone.Format(time.RFC3339Nano)), ttl)
		} else {
			// The outcome is known: the create is no longer on its way.
			_ = j.st.Delete(ctx, flightKey(key))
		}
	}
	switch {
	case err != nil:
	case settled:
		j.closeDoubt(ctx, key)
	case open:
		// In doubt: InDoubt must find it even if the marker written
		// before the call failed.
		err = j.putMarker(ctx, key, created)
	}
	return err
}

// update changes the stored entry under key with fn; the entry gets the
// retention as its ttl once it is settled.
func (j *Journal) update(ctx context.Context, key string, fn func(*journalRecord) error) error {
	return j.st.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		if !found {
			return nil, 0, fmt.Errorf("%w: entry gone", store.ErrNotStored)
		}
		var rec journalRecord
		if err := json.Unmarshal(old, &rec); err != nil {
			return nil, 0, fmt.Errorf("%w: entry unreadable: %w", ErrJournal, err)
		}
		if err := rec.check(); err != nil {
			return nil, 0, fmt.Errorf("%w: entry unreadable: %w", ErrJournal, err)
		}
		if err := fn(&rec); err != nil {
			return nil, 0, err
		}
		b, err := marshalKeeping(&rec, old)
		if err != nil {
			return nil, 0, err
		}
		var ttl time.Duration
		if rec.settled() {
			ttl = j.retention
		}
		return b, ttl, nil
	})
}
