package httpdate_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/tppkit/psd2/internal/httpdate"
)

func TestParse(t *testing.T) {
	want := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)
	got, ok := httpdate.Parse("Sun, 06 Nov 1994 08:49:37 GMT")
	assert.True(t, ok)
	assert.True(t, got.Equal(want))
	assert.Equal(t, time.UTC, got.Location())
	for _, v := range []string{
		"", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sunday, 06-Nov-94 08:49:37 CET",
		"Mon, 06 Nov 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
		"sun, 06 nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT ", "Sun, 31 Feb 1994 08:49:37 GMT",
		"Sun, 06 Nov 1994 24:00:00 GMT", "1994-11-06T08:49:37Z",
	} {
		_, ok := httpdate.Parse(v)
		assert.False(t, ok, "%q", v)
	}
	now := time.Now().UTC().Truncate(time.Second)
	got, ok = httpdate.Parse(now.Format(http.TimeFormat))
	assert.True(t, ok)
	assert.True(t, got.Equal(now))
}
