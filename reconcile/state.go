package reconcile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"math"
	"slices"
	"strings"
)

// The state of a watched account, one value in the store under
// "reconcile/account/<account key>", read and written with one atomic
// store.Update by every call that changes it, so that replicas sharing
// the store match each payment and each booking at most once.
//
// Its encoding is a header and a body, each followed by its CRC-64
// (ECMA), 8 bytes big-endian, so that a state the store changed in any
// way is [ErrCorruptState], never read as another; the header alone is
// enough for the usual read of an account, which brings nothing new:
//
//   - the version byte (stateVersion) and the header's length (uvarint);
//   - the header: uvarint since (the day the account was first watched),
//     uvarint due (the first day a read can find something to do without
//     a new booking: a window's end, a return's horizon, an expiry), and
//     the announcements still to make: their count, then each payment's
//     request id, the events' byte and varint when last claimed;
//   - the CRC of the version, length and header;
//   - the body: the count of payments and each, the count of the bookings
//     seen and each (two 8-byte hashes and a uvarint day), and in version
//     3 or later only the count of the credits to report (see unreported)
//     and each (its key, day and amount: negative for a reversal, version
//     4 only);
//   - the body's CRC.
//
// A payment: its request id, varint created (Unix seconds), the scheme
// byte, the instructed amount, KID, end-to-end id and remittance words
// (empty once the payment is closed), uvarint execution date, accepted
// date and deadline, a flags byte, the outcome byte and, with one, the
// evidence byte, the booking key, its day and the amount booked, and for
// a return the reversal's key and day (a payment with a credit held, see
// outHeld, has the outcome byte outHeld and the held credit's evidence,
// key, day and amount, and a settled payment with a reversal held, see
// outReturnHeld, the outcome byte outReturnHeld and, as a return, the
// held reversal's key and day, both in version 2 or later only); then, from version 2 and for a
// payment flagged withdrawn only, the withdrawals' uvarint count and the
// last withdrawn credit's key, day and amount. A string is a uvarint
// length and its bytes; an amount a zigzag varint of units, a scale byte
// and the currency; a day a uvarint day number (days since 1970-01-01, 0
// for none).
//
// Version 1 is version 2 without a withdrawn payment nor a held credit
// or reversal: a state is written as version 1 while none of its
// payments was withdrawn or holds a credit or a reversal, so that a
// replica of an earlier release reads it, and both are read. (A replica
// of the release that brought version 2 but not outHeld refuses a state
// with a held credit, as corrupt: it never reads the held credit as a
// settlement; one that knows outHeld but not outReturnHeld refuses a
// state with a held reversal, never reads the payment as returned or
// unsettled.)
//
// Version 3 is version 2 with credits to report (unreported): a state is
// written as version 3 only while it keeps one, so that a replica of a
// release that knows version 2 but not these refuses it (ErrNewerState)
// while it does, never drops the report, and reads it again once an Apply
// made it.
//
// Version 4 is version 3 with a reversal among the credits to report (an
// unreported of a negative amount: see mutation.unmatchedReversal): a
// state is written as version 4 only while it keeps one, so that a
// replica that knows version 3 but not these refuses it (ErrNewerState)
// instead of reporting the reversal as an unmatched credit.
const (
	stateVersion      = 4
	stateVersionThree = 3
	stateVersionTwo   = 2
	stateVersionOne   = 1
)

// Payment flags.
const (
	flagVoid      = 1 << iota // rejected or cancelled: no credit is expected
	flagStalled               // flagged stalled (the event may be due still)
	flagLate                  // its credit was booked after the window
	flagClosed                // matching facts dropped: settled past ReturnDays, returned or void
	flagWithdrawn             // a credit that settled it was withdrawn (wd is set); version 2
)

// Outcomes.
const (
	outNone uint8 = iota
	outSettled
	outOther // settled with another amount
	outReturned
	// outHeld: a credit that matches the payment is held, not settling
	// it, because txsync reported it booked in the future (see holds in
	// match.go); the payment still waits. Version 2.
	outHeld
	// outReturnHeld: the payment is settled (Settled, or
	// SettledOtherAmount for another amount booked: see paidOut) and a
	// reversal that returns it is held, not returning it, because txsync
	// reported it booked in the future (see holds); the reversal's key
	// and day are the outcome's ret and rday. Version 2.
	outReturnHeld
)

