package reconcile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"slices"
	"strings"
)

// The state of a watched account, one value in the store under
// "reconcile/account/<account key>", read and written with one atomic
// store.Update by every call that changes it, so that replicas sharing
// the store match each payment and each booking at most once.
//
// Its encoding starts with a version byte (stateVersion), then:
// uvarint since (the day the account was first watched), uvarint count
// of payments and each payment, uvarint count of the bookings seen and
// each (two 8-byte hashes and a uvarint day), and ends with the CRC-64
// (ECMA) of everything before it, 8 bytes big-endian: a state the store
// changed in any way is [ErrCorruptState], never read as another.
//
// A payment: its request id, varint created (Unix seconds), the scheme
// byte, the instructed amount, KID, end-to-end id and remittance words
// (empty once the payment is closed), uvarint execution date, accepted
// date and deadline, a flags byte, the outcome byte and, with one, the
// evidence byte, the booking key, its day and the amount booked, and for
// a return the reversal's key and day; then the announcements still to
// make and, with any, varint when they were last claimed. A string is a
// uvarint length and its bytes; an amount a zigzag varint of units, a
// scale byte and the currency; a day a uvarint day number (days since
// 1970-01-01, 0 for none).
const stateVersion = 1

// Payment flags.
const (
	flagVoid    = 1 << iota // rejected or cancelled: no credit is expected
	flagStalled             // flagged stalled (the event may be due still)
	flagLate                // its credit was booked after the window
	flagClosed              // matching facts dropped: settled past ReturnDays, returned or void
)

// Outcomes.
const (
	outNone uint8 = iota
	outSettled
	outOther // settled with another amount
	outReturned
)

// Announcements (events still to emit).
const (
	annSettled uint8 = 1 << iota
	annStalled
	annReturned
)

// ErrCorruptState matches the error of every call that meets a stored
// state that fails its checksum or cannot be read (bytes lost, added or
// changed by the store, or a value something else wrote): nothing is
// matched, and nothing is reported as not found. [Reconciler.Forget]
// starts the account over.
var ErrCorruptState = errors.New("reconcile: corrupt state")

// ErrFull matches the error of [Reconciler.Track] when the watched
// account's state has no room for another open payment (about 8,000 at
// 100 bytes each: maxStateBytes): the payment is not tracked.
var ErrFull = errors.New("reconcile: too many open payments on the account")

// maxStateBytes bounds an account's state, below store.MaxValueLen.
const maxStateBytes = 900 << 10

var crcTable = crc64.MakeTable(crc64.ECMA)

type pay struct {
	id       string
	created  int64 // Unix seconds: initiation order
	scheme   Scheme
	amt      amt
	kid, e2e string
	text     string // the remittance's words, joined by spaces
	exec     int32  // requested execution date
	accepted int32  // bank date an accepted status was first seen
	deadline int32  // last banking day of the window
	flags    uint8
	out      uint8
	by       Evidence
	booking  string
	bday     int32
	booked   amt
	ret      string
	rday     int32
	announce uint8
	lease    int64 // Unix seconds the announcements were last claimed
}

// open reports whether p still waits for its credit.
func (p *pay) open() bool { return p.out == outNone && p.flags&flagVoid == 0 }

// seen is a booking matching has seen: the hash of its key and its
// fingerprint, and its day (for expiry).
type seen struct {
	kh, fp uint64
	day    int32
}

type acctState struct {
	since int32
	pays  []pay // in initiation order (created, then id)
	seen  []seen
}

