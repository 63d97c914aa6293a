package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tppkit/psd2/store"
)

// DowntimeRecord is one downtime record of a bank as the client's store
// holds it, for an operator who lists and repairs them
// ([Client.DowntimeRecords], [Client.ForgetDowntime]).
type DowntimeRecord struct {
	// ID names the record in the store: the start it was first written
	// with, in Unix nanoseconds and 20 decimal digits. It stays the
	// record's while replicas merge their accounts into it (its Start
	// may then be earlier).
	ID string `json:"id"`
	// Downtime is the record as stored (zero when Unreadable). Its
	// EndAssumed is set as [Client.Downtimes] gives it: never written,
	// the next record's start taken as its end.
	Downtime Downtime `json:"downtime"`
	// Unreadable says the record could not be decoded: when its outage
	// was, and how long, is unknown ([Client.Downtimes] fails on it).
	Unreadable bool `json:"unreadable,omitempty"`
}

// Blocking reports whether r keeps every period it may reach into from
// having figures: it cannot be decoded, or it ends before it starts
// ([Downtime.Backwards]). Only such a record may be forgotten
// ([Client.ForgetDowntime]).
func (r DowntimeRecord) Blocking() bool { return r.Unreadable || r.Downtime.Backwards() }

// ErrNoDowntimeRecord is matched (errors.Is) by the error of
// [Client.ForgetDowntime] for an ID under which the store holds no
// downtime record of the client's bank (never written, expired, removed
// or another bank's).
var ErrNoDowntimeRecord = errors.New("client: no downtime record with this ID")

// ErrDowntimeRecordSummable is matched (errors.Is) by the error of
// [Client.ForgetDowntime] for a record that is readable and does not
// end before it starts (maybe no longer: a replica merged its account
// into it): reports count it, and removing it would take its outage out
// of them.
var ErrDowntimeRecordSummable = errors.New("client: the downtime record is readable and ends after it starts")

// DowntimeRecords returns every downtime record of the client's bank the
// store holds, in the order of their IDs (their first starts), each
// with its ID, the unreadable ones included (Unreadable), so that an
// operator can see, and name, the record that keeps reports from giving
// figures. A record the store holds but could not give is an error,
// never left out. At most [MaxDowntimes] records are kept per bank, but
// a store written before the bound may hold more: they are all read.
func (c *Client) DowntimeRecords(ctx context.Context) ([]DowntimeRecord, error) {
	prefix := downtimePrefix(c.Scope())
	var out []DowntimeRecord
	for key, err := range c.cfg.store.Keys(ctx, prefix) {
		if err != nil {
			return nil, fmt.Errorf("client: reading downtime records: %w", err)
		}
		raw, err := c.cfg.store.Get(ctx, key)
		if errors.Is(err, store.ErrNotStored) {
			continue // expired or removed since
		}
		if err != nil {
			return nil, fmt.Errorf("client: reading downtime records: %w", err)
		}
		r := DowntimeRecord{ID: strings.TrimPrefix(key, prefix)}
		r.Downtime, r.Unreadable = decodeDowntime(raw)
		// A record never ended that a later one follows ends at its
		// start, as Downtimes gives it.
		if n := len(out); n > 0 && !out[n-1].Unreadable && out[n-1].Downtime.End.IsZero() && !r.Unreadable {
			out[n-1].Downtime.End, out[n-1].Downtime.EndAssumed = r.Downtime.Start, true
		}
		out = append(out, r)
	}
	return out, nil
}

// decodeDowntime decodes a stored record, reporting whether it cannot
// be (as Downtimes reads it: no start is no record).
func decodeDowntime(raw []byte) (Downtime, bool) {
	var d Downtime
	if json.Unmarshal(raw, &d) != nil || d.Start.IsZero() {
		return Downtime{}, true
	}
	return d, false
}

// ForgetDowntime removes the client's bank's downtime record id (from
// [Client.DowntimeRecords]) from the store, and returns it as it was
// removed: for an operator whose reports a record keeps from having
// figures ([DowntimeRecord.Blocking]: one that ends before it starts,
// which [Client.Downtimes] gives to every period it may reach into, the
// latest for good, or one that cannot be decoded). It removes that
// record only, and only such a record: a readable one that ends after it
// starts, or never ended, is refused ([ErrDowntimeRecordSummable]), as
// removing it would take its outage out of every report; an id that
// names no record of the bank is refused ([ErrNoDowntimeRecord]). The
// record is read and removed in one [store.Store.Update], atomic against
// the replicas that write records meanwhile: a replica's account merged
// into it before is judged with it (and refused when it ended the record
// after its start), one merged after is written as a record again, and
// every other record is left as it is.
//
// The outage the removed record told of is then in no report: a report
// that gave no figure of a period for it gives them without it. The
// caller keeps what it returns (the operator's file of the complaint).
func (c *Client) ForgetDowntime(ctx context.Context, id string) (DowntimeRecord, error) {
	if id == "" || strings.Contains(id, "/") {
		return DowntimeRecord{}, fmt.Errorf("%w: %q is no record ID", ErrNoDowntimeRecord, id)
	}
	key := downtimePrefix(c.Scope()) + id
	if err := store.CheckKey(key); err != nil {
		return DowntimeRecord{}, fmt.Errorf("%w: %q is no record ID", ErrNoDowntimeRecord, id)
	}
	var got DowntimeRecord
	err := c.cfg.store.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		if !found {
			return nil, 0, fmt.Errorf("%w: %s", ErrNoDowntimeRecord, id)
		}
		r := DowntimeRecord{ID: id}
		r.Downtime, r.Unreadable = decodeDowntime(old)
		if !r.Blocking() {
			return nil, 0, fmt.Errorf("%w: %s (from %s) is counted by reports; it is kept", ErrDowntimeRecordSummable, id, r.Downtime.Start.UTC().Format(time.RFC3339Nano))
		}
		got = r
		return nil, 0, nil // a nil value deletes the key
	})
	if err != nil {
		return DowntimeRecord{}, err
	}
	return got, nil
}
