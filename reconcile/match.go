package reconcile

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/txsync"
)

// Matching bounds, in one place.
const (
	// LateDays is how many banking days after its window's last day a
	// credit still settles a payment by its KID or end-to-end id (a late
	// booking, reported Late).
	LateDays = 10
	// TextLateDays is the same for a match by the remittance text, which
	// is weaker evidence: the "expected dates" of a text match end this
	// many banking days after the window.
	TextLateDays = 2
	// FeeShare is the largest fee, in percent of the instructed amount,
	// that a match by remittance text accepts as deducted (a credit for
	// less, in the same currency). A match by KID or end-to-end id takes
	// any amount, a currency conversion included, and reports both.
	FeeShare = 10
	// ReturnDays is how many days after its credit a reversal of it (a
	// debit of the amount booked, with the payment's reference) returns
	// a payment.
	ReturnDays = 30
	// Retention is how long the reconciler keeps a payment after its
	// creation, whatever became of it: longer than the journal's
	// retention (journal.DefaultRetention, 90 days), so that
	// [Reconciler.TrackJournal] never tracks a payment a second time.
	// Track refuses a payment created longer ago. A payment holding a
	// credit or a reversal booked in the future ([State.HeldBooking],
	// [State.HeldReversal]) is kept longer, until a read settles or
	// returns it with the held item (or the bank withdraws or changes
	// it): the held item is never dropped with its payment. A payment
	// settled or returned is kept Retention after its credit's date
	// when that is later (the credit is kept seen so long).
	Retention = 120 * 24 * time.Hour
	// announceLease is how long a call that decided an outcome has to
	// emit its event before another call takes the announcement over (a
	// crash between the state's write and the emission). The events'
	// stable IDs keep the outbox from delivering one twice either way.
	announceLease = 2 * time.Minute
)

// retentionDays is Retention in days.
const retentionDays = int32(Retention / (24 * time.Hour))

// mutation is one change of an account's state, with what it reports. A
// store.Update may run its function more than once: each run starts a
// new mutation.
type mutation struct {
	acct     txsync.AccountKey
	today    int32
	now      int64
	emitting bool
	changed  bool
	// reports: the call reports its Round (Apply); a credit another
	// call finds unmatched is kept for the next Apply (see unmatched).
	reports bool
	round   Round
	// announce are the indexes (in the state's anns) of the
	// announcements this call claimed to make; mine the ids of the
	// payments whose facts it decided.
	announce []int
	mine     map[string]bool
	bounds   map[int32][2]int32
	// reversals are the held reversals of the credits whose settlement
	// this call withdrew (revise), by the credit's key: one that settles
	// a payment again in this call takes its reversal back (rehold).
	reversals map[string]outcome
	// dropped are the keys of the entries this call's delta no longer
	// lists as booked (gone, or pending again): a reversal among them
	// is not reported when its credit settles no payment (rehold).
	dropped map[string]bool
	// retained are the ids of the payments whose stay in the state this
	// call made longer (a credit settles or is held for them): the key
	// that finds their account is kept as long (see lookupTTL).
	retained []string
}

// until returns the last day a credit may settle a payment whose window
// ends on deadline: by KID or end-to-end id, and by text.
func (m *mutation) until(deadline int32) (strong, text int32) {
	if b, ok := m.bounds[deadline]; ok {
		return b[0], b[1]
	}
	d := dateOf(deadline)
	strong, text = dayOf(date.AddBankingDays(d, LateDays)), dayOf(date.AddBankingDays(d, TextLateDays))
	if m.bounds == nil {
		m.bounds = map[int32][2]int32{}
	}
	m.bounds[deadline] = [2]int32{strong, text}
	return strong, text
}

// tier is one rule of matching, strongest first.
type tier uint8

const (
	tierKID      tier = iota // KID and amount
	tierE2E                  // end-to-end id
	tierText                 // remittance text and amount, within the dates
	tierKIDOther             // KID, another amount
	tierTextFee              // remittance text, the amount less a fee
	tiers
)

// evidence is the Evidence of a tier.
func (t tier) evidence() Evidence {
	switch t {
	case tierKID, tierKIDOther:
		return ByKID
	case tierE2E:
		return ByEndToEndID
	}
	return ByRemittance
}

// payView is what matching computes of a payment once per mutation.
type payView struct {
	created     int32 // the first day a credit may be its: see earliest
	strong, txt int32
	words       []string
}

// matches reports whether booking b settles payment s.pays[i] under
// tier t: the cheap facts first, the dates (views) only for a payment
// whose evidence fits.
func (m *mutation) matches(t tier, s *acctState, i int, views map[int]*payView, b *booking) bool {
	p := &s.pays[i]
	if !b.amtOK {
		return false
	}
	var ok bool
	switch t {
	case tierKID:
		ok = p.kid != "" && b.amt == p.amt && contains(b.kids, p.kid)
	case tierE2E:
		ok = p.e2e != "" && b.e2e == p.e2e
	case tierText:
		ok = p.text != "" && b.amt == p.amt
	case tierKIDOther:
		ok = p.kid != "" && contains(b.kids, p.kid)
	case tierTextFee:
		ok = p.text != "" && b.amt.within(p.amt, FeeShare)
	}
	if !ok {
		return false
	}
	v := m.view(views, s, i)
	if b.day < v.created {
		return false
	}
	switch t {
	case tierText, tierTextFee:
		return b.day <= v.txt && textMatches(v.words, b.words)
	}
	return b.day <= v.strong
}

// view returns the payView of s.pays[i], computing it once.
func (m *mutation) view(views map[int]*payView, s *acctState, i int) *payView {
	if v, ok := views[i]; ok {
		return v
	}
	p := &s.pays[i]
	v := &payView{created: earliest(p)}
	v.strong, v.txt = m.until(p.deadline)
	if p.text != "" {
		v.words = strings.Fields(p.text)
	}
	views[i] = v
	return v
}

// earliest is the first day a credit of p may be booked: the bank date
// of its creation or, for a payment with a later requested execution
// date, the last banking day on or before that date (the day its debtor's
// account is debited, or the banking day before a weekend or holiday
// one, where a bank executes it early): money booked earlier is
// another's.
func earliest(p *pay) int32 {
	created := bankDay(time.Unix(p.created, 0))
	if p.exec <= created {
		return created
	}
	d := p.exec
	for range 10 { // more than any run of days without banking
		if date.IsBankingDay(dateOf(d)) {
			break
		}
		d--
	}
	return max(created, d)
}

