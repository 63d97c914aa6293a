package journal

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"
)

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
	// Operation is the SDK call, as its service named it (for example
	// "payments.CreateNorwegianDomestic").
	Operation string
	// Create describes the kind of create, as its service gave it to
	// [Journal.Hook]. An entry of a development version that recorded
	// none has the zero Create, and is never sent again.
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
	// Resolution is the resolution in force: the last one recorded by
	// [Journal.Resolve], or a person's ([Journal.SettleByPerson]), which
	// no later resolution replaces. nil when none.
	Resolution *Resolution
	// Trail is what else was recorded on the entry, oldest first, so that
	// no decision is lost: the resolutions a later one replaced, a
	// resolution that came after a person's settlement (which stands),
	// and the settlements by a person that were refused because a
	// Resolve was sending the create again (Kind SettledByPerson, Reason
	// starting with "refused"). It keeps the last 20 (maxTrail).
	Trail []Resolution
	// Resolves is set on the entry of a resend made by
	// [Journal.Resolve]: the X-Request-ID of the entry it resolves.
	Resolves string
	// Lost is set on the record of a person's settlement of a lost entry
	// (see [Lost]): only RequestID, Created (when its marker was
	// written), Resolution and Trail are known; the create is not.
	Lost bool

	// Until is when its create and the recording of its outcome are
	// over at the latest: the intent's time, plus the call's bound (the
	// journal's writes before the create is sent, the intent, its
	// in-flight lease and the open marker, 10 s each at most, and
	// [client.Client.LongestCall];
	// or its context's deadline when sooner), plus the time allowed to
	// record the outcome. Without an
	// outcome the entry is in flight until then, and at least for the
	// journal's in-flight time ([WithInFlight]). Zero for an entry
	// written before this field.
	Until time.Time

	key    string // where the entry is stored
	path   string // the create's path under the base URL; "" before it was kept
	scope  string
	header http.Header
	claim  *claim
	folded bool // Outcome and ID come from the created record
	j      *Journal
}

// maxTrail bounds [Entry.Trail]: the oldest items go first.
const maxTrail = 20

// InDoubt reports whether the entry may stand for a resource nobody
// knows about: its outcome is unknown, or missing (a crash), and no
// resolution settled it. An entry resolved as needing a person stays in
// doubt.
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

// journalRecord is the stored form of an entry (JSON, version 1; the
// members added since are optional).
type journalRecord struct {
	V                     int               `json:"v"`
	RequestID             string            `json:"requestId"`
	Operation             string            `json:"operation"`
	Create                *Create           `json:"create,omitempty"`
	URL                   string            `json:"url"`
	Path                  string            `json:"path,omitempty"` // under the base URL (Entry.path)
	Body                  []byte            `json:"body"`
	Header                map[string]string `json:"header,omitempty"`
	AllowLogicalDuplicate bool              `json:"allowLogicalDuplicate,omitempty"`
	Scope                 string            `json:"scope"`
	Created               time.Time         `json:"created"`
	Outcome               Outcome           `json:"outcome,omitempty"`
	OutcomeAt             *time.Time        `json:"outcomeAt,omitempty"`
	ID                    string            `json:"paymentId,omitempty"` // the name of version 1
	StatusCode            int               `json:"statusCode,omitempty"`
	Codes                 []string          `json:"codes,omitempty"`
	Resolution            *Resolution       `json:"resolution,omitempty"`
	Trail                 []Resolution      `json:"trail,omitempty"`
	Claim                 *claim            `json:"claim,omitempty"`
	Resolves              string            `json:"resolves,omitempty"`
	// Until is Entry.Until.
	Until *time.Time `json:"until,omitempty"`
	// Lost is Entry.Lost.
	Lost bool `json:"lost,omitempty"`
	// Intent is a random token of the call that wrote the intent, so
	// that the call recognises its own entry (see settleNotSent).
	Intent string `json:"intent,omitempty"`
}

// recordMembers are the names of the members of journalRecord.
var recordMembers = func() []string {
	t := reflect.TypeFor[journalRecord]()
	names := make([]string, 0, t.NumField())
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, name)
	}
	return slices.Clip(names)
}()

