package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
)

// healthStatus is what psd2 health prints: the bank's breaker as the
// shared store holds it, and its unavailabilities of the last day.
type healthStatus struct {
	Bank    string              `json:"bank"`
	Breaker client.BreakerState `json:"breaker"`
	Since   *time.Time          `json:"since,omitempty"`
	ProbeAt *time.Time          `json:"probeAt,omitempty"`
	LastDay client.Availability `json:"lastDay"`
	// UnendedSince is the start of the latest unavailability when its
	// record was never ended and no client on the store holds the
	// breaker open: the processes that saw the outage stopped before the
	// bank answered again. Whether the bank is back is unknown (exit
	// status 3), never "available".
	UnendedSince *time.Time `json:"unendedSince,omitempty"`
	// Forgotten lists the downtime records psd2 health forget removed
	// whose outage may have reached into the last day: its figures leave
	// them out.
	Forgotten []client.ForgottenDowntime `json:"forgotten,omitempty"`
}

// healthReport is what psd2 health report prints: the period's
// availability and, as in healthStatus, the start of an unavailability
// never recorded as ended while no client holds the breaker open (exit
// status 3). An earlier record never recorded as ended, counted to the
// next record's start (client.Availability.EndsAssumed), exits 3 too.
//
// Forgotten lists the downtime records psd2 health forget removed whose
// outage may have reached into the period: the figures leave them out.
type healthReport struct {
	client.Availability
	UnendedSince *time.Time                 `json:"unendedSince,omitempty"`
	Forgotten    []client.ForgottenDowntime `json:"forgotten,omitempty"`
}