// revisions are the entries of a delta that the bank took back or
// changed after they were booked: what may withdraw a settlement.
type revisions struct {
	// gone are the booked entries the bank no longer lists
	// (txsync.BookedGone): txsync gives an entry listed again a new key.
	gone []txsync.Key
	// unbooked are the booked entries listed as pending again
	// (txsync.Unbooked): booked again, each keeps its key.
	unbooked []txsync.Key
	// changed are the booked entries whose amount, dates or texts
	// changed, as they are now (unreadable: ok false).
	changed []revised
}

// revised is a booked entry whose facts changed.
type revised struct {
	b  booking
	ok bool // b is a booking (its amount and date readable)
	// previous is the entry as txsync last saw it (the zero Version
	// when not given): see unreadableVersion.
	previous txsync.Version
}

func (v *revisions) empty() bool { return len(v.gone)+len(v.unbooked)+len(v.changed) == 0 }

// settledBy returns the index of each payment by the credit that
// settled it (Settled or SettledOtherAmount, a reversal held or not).
func (s *acctState) settledBy() map[string]int {
	out := map[string]int{}
	for i := range s.pays {
		if p := &s.pays[i]; p.paid() {
			out[p.o.booking] = i
		}
	}
	return out
}

// returnHeldBy returns the index of each payment by the reversal held
// for it (outReturnHeld).
func (s *acctState) returnHeldBy() map[string]int {
	out := map[string]int{}
	for i := range s.pays {
		if p := &s.pays[i]; p.out == outReturnHeld {
			out[p.o.ret] = i
		}
	}
	return out
}

// heldBy returns the index of each payment by the credit held for it
// (outHeld).
func (s *acctState) heldBy() map[string]int {
	out := map[string]int{}
	for i := range s.pays {
		if p := &s.pays[i]; p.out == outHeld {
			out[p.o.booking] = i
		}
	}
	return out
}

// revise withdraws the settlements whose credit the bank took back or
// changed so that it no longer settles its payment, and returns the
// changed credits to match again: those and the changed credits that
// settled nothing. A credit no longer listed stays seen
// (a delta given again after a later one does not bring it back); one
// listed as pending again is forgotten, so that its booking, under the
// same key, is matched anew.
func (m *mutation) revise(s *acctState, v *revisions, views map[int]*payView) []booking {
	by := s.settledBy()
	heldBy := s.heldBy()
	retBy := s.returnHeldBy()
	withdraw := func(key txsync.Key) {
		if i, ok := retBy[string(key)]; ok { // it returned nothing: let go
			delete(retBy, string(key))
			m.letGoReturn(s, i)
		}
		if i, ok := by[string(key)]; ok {
			delete(by, string(key))
			if p := &s.pays[i]; p.out == outReturnHeld { // kept, should the credit settle again (rehold)
				if m.reversals == nil {
					m.reversals = map[string]outcome{}
				}
				m.reversals[p.o.booking] = *p.o
			}
			delete(retBy, s.pays[i].o.ret) // the settlement withdrawn, its held reversal goes with it
			m.withdraw(s, i)
		}
		if i, ok := heldBy[string(key)]; ok { // it settled nothing: let go, no withdrawal
			delete(heldBy, string(key))
			m.letGo(s, i)
		}
	}
	for _, ks := range [][]txsync.Key{v.gone, v.unbooked} {
		for _, k := range ks {
			if m.dropped == nil {
				m.dropped = map[string]bool{}
			}
			m.dropped[string(k)] = true
		}
	}
	seenKeys := make(map[uint64]bool, len(s.seen))
	for _, e := range s.seen {
		seenKeys[e.kh] = true
	}
	for _, k := range v.gone {
		withdraw(k)
		if kh := hashString(string(k)); !seenKeys[kh] {
			seenKeys[kh] = true
			s.seen = append(s.seen, seen{kh: kh, fp: kh, day: m.today})
			m.changed = true
		}
	}
	unbooked := map[uint64]bool{}
	for _, k := range v.unbooked {
		withdraw(k)
		unbooked[hashString(string(k))] = true
	}
	if n := len(s.seen); len(unbooked) > 0 && n > 0 {
		s.seen = slices.DeleteFunc(s.seen, func(e seen) bool { return unbooked[e.kh] })
		m.changed = m.changed || len(s.seen) != n
	}
	// The credits a payment holds (settled by them, or returned): each
	// settled its payment, and one booking settles one payment.
	held := map[string]bool{}
	for i := range s.pays {
		if p := &s.pays[i]; p.out != outNone {
			held[p.o.booking] = true
			held[p.o.ret] = true
		}
	}
	// A changed booking is known by its facts as they are now: a first
	// read (the sync's state started over) lists it so, under a new key,
	// and by its old facts it would be a new credit, free to settle
	// another payment. So is one changed so that it can no longer be
	// read (a first read reports it once, not again). news are the
	// bookings seen whose facts this call changed: a delta given again
	// changes none.
	var news map[uint64]bool
	if len(v.changed) > 0 {
		facts := make(map[uint64]uint64, len(v.changed))
		for _, c := range v.changed {
			if c.ok || c.b.unreadable {
				facts[c.b.kh] = c.b.fp
			}
		}
		for j := range s.seen {
			if fp, ok := facts[s.seen[j].kh]; ok && s.seen[j].fp != fp {
				s.seen[j].fp = fp
				m.changed = true
				if news == nil {
					news = map[uint64]bool{}
				}
				news[s.seen[j].kh] = true
			}
		}
	}
	var again []booking
	// lost reports a changed entry that can no longer be read, which let
	// go what a payment held of it (Round.Unreadable): it matches
	// nothing, and must not vanish.
	lost := func(c *revised) {
		if !c.ok && c.b.unreadable {
			m.round.Unreadable = append(m.round.Unreadable, unreadableCredit(&c.b))
		}
	}
	for _, c := range v.changed {
		if m.unkeep(string(c.b.key)) {
			// A held reversal whose credit this call withdrew, changed
			// too: not kept with its old facts (rehold), but matched
			// again as it now is, as a held reversal changed is below.
			if c.ok {
				c.b.reversal = true
				again = append(again, c.b)
			}
			lost(&c)
			continue
		}
		if i, ok := retBy[string(c.b.key)]; ok {
			// A held reversal changed: let go, and matched again as it
			// is now (a debit matched again only so), held again if
			// txsync flags it again, reported if it reverses no payment
			// now (apply).
			delete(retBy, string(c.b.key))
			m.letGoReturn(s, i)
			if c.ok {
				c.b.reversal = true
				again = append(again, c.b)
			}
			lost(&c)
			continue
		}
		if i, ok := heldBy[string(c.b.key)]; ok {
			// A held credit changed (its date corrected, perhaps): let
			// go, and matched again as it is now, held again if txsync
			// flags it again.
			delete(heldBy, string(c.b.key))
			m.letGo(s, i)
			if c.ok {
				again = append(again, c.b)
			}
			lost(&c)
			continue
		}
		i, ok := by[string(c.b.key)]
		if !ok {
			// A credit that settled nothing (reported unmatched when it
			// was read) is matched again as it is now: the bank may have
			// corrected the amount, date or text that kept it from its
			// payment. It is not reported unmatched a second time. One
			// that could not be read before (reported in
			// Round.Unreadable, never as a credit) is, when it matches
			// nothing now: once, its facts changed by this call (news).
			// A debit that could not be read before is matched as a
			// debit read for the first time (a reversal returns its
			// payment, is held, or is reported with the held credit it
			// reverses), once too; another debit changed is not
			// matched again.
			if c.ok && !held[string(c.b.key)] {
				// A booking not seen at all (fit let it go with the
				// payment it settled, letGo) is read for the first time.
				c.b.fresh = news[c.b.kh] && unreadableVersion(c.previous) || !seenKeys[c.b.kh]
				c.b.quiet = !c.b.fresh
				again = append(again, c.b)
			}
			// One changed so that it can no longer be read matches
			// nothing: what was reported of it (unmatched, or
			// unreadable as it was) is no longer what the bank shows,
			// and it is reported as it now is (Round.Unreadable), once:
			// seen before, its facts changed by this call (news). A
			// debit that returned nothing was never seen.
			if !c.ok && c.b.unreadable && news[c.b.kh] && !held[string(c.b.key)] {
				lost(&c)
			}
			continue
		}
		if p := &s.pays[i]; c.ok && c.b.amt == p.o.booked && c.b.day == p.o.bday && (p.flags&flagClosed != 0 || m.stillMatches(s, i, views, &c.b)) {
			continue // the same evidence, amount and date
		}
		withdraw(c.b.key)
		if c.ok {
			again = append(again, c.b)
		}
		lost(&c)
	}
	return again
}

