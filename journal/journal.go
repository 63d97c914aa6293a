package journal

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/store"
)

// Key prefixes of the journal in its store, each followed by the
// path-escaped X-Request-ID: the entries, and a marker per entry that may
// be in doubt, so that InDoubt reads the few open entries, not months of
// settled ones.
const (
	journalPrefix = "payments/journal/"
	doubtPrefix   = "payments/journal-open/"
	// createdPrefix keys the id of a create the bank answered with 201
	// whose entry could not be updated: one Put records it, and reading
	// the entry folds it in (see recordCreated).
	createdPrefix = "payments/journal-created/"
)

// Defaults of a [Journal].
const (
	// DefaultInFlight is how long after its intent an entry without an
	// outcome is taken to be still on its way ([Journal.InDoubt] skips
	// it), at the least: an entry stays in flight until the longest its
	// create can run ([client.Client.LongestCall], or its context's
	// deadline when sooner) and the recording of its outcome are over,
	// however short this is, so that a replica never resolves a create
	// another replica is still sending.
	DefaultInFlight = 2 * time.Minute
	// DefaultRetention is how long an entry whose outcome is settled
	// (created, refused, not sent, or resolved) stays in the journal.
	// Entries in doubt are kept until they are resolved.
	DefaultRetention = 90 * 24 * time.Hour
	// outcomeTries bounds the attempts to record an outcome.
	outcomeTries = 3
	// outcomeTimeout bounds the recording of an outcome, which runs
	// after the call even when the call's context ended.
	outcomeTimeout = 10 * time.Second
	// createdRetryFor bounds how long a created id the store refused is
	// retried in the background (see recordCreated).
	createdRetryFor = 24 * time.Hour
	// settleTimeout bounds the marking of an entry as not sent after its
	// intent was reported unwritten, which runs even when the call's
	// context ended; the caller waits for it.
	settleTimeout = 5 * time.Second
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

// Journal records every create it is given a [Journal.Hook] for (every
// payment and signing-basket creation of a service made with a journal)
// before it is sent and what became of it, in a [store.Store], so that a
// TPP that crashed, or got [client.ErrOutcomeUnknown], learns which
// resources (payments, baskets) may exist and resolves them with [Journal.Resolve] without
// ever creating a second one (docs/design.md section 8). Keep it in a
// store every replica shares (package pgstore, a store.FileStore on one
// machine): then any replica resolves what another left in doubt. A
// Journal in a store.MemoryStore does not survive the process.
//
// An entry is written durably in the call's [client.Hook], before the
// request leaves: a store error stops the call (nothing is sent without
// a journal entry), and the SDK never sends a create it reported as
// [client.ErrNotSent] later, even when the store wrote the entry while
// reporting an error. It holds the X-Request-ID, the operation, the
// [Create] and URL, the exact body, the session and PSU headers needed to send
// it again, the TPP-Session-ID as SessionKey, and whether the call
// carried allowLogicalDuplicate. After the call its outcome is added:
// created (with the created resource's id), refused by the bank (status and
// codes), not sent, or unknown. An entry keeps account numbers and PSU
// ids in clear in the store, as a session does; its printed (every fmt
// verb, %#v included), slog and JSON forms leave them out.
//
// A Journal is safe for concurrent use.
type Journal struct {
	st        store.Store
	now       func() time.Time
	inFlight  time.Duration
	retention time.Duration
	stopped   bool // WithWritersStopped

	// Created ids still being recorded in the background (Flush): their
	// number, and a channel closed when it falls to zero.
	mu      sync.Mutex
	pending int
	idle    chan struct{}
}

// Option configures a [Journal] in [New]; an invalid one
// makes New fail.
type Option func(*Journal) error

// WithInFlight replaces [DefaultInFlight]: entries without an outcome
// younger than d are not in doubt yet. It never shortens an entry's own
// bound: an entry stays in flight until its create and the recording of
// its outcome cannot be running any more (the client's
// [client.Client.LongestCall], or the call's deadline when sooner, plus
// the time allowed to record the outcome), whatever d is. A negative d
// is refused. To resolve at once the entries of writers known to have
// stopped, use [WithWritersStopped].
func WithInFlight(d time.Duration) Option {
	return func(j *Journal) error {
		if d < 0 {
			return fmt.Errorf("journal: WithInFlight(%v): negative", d)
		}
		j.inFlight = d
		return nil
	}
}

// WithWritersStopped is for a Journal read by an operator who knows
// that every process that could be sending a create journaled in it has
// stopped (crashed, killed, shut down): an entry without an outcome is
// then in doubt at once, whatever its in-flight time. Never give it to a
// Journal of a running fleet: a create still under way would be resolved
// by a resend.
func WithWritersStopped() Option {
	return func(j *Journal) error {
		j.stopped = true
		return nil
	}
}

// WithRetention replaces [DefaultRetention]; 0 keeps settled entries
// until deleted. A negative d is refused.
func WithRetention(d time.Duration) Option {
	return func(j *Journal) error {
		if d < 0 {
			return fmt.Errorf("journal: WithRetention(%v): negative", d)
		}
		j.retention = d
		return nil
	}
}

// WithClient makes the Journal read the time from c's clock
// ([client.Client.Now], set with client.WithClock), the SDK's one clock,
// instead of time.Now: give the client whose payments it journals.
func WithClient(c *client.Client) Option {
	return func(j *Journal) error {
		if c == nil {
			return errors.New("journal: WithClient(nil)")
		}
		j.now = c.Now
		return nil
	}
}

// New returns a Journal keeping its entries in st under the
// prefix "payments/journal/", and a marker for each entry not yet
// settled under "payments/journal-open/". It refuses a nil store and an
// invalid option.
func New(st store.Store, opts ...Option) (*Journal, error) {
	if st == nil {
		return nil, errors.New("journal: New needs a store")
	}
	j := &Journal{st: st, now: time.Now, inFlight: DefaultInFlight, retention: DefaultRetention}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(j); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// Outcome is what became of a journaled create, as its client reported.
type Outcome string

// Outcomes of a create. An entry without one ("") was cut short between
// its intent and its answer: the process crashed or was killed.
const (
	// OutcomeCreated: the bank answered 2xx with the created resource's
	// id.
	OutcomeCreated Outcome = "created"
	// OutcomeRefused: the bank answered with an error (4xx); nothing was
	// created.
	OutcomeRefused Outcome = "refused"
	// OutcomeNotSent: nothing left the machine ([client.ErrNotSent]).
	OutcomeNotSent Outcome = "not-sent"
	// OutcomeUnknown: the request may have reached the bank without a
	// usable answer ([client.ErrOutcomeUnknown]).
	OutcomeUnknown Outcome = "unknown"
)

// Entry is one journaled create and what is known of it.
type Entry struct {
	// RequestID is the create's X-Request-ID.
	RequestID string
	// Operation is the SDK call, e.g. "payments.CreateNorwegianDomestic"
	// or "basket.Create".
	Operation string
	// Create describes the kind of create, as its service gave it to
	// [Journal.Hook].
	Create Create
	// URL is the absolute URL of the create, without its query.
	URL string
	// Body is the exact request body that was sent.
	Body []byte
	// SessionKey is the TPP-Session-ID the create ran in: it names the
	// PSU's session (package sca) and must not be logged.
	SessionKey string
	// AllowLogicalDuplicate reports that the create carried
	// allowLogicalDuplicate=true; such an entry is never resolved by
	// sending it again.
	AllowLogicalDuplicate bool
	// Created is when the intent was recorded.
	Created time.Time
	// Outcome is what the client reported; "" when the process ended
	// before it could (a crash).
	Outcome Outcome
	// ID is the id the bank gave the created resource (the member
	// Create.ResultID of its answer): from the outcome, or from a
	// resolution that learned it.
	ID string
	// StatusCode and Codes are the bank's answer to a refused (or
	// unknown) create: the HTTP status and the tppMessages codes.
	StatusCode int
	Codes      []string
	// Resolution is the last resolution recorded by [Journal.Resolve],
	// nil when none.
	Resolution *Resolution
	// Resolves is set on the entry of a resend made by
	// [Journal.Resolve]: the X-Request-ID of the entry it resolves.
	Resolves string

	// Until is when its create and the recording of its outcome are
	// over at the latest: the intent's time, plus the call's bound
	// ([client.Client.LongestCall], or its context's deadline when
	// sooner), plus the time allowed to record the outcome. Without an
	// outcome the entry is in flight until then, and at least for the
	// journal's in-flight time ([WithInFlight]). Zero for an entry
	// written before this field.
	Until time.Time

	scope  string
	header http.Header
	folded bool // Outcome and ID come from the created record
	j      *Journal
}

// InDoubt reports whether the entry may stand for a payment nobody knows
// about: its outcome is unknown, or missing (a crash), and no resolution
// settled it. An entry resolved as needing a person stays in doubt.
func (e Entry) InDoubt() bool {
	if e.Resolves != "" {
		return false
	}
	if e.Resolution != nil && e.Resolution.Kind != NeedsPerson {
		return false
	}
	return e.Outcome == "" || e.Outcome == OutcomeUnknown || e.Resolution != nil
}

// Journal returns the Journal the entry was read from, nil for an entry
// made by hand: the one that resolves it ([Journal.Resolve]).
func (e Entry) Journal() *Journal { return e.j }

// String describes the entry without its body, session key or PSU data.
func (e Entry) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "journal.Entry{requestId=%s op=%s", e.RequestID, e.Operation)
	outcome := string(e.Outcome)
	if outcome == "" {
		outcome = "none"
	}
	fmt.Fprintf(&b, " outcome=%s", outcome)
	if e.Resolution != nil {
		fmt.Fprintf(&b, " resolution=%s", e.Resolution.Kind)
	}
	b.WriteString("}")
	return b.String()
}