// Announcements (events still to emit).
const (
	annSettled uint8 = 1 << iota
	annStalled
	annReturned
	annWithdrawn
)

// ErrCorruptState matches the error of every call that meets a stored
// state that fails its checksum or cannot be read (bytes lost, added or
// changed by the store, or a value something else wrote): nothing is
// matched, and nothing is reported as not found. [Reconciler.Forget]
// starts the account over.
var ErrCorruptState = errors.New("reconcile: corrupt state")

// ErrNewerState matches the error of every call that meets a stored
// state of a form later than this release reads, whose envelope and
// header checksum are sound: a replica of a later release of the package
// wrote it (during a rolling upgrade, say). The state is sound; this
// replica neither reads nor changes it, and must not Forget it: the
// replica is upgraded. It does not match ErrCorruptState.
//
// Every release that changes the state's form gives it a new version
// byte, and keeps the envelope (the version byte, the header's uvarint
// length, the header and its CRC-64), so that an earlier release tells a
// later state from a corrupt one.
var ErrNewerState = errors.New("reconcile: state written by a later release")

// ErrFull matches the error of a call ([Reconciler.Track],
// [Reconciler.Apply], [Reconciler.Status]) whose change of the watched
// account's state leaves it above its bound (maxStateBytes: about 8,000
// payments at 110 bytes each) once what it may let go was let go to make
// room: the oldest payments not executed that hold no credit, then the
// oldest bookings seen that no payment holds, then the oldest closed
// payments holding a credit, each with that credit's booking (a later
// change of the credit, or the credit given again, is then read as a
// credit read for the first time and reported, never matched again
// quietly). So it is waiting payments and those with an event still to
// emit, which are never let go, that fill it. Nothing of the call is
// stored: the payment is not tracked, the delta not applied (give it
// again: txsync reports a booking once), the status not recorded. Room
// comes back as payments expire; [Reconciler.Forget] starts the account
// over.
var ErrFull = errors.New("reconcile: the account's state is full")

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
	o        *outcome    // with out
	wd       *withdrawal // with flagWithdrawn
	// enc is the payment's encoding as read or last written, nil once a
	// field changed: every change of a payment sets it to nil, and an
	// unchanged payment is written back by copying it.
	enc []byte
}

// outcome is the credit of a settled or returned payment: the evidence,
// the booking's key, day and amount, and for a return the reversal's key
// and day. Apart from pay, so that an open payment is small to decode.
type outcome struct {
	by      Evidence
	booking string
	bday    int32
	booked  amt
	ret     string
	rday    int32
}

// withdrawal is the last credit that settled a payment and that the
// bank withdrew, and how many were: apart from pay, as outcome is.
type withdrawal struct {
	n       uint64
	booking string
	bday    int32
	booked  amt
}

// open reports whether p still waits for its credit, and takes one.
func (p *pay) open() bool { return p.out == outNone && p.flags&flagVoid == 0 }

// waiting reports whether p's money is not known to have arrived, and
// will be: open, or holding a credit dated ahead (outHeld). A waiting
// payment stalls after its window, and is never let go to make room.
func (p *pay) waiting() bool { return p.open() || p.out == outHeld }

// paid reports whether a credit settled p and it was not returned:
// Settled or SettledOtherAmount, a reversal held (outReturnHeld)
// included.
func (p *pay) paid() bool { return p.out == outSettled || p.out == outOther || p.out == outReturnHeld }

// booked reports whether p holds a credit (settled or returned by it, or
// holding it) booked on or after day: seen still, until Retention after
// its date (see expire).
func (p *pay) booked(day int32) bool { return p.out != outNone && p.o.bday >= day }

// paidOut is the outcome of p settled by the credit in p.o: outSettled,
// or outOther for another amount booked.
func (p *pay) paidOut() uint8 {
	if p.o.booked != p.amt {
		return outOther
	}
	return outSettled
}

