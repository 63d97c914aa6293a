package txsync

import (
	"errors"
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
	}}
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
	// Every truncation is refused, none panics.
	for i := 1; i < len(b); i++ {
		_, err := decodeState(b[:i], true)
		assert.True(t, errors.Is(err, ErrCorruptState), "truncated at %d", i)
	}
	_, err = decodeState(append(b, 0), true)
	assert.ErrorIs(t, err, ErrCorruptState)
}

// FuzzDecodeState: no input panics; what decodes encodes to the same
// bytes' meaning.
func FuzzDecodeState(f *testing.F) {
	b, _ := encodeState(sampleState())
	f.Add(b)
	f.Add([]byte{1, 0, 0, 0, 0})
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := decodeState(in, true)
		if err != nil {
			return
		}
		out, err := encodeState(s)
		require.NoError(t, err)
		again, err := decodeState(out, true)
		require.NoError(t, err)
		assert.Equal(t, s, again)
	})
}