// GoString is String, for %#v: the body, URL, session key and PSU
// headers stay out of it too.
func (e Entry) GoString() string { return e.String() }

// Format prints String for every verb (GoString, for %#v, is String
// too), so that no verb (%d, %x on the struct) prints the body, session
// key or PSU headers field by field.
func (e Entry) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, e.String()) }

// LogValue makes log/slog print the entry as a group of the fields of
// its JSON form: without its body, URL, session key or PSU data.
func (e Entry) LogValue() slog.Value {
	attrs := []slog.Attr{
		slog.String("requestId", e.RequestID), slog.String("operation", e.Operation),
	}

	if e.AllowLogicalDuplicate {
		attrs = append(attrs, slog.Bool("allowLogicalDuplicate", true))
	}
	attrs = append(attrs, slog.Time("created", e.Created))
	if e.Outcome != "" {
		attrs = append(attrs, slog.String("outcome", string(e.Outcome)))
	}
	if e.ID != "" {
		attrs = append(attrs, slog.String("id", e.ID))
	}
	if e.StatusCode != 0 {
		attrs = append(attrs, slog.Int("statusCode", e.StatusCode))
	}
	if len(e.Codes) > 0 {
		attrs = append(attrs, slog.Any("codes", e.Codes))
	}
	if e.Resolution != nil {
		attrs = append(attrs, slog.Any("resolution", *e.Resolution))
	}
	if e.Resolves != "" {
		attrs = append(attrs, slog.String("resolves", e.Resolves))
	}
	attrs = append(attrs, slog.Bool("inDoubt", e.InDoubt()))
	return slog.GroupValue(attrs...)
}

