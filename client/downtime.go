package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tppkit/psd2/store"
)

// Downtime is one unavailability of a bank, as the breaker recorded it:
// the record a TPP can file (the EBA's guidelines on the dedicated
// interface; PSD3/PSR let a TPP report such obstacles). It holds no
// personal data: the bank, times, statuses and the X-Request-IDs of the
// failed requests, which the bank can look up.
type Downtime struct {
	// Bank is the bank's identity ([Client.Bank]).
	Bank string `json:"bank"`
	// Start is the time of the first failed request of the run that
	// opened the breaker; End the time of the answer that closed it
	// (zero while it lasts, or when the process that saw it start never
	// saw it end).
	Start time.Time `json:"start"`
	End   time.Time `json:"end,omitzero"`
	// EndAssumed says End was never written: the processes that saw
	// the outage stopped before they saw it end, and no answer ended the
	// record since. [Client.Downtimes] gives the next record's start as
	// its End (the outage is counted to then), which may be later than
	// the bank came back: a figure that counts it may be more than the
	// outage was ([Availability.EndsAssumed]). Never stored.
	EndAssumed bool `json:"endAssumed,omitempty"`
	// LastFailure is when the last failed request recorded was sent
	// (failed probes included): the bank was seen down up to then. On
	// low traffic the probe that ends a downtime goes with the next
	// call, which may come hours after the bank came back, so End is
	// when the bank was first seen up again, and the time from
	// LastFailure to End is time no request may have looked at
	// ([Availability.Seen] leaves it out). Zero in a record of an
	// earlier version: its last evidence stands in ([Downtime.SeenUntil]),
	// a lower bound when it kept the evidence of only some of its
	// failures ([Downtime.SeenAtLeast]).
	LastFailure time.Time `json:"lastFailure,omitzero"`
	// EndedElsewhere says a process other than the one that opened the
	// breaker ended the record (a replica that adopted its open breaker,
	// or the first answer after a crash): the failures the opener saw
	// after it wrote the record are in it only when the opener, still
	// running, closed its own breaker later (its close is merged into
	// the record, the end kept unless the opener saw the bank down after
	// it: then the opener's end), not when it crashed: LastFailure and
	// Failures are lower bounds ([Downtime.SeenAtLeast]).
	EndedElsewhere bool `json:"endedElsewhere,omitempty"`
	// Failures counts the failed requests recorded: those that opened
	// the breaker and the failed probes, every one of them, also beyond
	// the evidence kept.
	Failures int `json:"failures"`
	// Evidence lists the failed requests (at most 32).
	Evidence []Evidence `json:"evidence"`
}

// Evidence is one failed request of a downtime record.
type Evidence struct {
	// RequestID is the request's X-Request-ID.
	RequestID string `json:"requestId"`
	// At is when it was sent (the client's clock).
	At time.Time `json:"at"`
	// Status is the HTTP status of its answer (0: none); Result says
	// what became of it: "503 Service Unavailable", "timeout", "no
	// answer".
	Status int    `json:"status,omitempty"`
	Result string `json:"result"`
	// Operation is the SDK call, for example "accounts.Balances".
	Operation string `json:"operation"`
}

// DowntimeKept is how long the client's store keeps a downtime record:
// long enough for a TPP to file a year's complaints.
const DowntimeKept = 400 * 24 * time.Hour

// MaxDowntimes bounds the downtime records the client's store keeps per
// bank (and client scope), the records of every replica together: a bank
// that flaps, up and down all day, writes a record per outage for
// DowntimeKept, and without a bound they would fill the store and every
// read of them ([Client.Downtimes]). When a new record would pass it,
// the oldest go, and the time up to which records went is kept:
// [Client.Downtimes] refuses a period from before it
// ([ErrDowntimesDropped]) rather than report it with outages left out.
// A record that cannot be decoded never goes (its end is unknown): the
// next ones go instead.
// 10,000 records are 25 a day over DowntimeKept, more than a bank that
// keeps its dedicated interface up makes; each holds at most 32 pieces
// of evidence, so that reading the records of any period is bounded.
const MaxDowntimes = 10_000