// runHealth prints a bank's health from the SDK's store: psd2 health
// (the breaker and the last day), psd2 health report -from -to (the
// unavailability of a period in the EBA's terms, with the evidence).
func runHealth(ctx context.Context, e *env, args []string) error {
	usage := "[report -from TIME -to TIME | records | forget ID] -store DIR (-bank ID | -url BASE) (-cert ... | -p12 ...)"
	sub := ""
	if len(args) > 0 && (args[0] == "report" || args[0] == "records" || args[0] == "forget") {
		sub, args = args[0], args[1:]
	}
	report := sub == "report"
	fs := e.flags("health", usage)
	var cf credFlags
	var bf bankFlags
	var sf storeFlags
	cf.register(fs, true)
	bf.register(fs)
	sf.register(fs)
	fromS := fs.String("from", "", "report: start of the period (RFC 3339, or a date 2006-01-02: its start in Oslo)")
	toS := fs.String("to", "", "report: end of the period (RFC 3339, or a date: the day included, to its end in Oslo; default now)")
	by := fs.String("by", "", "forget: who forgets the record (an operator id)")
	reason := fs.String("reason", "", "forget: why, in one line (what was filed of its outage)")
	if err := parse(fs, args, sub == "forget"); err != nil {
		return err
	}
	if !report && (*fromS != "" || *toS != "") {
		return usagef("-from and -to belong to psd2 health report")
	}
	if sub == "forget" && fs.NArg() != 1 {
		return usagef("forget takes one record ID (psd2 health records lists them)")
	}
	if sub == "forget" && (*by == "" || *reason == "") {
		return usagef("forget needs -by and -reason")
	}
	if sub != "forget" && (*by != "" || *reason != "") {
		return usagef("-by and -reason belong to psd2 health forget")
	}
	st, done, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	c, err := newClient(&bf, &cf, client.WithStore(st))
	if err != nil {
		return err
	}
	if sub == "records" || sub == "forget" {
		// Not recognised: it reads the records, and fails on the
		// unreadable one these are there to name and remove.
		return runHealthRecords(ctx, e, c, sub == "forget", fs.Arg(0), *by, *reason)
	}
	now := time.Now()
	if err := recognised(ctx, c, now); err != nil {
		return err
	}
	if report {
		if *fromS == "" {
			return usagef("report needs -from")
		}
		from, err := parseWhen(*fromS, false)
		if err != nil {
			return usagef("-from: %v", err)
		}
		to := now
		if *toS != "" {
			if to, err = parseWhen(*toS, true); err != nil {
				return usagef("-to: %v", err)
			}
		}
		if !to.After(from) {
			return usagef("-to must be after -from")
		}
		// A period the store cannot hold records of would read as 100%
		// uptime: records leave after client.DowntimeKept, and the
		// future has none yet.
		if oldest := now.Add(-client.DowntimeKept); from.Before(oldest) {
			return usagef("-from %s: the store keeps downtime records for %d days, so nothing before %s can be reported (give a later -from)",
				from.UTC().Format(time.RFC3339), int(client.DowntimeKept/(24*time.Hour)), oldest.UTC().Format(time.RFC3339))
		}
		if !from.Before(now) {
			return usagef("-from %s is in the future: no record says how available the bank will be", from.UTC().Format(time.RFC3339))
		}
		downs, err := c.Downtimes(ctx, from, to)
		if err != nil {
			return err
		}
		if err := summable(ctx, c, downs); err != nil {
			return err
		}
		if err := noneAhead(ctx, c, downs, now); err != nil {
			return err
		}
		// The future has no record: the report ends now (or at the
		// latest record, written by a replica whose clock is ahead).
		if last := lastRecorded(downs, now); to.After(last) {
			fmt.Fprintf(e.stderr, "note: -to %s is in the future: the report ends at %s\n", to.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339))
			to = last
		}
		rep := healthReport{Availability: client.Report(c.Bank(), downs, from, to, now)}
		if rep.Forgotten, err = forgottenIn(ctx, c, from, to); err != nil {
			return err
		}
		// A record never ended is an outage still running only while a
		// client on the store holds the breaker open; else no one knows
		// when it ended (see healthStatus.UnendedSince).
		if start, ok := unended(downs); ok {
			state, _, _, err := c.StoredBreaker(ctx)
			if err != nil {
				return err
			}
			if state == client.BreakerClosed {
				rep.UnendedSince = &start
			}
		}
		err = e.emit(rep, func(w io.Writer) {
			fmt.Fprint(w, rep.String())
			printForgotten(w, rep.Forgotten)
			if rep.UnendedSince != nil {
				fmt.Fprintf(w, "the unavailability since %s was never seen to end: it is counted to the end of the report, but whether the bank is back is unknown (no client on the store holds its breaker open)\n",
					rep.UnendedSince.Format(time.RFC3339))
			}
		})
		if err == nil && rep.UnendedSince == nil && rep.EndsAssumed > 0 {
			err = fmt.Errorf("%d downtime record(s) of bank %s in the period were never recorded as ended: the report counts each to the next record's start, "+
				"though the bank may have been back long before (the processes that saw the outage stopped before it answered again), so its unavailable time may be less", rep.EndsAssumed, rep.Bank)
		}
		if err == nil && rep.UnendedSince != nil {
			err = fmt.Errorf("the unavailability of bank %s since %s was never recorded as ended, and no client on the store holds its breaker open: "+
				"the report counts it to its end, though when it ended is unknown (the processes that saw it may have stopped before the bank answered again)", rep.Bank, rep.UnendedSince.Format(time.RFC3339))
		}
		return err
	}
	state, since, probe, err := c.StoredBreaker(ctx)
	if err != nil {
		return err
	}
	a, older, err := lastDay(ctx, c, now)
	if err != nil {
		return err
	}
	h := healthStatus{Bank: c.Bank(), Breaker: state, LastDay: a}
	if h.Forgotten, err = forgottenIn(ctx, c, a.From, a.To); err != nil {
		return err
	}
	if state != client.BreakerClosed {
		s, p := since.UTC(), probe.UTC()
		h.Since, h.ProbeAt = &s, &p
	} else if start, ok := unended(a.Downtimes); ok {
		h.UnendedSince = &start
	}
	// Each record named by its ID, the one psd2 health forget takes.
	olderNames := make([]string, len(older))
	for i, d := range older {
		ids, err := recordIDs(ctx, c, d)
		olderNames[i] = recordName(ids, err, d.Start)
	}
	err = e.emit(h, func(w io.Writer) {
		switch {
		case h.UnendedSince != nil:
			fmt.Fprintf(w, "bank %s: UNKNOWN: no client on the store holds its circuit breaker open, but the unavailability since %s was never seen to end (no answer of the bank recorded since)\n",
				h.Bank, h.UnendedSince.Format(time.RFC3339))
		case state == client.BreakerClosed:
			fmt.Fprintf(w, "bank %s: available (circuit breaker closed)\n", h.Bank)
		default:
			fmt.Fprintf(w, "bank %s: UNAVAILABLE since %s (circuit breaker open; next probe at %s)\n",
				h.Bank, h.Since.Format(time.RFC3339), h.ProbeAt.Format(time.RFC3339))
		}
		fmt.Fprintf(w, "last 24 h: unavailable %s\n", strings.TrimPrefix(a.Figures(), "unavailable: "))
		for i, d := range older {
			fmt.Fprintf(w, "the downtime record %s ends before it starts (at %s), both before the last 24 h: it may have run into them "+
				"for a time nobody knows, so the figures of the last 24 h are bounds (psd2 health report gives no figure of a period it may reach into)\n",
				olderNames[i], d.End.UTC().Format(time.RFC3339))
		}
		printForgotten(w, h.Forgotten)
		if a.SeenAtLeast {
			fmt.Fprintln(w, "a record kept the evidence of only some of its failures (an earlier version's), or was ended by another process than the one that opened it: "+
				"the time seen failing is a lower bound")
		}
		fmt.Fprintln(w, "the evidence to file: psd2 health report -from ... -to ...")
	})
	switch {
	case err != nil:
	case h.UnendedSince != nil:
		err = fmt.Errorf("whether bank %s is available again is unknown: its unavailability since %s was never recorded as ended, and no client on the store holds its breaker open "+
			"(the processes that saw it may have stopped before the bank answered again)", h.Bank, h.UnendedSince.Format(time.RFC3339))
	case h.Since != nil:
		// Read whole and found down: a finding (exit status 1), as
		// keyid's certificate not valid now, never "done".
		err = failedError{fmt.Sprintf("bank %s is unavailable: its circuit breaker is open since %s (next probe at %s)",
			h.Bank, h.Since.Format(time.RFC3339), h.ProbeAt.Format(time.RFC3339))}
	}
	return err
}