// MarshalJSON writes the entry without its body, URL, session key or PSU
// data, for dashboards and logs.
func (e Entry) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		RequestID             string      `json:"requestId"`
		Operation             string      `json:"operation"`
		AllowLogicalDuplicate bool        `json:"allowLogicalDuplicate,omitempty"`
		Created               time.Time   `json:"created"`
		Outcome               Outcome     `json:"outcome,omitempty"`
		ID                    string      `json:"id,omitempty"`
		StatusCode            int         `json:"statusCode,omitempty"`
		Codes                 []string    `json:"codes,omitempty"`
		Resolution            *Resolution `json:"resolution,omitempty"`
		Resolves              string      `json:"resolves,omitempty"`
		InDoubt               bool        `json:"inDoubt"`
	}{e.RequestID, e.Operation, e.AllowLogicalDuplicate, e.Created, e.Outcome,
		e.ID, e.StatusCode, e.Codes, e.Resolution, e.Resolves, e.InDoubt()})
}

// journalRecord is the stored form of an entry (JSON, version 1).
type journalRecord struct {
	V                     int               `json:"v"`
	RequestID             string            `json:"requestId"`
	Operation             string            `json:"operation"`
	Create                *Create           `json:"create,omitempty"`
	URL                   string            `json:"url"`
	Body                  []byte            `json:"body"`
	Header                map[string]string `json:"header,omitempty"`
	AllowLogicalDuplicate bool              `json:"allowLogicalDuplicate,omitempty"`
	Scope                 string            `json:"scope"`
	Created               time.Time         `json:"created"`
	Outcome               Outcome           `json:"outcome,omitempty"`
	OutcomeAt             *time.Time        `json:"outcomeAt,omitempty"`
	ID                    string            `json:"paymentId,omitempty"` // the name of version 1
	// Product and Basket are read from entries written when the journal
	// was part of package payments, which had no Create (legacyCreate).
	Product    string      `json:"product,omitempty"`
	Basket     bool        `json:"basket,omitempty"`
	StatusCode int         `json:"statusCode,omitempty"`
	Codes      []string    `json:"codes,omitempty"`
	Resolution *Resolution `json:"resolution,omitempty"`
	Resolves   string      `json:"resolves,omitempty"`
	// Until is Entry.Until.
	Until *time.Time `json:"until,omitempty"`
	// Intent is a random token of the call that wrote the intent, so
	// that the call recognises its own entry (see settleNotSent).
	Intent string `json:"intent,omitempty"`
}

