package txsync

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/tppkit/psd2/date"
)

// stateVersion starts an encoded state; a state of another version is
// corrupt to this one.
const stateVersion = 1

// The encoded state: the version byte, then uvarints Newest (a date,
// below), Seq, Reads and the number of entries, then per entry uvarints
// Seq and Occ, FP and Core as 8 bytes each, a flags byte (1: pending),
// the id, the booking and value dates, the amount, the currency, the
// counterparty and the text. A string is a uvarint length and its bytes;
// a date the uvarint year*416 + month*32 + day, 0 for the zero date.
// About 60 bytes an entry besides its texts: a third of compact JSON, and
// a tenth of its CPU.

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendDate(b []byte, d date.Date) []byte {
	if d.IsZero() {
		return binary.AppendUvarint(b, 0)
	}
	return binary.AppendUvarint(b, uint64(d.Year)*416+uint64(d.Month)*32+uint64(d.Day))
}

func encodeState(s state) ([]byte, error) {
	b := make([]byte, 0, 16+len(s.Entries)*96)
	b = append(b, stateVersion)
	b = appendDate(b, s.Newest)
	b = binary.AppendUvarint(b, s.Seq)
	b = binary.AppendUvarint(b, s.Reads)
	b = binary.AppendUvarint(b, uint64(len(s.Entries)))
	for i := range s.Entries {
		e := &s.Entries[i]
		b = binary.AppendUvarint(b, e.Seq)
		b = binary.AppendUvarint(b, uint64(e.Occ))
		b = binary.BigEndian.AppendUint64(b, e.FP)
		b = binary.BigEndian.AppendUint64(b, e.Core)
		var flags byte
		if e.Pending {
			flags = 1
		}
		b = append(b, flags)
		b = appendString(b, e.ID)
		b = appendDate(b, e.Booking)
		b = appendDate(b, e.Value)
		for _, s := range [...]string{e.Amount, e.Cur, e.Party, e.Text} {
			b = appendString(b, s)
		}
	}
	return b, nil
}

// reader reads an encoded state; the first error sticks.
type reader struct {
	b   []byte
	err error
}

var errShort = errors.New("truncated or malformed")

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) fixed() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = errShort
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) < 1 {
		r.err = errShort
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) string() string {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errShort
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) date() date.Date {
	v := r.uvarint()
	if v == 0 || r.err != nil {
		return date.Date{}
	}
	y, m, d := v/416, (v%416)/32, v%32
	if m < 1 || m > 12 || d < 1 || d > 31 || y > 9999 {
		r.err = errShort
		return date.Date{}
	}
	return date.Date{Year: int(y), Month: time.Month(m), Day: int(d)}
}

func decodeState(b []byte, found bool) (state, error) {
	var s state
	if !found || len(b) == 0 {
		return s, nil
	}
	if b[0] != stateVersion {
		return state{}, fmt.Errorf("%w: version %d", ErrCorruptState, b[0])
	}
	r := &reader{b: b[1:]}
	s.Newest = r.date()
	s.Seq = r.uvarint()
	s.Reads = r.uvarint()
	n := r.uvarint()
	if n > uint64(len(r.b))/20 { // an entry takes at least 20 bytes
		return state{}, fmt.Errorf("%w: %d entries in %d bytes", ErrCorruptState, n, len(r.b))
	}
	if n > 0 {
		s.Entries = make([]stored, n)
	}
	for i := range s.Entries {
		e := &s.Entries[i]
		e.Seq = r.uvarint()
		occ := r.uvarint()
		e.Occ = int(min(occ, 1<<30))
		e.FP, e.Core = r.fixed(), r.fixed()
		e.Pending = r.byte()&1 != 0
		e.ID = r.string()
		e.Booking, e.Value = r.date(), r.date()
		e.Amount, e.Cur, e.Party, e.Text = r.string(), r.string(), r.string(), r.string()
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return state{}, fmt.Errorf("%w: %v", ErrCorruptState, r.err)
	}
	return s, nil
}