// unkeep drops the held reversal of key from those kept with their
// withdrawn credit (m.reversals), and reports whether it was there.
func (m *mutation) unkeep(key string) bool {
	for k, o := range m.reversals {
		if o.ret == key {
			delete(m.reversals, k)
			return true
		}
	}
	return false
}

// stillMatches reports whether booking b settles s.pays[i] under any
// tier.
func (m *mutation) stillMatches(s *acctState, i int, views map[int]*payView, b *booking) bool {
	for t := range tiers {
		if m.matches(t, s, i, views, b) {
			return true
		}
	}
	return false
}

// withdraw records that the credit that settled s.pays[i] no longer
// does: the payment waits for a credit again, Withdrawn.
func (m *mutation) withdraw(s *acctState, i int) {
	p := &s.pays[i]
	w := &withdrawal{n: 1, booking: p.o.booking, bday: p.o.bday, booked: p.o.booked}
	if p.wd != nil { // shared with the reconciler's cache: replaced, never changed
		w.n = p.wd.n + 1
	}
	p.wd, p.out, p.o = w, outNone, nil
	p.flags = p.flags&^flagLate | flagWithdrawn
	p.enc = nil
	m.announceOf(s, p, annWithdrawn)
	m.round.Withdrawn = append(m.round.Withdrawn, p.state(m.acct))
	m.changed = true
}