// ErrDowntimesDropped is matched (errors.Is) by the error of
// [Client.Downtimes] for a period that begins before records were
// dropped to keep the bank's records within [MaxDowntimes]: a report of
// it would leave outages out.
var ErrDowntimesDropped = errors.New("client: downtime records of the period were dropped")

// downtimePrefix is the store prefix of a bank's downtime records; the
// start in 20 decimal digits orders them.
func downtimePrefix(scope string) string { return "client/downtime/" + scope + "/" }

// writeRecord writes the downtime record of a change to the client's
// store (best effort): at the start, so that a record survives a crash,
// and at the end. The record is merged into the one stored under its key
// (mergeDowntime), never written over it: a replica that adopted this
// process's open breaker may have ended it meanwhile and added its
// failures (endAdopted), and the close of this process's own breaker
// keeps that end and those failures.
func (b *bankHealth) writeRecord(ch BreakerChange) {
	if b.st == nil {
		return
	}
	d := ch.Downtime
	key := downtimePrefix(b.scope) + fmt.Sprintf("%020d", d.Start.UnixNano())
	b.mu.Lock()
	written := 0 // the failures this process wrote under key before
	if b.recordKey == key {
		written = b.recordFailures
	}
	b.mu.Unlock()
	ctx, cancel := b.storeContext(context.Background())
	err := b.st.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		m := d
		var stored Downtime
		if found && json.Unmarshal(old, &stored) == nil && !stored.Start.IsZero() {
			m = mergeDowntime(stored, d, written)
		}
		raw, err := json.Marshal(m)
		return raw, DowntimeKept, err
	})
	cancel()
	if err != nil {
		return
	}
	b.mu.Lock()
	b.recordKey, b.recordFailures = key, d.Failures
	b.mu.Unlock()
	if ch.To == BreakerOpen {
		b.dropOldest() // a new record: the bank's may pass MaxDowntimes
	}
}

// mergeDowntime merges d, this process's account of a downtime, into
// stored, the record under its key, of which written failures are this
// process's own earlier write (0: none): the earliest start, the end
// mergedEnd gives (the first that proves the bank back after every
// failure the merge holds: never one before a failure, as when the bank
// came back, one replica ended the record, and another then saw it down
// again), the latest last failure, the failures of both without
// counting those written twice, the evidence of both (by request, the
// first maxEvidence), and EndedElsewhere when stored says so.
func mergeDowntime(stored, d Downtime, written int) Downtime {
	m := d
	if !stored.Start.IsZero() && stored.Start.Before(m.Start) {
		m.Start = stored.Start
	}
	m.LastFailure = latest(stored.LastFailure, d.LastFailure)
	m.Failures = d.Failures + max(0, stored.Failures-written)
	m.EndedElsewhere = stored.EndedElsewhere || d.EndedElsewhere
	m.Evidence = slices.Clone(d.Evidence)
	for _, e := range stored.Evidence {
		if !slices.ContainsFunc(m.Evidence, func(x Evidence) bool { return x.RequestID == e.RequestID && x.At.Equal(e.At) }) {
			m.Evidence = append(m.Evidence, e)
		}
	}
	slices.SortStableFunc(m.Evidence, func(x, y Evidence) int { return x.At.Compare(y.At) })
	if len(m.Evidence) > maxEvidence {
		m.Evidence = m.Evidence[:maxEvidence]
	}
	m.End = mergedEnd(m.Start, latest(m.SeenUntil(), latest(stored.SeenUntil(), d.SeenUntil())), stored, d)
	return m
}

