package reconcile

import (
	"encoding/binary"
	"hash/crc64"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/txsync"
)

func sampleState() *acctState {
	s := &acctState{since: 20530, anns: []ann{{id: "r-1", bits: annSettled, lease: 1773650100}, {id: "r-2", bits: annStalled | annReturned}}, pays: []pay{
		{id: "r-1", created: 1773650000, scheme: Domestic, amt: amt{units: 12500, scale: 1, cur: "NOK"}, kid: "1234567890128",
			text: "faktura 1001", exec: 20531, accepted: 20531, deadline: 20532, flags: flagLate, out: outSettled,
			o: &outcome{by: ByKID, booking: "akey0000000000000-1", bday: 20533, booked: amt{units: 1250, cur: "NOK"}}},
		{id: "r-2", created: 1773650001, scheme: SEPA, amt: amt{units: 10, cur: "EUR"}, e2e: "E2E-1", deadline: 20533, flags: flagStalled | flagClosed,
			out: outReturned, o: &outcome{by: ByEndToEndID, booking: "k2", bday: 20534, booked: amt{units: -3, scale: 2, cur: "EUR"}, ret: "k3", rday: 20540}},
		{id: "r-3", created: -5, scheme: CrossBorder, amt: amt{units: 1, cur: "USD"}, flags: flagVoid},
	}, seen: []seen{{kh: 1, fp: 2, day: 20533}, {kh: ^uint64(0), fp: 0, day: 1}}}
	s.due = s.nextDue()
	return s
}

func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	s := sampleState()
	b := encodeState(s)
	back, err := decodeState(b)
	require.NoError(t, err)
	assert.Equal(t, s, back)
	empty, err := decodeState(encodeState(&acctState{}))
	require.NoError(t, err)
	assert.Empty(t, empty.pays)
}

// TestStateCorruption: every single-bit flip, every truncation and an
// added byte are ErrCorruptState, never another state.
func TestStateCorruption(t *testing.T) {
	t.Parallel()
	b := encodeState(sampleState())
	for i := range b {
		for bit := range 8 {
			c := append([]byte(nil), b...)
			c[i] ^= 1 << bit
			_, err := decodeState(c)
			require.ErrorIs(t, err, ErrCorruptState, "byte %d bit %d", i, bit)
		}
	}
	for n := range len(b) {
		_, err := decodeState(b[:n])
		require.ErrorIs(t, err, ErrCorruptState, "cut at %d", n)
	}
	_, err := decodeState(append(append([]byte(nil), b...), 0))
	require.ErrorIs(t, err, ErrCorruptState)
}

// FuzzDecodeState decodes any body under a valid checksum (which random
// bytes never have): no panic, no unbounded allocation, and what
// decodes encodes to the same state.
func FuzzDecodeState(f *testing.F) {
	body := func(s *acctState) []byte {
		h, err := decodeHeader(encodeState(s))
		require.NoError(f, err)
		return h.body[:len(h.body)-8]
	}
	f.Add(body(sampleState()))
	f.Add(body(withdrawnState()))
	f.Add(body(heldState()))
	f.Add(body(unreportedState()))
	f.Add(body(unreportedReversalState()))
	f.Add(body(&acctState{}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		b = binary.BigEndian.AppendUint64(append([]byte(nil), b...), crc64.Checksum(b, crcTable))
		for _, v := range []byte{stateVersionTwo, stateVersionThree, stateVersion} {
			s, err := decodeState(encodeHeader(&acctState{anns: []ann{{id: "x", bits: 1}}}, v, b, 0))
			if err != nil {
				continue
			}
			again, err := decodeState(encodeState(s))
			require.NoError(t, err)
			assert.Equal(t, s, again)
		}
	})
}

// withdrawnState is sampleState with a payment whose credit was
// withdrawn twice, the second time after it settled again.
func withdrawnState() *acctState {
	s := sampleState()
	s.pays = append(s.pays, pay{id: "r-4", created: 1773650002, scheme: Instant, amt: amt{units: 5, cur: "NOK"}, kid: "55667788",
		deadline: 20533, flags: flagWithdrawn | flagStalled,
		wd: &withdrawal{n: 2, booking: "akey0000000000000-9", bday: 20532, booked: amt{units: 5, cur: "NOK"}}})
	s.due = s.nextDue()
	return s
}

