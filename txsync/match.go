package txsync

import (
	"slices"
	"strings"
	"time"
	"unicode"

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
	firstDays  int
}

// apply compares the entries of one read (booked ones listed from from on,
// and the pending list) with the account's state and returns what
// changed and the next state; today is the bank's date (zero: no bound on
// dates). It is a pure function of its arguments.
func apply(acct AccountKey, st state, in []item, from date.Date, t tuning, today date.Date) (*Delta, state) {
	d := &Delta{Account: acct, First: st.Reads == 0}
	// No date after the bound moves the window; a state that holds one
	// (written before the bound) is brought back to it.
	bound := newestBound(today)
	st.Newest = bounded(st.Newest, bound)
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
	// A booked entry listed again under the same transactionId with the
	// same facts is the same entry, listed twice by the bank's pages (an
	// offset that shifted between two pages): it is compared once.
	type listing struct {
		id string
		fp uint64
	}
	listedOnce := map[listing]bool{}
	for i := range in {
		it := &in[i]
		if it.v.Status == accounts.BookingBooked && it.v.TransactionID != "" {
			l := listing{it.v.TransactionID, it.fp}
			if listedOnce[l] {
				continue
			}
			listedOnce[l] = true
		}
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
	// from the cutoff on, each only when the read asked for it (asked).
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
	// Any of them pairs with what the read lists (eligible); one left
	// unpaired is removed only when the read asked for it (cand).
	eligible := make([]bool, len(st.Entries))
	cand := make([]bool, len(st.Entries))
	for i := range st.Entries {
		e := &st.Entries[i]
		if e.Pending {
			eligible[i] = true
			cand[i] = unfiltered || e.date().IsZero() || asked(e, from)
		} else {
			eligible[i] = inWindow(e.date())
			cand[i] = eligible[i] && asked(e, from)
		}
	}
	readOf := make([]int, len(st.Entries)) // state entry -> read index+1
	stateOf := make([]int, len(reads))     // read index -> state entry+1
	pair := func(si, ri int) { readOf[si], stateOf[ri] = ri+1, si+1 }

	// 1. By transactionId: first with the tracked entry of the same id
	// and facts, then with a tracked entry of the same id. A bank may
	// list two entries under one id (ids are stable, not promised
	// unique), in any order: each is the tracked entry of its id and
	// facts, not the first tracked entry of its id.
	type idFacts struct {
		id    string
		facts bool // fp counts
		fp    uint64
	}
	// byID lists the eligible tracked entries of each id, and of each id
	// and fingerprint, in order; pendingByID the pending ones only.
	byID, pendingByID := map[idFacts][]int{}, map[idFacts][]int{}
	for i := range st.Entries {
		e := &st.Entries[i]
		if !eligible[i] || e.ID == "" {
			continue
		}
		for _, k := range [...]idFacts{{e.ID, true, e.FP}, {id: e.ID}} {
			byID[k] = append(byID[k], i)
			if e.Pending {
				pendingByID[k] = append(pendingByID[k], i)
			}
		}
	}
	// take returns the first entry of lists[k] not paired yet (-1: none),
	// dropping the paired ones before it: each list is walked once.
	take := func(lists map[idFacts][]int, k idFacts) int {
		l := lists[k]
		for len(l) > 0 && readOf[l[0]] != 0 {
			l = l[1:]
		}
		lists[k] = l
		if len(l) == 0 {
			return -1
		}
		return l[0]
	}
	viaID := make([]bool, len(reads))
	// A booked entry older than the window pairs by its id only with a
	// tracked pending entry: one booked under its old date, with the id
	// it had while pending (docs/interface.md section 2.9).
	for _, sameFacts := range [...]bool{true, false} {
		for ri, it := range reads {
			if stateOf[ri] != 0 || it.v.TransactionID == "" {
				continue
			}
			k := idFacts{id: it.v.TransactionID}
			if sameFacts {
				k.facts, k.fp = true, it.fp
			}
			lists := byID
			if ri >= nCurrent {
				lists = pendingByID
			}
			if si := take(lists, k); si >= 0 {
				pair(si, ri)
				viaID[ri] = true
			}
		}
	}
	// 2. By fingerprint, every fact, then the core facts of an entry of
	// the same status: twins pair in order of occurrence.
	byFacts(st, reads[:nCurrent], eligible, readOf, stateOf, pair, func(e *stored) uint64 { return e.FP }, func(it *item) uint64 { return it.fp }, false)
	byFacts(st, reads[:nCurrent], eligible, readOf, stateOf, pair, func(e *stored) uint64 { return e.Core }, func(it *item) uint64 { return it.core }, true)
	// 2b. A booked entry older than the window that the sync still holds
	// (heldBy: a tracked pending entry could be booked under its date)
	// is that entry, by its id or its facts: reported by an earlier
	// read, it is not offered to a vanished pending entry, which would
	// report it a second time under the pending entry's key.
	heldID := map[string]int{}
	heldFP := map[uint64][]int{}
	for i := range st.Entries {
		if e := &st.Entries[i]; !e.Pending && !eligible[i] {
			if e.ID != "" {
				if _, dup := heldID[e.ID]; !dup {
					heldID[e.ID] = i
				}
			}
			heldFP[e.FP] = append(heldFP[e.FP], i)
		}
	}
	for ri := nCurrent; ri < len(reads) && len(heldFP) > 0; ri++ {
		it := reads[ri]
		if stateOf[ri] != 0 || it.v.Status != accounts.BookingBooked {
			continue
		}
		si, ok := heldID[it.v.TransactionID]
		if !ok || it.v.TransactionID == "" || readOf[si] != 0 {
			si = -1
			for _, i := range heldFP[it.fp] {
				if readOf[i] == 0 {
					si = i
					break
				}
			}
		}
		if si >= 0 {
			pair(si, ri)
		}
	}
	// 3. A vanished pending entry with the new entry most like it, a
	// booked entry older than the window included. Each entry's facts
	// are worked out once; the comparisons are bounded (looseBudget): a
	// vanished entry the budget cannot compare with every new entry is
	// left unpaired (reported vanished, the new entries added).
	var facts []looseFacts // of reads, made for the first vanished entry
	budget := looseBudget{pairs: maxLoosePairs, costly: maxLooseCostly}
	for si := range st.Entries {
		e := &st.Entries[si]
		if !cand[si] || readOf[si] != 0 || !e.Pending {
			continue
		}
		if facts == nil {
			facts = make([]looseFacts, len(reads))
			for ri, it := range reads {
				facts[ri] = itemFacts(it)
			}
		}
		ef := storedFacts(e)
		best, bestScore := -1, 0.0
		for ri := range reads {
			if stateOf[ri] != 0 {
				continue
			}
			if budget.pairs == 0 || budget.costly == 0 {
				best = -1
				break
			}
			budget.pairs--
			if sc, ok := loose(&ef, &facts[ri], &budget); ok && (best < 0 || sc < bestScore) {
				best, bestScore = ri, sc
			}
		}
		if best >= 0 {
			pair(si, best)
		}
		if budget.pairs == 0 || budget.costly == 0 {
			break
		}
	}
	if looseSpent != nil {
		looseSpent(maxLoosePairs-budget.pairs, maxLooseCostly-budget.costly)
	}

	// The newest booked date: of every booked entry read, none after the
	// bound; one after it is an anomaly, reported with the entry.
	next := state{Newest: st.Newest, Seq: st.Seq, Reads: st.Reads + 1}
	future := make([]bool, len(reads))
	for ri, it := range reads {
		if it.v.Status != accounts.BookingBooked {
			continue
		}
		nd := it.v.date()
		if !bound.IsZero() && bound.Before(nd) {
			future[ri], nd = true, bound
		}
		if next.Newest.Before(nd) {
			next.Newest = nd
		}
	}
	start := windowStart(next.Newest, t.overlap)

	// What the sync keeps: every tracked entry the read listed, and the
	// tracked entries older than the read (kept until the window passes
	// them); a new entry takes a place only while the state has room
	// (room), so that a tracked entry is never dropped while the bank
	// lists it, which would report it again under a new key.
	kept := make([]stored, 0, len(st.Entries)+len(reads))
	for ri, it := range reads {
		if si := stateOf[ri] - 1; si >= 0 {
			kept = append(kept, storedOf(st.Entries[si].Seq, it))
		}
	}
	listed := len(kept)
	for si := range st.Entries {
		if e := &st.Entries[si]; readOf[si] == 0 && !cand[si] {
			kept = append(kept, *e)
		}
	}
	// The booked entries the window passed that a tracked pending entry
	// could still be booked under (heldBy) are held apart, in the places
	// the state has left once the read's entries have theirs.
	floor := pendingFloor(kept, reads[:nCurrent])
	var held []stored
	for _, e := range kept {
		if heldBy(&e, start, floor) {
			held = append(held, e)
		}
	}
	kept = prune(kept, listed, start, t.maxEntries)
	admit := admitted(reads[:nCurrent], stateOf, start, t.maxEntries-len(kept), maxStateBytes-sizeOf(kept))

	// The delta, in the bank's order.
	for ri, it := range reads {
		si := stateOf[ri] - 1
		if ri >= nCurrent && (si < 0 || !st.Entries[si].Pending) {
			continue // older than the window, reported before: not compared
		}
		var key Key
		if si < 0 {
			if !admit[ri] {
				d.Overflow++
				continue
			}
			next.Seq++
			key = keyOf(acct, next.Seq)
			d.Added = append(d.Added, it.entry(key))
			if e := storedOf(next.Seq, it); !passedBy(it, start) {
				kept = append(kept, e)
			} else if heldBy(&e, start, floor) {
				held = append(held, e)
			}
		} else {
			e := &st.Entries[si]
			prev := e.version()
			// A reference that changed counts only for an entry that kept
			// its id: one matched by its facts changed its id, and its
			// references with it, perhaps.
			w := diff(&prev, &it.v, viaID[ri] && e.FP != it.fp)
			if w == 0 {
				continue
			}
			key = keyOf(acct, e.Seq)
			d.Changed = append(d.Changed, Change{Entry: it.entry(key), Previous: prev, What: w})
		}
		if future[ri] {
			d.Anomalies = append(d.Anomalies, Anomaly{Key: key, Kind: FutureBooked, Date: it.v.date()})
		}
	}
	for si := range st.Entries {
		if e := &st.Entries[si]; readOf[si] == 0 && cand[si] {
			r := BookedGone
			if e.Pending {
				r = PendingVanished
			}
			d.Removed = append(d.Removed, Removal{Key: keyOf(acct, e.Seq), Previous: e.version(), Reason: r})
		}
	}
	next.Entries = hold(kept, held, t.maxEntries, maxStateBytes)
	return d, next
}

// pendingFloor is the earliest booking date a tracked pending entry (of
// the entries kept, or of the read) may be booked under and still pair
// with it (bookedBefore days before its date); zero without one.
func pendingFloor(kept []stored, reads []*item) date.Date {
	var oldest date.Date
	older := func(d date.Date) {
		if !d.IsZero() && (oldest.IsZero() || d.Before(oldest)) {
			oldest = d
		}
	}
	for i := range kept {
		if kept[i].Pending {
			older(kept[i].date())
		}
	}
	for _, it := range reads {
		if it.v.Status == accounts.BookingPending {
			older(it.v.date())
		}
	}
	return addDays(oldest, -bookedBefore)
}

// heldBy reports whether the booked entry e, passed by the window
// starting at start, is held: dated from floor on, so that a later read
// asked from a tracked pending entry's date lists it again, and it must
// be known as the entry reported before, not offered to the pending
// entry as its booking.
func heldBy(e *stored, start, floor date.Date) bool {
	d := e.date()
	return !e.Pending && !floor.IsZero() && !start.IsZero() && !d.IsZero() && d.Before(start) && !d.Before(floor)
}

// hold adds the held entries to kept while the state has room, the
// newest first: the entries the bank lists in the window have their
// places before them.
func hold(kept, held []stored, limit, bytes int) []stored {
	if len(held) == 0 || len(kept) >= limit {
		return kept
	}
	slices.SortStableFunc(held, func(a, b stored) int { return compareDates(b.date(), a.date()) })
	bytes -= sizeOf(kept)
	for _, e := range held[:min(len(held), limit-len(kept))] {
		if bytes -= e.size(); bytes < 0 {
			break
		}
		kept = append(kept, e)
	}
	return kept
}

// asked reports whether a read from from on (zero: the bank's default)
// asked for the tracked entry e: whether every date the bank may filter
// e by is from from on. That is its booking date (else its value date)
// and, for a card entry, its transaction date too: the interface does not
// say which of the two a card account's list is filtered by (the Berlin
// Group says the booking date for booked entries and the transaction date
// for pending ones; the emulator filters by the transaction date), so a
// card entry is expected only when both are inside. An entry the read did
// not ask for is never reported removed.
func asked(e *stored, from date.Date) bool {
	if from.IsZero() {
		return true
	}
	for _, d := range [...]date.Date{e.date(), e.Txn} {
		if !d.IsZero() && d.Before(from) {
			return false
		}
	}
	return true
}

// admitted chooses the new entries of a read (those not paired, stateOf
// 0) the state has room for: room places, booked entries before pending
// ones and newer before older, so that what is left out is what the
// window passes first. A new booked entry older than start (the window
// has passed it within this read) is reported and not kept: it needs no
// place. The rest are the read's [Delta.Overflow].
func admitted(reads []*item, stateOf []int, start date.Date, room, bytes int) []bool {
	admit := make([]bool, len(reads))
	var wait []int
	for ri, it := range reads {
		switch {
		case stateOf[ri] != 0:
		case passedBy(it, start):
			admit[ri] = true
		default:
			wait = append(wait, ri)
		}
	}
	need := 0
	for _, ri := range wait {
		e := storedOf(0, reads[ri])
		need += e.size()
	}
	if len(wait) <= room && need <= bytes {
		for _, ri := range wait {
			admit[ri] = true
		}
		return admit
	}
	slices.SortStableFunc(wait, func(a, b int) int {
		x, y := &reads[a].v, &reads[b].v
		if px, py := x.Status == accounts.BookingPending, y.Status == accounts.BookingPending; px != py {
			if px {
				return 1
			}
			return -1
		}
		return compareDates(y.date(), x.date())
	})
	for _, ri := range wait[:max(min(room, len(wait)), 0)] {
		e := storedOf(0, reads[ri])
		if bytes -= e.size(); bytes < 0 {
			break // no room left in the state's bytes (maxStateBytes)
		}
		admit[ri] = true
	}
	return admit
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

// The bounds of one read's loose matching (step 3 of apply): every
// vanished pending entry is compared with every new entry, so a read of
// [MaxReadEntries] entries against a state of [DefaultMaxEntries]
// vanished ones would make 200 million comparisons (minutes, inside the
// store's atomic update). maxLoosePairs bounds the comparisons,
// maxLooseCostly those that reach the amounts' arithmetic (a pair alike
// in all but its amount). Real reads stay far below: a few vanished
// entries against a page or two of new ones.
const (
	maxLoosePairs  = 20_000_000
	maxLooseCostly = 1_000_000
)

// looseSpent, when set (by a test), is told the comparisons each
// read's loose matching made: pairs compared, and those that reached the
// amounts' arithmetic.
var looseSpent func(pairs, costly int)

// looseBudget is what is left of the bounds of one read's loose
// matching.
type looseBudget struct{ pairs, costly int }

// looseFacts are the facts loose compares of an entry, worked out once
// per entry: its status, date (and day number), counterparty and text in
// the form they are compared in (foldText), and amounts.
type looseFacts struct {
	pending     bool
	date        date.Date
	day         int64
	party, text string
	amounts     []amount
}

func storedFacts(e *stored) looseFacts {
	return newLooseFacts(e.Pending, e.date(), e.Party, e.Text, e.amounts())
}

func itemFacts(it *item) looseFacts {
	return newLooseFacts(it.v.Status == accounts.BookingPending, it.v.date(), it.v.Counterparty, it.v.Text, it.amounts())
}

func newLooseFacts(pending bool, d date.Date, party, text string, amounts []amount) looseFacts {
	f := looseFacts{pending: pending, date: d, party: foldText(party), text: foldText(text), amounts: amounts}
	if !d.IsZero() {
		f.day = dayNumber(d)
	}
	return f
}

// dayNumber is the number of days from 1970-01-01 to d.
func dayNumber(d date.Date) int64 {
	s := d.Time(time.UTC).Unix()
	n := s / 86400
	if s%86400 != 0 && s < 0 {
		n--
	}
	return n
}

// loose reports whether the new entry n may be the pending entry p,
// booked or changed, and how far apart they are (lower is closer): an
// amount in the same currency (commonAmount) and direction, the same
// counterparty or text (or, with neither, the same amount), a booking
// date from bookedBefore days before the pending entry's date to
// bookedAfter days after it, and an amount within maxDrift of the pending
// one. A pending entry stays that pending entry only with the same date,
// counterparty and text: its amount alone may change. A comparison that
// reaches the amounts' arithmetic takes one of b's costly ones.
func loose(p, n *looseFacts, b *looseBudget) (float64, bool) {
	pv, nv, ok := commonAmount(p.amounts, n.amounts)
	if !ok || pv.Sign() != nv.Sign() {
		return 0, false
	}
	if n.pending {
		// Still pending: only its amount may have changed (a reservation
		// adjusted); another pending entry is another purchase.
		if p.date != n.date || p.party != n.party || p.text != n.text {
			return 0, false
		}
	}
	party := p.party != "" && p.party == n.party
	text := p.text != "" && p.text == n.text
	days := 0.0
	if !p.date.IsZero() && !n.date.IsZero() {
		dd := n.day - p.day
		if dd < -bookedBefore || dd > bookedAfter {
			return 0, false
		}
		days = float64(max(dd, -dd))
	}
	if !party && !text && (p.party != "" || p.text != "") {
		return 0, false
	}
	b.costly--
	sameAmount := pv.Equal(nv)
	if !party && !text && !sameAmount {
		return 0, false
	}
	score := days / 100
	if !sameAmount {
		delta := nv.Sub(pv).Abs()
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

// commonAmount returns the first amounts of the pending entry (pa) and of
// the new entry (na) in one currency: their amounts, else a card entry's
// original amount against the other's amount (a purchase pending in the
// merchant's currency and booked in the card's, with the merchant's
// amount as its original amount), else both original amounts. Two entries
// with no amount at all have the same (zero) one.
func commonAmount(pa, na []amount) (p, n decimal.Decimal, ok bool) {
	if len(pa) == 0 && len(na) == 0 {
		return decimal.Zero, decimal.Zero, true
	}
	for _, x := range pa {
		for _, y := range na {
			if x.cur == y.cur {
				return x.value, y.value, true
			}
		}
	}
	return decimal.Zero, decimal.Zero, false
}

// foldText is the form of a text that compares as a person would: case
// and runs of space aside. Two texts have the same form exactly when
// strings.EqualFold says their runs of space, made one space each, are
// equal: each character is replaced by the least of its case folding
// orbit (unicode.SimpleFold), the orbits EqualFold compares.
func foldText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.Map(func(r rune) rune {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		return m
	}, s)
}

// prune drops from the tracked entries es (es[:listed] listed by this
// read, the rest not asked for by it) the booked entries older than start
// (the overlap window has passed them) and the unlisted pending ones
// older than the history a read without the PSU reaches before it. A
// pending entry the bank still lists stays whatever its date: dropped, it
// would come back as new. Past limit entries (only when [WithMaxEntries]
// was lowered since the state was written) the unlisted ones go first,
// then the oldest booked ones, then the oldest pending ones.
func prune(es []stored, listed int, start date.Date, limit int) []stored {
	floor := addDays(start, -MaxOverlap)
	passed := func(e stored) bool { // booked, and the window passed it
		return !e.Pending && !start.IsZero() && !e.date().IsZero() && e.date().Before(start)
	}
	old := func(e stored) bool { // unlisted pending, older than reads reach
		return passed(e) || (e.Pending && !floor.IsZero() && !e.date().IsZero() && e.date().Before(floor))
	}
	out, n := es[:0], 0 // in place: out never passes the entry read
	for i, e := range es {
		switch {
		case i < listed && passed(e), i >= listed && old(e):
			continue
		case i < listed:
			n++
		}
		out = append(out, e)
	}
	if len(out) <= limit {
		return out
	}
	// Unlisted entries are at the end: drop them first, then the oldest.
	out = out[:max(limit, n)]
	if len(out) <= limit {
		return out
	}
	slices.SortStableFunc(out, func(a, b stored) int {
		if a.Pending != b.Pending {
			if a.Pending {
				return 1
			}
			return -1
		}
		return compareDates(a.date(), b.date())
	})
	return slices.Clone(out[len(out)-limit:])
}

// passedBy reports whether the window starting at start has passed the
// read's entry it: a booked entry dated before start.
func passedBy(it *item, start date.Date) bool {
	d := it.v.date()
	return it.v.Status == accounts.BookingBooked && !start.IsZero() && !d.IsZero() && d.Before(start)
}

// compareDates orders two dates, the zero date first.
func compareDates(a, b date.Date) int {
	switch {
	case a.Before(b):
		return -1
	case b.Before(a):
		return 1
	}
	return 0
}