// forgottenIn returns the downtime records psd2 health forget removed
// whose outage may have reached into [from, to).
func forgottenIn(ctx context.Context, c *client.Client, from, to time.Time) ([]client.ForgottenDowntime, error) {
	all, err := c.ForgottenDowntimes(ctx)
	if err != nil {
		return nil, err
	}
	var in []client.ForgottenDowntime
	for _, f := range all {
		if f.Reaches(from, to) {
			in = append(in, f)
		}
	}
	return in, nil
}

// printForgotten says of each record forgotten that its outage is not
// in the figures.
func printForgotten(w io.Writer, forgotten []client.ForgottenDowntime) {
	for _, f := range forgotten {
		fmt.Fprintf(w, "the downtime record %s (%s) was forgotten at %s by %s (%q): its outage may have reached into the period, and is not in the figures\n",
			f.ID, describeRecord(f.DowntimeRecord), f.At.UTC().Format(time.RFC3339), f.By, f.Reason)
	}
}

// unended is the start of the downtime record of downs (from
// client.Downtimes) that was never ended, if any: only the latest can
// be, Downtimes ends any other at the next one's start.
func unended(downs []client.Downtime) (time.Time, bool) {
	for _, d := range downs {
		if d.End.IsZero() {
			return d.Start.UTC(), true
		}
	}
	return time.Time{}, false
}

