package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
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
func (c *Client) DowntimeRecords(ctx context.Context) (_ []DowntimeRecord, err error) {
	prefix := downtimePrefix(c.Scope())
	var out []DowntimeRecord
	for key, raw := range storedUnder(ctx, c.cfg.store, prefix, &err) {
		r := DowntimeRecord{ID: strings.TrimPrefix(key, prefix)}
		r.Downtime, r.Unreadable = decodeDowntime(raw)
		// A record never ended that a later one follows ends at its
		// start, as Downtimes gives it.
		if n := len(out); n > 0 && !out[n-1].Unreadable && out[n-1].Downtime.End.IsZero() && !r.Unreadable {
			out[n-1].Downtime.End, out[n-1].Downtime.EndAssumed = r.Downtime.Start, true
		}
		out = append(out, r)
	}
	if err != nil {
		return nil, fmt.Errorf("client: reading downtime records: %w", err)
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

// ForgottenDowntime is the trace [Client.ForgetDowntime] keeps of a
// record it removed, for [DowntimeKept]: who removed it, when and why,
// and the record as it was, so that a report of a period its outage may
// have reached into says it is not in the figures
// ([Client.ForgottenDowntimes]).
type ForgottenDowntime struct {
	DowntimeRecord
	// By is who removed it (an operator's id), Reason why, At when.
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// Reaches reports whether the outage f's record told of may have
// reached into [from, to): it may have begun by the earlier of its times
// (for an unreadable record, any time) and run on until it was forgotten.
func (f ForgottenDowntime) Reaches(from, to time.Time) bool {
	if !f.At.After(from) {
		return false
	}
	if f.Unreadable {
		return true
	}
	begun := f.Downtime.Start
	if !f.Downtime.End.IsZero() {
		begun = earliest(begun, f.Downtime.End)
	}
	return begun.Before(to)
}

// maxForgetText bounds ForgetDowntime's by and reason.
const maxForgetText = 512

// forgottenPrefix is the store prefix of the traces of a bank's
// forgotten downtime records: the record's ID, then the time it was
// forgotten in 20 decimal digits.
func forgottenPrefix(scope string) string { return "client/downtime-forgotten/" + scope + "/" }

// ForgetDowntime removes the client's bank's downtime record id (from
// [Client.DowntimeRecords]) from the store, by, an operator, for
// reason: for a record that keeps reports from figures
// ([DowntimeRecord.Blocking]: one that ends before it starts, which
// [Client.Downtimes] gives to every period it may reach into, the latest
// for good, or one that cannot be decoded), once what is known of its
// outage is filed. It removes that record only, and only such a record:
// a readable one that ends after it starts, or never ended, is refused
// ([ErrDowntimeRecordSummable]), as removing it would take its outage
// out of every report; an id that names no record of the bank is
// refused ([ErrNoDowntimeRecord]); by and reason must be given. A
// refusal changes nothing.
//
// Before the record goes, a trace of it is kept ([ForgottenDowntime],
// for [DowntimeKept]): a report of a period its outage may have reached
// into gives figures without it, and says so. The record is then
// removed in one [store.Store.Update], only when it is still as it was
// read: replicas that write records meanwhile lose nothing (a record
// another writes is left as it is, one merged into this record first has
// the forget refused and the trace removed, one merged after it is
// written as a record again). It returns the trace.
func (c *Client) ForgetDowntime(ctx context.Context, id, by, reason string) (ForgottenDowntime, error) {
	for _, f := range []struct{ name, v string }{{"by", by}, {"reason", reason}} {
		if strings.TrimSpace(f.v) == "" || len(f.v) > maxForgetText {
			return ForgottenDowntime{}, fmt.Errorf("client: forgetting a downtime record: %s must have 1 to %d bytes", f.name, maxForgetText)
		}
	}
	if id == "" || strings.Contains(id, "/") {
		return ForgottenDowntime{}, fmt.Errorf("%w: %q is no record ID", ErrNoDowntimeRecord, id)
	}
	key := downtimePrefix(c.Scope()) + id
	if err := store.CheckKey(key); err != nil {
		return ForgottenDowntime{}, fmt.Errorf("%w: %q is no record ID", ErrNoDowntimeRecord, id)
	}
	raw, err := c.cfg.store.Get(ctx, key)
	if errors.Is(err, store.ErrNotStored) {
		return ForgottenDowntime{}, fmt.Errorf("%w: %s", ErrNoDowntimeRecord, id)
	}
	if err != nil {
		return ForgottenDowntime{}, fmt.Errorf("client: forgetting a downtime record: %w", err)
	}
	f := ForgottenDowntime{DowntimeRecord: DowntimeRecord{ID: id}, By: strings.TrimSpace(by), Reason: strings.TrimSpace(reason), At: c.cfg.clock().UTC()}
	f.Downtime, f.Unreadable = decodeDowntime(raw)
	if !f.Blocking() {
		return ForgottenDowntime{}, summableError(id, f.Downtime)
	}
	trace, err := json.Marshal(f)
	if err != nil {
		return ForgottenDowntime{}, fmt.Errorf("client: forgetting a downtime record: %w", err)
	}
	traceKey := forgottenPrefix(c.Scope()) + id + "/" + fmt.Sprintf("%020d", f.At.UnixNano())
	if err := c.cfg.store.Put(ctx, traceKey, trace, DowntimeKept); err != nil {
		return ForgottenDowntime{}, fmt.Errorf("client: forgetting a downtime record: keeping its trace: %w", err)
	}
	err = c.cfg.store.Update(ctx, key, func(old []byte, found bool) ([]byte, time.Duration, error) {
		switch {
		case !found:
			return nil, 0, fmt.Errorf("%w: %s (it went meanwhile)", ErrNoDowntimeRecord, id)
		case !bytes.Equal(old, raw):
			// A replica merged its account into it: judged anew.
			d, unreadable := decodeDowntime(old)
			if !unreadable && !d.Backwards() {
				return nil, 0, summableError(id, d)
			}
			return nil, 0, fmt.Errorf("%w: %s", ErrDowntimeRecordChanged, id)
		}
		return nil, 0, nil // a nil value deletes the key
	})
	if err != nil {
		// Best effort: a trace left of a record kept says only that a
		// report may lack an outage it has.
		_ = c.cfg.store.Delete(context.WithoutCancel(ctx), traceKey)
		return ForgottenDowntime{}, err
	}
	return f, nil
}

// ErrDowntimeRecordChanged is matched (errors.Is) by the error of
// [Client.ForgetDowntime] when a replica wrote into the record between
// its reading and its removal: nothing was changed; look at it again.
var ErrDowntimeRecordChanged = errors.New("client: the downtime record changed meanwhile")

// summableError is ForgetDowntime's refusal of a record reports count.
func summableError(id string, d Downtime) error {
	return fmt.Errorf("%w: %s (from %s) is counted by reports; it is kept", ErrDowntimeRecordSummable, id, d.Start.UTC().Format(time.RFC3339Nano))
}

// ForgottenDowntimes returns the traces of the client's bank's downtime
// records that [Client.ForgetDowntime] removed in the last
// [DowntimeKept], in the order of the records' IDs: a report of a period
// one of them may have reached into ([ForgottenDowntime.Reaches]) gives
// figures without its outage. A trace the store holds but could not
// give, or gave unreadable, is an error.
func (c *Client) ForgottenDowntimes(ctx context.Context) (_ []ForgottenDowntime, err error) {
	prefix := forgottenPrefix(c.Scope())
	var out []ForgottenDowntime
	for key, raw := range storedUnder(ctx, c.cfg.store, prefix, &err) {
		var f ForgottenDowntime
		if json.Unmarshal(raw, &f) != nil || f.At.IsZero() {
			return nil, fmt.Errorf("client: reading forgotten downtime records: the trace %s is unreadable", strings.TrimPrefix(key, prefix))
		}
		out = append(out, f)
	}
	if err != nil {
		return nil, fmt.Errorf("client: reading forgotten downtime records: %w", err)
	}
	return out, nil
}

// storedUnder yields each key of st under prefix, in the store's order,
// with its value; a key removed or expired between the listing and its
// read is passed over. An error of either ends the sequence and is set
// in *errp (which stays nil otherwise): a value the store holds but
// could not give is never left out quietly.
func storedUnder(ctx context.Context, st store.Store, prefix string, errp *error) iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		for key, err := range st.Keys(ctx, prefix) {
			if err != nil {
				*errp = err
				return
			}
			raw, err := st.Get(ctx, key)
			if errors.Is(err, store.ErrNotStored) {
				continue // expired or removed since
			}
			if err != nil {
				*errp = err
				return
			}
			if !yield(key, raw) {
				return
			}
		}
	}
}