// marshalKeeping returns the stored form of rec, rewritten from the
// stored form old, with the members of old that journalRecord does not
// name kept as they were. A later release adds optional members to
// stored form 1 without a new version; a rewrite by this version (an
// outcome, a claim, a resolution, a settlement) must not drop what that
// release recorded. A member encoding/json matches to one of
// journalRecord's, whatever its case, was read into rec and is not kept.
func marshalKeeping(rec *journalRecord, old []byte) ([]byte, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	var was map[string]json.RawMessage
	if json.Unmarshal(old, &was) != nil {
		return b, nil
	}
	later := maps.Collect(func(yield func(string, json.RawMessage) bool) {
		for name, v := range was {
			known := slices.ContainsFunc(recordMembers, func(m string) bool { return strings.EqualFold(m, name) })
			if !known && !yield(name, v) {
				return
			}
		}
	})
	if len(later) == 0 {
		return b, nil
	}
	var now map[string]json.RawMessage
	if err := json.Unmarshal(b, &now); err != nil {
		return nil, err
	}
	maps.Copy(now, later)
	return json.Marshal(now)
}

// recordVersion is the newest stored form of an entry this version
// reads and writes (journalRecord's V).
const recordVersion = 1

// check refuses a record this version cannot read faithfully: one of a
// newer stored form, or with an outcome or resolution kind it does not
// know (a newer version's). Read as version 1, such an entry could pass
// for settled (its open marker then removed), and rewriting it would
// drop the members this version does not know.
func (r *journalRecord) check() error {
	switch {
	case r.V > recordVersion:
		return fmt.Errorf("written by a newer version of the SDK (stored form %d, this one reads up to %d): use a psd2 of that version", r.V, recordVersion)
	case r.V < 1 || r.RequestID == "":
		return fmt.Errorf("not a journal entry (stored form %d, request id %q)", r.V, r.RequestID)
	}
	switch r.Outcome {
	case "", OutcomeCreated, OutcomeRefused, OutcomeNotSent, OutcomeUnknown:
	default:
		return fmt.Errorf("outcome %q unknown to this version of the SDK (a newer one wrote it?)", r.Outcome)
	}
	rs := slices.Clone(r.Trail)
	if r.Resolution != nil {
		rs = append(rs, *r.Resolution)
	}
	for _, res := range rs {
		switch res.Kind {
		case ResolvedStatus, ResolvedCreated, ResolvedDuplicate, ResolvedNotCreated, NeedsPerson, SettledByPerson:
		default:
			return fmt.Errorf("resolution %q unknown to this version of the SDK (a newer one wrote it?)", res.Kind)
		}
	}
	return nil
}

// entry is the Entry of the record stored under key.
func (r *journalRecord) entry(j *Journal, key string) Entry {
	e := Entry{
		RequestID: r.RequestID, Operation: r.Operation, URL: r.URL,
		Body: r.Body, SessionKey: r.Header["Tpp-Session-Id"], AllowLogicalDuplicate: r.AllowLogicalDuplicate,
		Created: r.Created, Outcome: r.Outcome, ID: r.ID, StatusCode: r.StatusCode,
		Codes: r.Codes, Resolution: r.Resolution, Trail: r.Trail, Resolves: r.Resolves, Lost: r.Lost,
		key: key, path: r.Path, scope: r.Scope, header: http.Header{}, claim: r.Claim, j: j,
	}
	if r.Create != nil {
		e.Create = *r.Create
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
// so that it may expire after the retention: its outcome is known, or a
// resolution (Resolve's, a person's) settled it. The entry of a resend
// without an outcome (its resolver died) stays: it is the evidence of a
// resend that may have created the resource.
func (r *journalRecord) settled() bool {
	e := Entry{Outcome: r.Outcome, Resolution: r.Resolution, Resolves: r.Resolves}
	return !e.InDoubt() && (r.Outcome != "" || r.Resolution != nil)
}

// inDoubt is the record's [Entry.InDoubt].
func (r *journalRecord) inDoubt() bool {
	e := Entry{Outcome: r.Outcome, Resolution: r.Resolution, Resolves: r.Resolves}
	return e.InDoubt()
}