// seen is a booking matching has seen: the hash of its key and its
// fingerprint, and its day (for expiry).
type seen struct {
	kh, fp uint64
	day    int32
}

// ann is the announcements due for a payment: the events still to
// emit, and when a call last claimed them (Unix seconds).
type ann struct {
	id    string
	bits  uint8
	lease int64
}

type acctState struct {
	since int32
	due   int32 // as read (see above); encode computes it anew
	anns  []ann
	pays  []pay // in initiation order (created, then id)
	seen  []seen
	// unreported are the credits a call without a Round (Status, Track)
	// let go matching no payment, for the next Apply to report in its
	// Round.Unmatched (see mutation.unmatched). Version 3.
	unreported []unreported
}

// unreported is a credit to report unmatched, or a reversal let go with
// such a credit (a negative amount: Round.UnmatchedReversals; version
// 4): its key, day and amount.
type unreported struct {
	booking string
	bday    int32
	booked  amt
}

// reversal reports whether u is a reversal (a debit) to report.
func (u *unreported) reversal() bool { return u.booked.units < 0 }

// announced returns the index of id's announcements, -1 if none.
func (s *acctState) announced(id string) int {
	for i := range s.anns {
		if s.anns[i].id == id {
			return i
		}
	}
	return -1
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

// version is the version s is written in: 1 while no payment of it
// was withdrawn or holds a credit, 3 while it keeps a credit to report,
// 4 while one of these is a reversal (see above).
func (s *acctState) version() byte {
	for i := range s.unreported {
		if s.unreported[i].reversal() {
			return stateVersion
		}
	}
	if len(s.unreported) > 0 {
		return stateVersionThree
	}
	for i := range s.pays {
		if p := &s.pays[i]; p.flags&flagWithdrawn != 0 || p.out == outHeld || p.out == outReturnHeld {
			return stateVersionTwo
		}
	}
	return stateVersionOne
}

// encodeState encodes s, its due day computed anew, in one allocation.
func encodeState(s *acctState) []byte {
	s.due = s.nextDue()
	v := s.version()
	b := encodeHeader(s, v, nil, 24+len(s.pays)*64+len(s.seen)*20)
	start := len(b)
	b = binary.AppendUvarint(b, uint64(len(s.pays)))
	for i := range s.pays {
		p := &s.pays[i]
		at := len(b)
		if p.enc != nil {
			b = append(b, p.enc...)
			p.enc = b[at:len(b):len(b)]
			continue
		}
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
			b = append(b, byte(p.o.by))
			b = appendString(b, p.o.booking)
			b = appendDay(b, p.o.bday)
			b = appendAmt(b, p.o.booked)
			if p.out == outReturned || p.out == outReturnHeld {
				b = appendString(b, p.o.ret)
				b = appendDay(b, p.o.rday)
			}
		}
		if p.flags&flagWithdrawn != 0 {
			b = binary.AppendUvarint(b, p.wd.n)
			b = appendString(b, p.wd.booking)
			b = appendDay(b, p.wd.bday)
			b = appendAmt(b, p.wd.booked)
		}
		p.enc = b[at:len(b):len(b)]
	}
	b = binary.AppendUvarint(b, uint64(len(s.seen)))
	for _, e := range s.seen {
		b = binary.BigEndian.AppendUint64(b, e.kh)
		b = binary.BigEndian.AppendUint64(b, e.fp)
		b = appendDay(b, e.day)
	}
	if v >= stateVersionThree {
		b = binary.AppendUvarint(b, uint64(len(s.unreported)))
		for _, u := range s.unreported {
			b = appendString(b, u.booking)
			b = appendDay(b, u.bday)
			b = appendAmt(b, u.booked)
		}
	}
	return binary.BigEndian.AppendUint64(b, crc64.Checksum(b[start:], crcTable))
}

