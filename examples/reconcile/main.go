// Command reconcile shows a merchant knowing that its customers' money
// arrived, with package reconcile: a month of invoice payments by KID
// (and a few by text, twins, SEPA in euro) that a TPP initiates into the
// merchant's account, which the TPP reads each evening through txsync.
// The bank credits most of them on time, some late, some less a fee;
// returns a few; never credits some; and books credits from elsewhere,
// many of the invoices' amounts; halfway the merchant gives a new
// consent. Each day prints what settled, what stalled and what came in
// unmatched, and the month ends with the reconciler scored against the
// bank's truth.
//
// The bank is the script's (internal/testkit/settlescript), in memory:
// the month takes a moment.
//
//	go run ./examples/reconcile
package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/examples/internal/demo"
	"github.com/tppkit/psd2/internal/testkit/settlescript"
	"github.com/tppkit/psd2/reconcile"
	"github.com/tppkit/psd2/store"
)

func main() {
	demo.Main("reconcile", run)
}

func run(ctx context.Context, out io.Writer) error {
	// One store for the sync, the reconciler and the events: give every
	// replica the same one (pgstore, or a FileStore on one machine).
	st := store.NewMemoryStore()
	w, err := settlescript.NewWorld(ctx, st, settlescript.Month.Start)
	if err != nil {
		return err
	}
	published := map[events.Kind]int{}
	em, err := events.NewEmitter(events.Handler(func(_ context.Context, e events.Envelope) error {
		published[e.Kind]++ // a TPP releases goods, sends a receipt, calls the customer
		return nil
	}), events.WithStore(st), events.WithClock(w.Clock.Now))
	if err != nil {
		return err
	}
	r, err := reconcile.New(st, reconcile.WithClock(w.Clock.Now), reconcile.WithEmitter(em))
	if err != nil {
		return err
	}
	script := settlescript.NewScript(settlescript.Month)
	res, err := script.Play(ctx, w, r, func(d settlescript.Day) { printDay(out, d) })
	if err != nil {
		return err
	}
	fmt.Fprintln(out)
	res.Print(out)
	fmt.Fprintf(out, "  events              %d settled, %d stalled, %d returned\n", published[events.KindPaymentSettled],
		published[events.KindPaymentSettlementStalled], published[events.KindPaymentReturned])
	return nil
}

// printDay prints one evening's round.
func printDay(out io.Writer, d settlescript.Day) {
	fmt.Fprintf(out, "%s %s", d.Date.Time(nil).Weekday().String()[:3], d.Date)
	if d.Created > 0 {
		fmt.Fprintf(out, ": %d payments made", d.Created)
	}
	if d.Reconsent {
		fmt.Fprint(out, "; new consent (the account keeps its key)")
	}
	fmt.Fprintln(out)
	r := d.Round
	if len(r.Settled) > 0 {
		var parts []string
		for _, s := range r.Settled {
			p := fmt.Sprintf("%s %s", short(s.Payment), s.Booked)
			switch {
			case s.Settlement == reconcile.SettledOtherAmount:
				p += " (of " + s.Instructed.String() + ")"
			case s.Late:
				p += " (late)"
			}
			if s.By != reconcile.ByKID {
				p += " by " + s.By.String()
			}
			parts = append(parts, p)
		}
		fmt.Fprintf(out, "  settled    %s\n", wrap(parts))
	}
	for _, s := range r.Returned {
		fmt.Fprintf(out, "  returned   %s %s, reversed on %s\n", short(s.Payment), s.Booked, s.ReversalDate)
	}
	if len(r.Stalled) > 0 {
		var parts []string
		for _, s := range r.Stalled {
			parts = append(parts, fmt.Sprintf("%s %s (%s, due by %s)", short(s.Payment), s.Instructed, s.Scheme, s.Deadline))
		}
		fmt.Fprintf(out, "  stalled    %s\n", wrap(parts))
	}
	for _, c := range r.Unmatched {
		fmt.Fprintf(out, "  unmatched  %s booked %s\n", c.Amount, c.BookingDate)
	}
	for _, c := range r.UnmatchedReversals {
		fmt.Fprintf(out, "  reversal   %s booked %s, of an unmatched credit\n", c.Amount, c.BookingDate)
	}
	for _, c := range r.Unreadable {
		fmt.Fprintf(out, "  unreadable %s booked %s (key %s)\n", c.Amount, c.BookingDate, c.Key)
	}
}

// short is a payment's reference as the example prints it: its number
// in the script, and "b" for the second of twins.
func short(id string) string {
	n, _ := strconv.Atoi(id[4:8])
	s := "#" + strconv.Itoa(n)
	if strings.HasSuffix(id, "t") {
		s += "b"
	}
	return s
}

// wrap joins parts, four to a line.
func wrap(parts []string) string {
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i == 0:
		case i%4 == 0:
			b.WriteString("\n             ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(p)
	}
	return b.String()
}