// heldState is sampleState with a payment holding a credit booked in the
// future and a settled one holding a reversal so booked.
func heldState() *acctState {
	s := sampleState()
	s.pays = append(s.pays,
		pay{id: "r-5", created: 1773650003, scheme: Domestic, amt: amt{units: 7, cur: "NOK"}, kid: "12344", deadline: 20533,
			flags: flagStalled, out: outHeld, o: &outcome{by: ByKID, booking: "akey0000000000000-10", bday: 20540, booked: amt{units: 7, cur: "NOK"}}},
		pay{id: "r-6", created: 1773650004, scheme: Domestic, amt: amt{units: 8, cur: "NOK"}, kid: "55667788", deadline: 20533,
			out: outReturnHeld, o: &outcome{by: ByKID, booking: "akey0000000000000-11", bday: 20533, booked: amt{units: 9, cur: "NOK"},
				ret: "akey0000000000000-12", rday: 20536}})
	s.due = s.nextDue()
	return s
}

// unreportedState is heldState keeping two credits to report unmatched.
func unreportedState() *acctState {
	s := heldState()
	s.unreported = []unreported{{booking: "akey0000000000000-13", bday: 20540, booked: amt{units: 7, cur: "NOK"}},
		{booking: "akey0000000000000-14", bday: 20541, booked: amt{units: 125, scale: 1, cur: "EUR"}}}
	s.due = s.nextDue()
	return s
}

// TestUnreportedStateRoundTrip: credits kept to report read back the
// same, in the third form only, and make the next read a full one (due
// 0); any bit flipped is corrupt.
func TestUnreportedStateRoundTrip(t *testing.T) {
	t.Parallel()
	s := unreportedState()
	b := encodeState(s)
	require.Equal(t, byte(stateVersionThree), b[0])
	assert.Equal(t, int32(0), s.due)
	back, err := decodeState(b)
	require.NoError(t, err)
	assert.Equal(t, s, back)
	for i := range b {
		for bit := range 8 {
			c := append([]byte(nil), b...)
			c[i] ^= 1 << bit
			_, err := decodeState(c)
			require.ErrorIs(t, err, ErrCorruptState, "byte %d bit %d", i, bit)
		}
	}
	h, err := decodeHeader(b)
	require.NoError(t, err)
	_, err = decodeState(encodeHeader(&acctState{since: h.since, due: h.due, anns: h.anns}, stateVersionTwo, h.body, 0))
	assert.ErrorIs(t, err, ErrCorruptState, "version 2 with credits to report")
}

// unreportedReversalState is unreportedState keeping a reversal to
// report too (a negative amount).
func unreportedReversalState() *acctState {
	s := unreportedState()
	s.unreported = append(s.unreported, unreported{booking: "akey0000000000000-15", bday: 20545, booked: amt{units: -7, cur: "NOK"}})
	s.due = s.nextDue()
	return s
}

// TestUnreportedReversalStateRoundTrip: a reversal kept to report reads
// back the same, in the fourth form only: the third refuses it (a
// release that reads version 3 would report it as an unmatched credit).
func TestUnreportedReversalStateRoundTrip(t *testing.T) {
	t.Parallel()
	s := unreportedReversalState()
	b := encodeState(s)
	require.Equal(t, byte(stateVersion), b[0])
	back, err := decodeState(b)
	require.NoError(t, err)
	assert.Equal(t, s, back)
	h, err := decodeHeader(b)
	require.NoError(t, err)
	_, err = decodeState(encodeHeader(&acctState{since: h.since, due: h.due, anns: h.anns}, stateVersionThree, h.body, 0))
	assert.ErrorIs(t, err, ErrCorruptState, "version 3 with a reversal to report")
	s.unreported = s.unreported[:2]
	assert.Equal(t, byte(stateVersionThree), encodeState(s)[0], "version 4 only while it keeps a reversal")
}