// encodeHeader encodes s's header (s.due as it is) in version v,
// followed by body (which ends with its own checksum), in a slice with
// room for extra bytes more.
func encodeHeader(s *acctState, v byte, body []byte, extra int) []byte {
	var h []byte
	h = appendDay(h, s.since)
	h = appendDay(h, s.due)
	h = binary.AppendUvarint(h, uint64(len(s.anns)))
	for _, a := range s.anns {
		h = appendString(h, a.id)
		h = append(h, a.bits)
		h = binary.AppendVarint(h, a.lease)
	}
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(h)+8+len(body)+extra)
	b = append(b, v)
	b = binary.AppendUvarint(b, uint64(len(h)))
	b = append(b, h...)
	b = binary.BigEndian.AppendUint64(b, crc64.Checksum(b, crcTable))
	return append(b, body...)
}

// nextDue is the first day a read without a new booking can change s:
// an open accepted payment's window over, a held credit or reversal no
// longer dated ahead (it settles or returns its payment), a settled payment's return
// horizon passed, a payment or booking seen past Retention. A day too
// early costs one full read of the state; one too late would miss a
// stall, so each is on the early side.
func (s *acctState) nextDue() int32 {
	if len(s.unreported) > 0 { // the next Apply reports them
		return 0
	}
	due := int32(math.MaxInt32)
	for i := range s.pays {
		p := &s.pays[i]
		if p.waiting() && p.accepted != 0 && p.flags&flagStalled == 0 {
			due = min(due, p.deadline+1)
		}
		if p.out == outHeld { // the first day its credit is no longer ahead (ahead)
			due = min(due, p.o.bday-futureDays)
		}
		if p.out == outReturnHeld { // the same for its reversal
			due = min(due, p.o.rday-futureDays)
		}
		if p.flags&flagClosed == 0 && p.out != outNone {
			due = min(due, p.o.bday+int32(ReturnDays)+1)
		}
		if p.flags&flagClosed == 0 && (p.out == outReturned || p.flags&flagVoid != 0) {
			due = 0
		}
		// The bank date of created is at least its UTC date. A payment
		// holding a credit or a reversal outlives Retention until the
		// hold ends (see expire): its due day is the held item's. One
		// with a credit stays as long as the credit is seen: Retention
		// after the later of the two.
		if p.out != outHeld && p.out != outReturnHeld {
			last := int32(p.created / 86400)
			if p.out != outNone {
				last = max(last, p.o.bday)
			}
			due = min(due, last+retentionDays)
		}
	}
	for _, e := range s.seen {
		due = min(due, e.day+retentionDays)
	}
	return max(due, 0)
}

// decoder reads an encoded state; the first error sticks. It moves an
// offset, never its slice (no write barrier per field), and its strings
// are substrings of one copy of the bytes (src), so that a state of a
// thousand payments makes one allocation for them, not thousands.
type decoder struct {
	b   []byte
	src string
	off int
	err error
}

func newDecoder(b []byte) decoder { return decoder{b: b, src: string(b)} }

// rest returns the bytes not read yet.
func (d *decoder) rest() []byte { return d.b[d.off:] }

func (d *decoder) fail() {
	if d.err == nil {
		d.err = ErrCorruptState
	}
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) byte() byte {
	if d.err != nil || d.off >= len(d.b) {
		d.fail()
		return 0
	}
	c := d.b[d.off]
	d.off++
	return c
}

func (d *decoder) u64() uint64 {
	if d.err != nil || len(d.b)-d.off < 8 {
		d.fail()
		return 0
	}
	v := binary.BigEndian.Uint64(d.b[d.off:])
	d.off += 8
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)-d.off) {
		d.fail()
		return ""
	}
	if n == 0 {
		return ""
	}
	s := d.src[d.off : d.off+int(n)]
	d.off += int(n)
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
	if d.err == nil && n > uint64((len(d.b)-d.off)/min) {
		d.fail()
		return 0
	}
	return int(n)
}

// header is the header of an encoded state, and its body, not yet
// checked.
type header struct {
	version    byte
	since, due int32
	anns       []ann
	body       []byte
}