// mergedEnd returns the end of a record merged from two accounts of a
// downtime, a and b (each its Downtime: End zero for an outage under way
// as its process saw it), whose failures together reach seen
// ([Downtime.SeenUntil] of the merge):
//   - the earliest of their ends not before seen: the first answer that
//     proved the bank back after its last failure (an earlier end was
//     the bank's coming back before it went down again);
//   - else, when one account is under way and its own failures are after
//     the other's end: zero, the record ongoing again (the bank came
//     back, and a process saw it down again and has not seen it back);
//   - else, when an end is not before start: seen, the last failure (an
//     account's end before a failure the merge holds that no account
//     under way explains: a clock that stepped back, or the replicas'
//     clocks disagreeing; the bank was seen down until then);
//   - else (no end, or ends before the start only): firstEnd's, so that
//     a record that ends before it starts stays one ([Downtime.Backwards]).
func mergedEnd(start, seen time.Time, a, b Downtime) time.Time {
	seen = latest(seen, start)
	after := func(t time.Time) bool { return !t.IsZero() && !t.Before(seen) }
	valid := func(t time.Time) bool { return !t.IsZero() && !t.Before(start) }
	downAgain := func(open, ended Downtime) bool {
		return open.End.IsZero() && valid(ended.End) && open.SeenUntil().After(ended.End)
	}
	switch {
	case after(a.End) && after(b.End):
		return earliest(a.End, b.End)
	case after(a.End):
		return a.End
	case after(b.End):
		return b.End
	case !valid(a.End) && !valid(b.End):
		return firstEnd(start, a.End, b.End)
	case downAgain(a, b) || downAgain(b, a):
		return time.Time{}
	}
	return seen
}

// firstEnd returns the earliest of the ends a and b (zero: none) that is
// not before start, else the earliest of them: the first answer that
// proved the bank back.
func firstEnd(start, a, b time.Time) time.Time {
	ok := func(t time.Time) bool { return !t.IsZero() && !t.Before(start) }
	switch {
	case ok(a) && ok(b):
		return earliest(a, b)
	case ok(a):
		return a
	case ok(b):
		return b
	case a.IsZero():
		return b
	case b.IsZero():
		return a
	}
	return earliest(a, b)
}

// dropBatch bounds the records one dropOldest removes: a store written
// before MaxDowntimes bounded the records (or by a replica without the
// bound) shrinks to it over a few outages, each write bounded.
const dropBatch = 64

// droppedKey is the store key of the time up to which a bank's downtime
// records were dropped (dropOldest): a period before it is refused
// (Downtimes). Its value is that time in Unix nanoseconds.
func droppedKey(scope string) string { return "client/downtime-dropped/" + scope }

// dropOldest removes the bank's oldest downtime records beyond
// MaxDowntimes (at most dropBatch of them), best effort, like
// writeRecord. Before it removes any it records, in droppedKey, the time
// up to which the records it removes covered (their ends, or for a
// record never ended the next record's start, where Downtimes ends it):
// a record never goes without that, so no reader takes a period with
// records gone for one without outages. A record it cannot decode is
// never removed (its end, and so the time it covered, is unknown): the
// next readable ones go instead, and [Client.Downtimes] keeps failing on
// it, naming it, until it is removed by hand or expires; the bank's
// records may then pass MaxDowntimes by their number. Each pass over the
// keys streams them: a count, then the oldest.
func (b *bankHealth) dropOldest() {
	prefix := downtimePrefix(b.scope)
	ctx, cancel := b.storeContext(context.Background())
	defer cancel()
	n := 0
	for _, err := range b.st.Keys(ctx, prefix) {
		if err != nil {
			return
		}
		n++
	}
	excess := min(n-MaxDowntimes, dropBatch)
	if excess <= 0 {
		return
	}
	drop := make([]string, 0, excess)
	var until time.Time
	for key, err := range b.st.Keys(ctx, prefix) {
		if err != nil {
			return
		}
		if len(drop) == excess {
			// The next record: a dropped record never ended ends at its
			// start.
			start, err := strconv.ParseInt(strings.TrimPrefix(key, prefix), 10, 64)
			if err != nil {
				return
			}
			until = latest(until, time.Unix(0, start))
			break
		}
		raw, err := b.st.Get(ctx, key)
		if err != nil && !errors.Is(err, store.ErrNotStored) {
			return // its end unknown: nothing goes
		}
		if err == nil {
			var d Downtime
			if json.Unmarshal(raw, &d) != nil || d.Start.IsZero() {
				// Its end unknown, the time its outage covered too: it
				// is kept, and Downtimes names it as an error, rather
				// than go without a trace.
				continue
			}
			until = latest(until, d.End)
		}
		drop = append(drop, key)
	}
	if len(drop) < excess {
		return // records went meanwhile: another replica dropped them
	}
	err := b.st.Update(ctx, droppedKey(b.scope), func(old []byte, found bool) ([]byte, time.Duration, error) {
		t := until
		if n, err := strconv.ParseInt(string(old), 10, 64); found && err == nil {
			t = latest(t, time.Unix(0, n))
		}
		return []byte(strconv.FormatInt(t.UnixNano(), 10)), DowntimeKept, nil
	})
	if err != nil {
		return
	}
	for _, key := range drop {
		_ = b.st.Delete(ctx, key)
	}
}

