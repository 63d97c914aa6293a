package main

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/txsync"
)

// reconcileUsage is the usage line of psd2 reconcile.
const reconcileUsage = "-store DIR|POSTGRES-URL [-schema NAME] [-from YYYY-MM-DD] [-to YYYY-MM-DD] [-limit N]"

// reconcileDays is the period psd2 reconcile lists without -from: the
// last 30 days, today included.
const reconcileDays = 30

// maxReconcileLimit bounds -limit.
const maxReconcileLimit = 100000

// reconcileReport is what psd2 reconcile prints: the period, its
// payments in creation order with their settlement (the -limit earliest),
// the count of each settlement and the total, of every payment of the
// period whatever -limit listed, and whether -limit cut the list.
// HeldCredits and HeldReversals count, of every payment of the period
// too, those holding a credit or a reversal the bank dated ahead (a
// reversal held leaves its payment settled, though its money may be
// going back): a payment past -limit is no plainer than a listed one.
type reconcileReport struct {
	From          date.Date                    `json:"from"`
	To            date.Date                    `json:"to"`
	Payments      []reconcile.State            `json:"payments"`
	Counts        map[reconcile.Settlement]int `json:"counts"`
	Total         int                          `json:"total"`
	HeldCredits   int                          `json:"heldCredits"`
	HeldReversals int                          `json:"heldReversals"`
	More          bool                         `json:"more,omitempty"`
}

func runReconcile(ctx context.Context, e *env, args []string) error {
	fs := e.flags("reconcile", reconcileUsage)
	var sf storeFlags
	sf.register(fs)
	from := fs.String("from", "", fmt.Sprintf("the first day of the period (bank date); default %d days before -to", reconcileDays-1))
	to := fs.String("to", "", "the last day of the period (bank date); default today")
	limit := fs.Int("limit", 1000, fmt.Sprintf("list at most this many payments, the earliest (1 to %d); the counts cover every payment of the period", maxReconcileLimit))
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *limit < 1 || *limit > maxReconcileLimit {
		return usagef("-limit %d: want 1 to %d", *limit, maxReconcileLimit)
	}
	rep := reconcileReport{Counts: map[reconcile.Settlement]int{}}
	var err error
	if rep.To, err = dateFlag("-to", *to, date.Of(time.Now().In(date.Oslo()))); err != nil {
		return err
	}
	if rep.From, err = dateFlag("-from", *from, date.Of(rep.To.Time(nil).AddDate(0, 0, 1-reconcileDays))); err != nil {
		return err
	}
	if rep.To.Before(rep.From) {
		return usagef("-from %s is after -to %s", rep.From, rep.To)
	}
	// A period not begun has no payment yet: "0 payment(s)" would be a
	// claim nothing can back (health report refuses such a -from too).
	if today := date.Of(time.Now().In(date.Oslo())); today.Before(rep.From) {
		return usagef("-from %s is in the future (today is %s): no payment of that period is made yet", rep.From, today)
	}
	st, done, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer done()
	r, err := reconcile.New(st)
	if err != nil {
		return err
	}
	j, err := journal.New(st)
	if err != nil {
		return err
	}
	// An empty list must mean no payments, never a store that could not
	// be read or is not the TPP's.
	watching, err := r.Watching(ctx)
	if err != nil {
		return stateErr(err)
	}
	if !watching {
		return errors.New("no reconciliation state in this store: no account is watched here (never given to reconcile.Reconciler.Watch, or forgotten since with Reconciler.Forget); check -store and -schema")
	}
	// A period from before the reconciler's retention would read as
	// fewer payments than were made, or none: a payment goes at its
	// account's first read after reconcile.Retention.
	if oldest := retainedFrom(time.Now()); rep.From.Before(oldest) {
		return usagef("-from %s: the store keeps a payment for %d days after its creation, so the payments created before %s may be gone: a period from before then cannot be listed whole (give a later -from)",
			rep.From, int(reconcile.Retention/(24*time.Hour)), oldest)
	}
	// Every payment of the period is counted, whatever -limit lists: a
	// count of the listed ones alone would read as nothing stalled when a
	// stalled payment lies past the limit. The list keeps the -limit
	// earliest (a max-heap of them), in bounded memory.
	earliest := &stateHeap{}
	for s, err := range r.Report(ctx, j, rep.From, rep.To) {
		if err != nil {
			return stateErr(err)
		}
		rep.Total++
		rep.Counts[s.Settlement]++
		if s.HeldBooking != "" {
			rep.HeldCredits++
		}
		if s.HeldReversal != "" {
			rep.HeldReversals++
		}
		switch {
		case earliest.Len() < *limit:
			heap.Push(earliest, s)
		case byCreation(s, (*earliest)[0]) < 0:
			(*earliest)[0] = s
			heap.Fix(earliest, 0)
		}
	}
	rep.More = rep.Total > *limit
	rep.Payments = *earliest
	slices.SortFunc(rep.Payments, byCreation)
	if rep.Payments == nil {
		rep.Payments = []reconcile.State{}
	}
	return e.emit(rep, func(w io.Writer) { printReconcile(w, &rep) })
}