// apply matches the bookings of a delta against the state, once the
// revisions of its earlier bookings are applied (revise). A booking
// whose key was seen is skipped; in the first read of an account (the
// sync's state started over, every entry under a new key) so is one
// whose facts were seen. Elsewhere the facts do not count: an identical
// twin booked late, once its sibling left the sync's window, is a new
// credit under its own key.
func (m *mutation) apply(s *acctState, bs, odd []booking, first bool, rev *revisions) {
	views := map[int]*payView{}
	var again []booking
	if rev != nil && !rev.empty() {
		again = m.revise(s, rev, views)
	}
	if len(bs)+len(odd)+len(again) == 0 {
		m.rehold(s) // the held reversals of credits withdrawn: reported
		return
	}
	known := make(map[uint64]bool, len(s.seen))
	var byFact map[uint64]int // in a first read: the index in seen of each fingerprint
	if first {
		byFact = make(map[uint64]int, len(s.seen))
	}
	for j, e := range s.seen {
		known[e.kh] = true
		if first {
			byFact[e.fp] = j
		}
	}
	var credits, debits []*booking
	horizon := m.today - retentionDays
	taking := make(map[uint64]bool, len(bs)+len(odd))
	// The entries that cannot be read match nothing, and are reported
	// (Round.Unreadable), once: seen as any booking (under its key, and
	// in a first read by its facts). One without a date is kept seen from
	// today.
	for i := range odd {
		b := &odd[i]
		if known[b.kh] || taking[b.kh] {
			m.round.Repeated++
			continue
		}
		if j, ok := byFact[b.fp]; ok {
			m.rekey(s, j, b)
			m.round.Repeated++
			continue
		}
		if b.day != 0 && (b.day < s.since || b.day < horizon) {
			continue // before the account was watched: no payment of it
		}
		taking[b.kh] = true
		s.seen = append(s.seen, seen{kh: b.kh, fp: b.fp, day: cmp.Or(b.day, m.today)})
		m.round.Unreadable = append(m.round.Unreadable, unreadableCredit(b))
		m.changed = true
	}
	for i := range bs {
		b := &bs[i]
		if known[b.kh] || taking[b.kh] {
			m.round.Repeated++
			continue
		}
		if j, ok := byFact[b.fp]; ok { // byFact is nil but in a first read
			m.rekey(s, j, b)
			m.round.Repeated++
			continue
		}
		if b.day < s.since || b.day < horizon {
			continue // before the account was watched: no payment of it
		}
		taking[b.kh] = true // one key once, even listed twice
		if b.entry.TransactionAmount.Value.IsPositive() {
			credits = append(credits, b)
		} else {
			debits = append(debits, b)
		}
	}
	for i := range again { // seen already: matched again as they are now
		b := &again[i]
		if taking[b.kh] {
			continue
		}
		if b.day < s.since || b.day < horizon {
			// A held reversal changed to a date no payment of the
			// account can have: it reverses nothing (see below), and
			// was reported held. A credit now, it is reported as one
			// that matched nothing.
			switch {
			case b.reversal && b.entry.TransactionAmount.Value.IsPositive():
				m.round.Unmatched = append(m.round.Unmatched, Credit{Key: b.key, BookingDate: dateOf(b.day), Amount: b.entry.TransactionAmount})
			case b.reversal:
				m.unmatchedReversal(s, string(b.key), b.day, b.amt)
			}
			continue // a debit read for the first time so matches nothing
		}
		switch {
		case b.entry.TransactionAmount.Value.IsPositive():
			b.again, taking[b.kh] = true, true
			credits = append(credits, b)
		case b.reversal, b.fresh: // a held reversal changed; a debit unreadable before
			b.again, taking[b.kh] = true, true
			debits = append(debits, b)
		}
	}
	byDay := func(a, b *booking) int { return cmp.Or(cmp.Compare(a.day, b.day), cmp.Compare(a.order, b.order)) }
	slices.SortStableFunc(credits, byDay)
	slices.SortStableFunc(debits, byDay)

	if len(credits) > 0 {
		// taken: the credits that settle a payment or are held for one;
		// freed: those of them a credit not held then took the payment
		// from (displace), matching no other.
		taken, freed := make([]bool, len(credits)), make([]bool, len(credits))
		for t := range tiers {
			for ci, b := range credits {
				if taken[ci] {
					continue
				}
				for i := range s.pays {
					if !m.takes(&s.pays[i], b) || !m.matches(t, s, i, views, b) {
						continue
					}
					if s.pays[i].out == outHeld {
						if o := m.displace(s, i); o != nil {
							if j := slices.IndexFunc(credits, func(c *booking) bool { return string(c.key) == o.booking }); j >= 0 {
								freed[j] = true // this delta's: reported below, unless quiet
							} else {
								m.unmatched(s, o)
							}
						}
					}
					m.settle(s, i, t.evidence(), b)
					taken[ci] = true
					break
				}
			}
		}
		for ci, b := range credits {
			if !b.again || !known[b.kh] { // a changed credit not seen before (its delta lost) is seen now
				s.seen = append(s.seen, seen{kh: b.kh, fp: b.fp, day: b.day})
			}
			if (!taken[ci] || freed[ci]) && !b.quiet {
				m.round.Unmatched = append(m.round.Unmatched, Credit{Key: b.key, BookingDate: dateOf(b.day), Amount: b.entry.TransactionAmount})
			}
		}
		m.changed = true
	}
	m.rehold(s)
	if len(debits) > 0 {
		// A held credit no longer ahead settles its payment in this
		// read: before the debits, so that a reversal of it in the
		// same delta returns the payment, never finding it unsettled.
		m.release(s)
	}
	for _, b := range debits {
		if i := m.returnOf(s, b); i >= 0 {
			p := &s.pays[i]
			o := *p.o // outcomes are shared with the reconciler's cache: copied, never changed
			o.ret, o.rday = string(b.key), b.day
			p.o, p.enc = &o, nil
			if m.holds(b) {
				p.out = outReturnHeld
				m.round.Held = append(m.round.Held, p.state(m.acct))
			} else {
				m.returned(s, i)
			}
			if !b.again || !known[b.kh] {
				s.seen = append(s.seen, seen{kh: b.kh, fp: b.fp, day: b.day})
			}
			m.changed = true
		} else if i := m.reversedHold(s, b); i >= 0 {
			// A reversal of a credit still held: the credit is let go
			// (it settled nothing: no withdrawal) and reported
			// unmatched, never taken by a twin; the payment waits.
			p := &s.pays[i]
			o := *p.o // shared with the reconciler's cache: copied, never changed
			o.ret, o.rday = string(b.key), b.day
			m.letGo(s, i)
			m.round.Held = slices.DeleteFunc(m.round.Held, func(st State) bool { return st.Payment == p.id })
			m.unmatched(s, &o) // and the reversal with it
			if !b.again || !known[b.kh] {
				s.seen = append(s.seen, seen{kh: b.kh, fp: b.fp, day: b.day})
			}
		} else if b.reversal {
			// A held reversal the bank changed so that it reverses no
			// payment now (another amount, a date out of ReturnDays, a
			// text without the payment's reference): let go (revise),
			// it returns nothing, but the call that held it reported it
			// (Round.Held), and a plain debit is reported nowhere. It is
			// reported as it now is, once: a delta given again finds it
			// held by no payment, a debit as any.
			m.unmatchedReversal(s, string(b.key), b.day, b.amt)
		}
	}
}

// rehold gives a credit whose settlement this call withdrew (the bank
// changed it), and that settles a payment again as it now is, its held
// reversal back (m.reversals) while the reversal still reverses it: the
// same amount booked, dated on or after the credit and within ReturnDays
// of it. The payment holds it again, or is returned by it once it is due.
// A credit held again instead (flagged booked in the future again) with
// a reversal that still reverses it is as a held credit a reversal is
// read for (reversedHold): let go, and reported unmatched with its
// reversal. A reversal whose credit settles no payment again (withdrawn,
// matching nothing, or of another amount now) is reported
// (unmatchedReversal): never dropped.
func (m *mutation) rehold(s *acctState) {
	if len(m.reversals) == 0 {
		return
	}
	for i := range s.pays {
		p := &s.pays[i]
		if p.out != outSettled && p.out != outOther && p.out != outHeld {
			continue
		}
		o, ok := m.reversals[p.o.booking]
		if !ok || p.o.booked != o.booked || o.rday < p.o.bday || o.rday > p.o.bday+int32(ReturnDays) {
			continue
		}
		delete(m.reversals, p.o.booking)
		if p.out == outHeld {
			c := *p.o // shared with the reconciler's cache: copied, never changed
			c.ret, c.rday = o.ret, o.rday
			m.letGo(s, i)
			m.round.Held = slices.DeleteFunc(m.round.Held, func(st State) bool { return st.Payment == p.id })
			m.unmatched(s, &c)
			continue
		}
		r := *p.o // shared with the reconciler's cache: copied, never changed
		r.ret, r.rday = o.ret, o.rday
		p.o, p.enc = &r, nil
		m.changed = true
		if m.ahead(o.rday) {
			p.out = outReturnHeld
			m.round.Held = append(m.round.Held, p.state(m.acct))
		} else {
			m.returned(s, i)
		}
	}
	// The others: their credit settles no payment again. A reversal the
	// bank no longer lists as booked is let go, as a held one withdrawn.
	left := make([]outcome, 0, len(m.reversals))
	for _, o := range m.reversals {
		if !m.dropped[o.ret] {
			left = append(left, o)
		}
	}
	slices.SortFunc(left, func(a, b outcome) int { return cmp.Or(cmp.Compare(a.rday, b.rday), strings.Compare(a.ret, b.ret)) })
	for _, o := range left {
		m.unmatchedReversal(s, o.ret, o.rday, o.booked.neg())
	}
	clear(m.reversals)
}

// returned records that the reversal in s.pays[i].o returns the
// payment.
func (m *mutation) returned(s *acctState, i int) {
	p := &s.pays[i]
	p.out = outReturned
	p.flags |= flagClosed
	p.kid, p.e2e, p.text = "", "", ""
	p.enc = nil
	m.changed = true
	m.announceOf(s, p, annReturned)
	m.round.Returned = append(m.round.Returned, p.state(m.acct))
}