// recognised fails unless the store holds something of c's bank for this
// TPP: an open breaker, a downtime record kept (or the trace of one psd2
// health forget removed), or a budget ledger. A
// store that holds none (a wrong -store, -bank or -url, another TPP's
// certificate) would read as a bank available all along: it is refused,
// never reported as 100% uptime.
func recognised(ctx context.Context, c *client.Client, now time.Time) error {
	state, _, _, err := c.StoredBreaker(ctx)
	if err != nil || state != client.BreakerClosed {
		return err
	}
	// To the end of time: a record a clock far ahead wrote is of the bank
	// too (noneAhead refuses it).
	downs, err := c.Downtimes(ctx, now.Add(-client.DowntimeKept), endOfTime)
	if errors.Is(err, client.ErrDowntimesDropped) {
		return nil // records of the bank went to keep them bounded: it holds more
	}
	if err != nil || len(downs) > 0 {
		return err
	}
	// A record psd2 health forget removed leaves a trace of the bank.
	forgotten, err := c.ForgottenDowntimes(ctx)
	if err != nil || len(forgotten) > 0 {
		return err
	}
	b := budget.Of(c)
	ledger, err := b.RecordedBank(ctx)
	if err != nil || ledger {
		return err
	}
	return fmt.Errorf("this store holds nothing of bank %s for this TPP: no unavailability in the last %d days, no account read without the PSU in the last %s; "+
		"if the service calls this bank, check -bank or -url, the certificate and -store", c.Bank(), int(client.DowntimeKept/(24*time.Hour)), budgetWindow(b))
}

// lastDay reads the bank's downtime records of the last 24 h before now
// and sums them, for psd2 health, which tells the bank's state now. A
// record that ends before it starts (client.Downtime.Backwards) with
// either time within the last day is refused, as psd2 health report
// refuses it: the last day's figures are unknown. One whose times both
// lie before the last day is in it only because no record followed it
// (client.Downtimes takes it as running on): it says nothing of the
// bank's state now (it was ended, the bank answered since), and refusing
// it would fail every psd2 health until another outage. It is returned,
// to be named, and the figures, which client.Report gives as bounds
// while it is among them, are printed.
func lastDay(ctx context.Context, c *client.Client, now time.Time) (client.Availability, []client.Downtime, error) {
	from := now.Add(-24 * time.Hour)
	downs, err := c.Downtimes(ctx, from, now)
	if err != nil {
		return client.Availability{}, nil, err
	}
	var recent, older []client.Downtime
	for _, d := range downs {
		if d.Backwards() && d.Start.Before(from) && d.End.Before(from) {
			older = append(older, d)
			continue
		}
		recent = append(recent, d)
	}
	if err := summable(ctx, c, recent); err != nil {
		return client.Availability{}, nil, err
	}
	if err := noneAhead(ctx, c, downs, now); err != nil {
		return client.Availability{}, nil, err
	}
	return client.Report(c.Bank(), downs, from, now, now), older, nil
}

// summable fails on a record of downs (from client.Downtimes) that
// ends before it starts (client.Downtime.Backwards): the wall clock of
// the process that wrote it stepped back between the failure and the
// answer, or the store changed it. client.Report leaves such a record
// out of its figures (client.Availability.Backwards), which are then
// lower bounds, no figures of the period to file: the report would
// read as less unavailability (up to none, 100% uptime) beside a record
// of an outage whose length nobody knows. client.Downtimes gives it to
// every period it may reach into: up to the next record's start, or
// with none after it, every later one. The refusal
// (*backwardsRecordError) names the record by its ID, which psd2 health
// forget takes.
func summable(ctx context.Context, c *client.Client, downs []client.Downtime) error {
	for _, d := range downs {
		if d.Backwards() {
			ids, err := recordIDs(ctx, c, d)
			return &backwardsRecordError{IDs: ids, IDErr: err, Start: d.Start.UTC(), End: d.End.UTC()}
		}
	}
	return nil
}

// backwardsRecordError is the refusal of a period a downtime record that
// ends before it starts may reach into (summable).
type backwardsRecordError struct {
	// IDs are the store IDs of the record (one, unless the store holds
	// identical records under several); IDErr says why they could not be
	// read (then IDs is empty).
	IDs   []string
	IDErr error
	// Start and End are the record's times (End before Start).
	Start, End time.Time
}

func (e *backwardsRecordError) Error() string {
	name, forget := recordName(e.IDs, e.IDErr, e.Start), "psd2 health forget ID -by WHO -reason WHY"
	if len(e.IDs) > 0 {
		forget = "psd2 health forget " + e.IDs[0] + " -by WHO -reason WHY"
	}
	return fmt.Sprintf("the downtime record %s ends before it starts (at %s): how long the bank was unavailable then is unknown, so no figure of the period is given "+
		"(the clock of the process that wrote it may have stepped back; psd2 health records lists the records with their IDs, and once what is known of that outage is filed, %s removes it)",
		name, e.End.Format(time.RFC3339), forget)
}