func (r *journalRecord) entry(j *Journal) Entry {
	e := Entry{
		RequestID: r.RequestID, Operation: r.Operation, Create: r.create(), URL: r.URL,
		Body: r.Body, SessionKey: r.Header["Tpp-Session-Id"], AllowLogicalDuplicate: r.AllowLogicalDuplicate,
		Created: r.Created, Outcome: r.Outcome, ID: r.ID, StatusCode: r.StatusCode,
		Codes: r.Codes, Resolution: r.Resolution, Resolves: r.Resolves,
		scope: r.Scope, header: http.Header{}, j: j,
	}
	if r.Until != nil {
		e.Until = *r.Until
	}
	if e.ID == "" && r.Resolution != nil {
		e.ID = r.Resolution.ID
	}
	for k, v := range r.Header {
		e.header.Set(k, v)
	}
	return e
}

// settled reports whether nothing about the record is in doubt any more,
// so that it may expire after the retention.
func (r *journalRecord) settled() bool {
	e := Entry{Outcome: r.Outcome, Resolution: r.Resolution, Resolves: r.Resolves}
	return !e.InDoubt() && r.Outcome != ""
}

// ErrJournal matches the errors of the journal's store: an intent that
// could not be recorded (the create was not sent), an entry that cannot
// be read.
var ErrJournal = errors.New("journal: store")

// journalKey returns the store key of the entry of requestID.
func journalKey(requestID string) (string, error) {
	k := journalPrefix + url.PathEscape(requestID)
	if err := store.CheckKey(k); err != nil {
		return "", fmt.Errorf("%w: request id unusable as a key: %w", ErrJournal, err)
	}
	return k, nil
}

// doubtKey returns the key of the open marker of the entry under key.
func doubtKey(key string) string {
	return doubtPrefix + strings.TrimPrefix(key, journalPrefix)
}

// closeDoubt removes the open marker of the entry under key once the
// entry is settled. Best effort: InDoubt removes markers of settled
// entries it meets.
func (j *Journal) closeDoubt(ctx context.Context, key string) {
	_ = j.st.Delete(ctx, doubtKey(key))
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
// fails or the X-Request-ID is already journaled. As a store may have
// written the intent all the same, it then marks the entry not sent
// ([OutcomeNotSent]) before returning, without the call's cancellation;
// should that fail too, the entry stays without an outcome and unarmed,
// and the SDK never sends it (see [Journal.Resolve]). After the call it
// records the outcome, retrying the store a few times; should that
// still fail, the entry stays without an outcome and [Journal.InDoubt]
// reports it later. A create the bank answered with its id never falls
// back to "no outcome": see recordCreated.
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
		key, err := journalKey(call.RequestID)
		if err != nil {
			return nil, err
		}
		created := j.now().UTC()
		if dl, ok := ctx.Deadline(); ok {
			longest = min(longest, max(time.Until(dl), 0))
		}
		until := created.Add(longest + outcomeTimeout)
		rec := journalRecord{
			V: 1, RequestID: call.RequestID, Operation: call.Operation, Create: &create,
			URL: u.String(), Body: slices.Clone(call.Body), Header: map[string]string{},
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
		// The open marker arms the entry (see armedCreates); its failure
		// does not stop the call. A resend has none: its original has.
		if resolves == "" {
			_ = j.putMarker(ctx, key, rec.Created)
		}
		return func(r client.Result) { j.settle(ctx, key, r) }, nil
	}
}