// rekey records that s.seen[j], seen under another key, is booking b
// read again under its new key (a first read: the sync's state started
// over): the payment it settled or returned is known under the new key,
// so that the bank's withdrawal of it, under that key, is recognised, and
// a credit kept to report (unreported) is reported under it.
func (m *mutation) rekey(s *acctState, j int, b *booking) {
	old := s.seen[j].kh
	if old == b.kh {
		return
	}
	s.seen[j].kh = b.kh
	m.changed = true
	for i := range s.unreported {
		if u := &s.unreported[i]; hashString(u.booking) == old {
			u.booking = string(b.key)
		}
	}
	for i := range s.pays {
		p := &s.pays[i]
		if p.out == outNone {
			continue
		}
		switch {
		case hashString(p.o.booking) == old:
			o := *p.o // shared with the reconciler's cache: copied, never changed
			o.booking, p.o, p.enc = string(b.key), &o, nil
		case (p.out == outReturned || p.out == outReturnHeld) && hashString(p.o.ret) == old:
			o := *p.o
			o.ret, p.o, p.enc = string(b.key), &o, nil
		}
	}
}

// settle records that booking b settles s.pays[i], or, for a credit
// txsync reported booked in the future and still dated ahead (holds),
// that it is held for it.
func (m *mutation) settle(s *acctState, i int, by Evidence, b *booking) {
	p := &s.pays[i]
	p.o = &outcome{by: by, booking: string(b.key), bday: b.day, booked: b.amt}
	p.enc = nil
	m.changed = true
	if m.holds(b) {
		p.out = outHeld
		m.retained = append(m.retained, p.id)
		m.round.Held = append(m.round.Held, p.state(m.acct))
		return
	}
	m.settled(s, i)
}

// settled records that the credit in s.pays[i].o settles the payment.
func (m *mutation) settled(s *acctState, i int) {
	p := &s.pays[i]
	p.out = p.paidOut()
	p.flags &^= flagLate // a credit withdrawn before may have been late
	if p.o.bday > p.deadline {
		p.flags |= flagLate
	}
	p.enc = nil
	m.changed = true
	m.retained = append(m.retained, p.id) // kept as long as its credit is seen
	m.announceOf(s, p, annSettled)
	m.round.Settled = append(m.round.Settled, p.state(m.acct))
}

// Credits booked in the future, the one place the package decides
// them.
//
// txsync reports a booked entry dated more than txsync.FutureDays after
// the bank's date with a txsync.FutureBooked anomaly, in the delta that
// adds or changes it, and not again. Such a booking is dubious (the
// bank's clock, or its data, is wrong): it is not taken as the money
// having arrived while its date is ahead. A credit of a delta so flagged
// (booking.future) is matched as any other, and one that matches a
// payment is held for it (outHeld) while its date is more than
// txsync.FutureDays after the reconciler's bank date (ahead): the payment
// still waits (Awaiting, Stalled after its window, or Withdrawn), and
// no other credit takes it; the credit is in State.HeldBooking and the
// call's Round.Held, and no event goes out. The first read of the
// account from the day its date is no longer ahead (the day txsync
// would no longer flag it) settles the payment with it (release), as
// any credit: late if its date is after the window. A held credit the
// bank withdraws (no longer listed, or pending again) is let go, without
// a withdrawal (it settled nothing), and one it changes is let go and
// matched again as it now is: held again only if txsync flags it again
// and it is still ahead. A flagged credit no longer ahead when its delta
// is applied (the delta given again days later) settles at once. A
// flagged credit that matches no payment is reported unmatched at once,
// as any. A credit not held that matches a payment holding a credit
// still ahead settles it (takes): it proves the money arrived; the held
// credit is let go (displace) and held for a twin, or reported
// unmatched. A reversal (a debit that returns a settled payment,
// returnOf) so flagged is held the same way while ahead (outReturnHeld):
// a return is final, and a merchant told the money went back may ship
// nothing or ask the payer again, so a dubious debit is not taken as
// one. The payment stays settled, the reversal in State.HeldReversal
// and Round.Held; release returns it once its date is no longer ahead; a
// withdrawn or changed held reversal is let go (letGoReturn; a changed
// one matched again, and reported (unmatchedReversal) when it reverses
// no payment now), a reversal not held returns the payment at once,
// and the settlement withdrawn takes its held reversal with it: back when
// the credit settles a payment again (rehold), else reported
// (unmatchedReversal), as is a reversal of a held credit (reversedHold).

// futureDays is txsync.FutureDays as a number of days.
const futureDays = int32(txsync.FutureDays)

// ahead reports whether day is still in the future for a booking: more
// than txsync.FutureDays after today, as txsync bounds it.
func (m *mutation) ahead(day int32) bool { return day > m.today+futureDays }

// holds reports whether credit b is held rather than settling a payment:
// txsync flagged it booked in the future, and its date is still ahead.
func (m *mutation) holds(b *booking) bool { return b.future && m.ahead(b.day) }

// release settles the payments whose held credit is no longer ahead,
// and returns those whose held reversal is no longer ahead.
func (m *mutation) release(s *acctState) {
	for i := range s.pays {
		switch p := &s.pays[i]; {
		case p.out == outHeld && !m.ahead(p.o.bday):
			m.settled(s, i)
		case p.out == outReturnHeld && !m.ahead(p.o.rday):
			m.returned(s, i)
		}
	}
}

// letGoReturn drops the reversal held for s.pays[i]: the payment stays
// settled, as it was (it returned nothing).
func (m *mutation) letGoReturn(s *acctState, i int) {
	p := &s.pays[i]
	o := *p.o // shared with the reconciler's cache: copied, never changed
	o.ret, o.rday = "", 0
	p.out, p.o, p.enc = p.paidOut(), &o, nil
	m.changed = true
}

// letGo drops the credit held for s.pays[i]: the payment waits for a
// credit again, as it did before (no withdrawal: nothing had settled it).
func (m *mutation) letGo(s *acctState, i int) {
	p := &s.pays[i]
	p.out, p.o, p.enc = outNone, nil, nil
	m.changed = true
}

// takes reports whether credit b may settle payment p, or be held for
// it: p waits for a credit (open), or holds a credit still dated ahead
// and b is not held itself. A credit the bank books while a dubious one
// is held proves the money arrived: the held credit does not keep it
// from its payment (see displace).
func (m *mutation) takes(p *pay, b *booking) bool {
	if p.flags&(flagClosed|flagVoid) != 0 {
		return false
	}
	return p.open() || (p.out == outHeld && m.ahead(p.o.bday) && !m.holds(b))
}

