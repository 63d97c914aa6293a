package settlescript

import (
	"context"
	"fmt"
	"io"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/reconcile"
)

// Result scores the reconciler against the script's truth.
type Result struct {
	// Payments made, Rounds played.
	Payments, Rounds int
	// Correct payments ended as planned: settled (with the planned
	// amount) or returned by their own credit, stalled when never
	// credited, not executed when rejected. FalseMatches is every
	// credit taken for a payment it is not the credit of (a stranger
	// included); Missed a payment's credit no payment took.
	Correct, FalseMatches, Missed int
	// Settled counts the payments settled (returned ones included),
	// SettledOtherAmount those with another amount, Late those
	// reported late.
	Settled, SettledOtherAmount, Late int
	// StalledExpected are the accepted payments never credited (and
	// the late ones, whose credit came after the first read past their
	// window); Stalled those flagged; StalledOnTime those flagged at the
	// first read after their window's last banking day; FalseStalls
	// those flagged whose credit came within their window.
	StalledExpected, Stalled, StalledOnTime, FalseStalls int
	// Returned payments found returned, of ReturnedExpected.
	Returned, ReturnedExpected int
	// Strangers are the credits from elsewhere; StrangersReported those
	// reported unmatched; UnmatchedOwn payments' credits reported
	// unmatched.
	Strangers, StrangersReported, UnmatchedOwn int
	// Repeated counts bookings the reconciler skipped as seen before.
	Repeated int
	// StateBytes is the state's size at the end; PeakStateBytes its
	// size at its largest.
	StateBytes, PeakStateBytes int

	script    *Script
	byCredit  map[string]*Plan // the plan of a credit's transaction id
	stranger  map[string]bool
	stalledOn map[string]date.Date
	settledBy map[string]string // payment -> transaction id of the credit the reconciler gave it
}

func newResult(s *Script) *Result {
	return &Result{script: s, byCredit: map[string]*Plan{}, stranger: map[string]bool{}, stalledOn: map[string]date.Date{},
		settledBy: map[string]string{}, Payments: len(s.Plans), Strangers: len(s.Strangers)}
}

// add scores one day's round.
func (r *Result) add(w *World, day date.Date, round *reconcile.Round) {
	r.Rounds++
	r.Repeated += round.Repeated
	for _, p := range r.script.Plans {
		if p.credit != "" {
			r.byCredit[p.credit] = p
		}
	}
	for _, s := range r.script.Strangers {
		if s.id != "" {
			r.stranger[s.id] = true
		}
	}
	for _, st := range round.Settled {
		r.settledBy[st.Payment] = w.TransactionID(st.Booking)
	}
	for _, st := range round.Stalled {
		r.stalledOn[st.Payment] = day
	}
	for _, c := range round.Unmatched {
		id := w.TransactionID(c.Key)
		switch {
		case r.stranger[id]:
			r.StrangersReported++
		case r.byCredit[id] != nil:
			r.UnmatchedOwn++
		}
	}
	if n, err := w.StateBytes(context.Background()); err == nil && n > r.PeakStateBytes {
		r.PeakStateBytes = n
	}
}

// finish compares each payment's final state with its plan.
func (r *Result) finish(ctx context.Context, w *World, rec *reconcile.Reconciler) error {
	for _, p := range r.script.Plans {
		st, err := rec.Payment(ctx, p.Payment.RequestID)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Payment.RequestID, err)
		}
		got := r.settledBy[p.Payment.RequestID]
		if got != "" && got != p.credit {
			r.FalseMatches++
		}
		if p.credit != "" && got == "" {
			r.Missed++
		}
		switch st.Settlement {
		case reconcile.Settled, reconcile.SettledOtherAmount, reconcile.Returned:
			r.Settled++
			if !st.Booked.Equal(p.Credited) {
				r.FalseMatches++ // cannot be its own credit
			}
		}
		if st.Settlement == reconcile.SettledOtherAmount || (st.Settlement == reconcile.Returned && !st.Booked.Equal(st.Instructed)) {
			r.SettledOtherAmount++
		}
		if st.Late {
			r.Late++
		}
		if p.Fate == Returned {
			r.ReturnedExpected++
		}
		if st.Settlement == reconcile.Returned {
			r.Returned++
		}
		accepted := p.Payment.Status.IsAccepted()
		stalledDay, stalled := r.stalledOn[p.Payment.RequestID]
		firstReadAfter := date.Of(p.Deadline.Time(nil).AddDate(0, 0, 1))
		creditedLate := !p.CreditOn.IsZero() && !p.CreditOn.Before(firstReadAfter) && p.CreditOn != firstReadAfter
		expectStall := accepted && (p.CreditOn.IsZero() || creditedLate)
		if expectStall {
			r.StalledExpected++
		}
		if stalled {
			r.Stalled++
			if stalledDay == firstReadAfter {
				r.StalledOnTime++
			}
			if !expectStall && !p.CreditOn.IsZero() && !p.Deadline.Before(p.CreditOn) {
				r.FalseStalls++
			}
		}
		correct := false
		switch p.Fate {
		case OnTime, Late:
			correct = got == p.credit && st.Settlement == reconcile.Settled
		case Fee:
			correct = got == p.credit && st.Settlement == reconcile.SettledOtherAmount
		case Returned:
			correct = got == p.credit && st.Settlement == reconcile.Returned && string(st.Reversal) != "" &&
				w.TransactionID(st.Reversal) == p.reversal
		case Never:
			correct = st.Settlement == reconcile.Stalled
		case Rejected:
			correct = st.Settlement == reconcile.NotExecuted && !stalled
		}
		if p.Payment.Amount.Currency != "NOK" && (p.Fate == OnTime || p.Fate == Late) {
			correct = got == p.credit && st.Settlement == reconcile.SettledOtherAmount // credited in kroner
		}
		if correct {
			r.Correct++
		}
	}
	for id := range r.stranger {
		for _, got := range r.settledBy {
			if got == id {
				r.FalseMatches++
			}
		}
	}
	n, err := w.StateBytes(ctx)
	r.StateBytes = n
	return err
}

// Print writes the score.
func (r *Result) Print(out io.Writer) {
	fmt.Fprintf(out, "%d payments over %d rounds\n", r.Payments, r.Rounds)
	fmt.Fprintf(out, "  matched correctly   %3d of %d (settled %d, of them with another amount %d, late %d)\n",
		r.Correct, r.Payments, r.Settled, r.SettledOtherAmount, r.Late)
	fmt.Fprintf(out, "  false matches       %3d\n", r.FalseMatches)
	fmt.Fprintf(out, "  missed credits      %3d\n", r.Missed)
	fmt.Fprintf(out, "  stalled flagged     %3d of %d expected, %d at the first read after the window; false stalls %d\n",
		r.Stalled, r.StalledExpected, r.StalledOnTime, r.FalseStalls)
	fmt.Fprintf(out, "  returned            %3d of %d\n", r.Returned, r.ReturnedExpected)
	fmt.Fprintf(out, "  unmatched reported  %3d of %d credits from elsewhere; payments' own credits reported unmatched %d\n",
		r.StrangersReported, r.Strangers, r.UnmatchedOwn)
	fmt.Fprintf(out, "  state               %d bytes at the end, %d at most (%.0f bytes a payment)\n",
		r.StateBytes, r.PeakStateBytes, float64(r.PeakStateBytes)/float64(max(r.Payments, 1)))
}
