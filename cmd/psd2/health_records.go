package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tppkit/psd2/client"
)

// recordRow is one downtime record as psd2 health records prints it.
type recordRow struct {
	// ID names the record for psd2 health forget.
	ID    string     `json:"id"`
	Start *time.Time `json:"start,omitempty"`
	End   *time.Time `json:"end,omitempty"`
	// Failures counts the record's failed requests.
	Failures int `json:"failures"`
	// Flags: backwards (ends before it starts), end-assumed (never
	// ended, the next record's start taken as its end), ongoing (never
	// ended, the latest), ended-elsewhere, unreadable; forgotten (first:
	// removed by psd2 health forget, listed apart, recordsList.Forgotten).
	Flags []string `json:"flags"`
	// Record is the record as stored, with its evidence (absent when
	// unreadable).
	Record *client.Downtime `json:"record,omitempty"`
}

// recordsList is what psd2 health records prints.
type recordsList struct {
	Bank    string      `json:"bank"`
	Records []recordRow `json:"records"`
	// Blocking counts the records that keep reports of the periods they
	// may reach into from figures: those that end before they start or
	// are unreadable (psd2 health forget removes one).
	Blocking int `json:"blocking"`
	// Forgotten lists, apart from Records, the records psd2 health
	// forget removed in the last client.DowntimeKept (the traces it
	// kept), in the order of their IDs: none is a live outage, and no
	// report counts one. Each has the flag forgotten first.
	Forgotten []forgottenRow `json:"forgotten"`
	// ForgottenUnread says why the forgotten records could not be read
	// (Forgotten is then empty, and psd2 exits 3): the live records are
	// listed all the same, since they are what psd2 health forget takes.
	ForgottenUnread string `json:"forgottenUnread,omitempty"`
}

