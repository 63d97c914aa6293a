package txsync

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"time"

	"github.com/tppkit/psd2/date"
)

// The encoded state starts with a version byte:
//
//   - stateVersion (2): the body, then the CRC-64 (ECMA) of the version
//     byte and the body, 8 bytes big-endian. Any corruption of a stored
//     state (a bit flipped, bytes lost or added) fails the check:
//     [ErrCorruptState], never another state that would report entries
//     twice or changes that did not happen.
//   - legacyVersion (1): the body of the states written before the
//     checksum, without one. It is still read, strictly (every field in
//     range, no trailing byte), and written back as version 2 by the next
//     read; a version-2 state whose version byte alone was changed to 1
//     is recognised by its checksum and refused.
//
// Any other first byte is corrupt to this version of the package.
//
// The body: uvarints Newest (a date, below), Seq, Reads and the number of
// entries, then per entry uvarints Seq and Occ, FP and Core as 8 bytes
// each, a flags byte (1: pending; 2: card facts follow, version 2 only),
// the id, the booking and value dates, the amount, the currency, the
// counterparty and the text, then, with flag 2, the transaction date, the
// original amount and its currency. A string is a uvarint length and its
// bytes; a date the uvarint year*416 + month*32 + day, 0 for the zero
// date. About 60 bytes an entry besides its texts: a third of compact
// JSON, and a tenth of its CPU.
const (
	stateVersion  = 2
	legacyVersion = 1
)

// Entry flags.
const (
	flagPending = 1 << iota
	flagCard
)

var crcTable = crc64.MakeTable(crc64.ECMA)

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

// storableDate reports whether appendDate writes d so that reader.date
// reads it back: the zero date, or a valid date of the years 0000 to 9999
// (what a YYYY-MM-DD date can write; date.Parse reads no other).
func storableDate(d date.Date) bool {
	return d.IsZero() || d.Year >= 0 && d.Year <= 9999 && d.Month >= 1 && d.Month <= 12 && d.Day >= 1 && d.Day <= 31
}

// errUnstorableDate: a state would hold a date its reader refuses.
var errUnstorableDate = errors.New("txsync: a date outside years 0000 to 9999 cannot be stored")

func encodeState(s state) ([]byte, error) {
	// A state written with a date it cannot read back would make every
	// later From and Apply of the account fail (ErrCorruptState): refuse
	// to write it instead.
	if !storableDate(s.Newest) {
		return nil, errUnstorableDate
	}
	for i := range s.Entries {
		e := &s.Entries[i]
		if !storableDate(e.Booking) || !storableDate(e.Value) || !storableDate(e.Txn) {
			return nil, errUnstorableDate
		}
	}
	b := make([]byte, 0, 24+len(s.Entries)*96)
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
			flags |= flagPending
		}
		card := !e.Txn.IsZero() || e.Orig != "" || e.OrigCur != ""
		if card {
			flags |= flagCard
		}
		b = append(b, flags)
		b = appendString(b, e.ID)
		b = appendDate(b, e.Booking)
		b = appendDate(b, e.Value)
		for _, s := range [...]string{e.Amount, e.Cur, e.Party, e.Text} {
			b = appendString(b, s)
		}
		if card {
			b = appendDate(b, e.Txn)
			b = appendString(b, e.Orig)
			b = appendString(b, e.OrigCur)
		}
	}
	return binary.BigEndian.AppendUint64(b, crc64.Checksum(b, crcTable)), nil
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

// checksummed reports whether b (version byte included) ends in the
// checksum of the rest.
func checksummed(b []byte) bool {
	n := len(b) - 8
	return n > 0 && crc64.Checksum(b[:n], crcTable) == binary.BigEndian.Uint64(b[n:])
}

// decodeState reads a stored state; not found is the empty state. Every
// value the package did not write is [ErrCorruptState].
func decodeState(b []byte, found bool) (state, error) {
	if !found {
		return state{}, nil
	}
	if len(b) == 0 {
		return state{}, fmt.Errorf("%w: empty", ErrCorruptState)
	}
	var body []byte
	switch b[0] {
	case stateVersion:
		if !checksummed(b) {
			return state{}, fmt.Errorf("%w: checksum", ErrCorruptState)
		}
		body = b[1 : len(b)-8]
	case legacyVersion:
		// A version-2 state with its version byte changed reads as one
		// of version 1 (whose body it holds) followed by 8 bytes; its
		// checksum gives it away.
		v2 := append([]byte{stateVersion}, b[1:]...)
		if checksummed(v2) {
			return state{}, fmt.Errorf("%w: version byte", ErrCorruptState)
		}
		body = b[1:]
	default:
		if b[0] > stateVersion && checksummed(b) {
			// A later release's form, the envelope sound (see
			// ErrNewerState).
			return state{}, fmt.Errorf("%w (form %d; this release reads forms %d and %d)", ErrNewerState, b[0], legacyVersion, stateVersion)
		}
		return state{}, fmt.Errorf("%w: version %d", ErrCorruptState, b[0])
	}
	s, err := decodeBody(body, b[0])
	if err != nil {
		return state{}, fmt.Errorf("%w: %v", ErrCorruptState, err)
	}
	return s, nil
}

func decodeBody(b []byte, version byte) (state, error) {
	var s state
	r := &reader{b: b}
	s.Newest = r.date()
	s.Seq = r.uvarint()
	s.Reads = r.uvarint()
	n := r.uvarint()
	if r.err != nil {
		return state{}, r.err
	}
	if n > uint64(len(r.b))/20 { // an entry takes at least 20 bytes
		return state{}, fmt.Errorf("%d entries in %d bytes", n, len(r.b))
	}
	if n > 0 {
		s.Entries = make([]stored, n)
	}
	flagsKnown := byte(flagPending)
	if version == stateVersion {
		flagsKnown |= flagCard
	}
	for i := range s.Entries {
		e := &s.Entries[i]
		e.Seq = r.uvarint()
		occ := r.uvarint()
		if occ > 1<<30 || (r.err == nil && e.Seq > s.Seq) {
			return state{}, errors.New("entry out of range")
		}
		e.Occ = int(occ)
		e.FP, e.Core = r.fixed(), r.fixed()
		flags := r.byte()
		if flags&^flagsKnown != 0 {
			return state{}, fmt.Errorf("flags %#x", flags)
		}
		e.Pending = flags&flagPending != 0
		e.ID = r.string()
		e.Booking, e.Value = r.date(), r.date()
		e.Amount, e.Cur, e.Party, e.Text = r.string(), r.string(), r.string(), r.string()
		if flags&flagCard != 0 {
			e.Txn = r.date()
			e.Orig, e.OrigCur = r.string(), r.string()
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("trailing bytes")
	}
	if r.err != nil {
		return state{}, r.err
	}
	return s, nil
}
