package txsync

import (
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/date"
)

// Loose matching of a vanished pending entry with a new entry (a pending
// entry booked under another id and amount): ASSUMPTIONS, as banks do not
// say how they book a reservation.
const (
	// bookedBefore and bookedAfter bound the booking date of the booked
	// entry around the pending entry's date, in days.
	bookedBefore, bookedAfter = 3, 14
	// maxDrift is the largest relative change of the amount (a tip, a
	// currency conversion, a fuel station's reservation): 50 %.
	maxDrift = 0.5
)

var maxDriftDec = decimal.NewFromFloat(maxDrift)

// tuning is what apply needs of the Syncer.
type tuning struct {
	overlap    int
	maxEntries int
}

// apply compares the entries of one read (booked ones listed from from
// on, and the pending list) with the account's state and returns what
// changed and the next state. It is a pure function of its arguments.
func apply(acct AccountKey, st state, in []item, from date.Date, t tuning) (*Delta, state) {
	d := &Delta{Account: acct, First: st.Reads == 0}
	cutoff := from
	if !d.First {
		if ws := windowStart(st.Newest, t.overlap); cutoff.IsZero() || cutoff.Before(ws) {
			cutoff = ws
		}
	}
	d.From = cutoff
	inWindow := func(date date.Date) bool { return cutoff.IsZero() || date.IsZero() || !date.Before(cutoff) }

	// The read's entries the sync compares: the pending ones, the booked
	// ones from the cutoff on. Older booked ones were reported by an
	// earlier read, or are older than anything the sync tracks: they come
	// last (reads[nCurrent:]) and are only offered to a tracked pending
	// entry that vanished in this read (one the bank booked under its old
	// date, older than the window; the read reaches it as [Syncer.From]
	// asks from the oldest pending entry's date); one left unpaired is
	// neither reported nor kept.
	reads := make([]*item, 0, len(in))
	var late []*item
	occ := map[uint64]int{}
	for i := range in {
		it := &in[i]
		it.occ = occ[it.fp]
		occ[it.fp]++
		if it.v.Status == accounts.BookingBooked && !d.First && !inWindow(it.v.date()) {
			late = append(late, it)
			continue
		}
		reads = append(reads, it)
	}
	nCurrent := len(reads)
	reads = append(reads, late...)
	// The state's entries the read must list: pending ones, booked ones
	// from the cutoff on.
	// A pending entry dated before the read's From is expected only from a
	// bank that lists every pending entry whatever the dates (the known
	// issue of docs/interface.md section 8), which the read shows by
	// listing such an entry; [Syncer.From] asks from the oldest pending
	// entry's date anyway.
	unfiltered := false
	for _, it := range reads {
		if it.v.Status == accounts.BookingPending && !from.IsZero() && !it.v.date().IsZero() && it.v.date().Before(from) {
			unfiltered = true
		}
	}
	cand := make([]bool, len(st.Entries))
	for i := range st.Entries {
		e := &st.Entries[i]
		if e.Pending {
			cand[i] = unfiltered || from.IsZero() || e.date().IsZero() || !e.date().Before(from)
		} else {
			cand[i] = inWindow(e.date())
		}
	}
	readOf := make([]int, len(st.Entries)) // state entry -> read index+1
	stateOf := make([]int, len(reads))     // read index -> state entry+1
	pair := func(si, ri int) { readOf[si], stateOf[ri] = ri+1, si+1 }

	// 1. By transactionId.
	byID := map[string]int{}
	for i := range st.Entries {
		if id := st.Entries[i].ID; cand[i] && id != "" {
			if _, dup := byID[id]; !dup {
				byID[id] = i
			}
		}
	}
	viaID := make([]bool, len(reads))
	for ri, it := range reads[:nCurrent] {
		if si, ok := byID[it.v.TransactionID]; ok && it.v.TransactionID != "" && readOf[si] == 0 {
			pair(si, ri)
			viaID[ri] = true
		}
	}
	// 2. By fingerprint, every fact, then the core facts of an entry of
	// the same status: twins pair in order of occurrence.
	byFacts(st, reads[:nCurrent], cand, readOf, stateOf, pair, func(e *stored) uint64 { return e.FP }, func(it *item) uint64 { return it.fp }, false)
	byFacts(st, reads[:nCurrent], cand, readOf, stateOf, pair, func(e *stored) uint64 { return e.Core }, func(it *item) uint64 { return it.core }, true)
	// 3. A vanished pending entry with the new entry most like it, a
	// booked entry older than the window included.
	for si := range st.Entries {
		e := &st.Entries[si]
		if !cand[si] || readOf[si] != 0 || !e.Pending {
			continue
		}
		best, bestScore := -1, 0.0
		for ri, it := range reads {
			if stateOf[ri] != 0 {
				continue
			}
			if sc, ok := loose(e, it); ok && (best < 0 || sc < bestScore) {
				best, bestScore = ri, sc
			}
		}
		if best >= 0 {
			pair(si, best)
		}
	}

	// The next state and the delta.
	next := state{Newest: st.Newest, Seq: st.Seq, Reads: st.Reads + 1, Entries: make([]stored, 0, len(reads)+len(st.Entries))}
	for ri, it := range reads {
		if it.v.Status == accounts.BookingBooked && next.Newest.Before(it.v.date()) {
			next.Newest = it.v.date()
		}
		si := stateOf[ri] - 1
		if si < 0 && ri >= nCurrent {
			continue // older than the window, reported before: not compared
		}
		if si < 0 {
			next.Seq++
			d.Added = append(d.Added, it.entry(keyOf(acct, next.Seq)))
			next.Entries = append(next.Entries, storedOf(next.Seq, it))
			continue
		}
		e := &st.Entries[si]
		prev := e.version()
		// A reference that changed counts only for an entry that kept its
		// id: one matched by its facts changed its id, and its references
		// with it, perhaps.
		if w := diff(&prev, &it.v, viaID[ri] && e.FP != it.fp); w != 0 {
			d.Changed = append(d.Changed, Change{Entry: it.entry(keyOf(acct, e.Seq)), Previous: prev, What: w})
		}
		next.Entries = append(next.Entries, storedOf(e.Seq, it))
	}
	for si := range st.Entries {
		e := &st.Entries[si]
		switch {
		case readOf[si] != 0:
		case cand[si]:
			r := BookedGone
			if e.Pending {
				r = PendingVanished
			}
			d.Removed = append(d.Removed, Removal{Key: keyOf(acct, e.Seq), Previous: e.version(), Reason: r})
		default:
			next.Entries = append(next.Entries, *e) // older than the read: kept until the window passes it
		}
	}
	next.Entries = prune(next.Entries, windowStart(next.Newest, t.overlap), t.maxEntries)
	return d, next
}

