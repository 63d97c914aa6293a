package txsync

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/date"
)

func sampleState() state {
	return state{Newest: date.Date{Year: 2026, Month: 3, Day: 10}, Seq: 300, Reads: 7, Entries: []stored{
		{Seq: 1, Occ: 1, FP: 1<<63 + 5, Core: 42, ID: "enc!!abc", Booking: date.Date{Year: 2026, Month: 12, Day: 31},
			Value: date.Date{Year: 2026, Month: 1, Day: 1}, Amount: "-49.00", Cur: "NOK", Party: "Kaffebar", Text: "Kaffe ☕ og ø"},
		{Seq: 299, Pending: true, Amount: "10", Cur: "EUR"},
		{Seq: 300, Booking: date.Date{Year: 2026, Month: 3, Day: 5}, Amount: "-452.30", Cur: "NOK",
			Txn: date.Date{Year: 2026, Month: 3, Day: 3}, Orig: "-39.90", OrigCur: "EUR", Text: "CAFE"},
	}}
}

// legacyState is a state of version 1 (no checksum), as the package wrote
// it before the checksum: sampleState's first two entries.
const legacyState = "01aab933ac02070201018000000000000005000000000000002a0008656e632121616263dfbb33e1b833062d34392e3030" +
	"034e4f4b084b616666656261720f4b6166666520e29895206f6720c3b8ab02000000000000000000000000000000000001000000023130034555520000"

// A state written before the checksum is still read; the next write
// gives it one.
func TestLegacyStateReadable(t *testing.T) {
	b, err := hex.DecodeString(legacyState)
	require.NoError(t, err)
	got, err := decodeState(b, true)
	require.NoError(t, err)
	want := sampleState()
	want.Entries = want.Entries[:2]
	assert.Equal(t, want, got)
	again, err := encodeState(got)
	require.NoError(t, err)
	assert.Equal(t, byte(stateVersion), again[0])
	assert.True(t, checksummed(again))
	// Its version byte set to 2, it is not a checked state.
	b[0] = stateVersion
	_, err = decodeState(b, true)
	assert.ErrorIs(t, err, ErrCorruptState)
}

func TestStateRoundTrip(t *testing.T) {
	s := sampleState()
	b, err := encodeState(s)
	require.NoError(t, err)
	got, err := decodeState(b, true)
	require.NoError(t, err)
	assert.Equal(t, s, got)
	empty, err := decodeState(nil, false)
	require.NoError(t, err)
	assert.Equal(t, state{}, empty)
	_, err = decodeState(nil, true)
	assert.ErrorIs(t, err, ErrCorruptState, "a stored empty value is not a state")
	// Every truncation is refused, none panics.
	for i := range len(b) {
		_, err := decodeState(b[:i], true)
		assert.True(t, errors.Is(err, ErrCorruptState), "truncated at %d", i)
	}
	_, err = decodeState(append(b, 0), true)
	assert.ErrorIs(t, err, ErrCorruptState)
}

// FuzzDecodeState: no input panics; what decodes encodes to the same
// bytes' meaning; a checked state (version 2) decodes only with its
// checksum.
func FuzzDecodeState(f *testing.F) {
	b, _ := encodeState(sampleState())
	f.Add(b)
	legacy, _ := hex.DecodeString(legacyState)
	f.Add(legacy)
	f.Add([]byte{1, 0, 0, 0, 0})
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := decodeState(in, true)
		if err != nil {
			return
		}
		if in[0] == stateVersion {
			require.True(t, checksummed(in))
		}
		out, err := encodeState(s)
		require.NoError(t, err)
		again, err := decodeState(out, true)
		require.NoError(t, err)
		assert.Equal(t, s, again)
	})
}

// A state that would hold a date its reader refuses (a year past 9999,
// a negative one, a month 13) is not written: encodeState returns an
// error, and the account's stored state stays readable. On the code
// before, it was written and every later read failed as corrupt.
func TestUnstorableDateNotWritten(t *testing.T) {
	for _, d := range []date.Date{{Year: 10000, Month: 1, Day: 1}, {Year: -1, Month: 12, Day: 31}, {Year: 2026, Month: 13, Day: 1}, {Year: 2026, Month: 1, Day: 0}} {
		s := sampleState()
		s.Entries[0].Value = d
		_, err := encodeState(s)
		assert.ErrorIs(t, err, errUnstorableDate, "%+v", d)
		s = sampleState()
		s.Newest = d
		_, err = encodeState(s)
		assert.ErrorIs(t, err, errUnstorableDate, "newest %+v", d)
	}
	for _, d := range []date.Date{{}, {Year: 0, Month: 1, Day: 1}, {Year: 9999, Month: 12, Day: 31}} {
		s := sampleState()
		s.Entries[2].Txn = d
		b, err := encodeState(s)
		require.NoError(t, err, "%+v", d)
		got, err := decodeState(b, true)
		require.NoError(t, err)
		assert.Equal(t, d, got.Entries[2].Txn)
	}
}

// A state of a later form than this release reads, its checksum sound, is
// ErrNewerState: a later release wrote it, and the replica is upgraded,
// not the state forgotten (ErrCorruptState's remedy). Before, it was
// ErrCorruptState ("version 3"). A later version byte whose checksum
// fails is corrupt still.
func TestNewerStateIsNotCorrupt(t *testing.T) {
	b, err := encodeState(sampleState())
	require.NoError(t, err)
	for _, v := range []byte{stateVersion + 1, 0xff} {
		later := append([]byte{v}, b[1:len(b)-8]...)
		later = binary.BigEndian.AppendUint64(later, crc64.Checksum(later, crcTable))
		_, err := decodeState(later, true)
		require.ErrorIs(t, err, ErrNewerState, "form %d", v)
		assert.NotErrorIs(t, err, ErrCorruptState, "form %d", v)
	}
	flipped := append([]byte{stateVersion + 1}, b[1:]...) // the checksum no longer holds
	_, err = decodeState(flipped, true)
	assert.ErrorIs(t, err, ErrCorruptState)
	assert.NotErrorIs(t, err, ErrNewerState)
}