// stateErr says what to do about a state the reconciler could not read:
// one a later release wrote is sound, and the operator upgrades psd2
// rather than forget it as corrupt (which loses its payments' tracking).
//
// A journal entry it could not read (journal.UnreadableEntryError) ends
// the report, whose payments would read as complete without it: said
// as the journal's entry, named, and why no report is given.
func stateErr(err error) error {
	var ue *journal.UnreadableEntryError
	if errors.As(err, &ue) {
		return fmt.Errorf("the journal entry %s could not be read (%v; damaged, or written by a newer version): whether its payment was made in the period is unknown, "+
			"so no report is given (psd2 journal list lists it as ENTRY UNREADABLE)", ue.RequestID, ue.Err)
	}
	if errors.Is(err, reconcile.ErrNewerState) {
		return fmt.Errorf("%w: a later release of the SDK wrote this reconciliation state; it is sound: upgrade psd2 to read it, and do not Forget it", err)
	}
	return err
}

// byCreation orders payments by creation, then by request id.
func byCreation(a, b reconcile.State) int {
	return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.Payment, b.Payment))
}

// stateHeap is a max-heap of payments by creation (container/heap): its
// first is the latest of those kept.
type stateHeap []reconcile.State

func (h stateHeap) Len() int           { return len(h) }
func (h stateHeap) Less(i, j int) bool { return byCreation(h[i], h[j]) > 0 }
func (h stateHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *stateHeap) Push(x any)        { *h = append(*h, x.(reconcile.State)) }
func (h *stateHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// retainedFrom is the first bank day whose payments the reconciler
// still keeps at now: those created before it go at their account's
// next read (reconcile.Retention after their creation).
func retainedFrom(now time.Time) date.Date {
	today := date.Of(now.In(date.Oslo()))
	return date.Of(today.Time(nil).AddDate(0, 0, -int(reconcile.Retention/(24*time.Hour))))
}

// dateFlag reads a date flag, def when it is empty.
func dateFlag(name, v string, def date.Date) (date.Date, error) {
	if v == "" {
		return def, nil
	}
	d, err := date.Parse(v)
	if err != nil || len(v) != len("2006-01-02") {
		return date.Date{}, usagef("%s %q: want YYYY-MM-DD", name, v)
	}
	return d, nil
}

// printReconcile writes the report as a table and a summary.
func printReconcile(w io.Writer, rep *reconcileReport) {
	fmt.Fprintf(w, "payments created %s to %s\n", rep.From, rep.To)
	if len(rep.Payments) > 0 {
		fmt.Fprintf(w, "%-16s  %-36s  %-12s  %14s  %-20s  %14s  %-10s  %s\n",
			"CREATED", "PAYMENT", "SCHEME", "INSTRUCTED", "STATE", "BOOKED", "ON", "BY")
	}
	held, heldReturn := 0, 0
	for _, s := range rep.Payments {
		state := s.Settlement.String()
		if s.Late {
			state += " (late)"
		} else if s.WasStalled && s.Settlement != reconcile.Stalled {
			state += " (stalled)"
		}
		if s.HeldBooking != "" {
			state += " (held)"
			held++
		}
		if s.HeldReversal != "" {
			state += " (return held)"
			heldReturn++
		}
		booked, on := "", ""
		if s.Booking != "" {
			booked, on = s.Booked.String(), s.BookingDate.String()
		}
		if s.Settlement == reconcile.Stalled || s.Settlement == reconcile.Awaiting || s.Settlement == reconcile.Withdrawn {
			on = "by " + s.Deadline.String()
		}
		fmt.Fprintf(w, "%-16s  %-36s  %-12s  %14s  %-20s  %14s  %-10s  %s\n",
			s.Created.In(date.Oslo()).Format("2006-01-02 15:04"), s.Payment, s.Scheme, s.Instructed, state, booked, on, s.By)
	}
	var parts []string
	for _, k := range []reconcile.Settlement{reconcile.Settled, reconcile.SettledOtherAmount, reconcile.Returned, reconcile.Withdrawn,
		reconcile.Stalled, reconcile.Awaiting, reconcile.NotExecuted, reconcile.NotApplicable, reconcile.Untracked} {
		if n := rep.Counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	fmt.Fprintf(w, "%d payment(s)", rep.Total)
	if len(parts) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(parts, ", "))
	}
	if rep.More {
		fmt.Fprintf(w, " (the %d earliest listed: raise -limit or narrow -from and -to to list the others)", len(rep.Payments))
	}
	fmt.Fprintln(w)
	if held > 0 {
		fmt.Fprintf(w, "%d listed payment(s) marked (held) have a matching credit the bank dated more than %d day(s) ahead (txsync.FutureBooked): not taken as arrived, it settles the payment at the first read from the day before its date on, unless the bank withdraws or changes it, or books another credit of the payment, first.\n",
			held, txsync.FutureDays)
	}
	if heldReturn > 0 {
		fmt.Fprintf(w, "%d listed payment(s) marked (return held) have a reversal the bank dated more than %d day(s) ahead (txsync.FutureBooked): not taken as the money going back, it returns the payment at the first read from the day before its date on, unless the bank withdraws or changes it, or books another reversal of the payment, first.\n",
			heldReturn, txsync.FutureDays)
	}
	// The held of the payments -limit left out, counted all the same.
	if n := rep.HeldCredits - held; n > 0 {
		fmt.Fprintf(w, "%d payment(s) past -limit, not listed, have a credit held: a matching credit the bank dated ahead, not taken as arrived (raise -limit to list them).\n", n)
	}
	if n := rep.HeldReversals - heldReturn; n > 0 {
		fmt.Fprintf(w, "%d payment(s) past -limit, not listed, have a reversal held: counted as settled, though the bank booked their money going back, dated ahead (raise -limit to list them).\n", n)
	}
	if rep.Counts[reconcile.Untracked] > 0 {
		fmt.Fprintln(w, "Untracked payments go to a watched account but were never tracked: the service's Reconciler.TrackJournal tracks them.")
	}
}