// sweepStale ends, at now, a downtime record a crashed process left
// under way, once per process and bank, at the first answer: when no
// replica holds the bank's breaker open in the store, an outage the
// record says runs on ended by now at the latest. It tells the
// subscribers, as the close of that outage's breaker would have.
func (b *bankHealth) sweepStale(now time.Time) {
	if b.st == nil || b.swept.Load() || !b.swept.CompareAndSwap(false, true) {
		return
	}
	b.mu.Lock()
	// A breaker not closed ends its outage's record itself (judge,
	// endAdopted); one this process opened wrote a record after any a
	// crashed process left, which Downtimes ends at its start. A sweep
	// then could only race with that record's own end.
	skip := b.state != BreakerClosed || b.opened
	b.mu.Unlock()
	if skip {
		return
	}
	ctx, cancel := b.storeContext(context.Background())
	_, err := b.st.Get(ctx, breakerKey(b.scope))
	cancel()
	if !errors.Is(err, store.ErrNotStored) {
		if err != nil {
			b.swept.Store(false) // the store could not tell: a later answer looks again
		}
		return // some replica holds the breaker open: its record is under way
	}
	if d, ok := b.endAdopted(now, Downtime{}); ok {
		b.h.notify(BreakerChange{Bank: b.bank, Scope: b.scope, From: BreakerOpen, To: BreakerClosed, At: now, Downtime: d}, b.log)
	}
}