// displace lets go the credit held for s.pays[i], which a credit not
// held is about to settle (takes), and returns it when it matches no
// other payment, for the caller to report unmatched: it is held for the
// payment's first waiting twin, as a freed credit is (rematch), or else
// it is as any credit that matches no waiting payment. It settled
// nothing, so there is no withdrawal, and the payment is no longer
// reported held by this call.
func (m *mutation) displace(s *acctState, i int) *outcome {
	p := &s.pays[i]
	freed, twin := p.o, *p
	m.letGo(s, i)
	m.round.Held = slices.DeleteFunc(m.round.Held, func(st State) bool { return st.Payment == p.id })
	if m.rematch(s, &twin, freed, true) {
		return nil
	}
	return freed
}

// unmatched reports credit o, known by its outcome, as matching no
// payment: in the call's Round.Unmatched, or, for a call that reports no
// Round (Status, Track), kept in s for the next Apply to report (see
// report), so that no credit is let go unreported.
// A reversal held of the credit (o.ret) is let go with it, and reported
// with it (unmatchedReversal).
func (m *mutation) unmatched(s *acctState, o *outcome) {
	if !m.reports {
		s.unreported = append(s.unreported, unreported{booking: o.booking, bday: o.bday, booked: o.booked})
		m.changed = true
	} else {
		m.round.Unmatched = append(m.round.Unmatched, Credit{Key: txsync.Key(o.booking), BookingDate: dateOf(o.bday), Amount: o.booked.money()})
	}
	if o.ret != "" {
		m.unmatchedReversal(s, o.ret, o.rday, o.booked.neg())
	}
}

// unmatchedReversal reports the reversal of key, day and amount a (the
// credit's, negated) as let go with a credit that settles no payment: in
// the call's Round.UnmatchedReversals, or, for a call that reports no
// Round, kept in s for the next Apply to report (see report), so that no
// reversal is let go unreported.
func (m *mutation) unmatchedReversal(s *acctState, key string, day int32, a amt) {
	if !m.reports {
		s.unreported = append(s.unreported, unreported{booking: key, bday: day, booked: a})
		m.changed = true
		return
	}
	m.round.UnmatchedReversals = append(m.round.UnmatchedReversals, Credit{Key: txsync.Key(key), BookingDate: dateOf(day), Amount: a.money()})
}

// report moves the credits kept to report (see unmatched) to the call's
// Round.Unmatched, first, once the call's delta is matched (rev its
// revisions): but those a payment now holds or was settled by (the bank
// changed the credit, and it was matched again), those the bank no
// longer lists or lists as pending again (let go, as a withdrawn held
// credit is; one booked again is matched anew), and those it changed so
// that they can no longer be read (revise reported them in
// Round.Unreadable as they now are).
func (m *mutation) report(s *acctState, rev *revisions) {
	if len(s.unreported) == 0 {
		return
	}
	skip := map[string]bool{}
	for _, k := range rev.gone {
		skip[string(k)] = true
	}
	for _, k := range rev.unbooked {
		skip[string(k)] = true
	}
	for i := range s.pays {
		if p := &s.pays[i]; p.out != outNone {
			skip[p.o.booking] = true
			if p.o.ret != "" {
				skip[p.o.ret] = true
			}
		}
	}
	for _, c := range m.round.Unreadable { // changed so, reported as it now is
		skip[string(c.Key)] = true
	}
	var out, revs []Credit
	for _, u := range s.unreported {
		if skip[u.booking] {
			continue
		}
		c := Credit{Key: txsync.Key(u.booking), BookingDate: dateOf(u.bday), Amount: u.booked.money()}
		if u.reversal() {
			revs = append(revs, c)
		} else {
			out = append(out, c)
		}
	}
	m.round.Unmatched = append(out, m.round.Unmatched...)
	if len(revs) > 0 {
		m.round.UnmatchedReversals = append(revs, m.round.UnmatchedReversals...)
	}
	s.unreported = nil
	m.changed = true
}

// rematch settles the first waiting twin of payment p (as it was when
// credit o settled it, before its rejection or cancellation freed o) by
// o: a payment of the same KID for a match by KID, of the same remittance
// text and amount for a match by text, whose dates admit the credit. The
// credit's own texts are not kept, so only a twin of the same facts is
// known to match it; another payment it would match waits for the bank's
// next change of the credit. A match by end-to-end id has no twin. A
// credit that was held (future: txsync flagged it booked in the future)
// is held for the twin while it is still ahead; one that was not takes a
// twin holding a credit still ahead too (takes), that credit let go
// (displace) and, matching no other payment, reported unmatched. A
// reversal held of the credit (o.ret) goes with it to the twin: held, or
// returning the twin once it is due. It reports whether a twin took the
// credit.
func (m *mutation) rematch(s *acctState, p *pay, o *outcome, future bool) bool {
	if o == nil || p.flags&flagClosed != 0 {
		return false
	}
	b := &booking{key: txsync.Key(o.booking), day: o.bday, amt: o.booked, future: future}
	views := map[int]*payView{}
	for j := range s.pays {
		q := &s.pays[j]
		if q.id == p.id || !m.takes(q, b) {
			continue
		}
		switch o.by {
		case ByKID:
			if p.kid == "" || q.kid != p.kid {
				continue
			}
		case ByRemittance:
			if p.text == "" || q.text != p.text || q.amt != p.amt {
				continue
			}
		default:
			continue
		}
		v := m.view(views, s, j)
		last := v.strong
		if o.by == ByRemittance {
			last = v.txt
		}
		if o.bday < v.created || o.bday > last {
			continue
		}
		if q.out == outHeld {
			if held := m.displace(s, j); held != nil {
				m.unmatched(s, held)
			}
		}
		m.settle(s, j, o.by, b)
		if q.paid() && o.ret != "" {
			// A reversal held of the credit goes with it: the twin
			// holds it, or is returned by it once it is due.
			r := *q.o
			r.ret, r.rday = o.ret, o.rday
			q.o, q.enc = &r, nil
			if m.ahead(o.rday) {
				q.out = outReturnHeld
				m.round.Held = append(m.round.Held, q.state(m.acct))
			} else {
				m.returned(s, j)
			}
		}
		return true
	}
	return false
}

// reverses reports whether debit b reverses the credit in p.o: the amount
// booked, in its currency, booked on or after the credit and within
// ReturnDays of it, with the payment's KID, end-to-end id or text.
func reverses(p *pay, b *booking) bool {
	if b.amt != p.o.booked.neg() || b.day < p.o.bday || b.day > p.o.bday+int32(ReturnDays) {
		return false
	}
	return (p.kid != "" && contains(b.kids, p.kid)) || (p.e2e != "" && b.e2e == p.e2e) ||
		(p.text != "" && textMatches(strings.Fields(p.text), b.words))
}