// forgottenRow is a record psd2 health forget removed, as psd2 health
// records lists it: the record as it was when it was forgotten, and who
// forgot it, why and when.
type forgottenRow struct {
	recordRow
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// rowOfForgotten is f as a row, flagged forgotten.
func rowOfForgotten(f client.ForgottenDowntime) forgottenRow {
	row := forgottenRow{recordRow: rowOfRecord(f.DowntimeRecord, false), By: f.By, Reason: f.Reason, At: f.At.UTC()}
	row.Flags = append([]string{"forgotten"}, row.Flags...)
	return row
}

// forgetResult is what psd2 health forget prints: the record removed.
type forgetResult struct {
	Bank      string    `json:"bank"`
	Forgotten recordRow `json:"forgotten"`
	By        string    `json:"by"`
	Reason    string    `json:"reason"`
	At        time.Time `json:"at"`
}

// rowOfRecord is r as a row.
func rowOfRecord(r client.DowntimeRecord, last bool) recordRow {
	row := recordRow{ID: r.ID, Flags: []string{}}
	if r.Unreadable {
		row.Flags = append(row.Flags, "unreadable")
		return row
	}
	d := r.Downtime
	start := d.Start.UTC()
	row.Start, row.Failures, row.Record = &start, d.Failures, &d
	if !d.End.IsZero() {
		end := d.End.UTC()
		row.End = &end
	}
	switch {
	case d.Backwards():
		row.Flags = append(row.Flags, "backwards")
	case d.EndAssumed:
		row.Flags = append(row.Flags, "end-assumed")
	case d.End.IsZero() && last:
		row.Flags = append(row.Flags, "ongoing")
	}
	if d.EndedElsewhere {
		row.Flags = append(row.Flags, "ended-elsewhere")
	}
	return row
}

// runHealthRecords is psd2 health records (list every downtime record
// of the bank with its ID) and psd2 health forget ID (remove the one
// named, when it keeps reports from figures).
func runHealthRecords(ctx context.Context, e *env, c *client.Client, forgetting bool, forget, by, reason string) error {
	if forgetting {
		f, err := c.ForgetDowntime(ctx, forget, by, reason)
		switch {
		case errors.Is(err, client.ErrNoDowntimeRecord):
			return fmt.Errorf("no downtime record of bank %s with ID %s in this store (psd2 health records lists them): nothing was changed", c.Bank(), forget)
		case errors.Is(err, client.ErrDowntimeRecordSummable):
			return fmt.Errorf("the downtime record %s of bank %s is readable and does not end before it starts: reports count it, and forgetting it would take its outage out of them, so it is kept "+
				"(psd2 health forget removes only a record that ends before it starts or is unreadable)", forget, c.Bank())
		case errors.Is(err, client.ErrDowntimeRecordChanged):
			return fmt.Errorf("the downtime record %s of bank %s changed while it was being forgotten (a replica wrote into it): nothing was changed; look at it again (psd2 health records)", forget, c.Bank())
		case err != nil:
			return fmt.Errorf("forgetting the downtime record %s: %w (the record was not removed)", forget, err)
		}
		res := forgetResult{Bank: c.Bank(), Forgotten: rowOfRecord(f.DowntimeRecord, false), By: f.By, Reason: f.Reason, At: f.At}
		return e.emit(res, func(w io.Writer) {
			fmt.Fprintf(w, "forgot the downtime record %s of bank %s: %s\n", f.ID, c.Bank(), describeRecord(f.DowntimeRecord))
			fmt.Fprintf(w, "by %s: %s; every other record is as it was. Its outage is in no figure now: psd2 health report of a period it may have reached into says so, "+
				"for %d days (--json has the record with its evidence)\n", f.By, f.Reason, int(client.DowntimeKept/(24*time.Hour)))
		})
	}
	recs, err := c.DowntimeRecords(ctx)
	if err != nil {
		return err
	}
	// A trace psd2 cannot read is an error, never a listing without it
	// that says nothing; the live records are listed all the same.
	forgotten, forgottenErr := c.ForgottenDowntimes(ctx)
	list := recordsList{Bank: c.Bank(), Records: make([]recordRow, 0, len(recs)), Forgotten: make([]forgottenRow, 0, len(forgotten))}
	if forgottenErr != nil {
		list.ForgottenUnread = forgottenErr.Error()
	}
	for _, f := range forgotten {
		list.Forgotten = append(list.Forgotten, rowOfForgotten(f))
	}
	unreadable := 0
	for i, r := range recs {
		list.Records = append(list.Records, rowOfRecord(r, i == len(recs)-1))
		if r.Blocking() {
			list.Blocking++
		}
		if r.Unreadable {
			unreadable++
		}
	}
	if len(recs) == 0 && len(forgotten) == 0 && forgottenErr == nil {
		// No record, and nothing else of the bank either (a wrong
		// -store, -bank or -url, another TPP's certificate): refused as
		// psd2 health refuses it, never "0 downtime record(s)".
		if err := recognised(ctx, c, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "note: this store holds no downtime record of bank %s for this TPP: either the bank was never seen unavailable in the last %d days, "+
			"or -store, -bank or -url, or the certificate are not the service's (check them before reading this as no outage)\n", c.Bank(), int(client.DowntimeKept/(24*time.Hour)))
	}
	err = e.emit(list, func(w io.Writer) {
		if len(list.Records) > 0 {
			fmt.Fprintf(w, "%-20s  %-20s  %-20s  %8s  %s\n", "ID", "START", "END", "FAILURES", "FLAGS")
		}
		for _, row := range list.Records {
			fmt.Fprintln(w, recordLine(row))
		}
		fmt.Fprintf(w, "%d downtime record(s) of bank %s", len(list.Records), list.Bank)
		if list.Blocking > 0 {
			fmt.Fprintf(w, "; %d end before they start or are unreadable: psd2 health report gives no figure of a period they may reach into. "+
				"Once you have filed what you know of such an outage: psd2 health forget ID -by WHO -reason WHY", list.Blocking)
		}
		fmt.Fprintln(w)
		if list.ForgottenUnread != "" {
			fmt.Fprintf(w, "\nFORGOTTEN: the records psd2 health forget removed could not be read: %s\n", list.ForgottenUnread)
		}
		if len(list.Forgotten) == 0 {
			return
		}
		fmt.Fprintf(w, "\nFORGOTTEN: %d record(s) psd2 health forget removed, not live: no longer among the records above, and in no report's figures "+
			"(a report of a period one may have reached into names it); their traces are kept %d days\n",
			len(list.Forgotten), int(client.DowntimeKept/(24*time.Hour)))
		fmt.Fprintf(w, "%-20s  %-20s  %-20s  %8s  %s\n", "ID", "START", "END", "FAILURES", "FLAGS")
		for _, row := range list.Forgotten {
			fmt.Fprintln(w, recordLine(row.recordRow))
			fmt.Fprintf(w, "%-20s  forgotten at %s by %s: %q\n", "", row.At.Format(time.RFC3339), row.By, row.Reason)
		}
	})
	if err == nil && forgottenErr != nil {
		err = fmt.Errorf("the downtime records psd2 health forget removed of bank %s could not be read, so none is listed (the live records are): %w", c.Bank(), forgottenErr)
	}
	if err == nil && unreadable > 0 {
		err = fmt.Errorf("%d downtime record(s) of bank %s are unreadable: when their outages were, and how long, is unknown (psd2 health forget ID -by WHO -reason WHY removes one)", unreadable, c.Bank())
	}
	return err
}

// recordLine is row as a line of psd2 health records' table.
func recordLine(row recordRow) string {
	start, end := "?", "-"
	if row.Start != nil {
		start = row.Start.Format(time.RFC3339)
	}
	if row.End != nil {
		end = row.End.Format(time.RFC3339)
	}
	if slices.Contains(row.Flags, "unreadable") {
		end = "?"
	}
	return fmt.Sprintf("%-20s  %-20s  %-20s  %8d  %s", row.ID, start, end, row.Failures, strings.Join(row.Flags, ","))
}

// describeRecord says a record's times, and that it ended before it
// started or is unreadable, in one line.
func describeRecord(r client.DowntimeRecord) string {
	if r.Unreadable {
		return "unreadable: when its outage was, and how long, is unknown"
	}
	d := r.Downtime
	end := "never ended"
	if !d.End.IsZero() {
		end = d.End.UTC().Format(time.RFC3339)
	}
	s := fmt.Sprintf("%s to %s, %d failed request(s)", d.Start.UTC().Format(time.RFC3339), end, d.Failures)
	if d.Backwards() {
		s += ", it ended before it started: its length unknown"
	}
	return s
}
