package client

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder keeps the bytes its UnmarshalJSON was given.
type recorder struct{ got []string }

func (r *recorder) UnmarshalJSON(b []byte) error {
	r.got = append(r.got, string(b))
	return nil
}

// An answer known to be valid JSON reaches UnmarshalJSON directly, with
// the bytes encoding/json would give it; one not known to be valid goes
// through encoding/json, which refuses it before any method runs.
func TestDecodeAnswerGivesWhatEncodingJSONGives(t *testing.T) {
	for _, body := range []string{" {\"a\": [1, 2]}\n", "null", "\t\"s\" ", "[]", "7"} {
		var direct, viaJSON recorder
		require.NoError(t, decodeAnswer([]byte(body), true, &direct))
		require.NoError(t, json.Unmarshal([]byte(body), &viaJSON))
		assert.Equal(t, viaJSON.got, direct.got, "%q", body)
	}
	var r recorder
	assert.Error(t, decodeAnswer([]byte(`{"a":`), false, &r))
	assert.Empty(t, r.got)

	var m map[string]int
	require.NoError(t, decodeAnswer([]byte(`{"a":1}`), true, &m))
	assert.Equal(t, map[string]int{"a": 1}, m, "a type without the method goes through encoding/json")
}