// endAdopted ends, at end, the latest downtime record of the bank in the
// store, written by the replica whose open breaker this one adopted
// (readShared) and then closed, or by a process that crashed during the
// outage (sweepStale): a record never ended reads as an outage running
// on. seen holds the failed requests this process saw meanwhile (their
// number in Failures, the last's time in LastFailure; zero for a sweep):
// they are added to the record, whose LastFailure else says the bank was
// last seen down when the replica that wrote it last saw it. It returns
// the record, or false when there is none to end (no store, none
// written, or its replica ended it already: seen's failures are then
// added to it, its end kept unless one of them is after it, when end
// replaces it: the bank was down again). Best effort, like writeRecord.
func (b *bankHealth) endAdopted(end time.Time, seen Downtime) (Downtime, bool) {
	if b.st == nil {
		return Downtime{}, false
	}
	ctx, cancel := b.storeContext(context.Background())
	defer cancel()
	var last string
	for key, err := range b.st.Keys(ctx, downtimePrefix(b.scope)) {
		if err != nil {
			return Downtime{}, false
		}
		last = max(last, key)
	}
	if last == "" {
		return Downtime{}, false
	}
	var d Downtime
	var ended bool
	err := b.st.Update(ctx, last, func(old []byte, found bool) ([]byte, time.Duration, error) {
		d, ended = Downtime{}, false // fn may run again
		if !found || json.Unmarshal(old, &d) != nil || d.Start.IsZero() || d.Start.After(end) {
			return nil, 0, errNoRecordToEnd
		}
		if ended = !d.End.IsZero(); ended && seen.Failures == 0 {
			return nil, 0, errNoRecordToEnd
		}
		if d.Failures += seen.Failures; seen.LastFailure.After(d.Start) && !seen.LastFailure.After(end) {
			d.LastFailure = latest(d.LastFailure, seen.LastFailure)
		}
		if ended {
			// Its replica, or another, ended it first: the first end
			// that proves the bank back after every failure the record
			// now holds stays (mergedEnd, as mergeDowntime merges), and
			// this process's failures are added all the same. This
			// process's end replaces it when this process saw the bank
			// down after it (up, then down again).
			if e := mergedEnd(d.Start, d.SeenUntil(), d, Downtime{End: end, LastFailure: seen.LastFailure}); !e.Equal(d.End) {
				d.End, d.EndedElsewhere = e, true
			}
		} else {
			d.End, d.EndedElsewhere = end, true
		}
		raw, err := json.Marshal(d)
		return raw, DowntimeKept, err
	})
	return d, err == nil && !ended
}

// errNoRecordToEnd: endAdopted found no record under way.
var errNoRecordToEnd = errors.New("client: no downtime record under way")

// Downtimes returns the client's bank's downtime records that overlap
// [from, to), oldest first, from the client's store: with a shared store
// (pgstore) those of every replica, durable. A record that began before
// from and ended within the period, or runs on, is one of them (a report
// cuts it to the period, [Report]). A record whose end was never
// written ends at the next record's start ([Downtime.EndAssumed]), or
// runs on. A record that
// ends before it starts ([Downtime.Backwards]) is given as stored, and
// is one of the period's when it starts, or ends, before to and the next
// record starts after from (or there is none): neither time is to be
// trusted (the clock that wrote its start may have been ahead of the one
// that wrote its end), so it is taken, for the period, as a record never
// ended that began by its end. A record the store
// holds but could not give, or gave unreadable, is an error: a report
// without it would show the bank available. So is a period that begins
// before the time up to which records were dropped to keep the bank's
// within [MaxDowntimes] ([ErrDowntimesDropped]), and one that holds more
// than MaxDowntimes records (a store written before the bound): the
// records are streamed from the store, those of the period alone kept.
// The records that start after the period are read too (at most
// MaxDowntimes, kept only when they end before they start and within
// the period): a report of an early period reads every later record.
func (c *Client) Downtimes(ctx context.Context, from, to time.Time) ([]Downtime, error) {
	prefix := downtimePrefix(c.Scope())
	var out []Downtime
	// prev is the last record read, whose end may be the next one's
	// start: it is kept or left once the next one is read.
	var prev *Downtime
	// keep keeps d when it overlaps the period; next is the start of
	// the record after it (zero: none). A record that ends before it
	// starts has times nobody can trust (the clock of a process that
	// wrote it stepped back, or was behind another's): it is kept as a
	// record never ended that began by its end is, up to the next
	// record's start or running on, so that an outage that may have
	// reached into the period is never left out; its times are given as
	// stored ([Downtime.Backwards]).
	keep := func(d Downtime, next time.Time) error {
		start, end := d.Start, d.End
		if d.Backwards() {
			// Either time may be the wrong one: the outage may have
			// begun by its end (the clock that wrote its start was
			// ahead) and run on to the next record's start.
			start, end = d.End, next
		}
		if !start.Before(to) || !end.IsZero() && !end.After(from) {
			return nil
		}
		if len(out) == MaxDowntimes {
			return fmt.Errorf("client: reading downtimes: more than %d records in the period (give a shorter one)", MaxDowntimes)
		}
		out = append(out, d)
		return nil
	}
	var readErr error
	for key, raw := range storedUnder(ctx, c.cfg.store, prefix, &readErr) {
		var d Downtime
		if json.Unmarshal(raw, &d) != nil || d.Start.IsZero() {
			// A record left out would show the bank available when it
			// was not.
			return nil, fmt.Errorf("client: reading downtimes: the record %s is unreadable", strings.TrimPrefix(key, prefix))
		}
		if prev != nil {
			if prev.End.IsZero() {
				prev.End, prev.EndAssumed = d.Start, true
			}
			if err := keep(*prev, d.Start); err != nil {
				return nil, err
			}
		}
		// The keys are in the order of the records' starts, but no
		// record after the period is left unread: one that ends before
		// it starts may end within the period (the clock that wrote
		// its start ahead of the one that wrote its end), and be the
		// period's.
		prev = &d
	}
	if readErr != nil {
		return nil, fmt.Errorf("client: reading downtimes: %w", readErr)
	}
	if prev != nil {
		if err := keep(*prev, time.Time{}); err != nil {
			return nil, err
		}
	}
	// Read after the records: dropOldest writes it before it removes
	// any, so a record that went during the reading is seen here.
	raw, err := c.cfg.store.Get(ctx, droppedKey(c.Scope()))
	if err != nil && !errors.Is(err, store.ErrNotStored) {
		return nil, fmt.Errorf("client: reading downtimes: %w", err)
	}
	if err == nil {
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return nil, errors.New("client: reading downtimes: the time up to which records were dropped is unreadable")
		}
		if until := time.Unix(0, n); from.Before(until) {
			return nil, fmt.Errorf("client: reading downtimes: %w: the records up to %s went to keep the bank's within %d (give a period from then on)",
				ErrDowntimesDropped, until.UTC().Format(time.RFC3339Nano), MaxDowntimes)
		}
	}
	return out, nil
}