// reversedHold returns the index of the payment holding a credit (still
// ahead: see release) that debit b reverses, -1 when none: the money does
// not stay, so the credit must not settle the payment on its date. The
// payment first held goes first.
func (m *mutation) reversedHold(s *acctState, b *booking) int {
	if !b.amtOK {
		return -1
	}
	best := -1
	for i := range s.pays {
		p := &s.pays[i]
		if p.out != outHeld || p.o.booked.cur == "" || !reverses(p, b) {
			continue
		}
		if best < 0 || p.o.bday < s.pays[best].o.bday {
			best = i
		}
	}
	return best
}

// returnOf returns the index of the settled payment debit b reverses, -1
// when none: the amount booked, in its currency, booked on or after the
// credit and within ReturnDays of it, with the payment's KID, end-to-end
// id or text. The payment settled first goes first. A payment holding a
// reversal still ahead is returned by a debit not held itself (its held
// reversal let go), as a held credit gives way to a credit (takes), but
// only when no payment that holds none is: of twins, the one holding a
// reversal keeps it, and the other is returned.
func (m *mutation) returnOf(s *acctState, b *booking) int {
	if !b.amtOK {
		return -1
	}
	best, bestHolding := -1, -1
	for i := range s.pays {
		p := &s.pays[i]
		if !p.paid() || p.flags&flagClosed != 0 || p.o.booked.cur == "" {
			continue
		}
		if p.out == outReturnHeld && (m.holds(b) || !m.ahead(p.o.rday)) {
			continue
		}
		if !reverses(p, b) {
			continue
		}
		at := &best
		if p.out == outReturnHeld {
			at = &bestHolding
		}
		if *at < 0 || p.o.bday < s.pays[*at].o.bday {
			*at = i
		}
	}
	if best < 0 {
		return bestHolding
	}
	return best
}

// stalls flags the open, accepted payments whose window ended before
// today: this read of the account, after the window's last banking day,
// does not show their credit.
func (m *mutation) stalls(s *acctState) {
	for i := range s.pays {
		p := &s.pays[i]
		if p.waiting() && p.accepted != 0 && p.flags&flagStalled == 0 && m.today > p.deadline {
			p.flags |= flagStalled
			p.enc = nil
			m.announceOf(s, p, annStalled)
			m.round.Stalled = append(m.round.Stalled, p.state(m.acct))
			m.changed = true
		}
	}
}

// announceOf records that p's event of kind a is due, claimed by this
// call, when the reconciler emits events.
func (m *mutation) announceOf(s *acctState, p *pay, a uint8) {
	if !m.emitting {
		return
	}
	i := s.announced(p.id)
	if i < 0 {
		s.anns = append(s.anns, ann{id: p.id})
		i = len(s.anns) - 1
	}
	s.anns[i].bits |= a
	s.anns[i].lease = m.now
	if m.mine == nil {
		m.mine = map[string]bool{}
	}
	m.mine[p.id] = true
}

// claim takes over the announcements of calls that did not finish them
// within announceLease (or failed to emit them), and lists in m.announce
// the indexes of every announcement this call makes.
func (m *mutation) claim(s *acctState) {
	m.announce = m.announce[:0]
	for i := range s.anns {
		a := &s.anns[i]
		if a.bits == 0 {
			continue
		}
		switch {
		case m.mine[a.id]:
		case claimable(a, m.now):
			a.lease = m.now
			m.changed = true
		default:
			continue // another call is announcing it
		}
		m.announce = append(m.announce, i)
	}
}

// claimable reports whether another call may take a's announcements at
// now: their lease ran out, or lies impossibly far ahead.
func claimable(a *ann, now int64) bool {
	lease := int64(announceLease / time.Second)
	return a.bits != 0 && (now-a.lease >= lease || a.lease > now+lease)
}

// expire drops what the state need not keep: payments past Retention
// (with no announcement due, and holding no credit nor reversal: see
// below), the matching facts of payments closed (returned, not executed,
// or settled more than ReturnDays ago), and the bookings seen past
// Retention.
//
// A payment holding a credit or a reversal (outHeld, outReturnHeld) is
// kept past Retention until the hold ends: the first read from the day
// before the held item's date settles or returns the payment with it
// (release), or the bank withdraws or changes it. Dropped with the
// payment, the held item would be reported nowhere; and a call without
// a read (Status, Track) runs expire without release, so that an account
// not read for Retention would lose it. The hold is bounded: a held
// credit is dated within LateDays banking days of the window, a held
// reversal within ReturnDays of its credit.
//
// A payment with a credit (settled, or returned) is kept, too, as long as
// that credit is seen (booked), Retention after its date, which may be
// days after the payment's creation: a change of the credit the bank
// makes meanwhile finds the payment it settled, and withdraws the
// settlement (revise). Dropped before, the payment would leave the
// credit to be matched again as one that settled nothing, quietly: the
// settlement reported, and its change reported nowhere.
func (m *mutation) expire(s *acctState) {
	horizon := m.today - retentionDays
	// A payment created before this instant was created before the
	// horizon's bank date.
	before := dateOf(horizon).Time(date.Oslo()).Unix()
	kept := s.pays[:0]
	for i := range s.pays {
		p := s.pays[i]
		if p.created < before && s.announced(p.id) < 0 && p.out != outHeld && p.out != outReturnHeld && !p.booked(horizon) {
			m.changed = true
			continue
		}
		settledLong := (p.out == outSettled || p.out == outOther) && m.today > p.o.bday+int32(ReturnDays)
		if p.flags&flagClosed == 0 && (settledLong || p.out == outReturned || p.flags&flagVoid != 0) {
			p.flags |= flagClosed
			p.kid, p.e2e, p.text = "", "", ""
			p.enc = nil
			m.changed = true
		}
		kept = append(kept, p)
	}
	clear(s.pays[len(kept):])
	s.pays = kept
	seenKept := s.seen[:0]
	for _, e := range s.seen {
		if e.day >= horizon {
			seenKept = append(seenKept, e)
		} else {
			m.changed = true
		}
	}
	s.seen = seenKept
}