// TestHeldStateRoundTrip: a payment holding a credit, and one holding a
// reversal, read back the same, in the second form only; the settled one
// reads as settled with another amount, its reversal held.
func TestHeldStateRoundTrip(t *testing.T) {
	t.Parallel()
	s := heldState()
	b := encodeState(s)
	require.Equal(t, byte(stateVersionTwo), b[0])
	back, err := decodeState(b)
	require.NoError(t, err)
	assert.Equal(t, s, back)
	st := back.pays[4].state("a")
	assert.Equal(t, SettledOtherAmount, st.Settlement)
	assert.Equal(t, txsync.Key("akey0000000000000-12"), st.HeldReversal)
	assert.Empty(t, st.Reversal)
	held := &acctState{pays: back.pays[3:]}
	assert.Equal(t, int32(20536)-futureDays, held.nextDue(), "the day before the held reversal's")
	held.pays[1].o = &outcome{by: ByKID, booking: "k", bday: 20533, booked: amt{units: 9, cur: "NOK"}, ret: "r", rday: 20545}
	assert.Equal(t, int32(20540)-futureDays, held.nextDue(), "the day before the held credit's")
}

// TestStateVersions: a state of the earlier release (version 1, in
// testdata) still reads, and is written back as it was, in version 1,
// while none of its payments was withdrawn; a withdrawn payment makes it
// version 2, which reads back the same; a version 1 state never holds a
// withdrawn payment.
func TestStateVersions(t *testing.T) {
	t.Parallel()
	old, err := os.ReadFile("testdata/state-v1.bin")
	require.NoError(t, err)
	require.Equal(t, byte(1), old[0])
	s, err := decodeState(old)
	require.NoError(t, err)
	want := sampleState()
	for i := range s.pays {
		s.pays[i].enc = nil
	}
	assert.Equal(t, want, s)
	assert.Equal(t, old, encodeState(s), "written back in version 1")

	w := withdrawnState()
	b := encodeState(w)
	assert.Equal(t, byte(stateVersionTwo), b[0])
	back, err := decodeState(b)
	require.NoError(t, err)
	assert.Equal(t, w, back)
	assert.Equal(t, Withdrawn, back.pays[3].state("a").Settlement)

	h, err := decodeHeader(b)
	require.NoError(t, err)
	_, err = decodeState(encodeHeader(&acctState{since: h.since, due: h.due, anns: h.anns}, stateVersionOne, h.body, 0))
	assert.ErrorIs(t, err, ErrCorruptState, "version 1 with a withdrawn payment")
}

// TestWithdrawnStateCorruption is TestStateCorruption for a version 2
// state.
func TestWithdrawnStateCorruption(t *testing.T) {
	t.Parallel()
	b := encodeState(withdrawnState())
	for i := range b {
		for bit := range 8 {
			c := append([]byte(nil), b...)
			c[i] ^= 1 << bit
			_, err := decodeState(c)
			require.ErrorIs(t, err, ErrCorruptState, "byte %d bit %d", i, bit)
		}
	}
}

// A state of a later form than this release reads, whose envelope and
// header checksum hold, is ErrNewerState: a later release wrote it, and
// the operator must upgrade the replica, not Forget the state (which
// ErrCorruptState advises). Before, it was ErrCorruptState ("unknown
// version"). A later version byte whose checksum fails is corrupt still.
func TestNewerStateIsNotCorrupt(t *testing.T) {
	t.Parallel()
	b := encodeState(withdrawnState())
	h, err := decodeHeader(b)
	require.NoError(t, err)
	for _, v := range []byte{stateVersion + 1, 0xff} {
		later := encodeHeader(&acctState{since: h.since, due: h.due, anns: h.anns}, v, h.body, 0)
		_, err = decodeState(later)
		require.ErrorIs(t, err, ErrNewerState, "form %d", v)
		assert.NotErrorIs(t, err, ErrCorruptState, "form %d", v)

		bad := append([]byte(nil), later...)
		bad[len(bad)-1] ^= 1 // the body's checksum: the header alone is read
		_, err = decodeHeader(bad)
		assert.ErrorIs(t, err, ErrNewerState, "form %d: the header decides", v)
	}
	flipped := append([]byte(nil), b...)
	flipped[0] = stateVersion + 1 // the header's checksum no longer holds
	_, err = decodeState(flipped)
	assert.ErrorIs(t, err, ErrCorruptState)
	assert.NotErrorIs(t, err, ErrNewerState)
	_, err = decodeState(append([]byte{0}, b[1:]...))
	assert.ErrorIs(t, err, ErrCorruptState, "form 0")
}
