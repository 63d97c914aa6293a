package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatusOutOfRange: an answer whose status line carries a code
// outside 100–599 (000, 999) is no HTTP status. A create so answered is
// outcome unknown, sent once, its error saying the code was out of range
// and keeping it (StatusCode 0 of an OutcomeUnknownError read as no
// answer, and its text ended in ": 0 "; 999 was passed on as a status);
// a GET fails with the same error, retried as after a lost connection,
// and a call whose BeforeRetry refuses all but a 429 (a counted call) is
// sent once, its BeforeRetry seeing no status.
func TestStatusOutOfRange(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"000", "999"} {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			url, requests := rawBank(t, "HTTP/1.1 "+code+" Odd\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}")
			c := newTestClient(t, url, WithResponseTimeout(2*time.Second), WithCallTimeout(5*time.Second))
			want := 0
			if code == "999" {
				want = 999
			}

			_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}, nil)
			var ue *OutcomeUnknownError
			require.ErrorAs(t, err, &ue)
			assert.Zero(t, ue.StatusCode, "an out-of-range code is no status")
			assert.ErrorIs(t, err, ErrStatusOutOfRange)
			var se *StatusOutOfRangeError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, want, se.StatusCode)
			assert.Contains(t, err.Error(), "status code "+code+" is outside 100-599")
			assert.False(t, strings.HasSuffix(err.Error(), ": 0 "), err.Error())
			assert.EqualValues(t, 1, requests.Load(), "POSTs the bank received")

			requests.Store(0)
			_, err = c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
			require.ErrorAs(t, err, &se)
			assert.Equal(t, want, se.StatusCode)
			assert.False(t, errors.As(err, new(*Error)), "no *Error of a status that is none")
			assert.GreaterOrEqual(t, requests.Load(), int64(1))

			// A new client: the GET's failed attempts opened the breaker.
			c = newTestClient(t, url, WithResponseTimeout(2*time.Second), WithCallTimeout(5*time.Second))
			requests.Store(0)
			var seen []int
			_, err = c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts/a/balances", BeforeRetry: func(_ context.Context, call *Call) error {
				seen = append(seen, call.RetryStatus)
				if call.RetryStatus != 429 {
					return errors.New("no blind retry")
				}
				return nil
			}}, nil)
			assert.ErrorIs(t, err, ErrStatusOutOfRange)
			assert.EqualValues(t, 1, requests.Load(), "counted GETs the bank received")
			assert.Equal(t, []int{0}, seen)
		})
	}
}