// settle records the outcome r of the create under key, retrying the
// store a few times within outcomeTimeout, without the call's
// cancellation. Should that fail for a create the bank answered with its
// id, see recordCreated.
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
		if try+1 == outcomeTries || !sleepCtx(octx, time.Duration(try+1)*100*time.Millisecond) {
			break
		}
	}
	if o == OutcomeCreated {
		j.recordCreated(ctx, key, id)
	}
}

// ASSUMPTION (recordCreated): a create the bank answered with 201 and its
// id is known to exist; its entry must never fall back to "no outcome",
// which Resolve would answer by sending the body again (and the bank
// accepts that once the first payment was cancelled or rejected). When
// neither the entry's update nor the one Put of the id under
// "payments/journal-created/" lands within outcomeTimeout, the hook
// removes the entry's open marker (an unarmed entry without an outcome
// is never sent again: Resolve reports NeedsPerson, see armedCreates),
// and keeps trying both writes in the background, with backoff, for up
// to createdRetryFor or until one lands; [Journal.Flush] waits for them.
// Reading an entry without an outcome folds in its created id. What
// remains is the process dying before any of these writes lands, which
// is the same as dying between the bank's answer and its recording.

// recordCreated disarms the entry under key and keeps recording the
// created id in the background (see the ASSUMPTION above).
func (j *Journal) recordCreated(ctx context.Context, key, id string) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	_ = j.st.Delete(dctx, doubtKey(key))
	cancel()
	j.mu.Lock()
	if j.pending == 0 {
		j.idle = make(chan struct{})
	}
	j.pending++
	j.mu.Unlock()
	go func() {
		defer func() {
			j.mu.Lock()
			if j.pending--; j.pending == 0 {
				close(j.idle)
			}
			j.mu.Unlock()
		}()
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createdRetryFor)
		defer cancel()
		r := client.Result{Sent: true, StatusCode: http.StatusCreated, ResultID: id}
		for wait := 200 * time.Millisecond; ; wait = min(2*wait, 30*time.Second) {
			if !sleepCtx(bctx, wait) {
				return
			}
			if j.recordOutcome(bctx, key, r) == nil || j.putCreated(bctx, key, id) == nil {
				return
			}
		}
	}()
}

// Flush waits until every created id whose recording the store refused
// (see recordCreated) has been recorded, or ctx ends (its error then).
// Call it before a process exits, so that a payment the bank created is
// not left without an outcome.
func (j *Journal) Flush(ctx context.Context) error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	if j.pending == 0 {
		j.mu.Unlock()
		return nil
	}
	idle := j.idle
	j.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: flush: %w", ErrJournal, ctx.Err())
	}
}

// sleepCtx waits d, or until ctx ends (false).
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// keepFold writes the created id folded in from the created record into
// the entry under key, and then removes that record.
func (j *Journal) keepFold(ctx context.Context, key, id string) error {
	err := j.update(ctx, key, func(rec *journalRecord) error {
		if rec.Outcome == "" && rec.ID == "" {
			rec.Outcome, rec.ID = OutcomeCreated, id
		}
		return nil
	})
	if err == nil {
		_ = j.st.Delete(ctx, createdKey(key))
	}
	return err
}

// createdKey returns the key of the created id of the entry under key.
func createdKey(key string) string {
	return createdPrefix + strings.TrimPrefix(key, journalPrefix)
}

// putCreated records id as the created id of the entry under key in one
// Put, kept as long as the entry (no ttl).
func (j *Journal) putCreated(ctx context.Context, key, id string) error {
	return j.st.Put(ctx, createdKey(key), []byte(id), 0)
}

// foldCreated makes rec, without an outcome, created with the id the
// store holds under createdPrefix, if any; it reports whether it did.
func (j *Journal) foldCreated(ctx context.Context, key string, rec *journalRecord) (bool, error) {
	if rec.Outcome != "" || rec.ID != "" {
		return false, nil
	}
	b, err := j.st.Get(ctx, createdKey(key))
	switch {
	case errors.Is(err, store.ErrNotStored):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("%w: %w", ErrJournal, err)
	case len(b) == 0:
		return false, nil
	}
	rec.Outcome, rec.ID = OutcomeCreated, string(b)
	return true, nil
}