// recordName names a downtime record that starts at start by its ids
// (from recordIDs, with its error idErr), with its start; by its start
// alone, saying why, when no ID was found.
func recordName(ids []string, idErr error, start time.Time) string {
	switch {
	case len(ids) > 0:
		name := ids[0] + " (from " + start.UTC().Format(time.RFC3339)
		if len(ids) > 1 {
			name += "; identical records: " + strings.Join(ids[1:], ", ")
		}
		return name + ")"
	case idErr != nil:
		return fmt.Sprintf("that starts at %s (its ID could not be read: %v)", start.UTC().Format(time.RFC3339), idErr)
	}
	return "that starts at " + start.UTC().Format(time.RFC3339) + " (its ID could not be found: the record changed or went meanwhile)"
}

// recordIDs returns the IDs (client.DowntimeRecord.ID) of the bank's
// downtime records that are d (from client.Downtimes, which gives no
// IDs): the record whose times and failures are d's.
func recordIDs(ctx context.Context, c *client.Client, d client.Downtime) ([]string, error) {
	recs, err := c.DowntimeRecords(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range recs {
		if !r.Unreadable && r.Downtime.Start.Equal(d.Start) && r.Downtime.End.Equal(d.End) && r.Downtime.Failures == d.Failures {
			ids = append(ids, r.ID)
		}
	}
	return ids, nil
}

// endOfTime ends a reading of every downtime record from a time on.
var endOfTime = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// aheadTolerance is how far after now a downtime record's times may lie
// and still be read as a replica's clock a little ahead (the report then
// ends at them, lastRecorded).
const aheadTolerance = time.Hour

// noneAhead fails on a downtime record of the bank that starts or ends
// more than aheadTolerance after now: the clock of the process that
// wrote it was far ahead (or the store changed it), so when that outage
// was is unknown. Among downs (client.Downtimes of the period), one that
// ends then would be counted to the period's end; one that starts then
// is in no period up to now, and would be left out of every report
// without a word. The records after now are read from the store.
func noneAhead(ctx context.Context, c *client.Client, downs []client.Downtime, now time.Time) error {
	limit := now.Add(aheadTolerance)
	later, err := c.Downtimes(ctx, limit, endOfTime)
	if err != nil {
		return err
	}
	for _, d := range append(slices.Clone(downs), later...) {
		if d.Start.After(limit) || d.End.After(limit) && !d.EndAssumed {
			end := "never ended"
			if !d.End.IsZero() {
				end = "ends at " + d.End.UTC().Format(time.RFC3339)
			}
			return fmt.Errorf("the downtime record that starts at %s (%s) lies after now, %s: the clock of the process that wrote it was ahead, so when that outage was is unknown, "+
				"and no figure is given", d.Start.UTC().Format(time.RFC3339), end, now.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// lastRecorded is the latest time downs record, or now when later.
func lastRecorded(downs []client.Downtime, now time.Time) time.Time {
	last := now
	for _, d := range downs {
		for _, t := range []time.Time{d.Start, d.End} {
			if t.After(last) {
				last = t
			}
		}
	}
	return last
}

// parseWhen reads an RFC 3339 time or a date, as psd2 reconcile reads
// dates: Oslo days, whole. A date is its start in Oslo, or with end (the
// period's -to) its end, the next day's start, so that -from 2026-03-01
// -to 2026-03-31 is March whole.
func parseWhen(s string, end bool) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	t, err := time.ParseInLocation(time.DateOnly, s, date.Oslo())
	if err != nil {
		return time.Time{}, fmt.Errorf("want RFC 3339 (2026-05-01T10:00:00Z) or a date (2026-05-01), got %q", s)
	}
	if end {
		t = t.AddDate(0, 0, 1) // the next day's midnight in Oslo, 23 or 25 hours on when the clocks change
	}
	return t, nil
}
