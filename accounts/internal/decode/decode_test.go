package decode

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

type member struct {
	name  string
	value string
}

func keep(name string, value json.RawMessage) member { return member{name, string(value)} }

func unkeep(m member) (string, json.RawMessage) { return m.name, json.RawMessage(m.value) }

type doc struct {
	ID    string `json:"id"`
	Count int    `json:"count"`
}

var docNames = NamesOf[doc]()

// Both ways of decoding (member by member and encoding/json) keep the
// same members apart and decode the same fields.
func TestObject(t *testing.T) {
	cases := []struct {
		in    string
		want  doc
		extra []member
		taken []member
	}{
		{in: `{"id":"a","count":2}`, want: doc{ID: "a", Count: 2}},
		{in: `{"id":"a","later":{"x": 1},"take":true}`, want: doc{ID: "a"},
			extra: []member{{"later", `{"x":1}`}}, taken: []member{{"take", "true"}}},
		// a value that does not fit its field is kept, the field stays zero
		{in: `{"id":"a","count":"two"}`, want: doc{ID: "a"}, extra: []member{{"count", `"two"`}}},
		// encoding/json matches names case-insensitively
		{in: `{"ID":"a","x":"<"}`, want: doc{ID: "a"}, extra: []member{{"x", `"\u003c"`}}},
	}
	for _, memberwise := range []bool{true, false} {
		Memberwise = memberwise
		for _, c := range cases {
			var got doc
			extra, taken, err := Object([]byte(c.in), &got, docNames(), func(name []byte) bool { return string(name) == "take" }, keep)
			require.NoError(t, err, c.in)
			require.Equal(t, c.want, got, c.in)
			require.Equal(t, c.extra, extra, c.in)
			require.Equal(t, c.taken, taken, c.in)
		}
	}
	Memberwise = true
	for _, bad := range []string{`[]`, `{"id":`, `"id"`, ``} {
		var got doc
		_, _, err := Object([]byte(bad), &got, docNames(), nil, keep)
		require.Error(t, err, bad)
	}
}

func TestEncode(t *testing.T) {
	b, err := Encode(doc{ID: "a"}, unkeep, []member{{"more", "1"}}, nil, []member{{"later", ""}})
	require.NoError(t, err)
	require.JSONEq(t, `{"id":"a","count":0,"more":1,"later":null}`, string(b))
	b, err = Encode[member](doc{ID: "b"}, unkeep)
	require.NoError(t, err)
	require.Equal(t, `{"id":"b","count":0}`, string(b))
}

func TestLast(t *testing.T) {
	require.Equal(t, `{"a":1}`, string(Last([]byte(`{"x":1,"X":{ "a" : 1 }}`), "x")))
	require.Nil(t, Last([]byte(`{"y":1}`), "x"))
	require.True(t, IsNull([]byte(" null ")))
	require.False(t, IsNull([]byte(`"null"`)))
}