// ASSUMPTION (armedCreates): a store may commit a write and still report
// an error (pgstore when the connection drops, or the call's context
// ends, after COMMIT was sent; a FileStore whose directory sync fails
// after the rename). Whatever is written last before a create leaves can
// be such a write, so the journal cannot always record durably that a
// create it refused (ErrNotSent) was not sent. It therefore arms an entry
// only after its intent was reported written: the hook writes the intent
// first and the open marker (payments/journal-open/...) after it, then
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
			b, err := json.Marshal(&rec)
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

// putMarker writes the open marker of the entry under key, holding the
// entry's creation time.
func (j *Journal) putMarker(ctx context.Context, key string, created time.Time) error {
	return j.st.Put(ctx, doubtKey(key), []byte(created.Format(time.RFC3339Nano)), 0)
}

// armed reports whether the entry under key may be sent again when it has
// no outcome: whether its open marker exists (see armedCreates).
func (j *Journal) armed(ctx context.Context, key string) (bool, error) {
	_, err := j.st.Get(ctx, doubtKey(key))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, store.ErrNotStored):
		return false, nil
	}
	return false, fmt.Errorf("%w: %w", ErrJournal, err)
}

// logicalDuplicateAllowed reports whether a raw query carries the
// allowLogicalDuplicate parameter in any spelling: any case of the name,
// escaped or padded, with any value. Banks read "yes", "on", " true" or
// "1" as true; a create that carried the parameter in any form is never
// resolved by sending it again, and a resend never carries it.
func logicalDuplicateAllowed(rawQuery string) bool {
	for part := range strings.SplitSeq(rawQuery, "&") {
		for _, sep := range []string{"=", ";"} {
			part, _, _ = strings.Cut(part, sep)
		}
		k, err := url.QueryUnescape(part)
		if err != nil {
			k = part
		}
		if isLogicalDuplicateName(k) {
			return true
		}
	}
	return false
}

// bodyAllowsDuplicate reports whether a recorded JSON body carries an
// allowLogicalDuplicate member, in any case, at its top level.
func bodyAllowsDuplicate(body []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return false
	}
	for k := range obj {
		if isLogicalDuplicateName(k) {
			return true
		}
	}
	return false
}

// isLogicalDuplicateName reports whether a query or member name is
// allowLogicalDuplicate in any case, padded or not.
func isLogicalDuplicateName(k string) bool {
	return strings.EqualFold(strings.TrimSpace(k), "allowLogicalDuplicate")
}

// create returns the Create of the record; an entry written by package
// payments before the journal had its own package has none, and was a
// payment's create or, with Basket, a signing basket's (docs/interface.md
// sections 4.2 and 4.4).
func (r *journalRecord) create() Create {
	switch {
	case r.Create != nil:
		return *r.Create
	case r.Basket:
		return Create{ResultID: "basketId", DuplicateStatus: http.StatusConflict, DuplicateCode: "STATUS_INVALID"}
	}
	return Create{ResultID: "paymentId", DuplicateStatus: http.StatusBadRequest, DuplicateCode: "PAYMENT_FAILED",
		NotFoundUntilApproved: r.Product == "norwegian-domestic-credit-transfers"}
}