// byFacts pairs the unpaired entries of the state and the read that have
// the same fingerprint (of the state entry: sf, of the read's: rf), in
// order of occurrence; sameStatus pairs only entries of one status.
func byFacts(st state, reads []*item, cand []bool, readOf, stateOf []int, pair func(si, ri int),
	sf func(*stored) uint64, rf func(*item) uint64, sameStatus bool) {
	type group struct {
		fp      uint64
		pending bool
	}
	free := map[group][]int{}
	for i := range st.Entries {
		e := &st.Entries[i]
		if cand[i] && readOf[i] == 0 {
			g := group{fp: sf(e)}
			if sameStatus {
				g.pending = e.Pending
			}
			free[g] = append(free[g], i)
		}
	}
	if len(free) == 0 {
		return
	}
	for _, l := range free {
		slices.SortStableFunc(l, func(a, b int) int { return st.Entries[a].Occ - st.Entries[b].Occ })
	}
	for ri, it := range reads {
		if stateOf[ri] != 0 {
			continue
		}
		g := group{fp: rf(it)}
		if sameStatus {
			g.pending = it.v.Status == accounts.BookingPending
		}
		if l := free[g]; len(l) > 0 {
			pair(l[0], ri)
			free[g] = l[1:]
		}
	}
}

// loose reports whether the new entry it may be the pending entry e,
// booked or changed, and how far apart they are (lower is closer): the
// same currency and direction, the same counterparty or text (or, with
// neither, the same amount), a booking date from bookedBefore days before
// the pending entry's date to bookedAfter days after it, and an amount
// within maxDrift of the pending one. A pending entry stays that pending
// entry only with the same date, counterparty and text: its amount alone
// may change.
func loose(e *stored, it *item) (float64, bool) {
	if e.Cur != it.v.Currency {
		return 0, false
	}
	pv := e.value()
	if pv.Sign() != it.value.Sign() {
		return 0, false
	}
	sameAmount := e.Amount == it.v.Amount
	if it.v.Status == accounts.BookingPending {
		// Still pending: only its amount may have changed (a reservation
		// adjusted); another pending entry is another purchase.
		if e.date() != it.v.date() || !sameText(e.Party, it.v.Counterparty) || !sameText(e.Text, it.v.Text) {
			return 0, false
		}
	}
	party := e.Party != "" && sameText(e.Party, it.v.Counterparty)
	text := e.Text != "" && sameText(e.Text, it.v.Text)
	if !party && !text && !(sameAmount && e.Party == "" && e.Text == "") {
		return 0, false
	}
	days := 0.0
	if pd, nd := e.date(), it.v.date(); !pd.IsZero() && !nd.IsZero() {
		dd := nd.Time(time.UTC).Sub(pd.Time(time.UTC)).Hours() / 24
		if dd < -bookedBefore || dd > bookedAfter {
			return 0, false
		}
		if dd < 0 {
			dd = -dd
		}
		days = dd
	}
	score := days / 100
	if !sameAmount {
		delta := it.value.Sub(pv).Abs()
		if pv.IsZero() || delta.GreaterThan(pv.Abs().Mul(maxDriftDec)) {
			return 0, false
		}
		f, _ := delta.Div(pv.Abs()).Float64()
		score += 1 + f
	}
	if !party || !text {
		score += 0.5
	}
	return score, true
}

// sameText compares two texts as a person would: case and runs of space
// aside.
func sameText(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// prune drops the booked entries older than start (the overlap window has
// passed them) and the pending ones older than the history a read
// without the PSU reaches before it, then, past max entries, the oldest
// booked ones and then the oldest pending ones.
func prune(es []stored, start date.Date, max int) []stored {
	var floor date.Date
	if !start.IsZero() {
		floor = date.Of(start.Time(time.UTC).AddDate(0, 0, -MaxOverlap))
	}
	es = slices.DeleteFunc(es, func(e stored) bool {
		if e.Pending {
			return !floor.IsZero() && !e.date().IsZero() && e.date().Before(floor)
		}
		return !start.IsZero() && !e.date().IsZero() && e.date().Before(start)
	})
	if len(es) <= max {
		return es
	}
	slices.SortStableFunc(es, func(a, b stored) int {
		if a.Pending != b.Pending {
			if a.Pending {
				return 1
			}
			return -1
		}
		switch da, db := a.date(), b.date(); {
		case da.Before(db):
			return -1
		case db.Before(da):
			return 1
		}
		return 0
	})
	return slices.Clone(es[len(es)-max:])
}
