package isodate

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAndJSON(t *testing.T) {
	t.Parallel()
	d, err := Parse("2025-03-12")
	require.NoError(t, err)
	assert.Equal(t, Date{2025, time.March, 12}, d)
	d2, err := Parse("2025-03-12T23:30:00-05:00")
	require.NoError(t, err)
	assert.Equal(t, d, d2, "a date-time keeps its date part as written")
	for _, bad := range []string{"", "2025-13-01", "2025-02-30", "12.03.2025", "2025-3-1"} {
		_, err := Parse(bad)
		assert.Error(t, err, bad)
	}

	b, err := json.Marshal(struct {
		D Date  `json:"d"`
		Z Date  `json:"z,omitzero"`
		P *Date `json:"p"`
	}{D: d})
	require.NoError(t, err)
	assert.JSONEq(t, `{"d":"2025-03-12","p":null}`, string(b))

	var got struct{ A, B, C Date }
	require.NoError(t, json.Unmarshal([]byte(`{"A":"2024-02-29","B":null,"C":""}`), &got))
	assert.Equal(t, "2024-02-29", got.A.String())
	assert.True(t, got.B.IsZero())
	assert.True(t, got.C.IsZero())
	assert.Error(t, json.Unmarshal([]byte(`{"A":20240229}`), &got))
	assert.True(t, Of(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)).Before(got.A))
}
