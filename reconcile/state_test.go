package reconcile

import (
	"encoding/binary"
	"hash/crc64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	f.Add(body(&acctState{}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		b = binary.BigEndian.AppendUint64(append([]byte(nil), b...), crc64.Checksum(b, crcTable))
		b = encodeHeader(&acctState{anns: []ann{{id: "x", bits: 1}}}, b, 0)
		s, err := decodeState(b)
		if err != nil {
			return
		}
		again, err := decodeState(encodeState(s))
		require.NoError(t, err)
		assert.Equal(t, s, again)
	})
}