// decodeHeader reads and checks the header of an encoded state.
func decodeHeader(b []byte) (header, error) {
	if len(b) < 1 || b[0] < stateVersionOne {
		return header{}, fmt.Errorf("%w: unknown version", ErrCorruptState)
	}
	n, k := binary.Uvarint(b[1:])
	if k <= 0 || n > uint64(len(b)) || 1+k+int(n)+16 > len(b) {
		return header{}, fmt.Errorf("%w: too short", ErrCorruptState)
	}
	end := 1 + k + int(n)
	if crc64.Checksum(b[:end], crcTable) != binary.BigEndian.Uint64(b[end:end+8]) {
		return header{}, fmt.Errorf("%w: checksum", ErrCorruptState)
	}
	if b[0] > stateVersion {
		// The envelope holds, its checksum too: a release that knows a
		// later form wrote it (see ErrNewerState).
		return header{}, fmt.Errorf("%w (form %d; this release reads forms %d to %d)", ErrNewerState, b[0], stateVersionOne, stateVersion)
	}
	d := newDecoder(b[1+k : end])
	h := header{version: b[0], since: d.day(), due: d.day(), body: b[end+8:]}
	m := d.count(3)
	h.anns = make([]ann, 0, m)
	for range m {
		a := ann{id: d.string(), bits: d.byte(), lease: d.varint()}
		if d.err != nil {
			break
		}
		h.anns = append(h.anns, a)
	}
	if d.err == nil && len(d.rest()) != 0 {
		d.fail()
	}
	if d.err != nil {
		return header{}, fmt.Errorf("%w: unreadable header", d.err)
	}
	return h, nil
}

// decodeState reads an encoded state (see above).
func decodeState(b []byte) (*acctState, error) {
	h, err := decodeHeader(b)
	if err != nil {
		return nil, err
	}
	body := h.body[:len(h.body)-8]
	if crc64.Checksum(body, crcTable) != binary.BigEndian.Uint64(h.body[len(body):]) {
		return nil, fmt.Errorf("%w: checksum", ErrCorruptState)
	}
	d := newDecoder(bytes.Clone(body)) // the payments' enc keep pieces of it
	s := &acctState{since: h.since, due: h.due, anns: h.anns}
	n := d.count(20)
	s.pays = make([]pay, n)
	for i := range n {
		p := &s.pays[i]
		at := d.off
		p.id = d.string()
		p.created = d.varint()
		p.scheme = Scheme(d.byte())
		p.amt = d.amt()
		p.kid, p.e2e, p.text = d.string(), d.string(), d.string()
		p.exec, p.accepted, p.deadline = d.day(), d.day(), d.day()
		p.flags, p.out = d.byte(), d.byte()
		if p.out > outReturnHeld || (p.out >= outHeld && h.version == stateVersionOne) || (d.err == nil && !p.scheme.valid()) {
			d.fail()
		}
		if p.out != outNone {
			p.o = &outcome{}
			p.o.by = Evidence(d.byte())
			p.o.booking = d.string()
			p.o.bday = d.day()
			p.o.booked = d.amt()
			if p.out == outReturned || p.out == outReturnHeld {
				p.o.ret, p.o.rday = d.string(), d.day()
			}
		}
		if p.flags&flagWithdrawn != 0 {
			if h.version == stateVersionOne {
				d.fail()
			}
			p.wd = &withdrawal{n: d.uvarint(), booking: d.string(), bday: d.day(), booked: d.amt()}
			if d.err == nil && (p.wd.n == 0 || p.wd.n > math.MaxInt32) {
				d.fail()
			}
		}
		if d.err != nil {
			break
		}
		p.enc = d.b[at:d.off:d.off]
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
	if h.version >= stateVersionThree {
		m := d.count(5)
		for range m {
			u := unreported{booking: d.string(), bday: d.day(), booked: d.amt()}
			if d.err == nil && u.reversal() && h.version < stateVersion {
				d.fail() // a reversal to report is version 4
			}
			if d.err != nil {
				break
			}
			s.unreported = append(s.unreported, u)
		}
	}
	if d.err == nil && len(d.rest()) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w: unreadable", d.err)
	}
	return s, nil
}