// lookupTTL is how long from now the key that finds the account of p
// (under "payment/") must live: as long as the state keeps p (see
// expire), a day more for replicas whose clocks differ. That is Retention
// after the bank date of its creation, or of its credit's date when later
// (the credit is kept seen so long); for a payment holding a credit or a
// reversal (kept until a read ends the hold) or kept past its retention
// for an announcement due, as long as the state itself (StateTTL, which
// every call that keeps it refreshes: see refreshLookups).
func lookupTTL(p *pay, now time.Time) time.Duration {
	if p.out == outHeld || p.out == outReturnHeld {
		return StateTTL
	}
	last := bankDay(time.Unix(p.created, 0))
	if p.out != outNone {
		last = max(last, p.o.bday)
	}
	// expire drops p from the bank day after last+retentionDays on.
	ttl := dateOf(last + retentionDays + 2).Time(date.Oslo()).Sub(now)
	if ttl <= 0 {
		return StateTTL
	}
	return ttl
}

// outlives reports whether s keeps p past what its retention alone
// gives it (lookupTTL): holding a credit or a reversal, or past its
// retention with an announcement due. The key that finds its account is
// refreshed by every call that keeps it.
func (s *acctState) outlives(p *pay, today int32) bool {
	if p.out == outHeld || p.out == outReturnHeld {
		return true
	}
	if s.announced(p.id) < 0 {
		return false
	}
	last := bankDay(time.Unix(p.created, 0))
	if p.out != outNone {
		last = max(last, p.o.bday)
	}
	return today > last+retentionDays
}

// fit encodes s and, when that is above maxStateBytes, lets go what
// matching no longer relies on until it fits: the oldest payments not
// executed (rejected or cancelled) that hold no credit and have no
// announcement due, then the oldest bookings seen that no payment holds
// (settled, returned or held by it, or its last withdrawn credit) and
// that are not kept to report (unreported), and last the oldest closed
// payments holding a credit, each with the bookings seen it holds
// (letGo): a change the bank later makes of such a credit then finds no
// trace of it and is matched anew, reported as a credit read for the
// first time, never matched again quietly as a credit that settled
// nothing (which keeping its booking seen without its payment did). It
// never lets go a waiting payment or one with an announcement due. It
// reports whether the state fits; when it does not, the call fails with
// ErrFull and nothing of it is stored.
func fit(s *acctState) ([]byte, bool) {
	b := encodeState(s)
	var held map[uint64]bool
	for len(b) > maxStateBytes {
		i := slices.IndexFunc(s.pays, func(p pay) bool {
			return p.out == outNone && !p.waiting() && s.announced(p.id) < 0
		})
		if i >= 0 {
			s.pays = slices.Delete(s.pays, i, i+1)
			b = encodeState(s)
			continue
		}
		if held == nil {
			held = s.heldKeys()
		}
		n, dropped := len(s.seen), 0
		s.seen = slices.DeleteFunc(s.seen, func(e seen) bool {
			if dropped < 64 && !held[e.kh] {
				dropped++
				return true
			}
			return false
		})
		if len(s.seen) == n {
			// Last: the oldest closed payment holding a credit, with
			// every booking it holds, so that a later change the bank
			// makes of that credit finds no trace of it and is matched
			// anew, reported as any credit read for the first time
			// (unmatched, or settling another payment), never quietly.
			j := slices.IndexFunc(s.pays, func(p pay) bool {
				return p.out != outNone && p.out != outReturnHeld && !p.waiting() && s.announced(p.id) < 0
			})
			if j < 0 {
				return b, false
			}
			s.letGo(j)
			held = nil
		}
		b = encodeState(s)
	}
	return b, true
}

// letGo removes the payment at i from s with the bookings seen it holds
// (its credit, its reversal, its last withdrawn credit): fit's last
// resort.
func (s *acctState) letGo(i int) {
	gone := map[uint64]bool{}
	s.pays[i].holds(gone)
	s.seen = slices.DeleteFunc(s.seen, func(e seen) bool { return gone[e.kh] })
	s.pays = slices.Delete(s.pays, i, i+1)
}

// heldKeys returns the hashes of the keys of the bookings the payments
// of s hold (the credit that settled, returned or is held for a payment,
// its reversal, held or not, and its last withdrawn credit) and of those
// kept to report: the bookings seen that fit never lets go.
func (s *acctState) heldKeys() map[uint64]bool {
	out := map[uint64]bool{}
	for i := range s.pays {
		s.pays[i].holds(out)
	}
	for _, u := range s.unreported {
		out[hashString(u.booking)] = true
	}
	return out
}

// holds adds to keys the hashes of the keys of the bookings p holds: the
// credit that settled, returned or is held for it, its reversal, held or
// not, and its last withdrawn credit.
func (p *pay) holds(keys map[uint64]bool) {
	if p.out != outNone {
		keys[hashString(p.o.booking)] = true
		if p.o.ret != "" {
			keys[hashString(p.o.ret)] = true
		}
	}
	if p.wd != nil {
		keys[hashString(p.wd.booking)] = true
	}
}

// state is the State of p on account acct.
func (p *pay) state(acct txsync.AccountKey) State {
	st := State{Payment: p.id, Account: acct, Scheme: p.scheme, Created: time.Unix(p.created, 0).UTC(),
		Instructed: p.amt.money(), Accepted: dateOf(p.accepted), Deadline: dateOf(p.deadline),
		WasStalled: p.flags&flagStalled != 0}
	out := p.out
	if out == outReturnHeld {
		out = p.paidOut()
	}
	switch {
	case out == outSettled:
		st.Settlement = Settled
	case out == outOther:
		st.Settlement = SettledOtherAmount
	case p.out == outReturned:
		st.Settlement = Returned
	case p.flags&flagVoid != 0:
		st.Settlement = NotExecuted
	case p.flags&flagWithdrawn != 0:
		st.Settlement = Withdrawn
	case p.flags&flagStalled != 0:
		st.Settlement = Stalled
	default:
		st.Settlement = Awaiting
	}
	switch p.out {
	case outSettled, outOther, outReturned, outReturnHeld:
		st.By, st.Booking, st.BookingDate, st.Booked = p.o.by, txsync.Key(p.o.booking), dateOf(p.o.bday), p.o.booked.money()
		st.Late = p.flags&flagLate != 0
	case outHeld:
		st.HeldBooking, st.HeldBookingDate = txsync.Key(p.o.booking), dateOf(p.o.bday)
	}
	switch p.out {
	case outReturned:
		st.Reversal, st.ReversalDate = txsync.Key(p.o.ret), dateOf(p.o.rday)
	case outReturnHeld:
		st.HeldReversal, st.HeldReversalDate = txsync.Key(p.o.ret), dateOf(p.o.rday)
	}
	if p.flags&flagWithdrawn != 0 {
		st.Withdrawals, st.WithdrawnBooking = int(p.wd.n), txsync.Key(p.wd.booking)
		st.WithdrawnBookingDate, st.WithdrawnAmount = dateOf(p.wd.bday), p.wd.booked.money()
	}
	return st
}