// outcomeOf maps a call's result to an outcome.
func outcomeOf(r client.Result) (o Outcome, id string, status int, codes []string) {
	var ce *client.Error
	switch {
	case r.Err == nil && r.ResultID != "":
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

// recordOutcome adds r's outcome to the entry under key.
func (j *Journal) recordOutcome(ctx context.Context, key string, r client.Result) error {
	o, id, status, codes := outcomeOf(r)
	now := j.now().UTC()
	settled, open := false, false
	var created time.Time
	err := j.update(ctx, key, func(rec *journalRecord) error {
		rec.Outcome, rec.OutcomeAt, rec.StatusCode, rec.Codes = o, &now, status, codes
		if id != "" {
			rec.ID = id
		}
		settled, created = rec.settled(), rec.Created
		open = !settled && rec.Resolves == ""
		return nil
	})
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
		if err := fn(&rec); err != nil {
			return nil, 0, err
		}
		b, err := json.Marshal(&rec)
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

// Entry returns the entry of the create sent with X-Request-ID
// requestID; an error matching [store.ErrNotStored] when there is none.
func (j *Journal) Entry(ctx context.Context, requestID string) (Entry, error) {
	key, err := journalKey(requestID)
	if err != nil {
		return Entry{}, err
	}
	return j.read(ctx, key)
}

func (j *Journal) read(ctx context.Context, key string) (Entry, error) {
	if j == nil || j.st == nil {
		return Entry{}, fmt.Errorf("%w: no journal (use journal.New)", ErrJournal)
	}
	b, err := j.st.Get(ctx, key)
	if err != nil {
		return Entry{}, fmt.Errorf("%w: %w", ErrJournal, err)
	}
	var rec journalRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return Entry{}, fmt.Errorf("%w: entry unreadable: %w", ErrJournal, err)
	}
	folded, err := j.foldCreated(ctx, key, &rec)
	if err != nil {
		return Entry{}, err
	}
	e := rec.entry(j)
	e.folded = folded
	return e, nil
}

// Entries yields every entry of the journal, in the order of their
// keys (the escaped request ids). An error ends the sequence.
func (j *Journal) Entries(ctx context.Context) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		if j == nil || j.st == nil {
			yield(Entry{}, fmt.Errorf("%w: no journal (use journal.New)", ErrJournal))
			return
		}
		for key, err := range j.st.Keys(ctx, journalPrefix) {
			if err != nil {
				yield(Entry{}, fmt.Errorf("%w: %w", ErrJournal, err))
				return
			}
			e, err := j.read(ctx, key)
			if errors.Is(err, store.ErrNotStored) {
				continue // expired or deleted meanwhile
			}
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}

// InDoubt yields the entries that may stand for a payment nobody knows
// about (see [Entry.InDoubt]): outcome unknown, or no outcome at
// all and older than the in-flight time ([DefaultInFlight],
// [WithInFlight]), so that creates still on their way in another
// replica are left alone. Pass each to [Journal.Resolve]. The entries of
// Resolve's own resends are never yielded: their original is. It reads
// only the open entries (each gets a marker in the store once its intent
// is recorded, before it is sent, until it is settled), not the settled
// ones; an entry whose create was reported as [client.ErrNotSent] is
// never yielded. An error ends the sequence.
func (j *Journal) InDoubt(ctx context.Context) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		if j == nil || j.st == nil {
			yield(Entry{}, fmt.Errorf("%w: no journal (use journal.New)", ErrJournal))
			return
		}
		now := j.now()
		for marker, err := range j.st.Keys(ctx, doubtPrefix) {
			if err != nil {
				yield(Entry{}, fmt.Errorf("%w: %w", ErrJournal, err))
				return
			}
			key := journalPrefix + strings.TrimPrefix(marker, doubtPrefix)
			e, err := j.read(ctx, key)
			switch {
			case errors.Is(err, store.ErrNotStored):
				// A marker without its entry (deleted, or left by a
				// version that wrote the marker before the intent), once
				// it is older than any create in flight.
				if j.markerStale(ctx, marker, now) {
					_ = j.st.Delete(ctx, marker)
				}
				continue
			case err != nil:
				yield(Entry{}, err)
				return
			case !e.InDoubt():
				if e.folded {
					_ = j.keepFold(ctx, key, e.ID)
				}
				j.closeDoubt(ctx, key)
				continue
			case e.Outcome == "" && j.underWay(e, now):
				continue
			}
			if !yield(e, nil) {
				return
			}
		}
	}
}

// underWay reports whether the create of e, without an outcome, may
// still be running (or recording its outcome) at now: younger than the
// in-flight time, or than its call's own bound plus outcomeTimeout. With
// WithWritersStopped nothing is under way.
func (j *Journal) underWay(e Entry, now time.Time) bool {
	if j.stopped {
		return false
	}
	return now.Sub(e.Created) < j.inFlight || now.Before(e.Until)
}

// markerStale reports whether the open marker was written longer than
// the in-flight time ago.
func (j *Journal) markerStale(ctx context.Context, marker string, now time.Time) bool {
	b, err := j.st.Get(ctx, marker)
	if err != nil {
		return false
	}
	at, err := time.Parse(time.RFC3339Nano, string(b))
	return err != nil || j.stopped || now.Sub(at) >= j.inFlight
}