// SeenUntil is when d's bank was last seen down: the latest of
// [Downtime.LastFailure], its evidence and its start, the most the
// record proves. A record of an earlier version has no LastFailure: when
// it holds more failures than evidence (at most 32 are kept), its later
// failures are not in it, and SeenUntil is only a lower bound
// ([Downtime.SeenAtLeast]).
func (d Downtime) SeenUntil() time.Time {
	seen := latest(d.LastFailure, d.Start)
	for _, e := range d.Evidence {
		seen = latest(seen, e.At)
	}
	return seen
}

// SeenAtLeast reports whether [Downtime.SeenUntil] is a lower bound of
// when the bank was last seen down: a record without LastFailure (an
// earlier version's) whose Failures are more than its Evidence, the
// evidence of the last ones not kept, or one ended by another process
// than the one that opened it ([Downtime.EndedElsewhere]).
func (d Downtime) SeenAtLeast() bool {
	return d.LastFailure.IsZero() && d.Failures > len(d.Evidence) || d.EndedElsewhere
}

// Backwards reports whether d ends before it starts: the wall clock of
// the process that wrote it stepped back between the failure and the
// answer, or the clock that wrote its start was ahead of the one that
// wrote its end, or the store changed it. Such a record says the bank
// was unavailable from Start, or by End, but not for how long:
// [Client.Downtimes] gives it as stored to every period it may reach
// into, and [Report] counts it in [Availability.Backwards], never as no
// unavailability.
func (d Downtime) Backwards() bool { return !d.End.IsZero() && d.End.Before(d.Start) }

