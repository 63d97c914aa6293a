package rules

import (
	"net/url"
	"strconv"
	"time"
)

// The query parameters of the interface (docs/interface.md sections 3,
// 4.6 to 4.9): booleans, and the page of a transactions call.

// CodeQueryParameterRequired is a required query parameter that is
// missing.
const CodeQueryParameterRequired = "QUERY_PARAMETER_REQUIRED"

// MaxPageLimit is the largest page of transactions (the platform's card
// links show 499); a larger limit asks for this many.
const MaxPageLimit = 499

// ParseBool reads the optional boolean query parameter name of value v:
// false when v is empty, true or false as strconv.ParseBool reads them,
// else a [CodeFormat] violation.
func ParseBool(name, v string) (bool, *Violation) {
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, Format(name, "%s must be true or false.", name)
	}
	return b, nil
}

// Page is the checked query of a transactions call.
type Page struct {
	// Status is booked, pending or both ("all" reads as both).
	Status string
	// From and To are the inclusive dates asked for; zero for no bound.
	From, To time.Time
	// Limit is the page size, 1 to MaxPageLimit; Offset the first entry.
	Limit, Offset int
	// RawStatus, RawFrom and RawTo are bookingStatus, dateFrom and dateTo
	// as sent, for the links to other pages.
	RawStatus, RawFrom, RawTo string
}

// ParsePage reads bookingStatus (required: booked, pending, both or
// all), dateFrom and dateTo (YYYY-MM-DD, dateTo not before dateFrom),
// limit (a positive integer, at most [MaxPageLimit] taken; the default)
// and offset (a non-negative integer) from q, and returns the first
// problem as a violation naming the parameter.
func ParsePage(q url.Values) (Page, *Violation) {
	p := Page{RawStatus: q.Get("bookingStatus"), RawFrom: q.Get("dateFrom"), RawTo: q.Get("dateTo"), Limit: MaxPageLimit}
	switch p.RawStatus {
	case "booked", "pending", "both":
		p.Status = p.RawStatus
	case "all":
		p.Status = "both"
	case "":
		return Page{}, &Violation{Code: CodeQueryParameterRequired, Path: "bookingStatus",
			Message: "The query parameter bookingStatus is required (booked, pending, both)."}
	default:
		return Page{}, Format("bookingStatus", "bookingStatus must be booked, pending, both or all.")
	}
	var err error
	if p.RawFrom != "" {
		if p.From, err = time.Parse(time.DateOnly, p.RawFrom); err != nil {
			return Page{}, Format("dateFrom", "dateFrom must be a date YYYY-MM-DD.")
		}
	}
	if p.RawTo != "" {
		if p.To, err = time.Parse(time.DateOnly, p.RawTo); err != nil {
			return Page{}, Format("dateTo", "dateTo must be a date YYYY-MM-DD.")
		}
	}
	if !p.From.IsZero() && !p.To.IsZero() && p.To.Before(p.From) {
		return Page{}, Format("dateTo", "dateTo is before dateFrom.")
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return Page{}, Format("limit", "limit must be a positive integer.")
		}
		p.Limit = min(n, MaxPageLimit)
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return Page{}, Format("offset", "offset must be a non-negative integer.")
		}
		p.Offset = n
	}
	return p, nil
}