// insert adds p in initiation order; false when its id is there.
func (s *acctState) insert(p pay) bool {
	if s.find(p.id) >= 0 {
		return false
	}
	i, _ := slices.BinarySearchFunc(s.pays, p, func(a, b pay) int {
		if a.created != b.created {
			if a.created < b.created {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	s.pays = slices.Insert(s.pays, i, p)
	return true
}

// find returns the index of the payment with request id id, -1 if none.
func (s *acctState) find(id string) int {
	for i := range s.pays {
		if s.pays[i].id == id {
			return i
		}
	}
	return -1
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendAmt(b []byte, a amt) []byte {
	b = binary.AppendVarint(b, a.units)
	b = append(b, a.scale)
	return appendString(b, a.cur)
}

func appendDay(b []byte, d int32) []byte { return binary.AppendUvarint(b, uint64(max(d, 0))) }

func encodeState(s *acctState) []byte {
	b := make([]byte, 0, 16+len(s.pays)*96+len(s.seen)*20)
	b = append(b, stateVersion)
	b = appendDay(b, s.since)
	b = binary.AppendUvarint(b, uint64(len(s.pays)))
	for i := range s.pays {
		p := &s.pays[i]
		b = appendString(b, p.id)
		b = binary.AppendVarint(b, p.created)
		b = append(b, byte(p.scheme))
		b = appendAmt(b, p.amt)
		b = appendString(b, p.kid)
		b = appendString(b, p.e2e)
		b = appendString(b, p.text)
		b = appendDay(b, p.exec)
		b = appendDay(b, p.accepted)
		b = appendDay(b, p.deadline)
		b = append(b, p.flags, p.out)
		if p.out != outNone {
			b = append(b, byte(p.by))
			b = appendString(b, p.booking)
			b = appendDay(b, p.bday)
			b = appendAmt(b, p.booked)
			if p.out == outReturned {
				b = appendString(b, p.ret)
				b = appendDay(b, p.rday)
			}
		}
		b = append(b, p.announce)
		if p.announce != 0 {
			b = binary.AppendVarint(b, p.lease)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(s.seen)))
	for _, e := range s.seen {
		b = binary.BigEndian.AppendUint64(b, e.kh)
		b = binary.BigEndian.AppendUint64(b, e.fp)
		b = appendDay(b, e.day)
	}
	return binary.BigEndian.AppendUint64(b, crc64.Checksum(b, crcTable))
}

// decoder reads an encoded state; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = ErrCorruptState
	}
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) u64() uint64 {
	if d.err != nil || len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) day() int32 {
	v := d.uvarint()
	if v > 1<<31-1 {
		d.fail()
		return 0
	}
	return int32(v)
}

func (d *decoder) amt() amt {
	a := amt{units: d.varint(), scale: d.byte(), cur: d.string()}
	if a.scale > maxScale || (a.cur != "" && len(a.cur) != 3) {
		d.fail()
	}
	return a
}

// count reads a count of items of at least min bytes each.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)/min) {
		d.fail()
		return 0
	}
	return int(n)
}

// decodeState reads an encoded state (see above).
func decodeState(b []byte) (*acctState, error) {
	if len(b) < 9 || b[0] != stateVersion {
		return nil, fmt.Errorf("%w: unknown version or too short", ErrCorruptState)
	}
	body := b[:len(b)-8]
	if crc64.Checksum(body, crcTable) != binary.BigEndian.Uint64(b[len(b)-8:]) {
		return nil, fmt.Errorf("%w: checksum", ErrCorruptState)
	}
	d := &decoder{b: body[1:]}
	s := &acctState{since: d.day()}
	n := d.count(20)
	s.pays = make([]pay, n)
	for i := range n {
		p := &s.pays[i]
		p.id = d.string()
		p.created = d.varint()
		p.scheme = Scheme(d.byte())
		p.amt = d.amt()
		p.kid, p.e2e, p.text = d.string(), d.string(), d.string()
		p.exec, p.accepted, p.deadline = d.day(), d.day(), d.day()
		p.flags, p.out = d.byte(), d.byte()
		if p.out > outReturned || (d.err == nil && !p.scheme.valid()) {
			d.fail()
		}
		if p.out != outNone {
			p.by = Evidence(d.byte())
			p.booking = d.string()
			p.bday = d.day()
			p.booked = d.amt()
			if p.out == outReturned {
				p.ret, p.rday = d.string(), d.day()
			}
		}
		p.announce = d.byte()
		if p.announce != 0 {
			p.lease = d.varint()
		}
		if d.err != nil {
			break
		}
	}
	m := d.count(17)
	s.seen = make([]seen, 0, m)
	for range m {
		e := seen{kh: d.u64(), fp: d.u64(), day: d.day()}
		if d.err != nil {
			break
		}
		s.seen = append(s.seen, e)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w: unreadable", d.err)
	}
	return s, nil
}