// Availability is a bank's unavailability over a period in the EBA's
// terms.
type Availability struct {
	Bank string    `json:"bank"`
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Count is the number of unavailabilities; Unavailable their time
	// within the period, Longest the longest of them.
	Count       int           `json:"count"`
	Unavailable time.Duration `json:"unavailable"`
	Longest     time.Duration `json:"longest"`
	// Seen is the part of Unavailable that failed requests prove: each
	// record from its start to its last failure ([Downtime.SeenUntil]).
	// The rest is time from a record's last failure to its end, during
	// which no request may have gone (the breaker lets the next call
	// probe the bank; on low traffic that call comes late).
	Seen time.Duration `json:"seen"`
	// SeenAtLeast says Seen is a lower bound: a record of the period
	// (an earlier version's) kept the evidence of only some of its
	// failures and not the time of its last, or was ended by another
	// process than the one that opened it ([Downtime.SeenAtLeast]).
	SeenAtLeast bool `json:"seenAtLeast,omitempty"`
	// Backwards counts the records of the period that end before they
	// start ([Downtime.Backwards]): the bank was unavailable then for a
	// time nobody knows. While it is not 0, Count, Unavailable, Longest
	// and Seen leave those records out and are lower bounds, and Uptime
	// an upper bound: no figure of the period.
	Backwards int `json:"backwards,omitempty"`
	// EndsAssumed counts the records of the period whose end was never
	// written ([Downtime.EndAssumed]): each is counted to the next
	// record's start, when the bank may have been back long before.
	// While it is not 0, Unavailable, Longest and Count may be more
	// than the outages were, and Uptime less: no figure of the period.
	EndsAssumed int `json:"endsAssumed,omitempty"`
	// Uptime is the share of the period the bank was available, in
	// percent.
	Uptime float64 `json:"uptimePercent"`
	// Downtimes are the records, with their evidence.
	Downtimes []Downtime `json:"downtimes"`
}

// Report sums downs (from [Client.Downtimes]) over [from, to): a record
// still open ends at to (or now, when earlier); a record that began
// before from counts from from. Records that overlap (the replicas on
// one store each record the outage they all met) are one
// unavailability, counted once. A record that ends before it starts is
// counted in Backwards, not in the figures (see [Availability]).
func Report(bank string, downs []Downtime, from, to, now time.Time) Availability {
	a := Availability{Bank: bank, From: from, To: to, Downtimes: downs}
	if a.Downtimes == nil {
		a.Downtimes = []Downtime{}
	}
	whole := make([]span, 0, len(downs))
	seen := make([]span, 0, len(downs))
	for _, d := range downs {
		if d.Backwards() {
			a.Backwards++
			continue
		}
		if d.EndAssumed && d.End.After(from) && d.Start.Before(to) {
			a.EndsAssumed++
		}
		end := d.End
		if end.IsZero() {
			end = earliest(to, now)
		}
		whole = appendSpan(whole, d.Start, end, from, to)
		until := earliest(d.SeenUntil(), end)
		seen = appendSpan(seen, d.Start, until, from, to)
		// The failures a lower bound leaves out fall between it and
		// the end: they tell on Seen when that is within the period.
		if d.SeenAtLeast() && until.Before(end) && until.Before(to) && end.After(from) {
			a.SeenAtLeast = true
		}
	}
	for _, cur := range mergeSpans(whole) {
		a.Count++
		a.Unavailable += cur.e.Sub(cur.s)
		a.Longest = max(a.Longest, cur.e.Sub(cur.s))
	}
	for _, cur := range mergeSpans(seen) {
		a.Seen += cur.e.Sub(cur.s)
	}
	if span := to.Sub(from); span > 0 {
		a.Uptime = 100 * float64(span-a.Unavailable) / float64(span)
	}
	return a
}

// span is a time of unavailability within a report's period.
type span struct{ s, e time.Time }

// appendSpan appends [s, e) cut to [from, to) to spans, when any of it
// is left.
func appendSpan(spans []span, s, e, from, to time.Time) []span {
	s, e = latest(s, from), earliest(e, to)
	if e.After(s) {
		spans = append(spans, span{s, e})
	}
	return spans
}

