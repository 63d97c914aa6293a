package refresh

import (
	"log/slog"
	"time"
)

// Progress are the counts of a run so far, given to the callback of
// [WithProgress] after every result.
type Progress struct {
	// Started is the number of jobs the workers have taken.
	Started int
	// InFlight is the number of jobs being refreshed now, at most the
	// number of workers.
	InFlight int
	// Done is the number of results with [Done].
	Done int
	// Waiting is the number of results with [BudgetExhausted]: accounts
	// whose next refresh has a known time.
	Waiting int
	// Failed is the number of results with [Transient],
	// [ReconnectNeeded] or [Refused].
	Failed int
	// Calls is the number of calls sent to the bank.
	Calls int
	// Elapsed is the time since the run started.
	Elapsed time.Duration

	counts [numOutcomes]int
}

// Finished is the number of results so far.
func (p Progress) Finished() int { return p.Done + p.Waiting + p.Failed }

// Count is the number of results with outcome o.
func (p Progress) Count(o Outcome) int {
	if int(o) >= numOutcomes {
		return 0
	}
	return p.counts[o]
}

// add counts r.
func (p *Progress) add(r *Result) {
	if int(r.Outcome) < numOutcomes {
		p.counts[r.Outcome]++
	}
	switch r.Outcome {
	case Done:
		p.Done++
	case BudgetExhausted:
		p.Waiting++
	default:
		p.Failed++
	}
	p.Calls += r.Calls
}

// LogValue makes log/slog print the counts as a group.
func (p Progress) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Int("done", p.Done), slog.Int("waiting", p.Waiting), slog.Int("failed", p.Failed),
		slog.Int("reconnect", p.Count(ReconnectNeeded)), slog.Int("transient", p.Count(Transient)),
		slog.Int("refused", p.Count(Refused)), slog.Int("calls", p.Calls),
		slog.Duration("elapsed", p.Elapsed))
}
