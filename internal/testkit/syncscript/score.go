package syncscript

import (
	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/txsync"
)

// Score is how a TPP's ledger of an account compares with the bank's list.
type Score struct {
	// Duplicates are entries the ledger holds more often than the bank;
	// Missed those it holds less often (or not at all, or in an old
	// version).
	Duplicates, Missed int
	// FalseChanges are changes reported for entries whose facts did not
	// change, or that pair two different purchases (the script never
	// changes an entry's counterparty or text).
	FalseChanges int
}

// Add sums two scores.
func (s Score) Add(o Score) Score {
	return Score{s.Duplicates + o.Duplicates, s.Missed + o.Missed, s.FalseChanges + o.FalseChanges}
}

// compare scores have against the bank's list truth, as multisets of
// facts.
func compare(have, truth []Fact) Score {
	n := map[Fact]int{}
	for _, f := range have {
		n[f]++
	}
	for _, f := range truth {
		n[f]--
	}
	var s Score
	for _, c := range n {
		if c > 0 {
			s.Duplicates += c
		} else {
			s.Missed -= c
		}
	}
	return s
}

// SyncLedger is a TPP's ledger kept by txsync keys: it applies each
// Delta.
type SyncLedger struct {
	byKey        map[txsync.Key]Fact
	dupKeys      int
	falseChanges int
}

// NewSyncLedger returns an empty ledger.
func NewSyncLedger() *SyncLedger { return &SyncLedger{byKey: map[txsync.Key]Fact{}} }

// Apply applies a read's delta.
func (l *SyncLedger) Apply(d *txsync.Delta) {
	for _, e := range d.Added {
		if _, ok := l.byKey[e.Key]; ok {
			l.dupKeys++
		}
		l.byKey[e.Key] = FactOf(e.Transaction)
	}
	for _, c := range d.Changed {
		now := FactOf(c.Transaction)
		prev := Fact{Pending: c.Previous.Status == accounts.BookingPending, Date: c.Previous.BookingDate,
			Amount: c.Previous.Amount, Party: c.Previous.Counterparty, Text: c.Previous.Text}
		// Nothing changed, or what the script never changes (the
		// counterparty and text of an entry): another purchase took the
		// entry's key.
		if prev == now || prev.Party != now.Party || prev.Text != now.Text {
			l.falseChanges++
		}
		l.byKey[c.Key] = now
	}
	for _, r := range d.Removed {
		delete(l.byKey, r.Key)
	}
}

// Score scores the ledger against truth.
func (l *SyncLedger) Score(truth []Fact) Score {
	have := make([]Fact, 0, len(l.byKey))
	for _, f := range l.byKey {
		have = append(have, f)
	}
	s := compare(have, truth)
	s.Duplicates += l.dupKeys
	s.FalseChanges = l.falseChanges
	return s
}

// CursorLedger is a TPP's ledger kept with a "new booked" cursor's reads
// ([ReadNew]): every booked entry a result reports is added, and the pending
// list replaces the one before.
type CursorLedger struct {
	booked, pending []Fact
}

// Apply applies one result's booked and pending entries.
func (l *CursorLedger) Apply(booked, pending []accounts.Transaction) {
	for i := range booked {
		l.booked = append(l.booked, FactOf(&booked[i]))
	}
	l.pending = l.pending[:0]
	for i := range pending {
		l.pending = append(l.pending, FactOf(&pending[i]))
	}
}

// Score scores the ledger against truth.
func (l *CursorLedger) Score(truth []Fact) Score {
	return compare(append(append([]Fact(nil), l.booked...), l.pending...), truth)
}