// mergeSpans sorts spans and merges those that overlap or touch: the
// replicas on one store each record the outage they all met.
func mergeSpans(spans []span) []span {
	slices.SortFunc(spans, func(x, y span) int { return x.s.Compare(y.s) })
	var out []span
	for i := 0; i < len(spans); {
		cur := spans[i]
		for i++; i < len(spans) && !spans[i].s.After(cur.e); i++ {
			cur.e = latest(cur.e, spans[i].e)
		}
		out = append(out, cur)
	}
	return out
}

// String prints a as a table.
func (a Availability) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "bank %s, %s to %s\n", a.Bank, a.From.UTC().Format(time.RFC3339), a.To.UTC().Format(time.RFC3339))
	sb.WriteString(a.Figures())
	sb.WriteString("\n")
	if a.Backwards > 0 {
		fmt.Fprintf(&sb, "%d record(s) end before they start (the clock of a process that wrote them stepped back): the bank was unavailable then for a time nobody knows, "+
			"which the figures leave out\n", a.Backwards)
	}
	if a.EndsAssumed > 0 {
		fmt.Fprintf(&sb, "%d record(s) were never seen to end (the processes that saw them stopped first): each is counted to the next record's start, "+
			"though the bank may have been back before: the unavailable time may be less\n", a.EndsAssumed)
	}
	if a.SeenAtLeast {
		sb.WriteString("a record kept the evidence of only some of its failures (an earlier version's), or was ended by another process than the one that opened it: " +
			"the time seen failing is a lower bound\n")
	}
	for _, d := range a.Downtimes {
		end := "ongoing"
		if !d.End.IsZero() {
			end = d.End.UTC().Format(time.RFC3339)
		}
		if d.Backwards() {
			end += " (BEFORE ITS START: its length is unknown)"
		}
		if d.EndAssumed {
			end += " (never seen to end: the next record's start)"
		}
		last := "the last at "
		switch {
		case d.EndedElsewhere:
			last = "ended by another process, the last at or after "
		case d.SeenAtLeast():
			last = fmt.Sprintf("evidence of %d kept, the last at or after ", len(d.Evidence))
		}
		fmt.Fprintf(&sb, "  %s to %s, %d failed request(s), %s%s\n", d.Start.UTC().Format(time.RFC3339), end, d.Failures,
			last, d.SeenUntil().UTC().Format(time.RFC3339))
		for _, e := range d.Evidence {
			fmt.Fprintf(&sb, "    %s  %-36s  %-26s  %s\n", e.At.UTC().Format(time.RFC3339Nano), e.RequestID, e.Result, e.Operation)
		}
	}
	return sb.String()
}

// Figures prints a's figures on one line: "unavailable: N time(s), M
// minutes (S seen failing), longest L, uptime U%". The time and the
// longest are said "at least" (the uptime "at most") when a record of
// the period has a length nobody knows ([Availability.Backwards]), "at
// most" (the uptime "at least") when a record's end was never written
// ([Availability.EndsAssumed]), "(no bound)" when both are so, the
// count "at least" in each case; the time seen failing "at least" when
// it is a lower bound ([Availability.SeenAtLeast]).
func (a Availability) Figures() string {
	count, least, most, seenLeast := "", "", "", ""
	switch {
	case a.Backwards > 0 && a.EndsAssumed > 0:
		count, least, most, seenLeast = "at least ", "(no bound) ", "(no bound) ", "at least "
	case a.Backwards > 0:
		count, least, most, seenLeast = "at least ", "at least ", "at most ", "at least "
	case a.EndsAssumed > 0:
		// An assumed end may join outages into one: the count is a
		// lower bound, the time an upper one.
		count, least, most = "at least ", "at most ", "at least "
	}
	if a.SeenAtLeast {
		seenLeast = "at least "
	}
	return fmt.Sprintf("unavailable: %s%d time(s), %s%.1f minutes (%s%.1f seen failing), longest %s%s, uptime %s%.3f%%",
		count, a.Count, least, a.Unavailable.Minutes(), seenLeast, a.Seen.Minutes(), least, a.Longest.Round(time.Second), most, a.Uptime)
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
