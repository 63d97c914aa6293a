package syncscript

import (
	"context"
	"fmt"

	"github.com/tppkit/psd2/txsync"
)

// Round is one day of the month as the TPP saw it.
type Round struct {
	Day    int
	Events []Event
	// Linked is set on day 0 and on the re-consent day: the accounts
	// linked under the (new) consent.
	Linked *txsync.Linked
	// Deltas are the sync's reads of each account, in the order of the
	// accounts.
	Deltas []*txsync.Delta
}

// Outcome is the month's score for each way of keeping a ledger, summed
// over the accounts after the last round, and the sync's state size.
type Outcome struct {
	// Sync is the ledger kept by txsync's keys.
	Sync Score
	// Cursor is the ledger kept with a "new booked" cursor ([Cursor]), as
	// a TPP that trusts the bank's ids does: the re-consent's new resource ids start new jobs with
	// new cursors. CursorCarried keeps each account's cursor across the
	// re-consent (a TPP that mapped the accounts itself).
	Cursor, CursorCarried Score
	// StateBytes is the largest state of an account in the store over
	// the month.
	StateBytes int
	// Rounds is the number of reads per account (day 0 included).
	Rounds int
}

// Month plays the month from day 0 to [Days]: each day the bank's events,
// then the TPP's reads of every account with the sync and with the "new
// booked" cursor (fresh and carried). each, when not nil, sees every
// round.
func Month(ctx context.Context, w *World, s *txsync.Syncer, each func(Round)) (Outcome, error) {
	n := len(w.Customer.Accounts)
	ledgers := make([]*SyncLedger, n)
	fresh, carried := make([]CursorLedger, n), make([]CursorLedger, n)
	freshCur, carriedCur := make([]Cursor, n), make([]Cursor, n)
	for i := range ledgers {
		ledgers[i] = NewSyncLedger()
	}
	var out Outcome
	for day := 0; day <= Days; day++ {
		round := Round{Day: day}
		if day > 0 {
			ev, err := w.Advance(ctx, day)
			if err != nil {
				return out, err
			}
			round.Events = ev
		}
		if day == 0 || day == ReconsentDay {
			listed, err := w.List(ctx)
			if err != nil {
				return out, fmt.Errorf("list: %w", err)
			}
			if round.Linked, err = s.Link(ctx, w.Owner, listed, nil); err != nil {
				return out, err
			}
			if day == ReconsentDay {
				clear(freshCur) // new resource ids: new jobs
			}
		}
		ids := w.AccountIDs()
		for i, id := range ids {
			d, err := s.Sync(ctx, w.Svc, id, w.Session.RequestOptions(nil))
			if err != nil {
				return out, fmt.Errorf("day %d: sync: %w", day, err)
			}
			round.Deltas = append(round.Deltas, d)
			ledgers[i].Apply(d)
			key, err := s.KeyOf(ctx, id)
			if err != nil {
				return out, err
			}
			if b, err := s.StateSize(ctx, key); err == nil && b > out.StateBytes {
				out.StateBytes = b
			}
		}
		for _, v := range []struct {
			cur    []Cursor
			ledger []CursorLedger
		}{{freshCur, fresh}, {carriedCur, carried}} {
			for i, id := range ids {
				booked, pending, next, err := ReadNew(ctx, w.Svc, id, v.cur[i], w.Clock.Now(), w.Session.RequestOptions(nil))
				if err != nil {
					return out, fmt.Errorf("day %d: cursor read: %w", day, err)
				}
				v.cur[i] = next
				v.ledger[i].Apply(booked, pending)
			}
		}
		if each != nil {
			each(round)
		}
		out.Rounds++
	}
	for i := range ledgers {
		truth := w.Truth(i)
		out.Sync = out.Sync.Add(ledgers[i].Score(truth))
		out.Cursor = out.Cursor.Add(fresh[i].Score(truth))
		out.CursorCarried = out.CursorCarried.Add(carried[i].Score(truth))
	}
	return out, nil
}
