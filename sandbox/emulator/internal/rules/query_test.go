package rules

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseBool(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]bool{"": false, "true": true, "TRUE": true, "1": true, "false": false, "f": false} {
		got, viol := ParseBool("withBalance", v)
		assert.Nil(t, viol, v)
		assert.Equal(t, want, got, v)
	}
	for _, v := range []string{"yes", "on", " true"} {
		got, viol := ParseBool("withBalance", v)
		assert.False(t, got)
		assert.Equal(t, Format("withBalance", "withBalance must be true or false."), viol, v)
	}
}

func TestParsePage(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		query string
		want  Page
		viol  *Violation
	}{
		{"bookingStatus=booked", Page{Status: "booked", RawStatus: "booked", Limit: MaxPageLimit}, nil},
		{"bookingStatus=all&dateFrom=2026-01-01&dateTo=2026-01-31&limit=10&offset=20",
			Page{Status: "both", RawStatus: "all", From: day("2026-01-01"), To: day("2026-01-31"), RawFrom: "2026-01-01", RawTo: "2026-01-31", Limit: 10, Offset: 20}, nil},
		{"bookingStatus=pending&limit=5000", Page{Status: "pending", RawStatus: "pending", Limit: MaxPageLimit}, nil},
		{"bookingStatus=both&dateFrom=2026-02-01&dateTo=2026-02-01", Page{Status: "both", RawStatus: "both",
			From: day("2026-02-01"), To: day("2026-02-01"), RawFrom: "2026-02-01", RawTo: "2026-02-01", Limit: MaxPageLimit}, nil},
		{"", Page{}, &Violation{CodeQueryParameterRequired, "bookingStatus", "The query parameter bookingStatus is required (booked, pending, both)."}},
		{"bookingStatus=BOOKED", Page{}, Format("bookingStatus", "bookingStatus must be booked, pending, both or all.")},
		{"bookingStatus=booked&dateFrom=01.01.2026", Page{}, Format("dateFrom", "dateFrom must be a date YYYY-MM-DD.")},
		{"bookingStatus=booked&dateTo=2026-13-01", Page{}, Format("dateTo", "dateTo must be a date YYYY-MM-DD.")},
		{"bookingStatus=booked&dateFrom=2026-02-02&dateTo=2026-02-01", Page{}, Format("dateTo", "dateTo is before dateFrom.")},
		{"bookingStatus=booked&limit=0", Page{}, Format("limit", "limit must be a positive integer.")},
		{"bookingStatus=booked&limit=x", Page{}, Format("limit", "limit must be a positive integer.")},
		{"bookingStatus=booked&offset=-1", Page{}, Format("offset", "offset must be a non-negative integer.")},
	}
	for _, tt := range tests {
		q, err := url.ParseQuery(tt.query)
		assert.NoError(t, err)
		got, viol := ParsePage(q)
		assert.Equal(t, tt.viol, viol, tt.query)
		assert.Equal(t, tt.want, got, tt.query)
	}
}
