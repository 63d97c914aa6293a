package client_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/tppkit/psd2/client"
)

// A bank's Retry-After, whatever it says, is a wait of at most
// client.RetryAfterCap: here an HTTP date in year 9999, measured against
// the answer's Date.
func ExampleError_RetryAfter() {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	e := &client.Error{StatusCode: http.StatusTooManyRequests, Header: http.Header{
		"Date":        {now.Format(http.TimeFormat)},
		"Retry-After": {"Fri, 31 Dec 9999 23:59:59 GMT"},
	}}
	wait, ok := e.RetryAfter(now)
	fmt.Println(wait, ok, wait == client.RetryAfterCap)
	// Output: 24h0m0s true true
}
