package client

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a create's answer says about its outcome: only the bank's own 4xx
// (with tppMessages) is a refusal; a 408 or a bare 4xx, which a gateway
// may answer after the bank acted, and a created id that cannot name the
// resource in a path leave the outcome unknown.
func TestCreateOutcomeClassification(t *testing.T) {
	t.Parallel()
	refusal := `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`
	tests := []struct {
		name    string
		status  int
		body    string
		unknown bool
	}{
		{"bank's 400", http.StatusBadRequest, refusal, false},
		{"bank's 409", http.StatusConflict, refusal, false},
		{"408 with tppMessages", http.StatusRequestTimeout, refusal, true},
		{"bare 400", http.StatusBadRequest, "", true},
		{"400 with a gateway's HTML", http.StatusBadRequest, "<html>Bad Request</html>", true},
		{"403 without tppMessages", http.StatusForbidden, `{"error":"forbidden"}`, true},
		{"400 with empty tppMessages", http.StatusBadRequest, `{"tppMessages":[]}`, true},
		{"201 with id .", http.StatusCreated, `{"paymentId":"."}`, true},
		{"201 with id ..", http.StatusCreated, `{"paymentId":".."}`, true},
		{"201 with id \"\"", http.StatusCreated, `{"paymentId":""}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if tt.body != "" {
					w.Header().Set("Content-Type", "application/json")
				}
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			})
			c := newTestClient(t, b.URL)
			_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}, nil)
			require.Error(t, err)
			assert.EqualValues(t, 1, b.count.Load(), "sent once")
			assert.Equal(t, tt.unknown, errors.Is(err, ErrOutcomeUnknown), "%v", err)
			assert.NotErrorIs(t, err, ErrNotSent)
			var e *Error
			if tt.status >= 400 {
				require.ErrorAs(t, err, &e, "the bank's answer stays readable")
				assert.Equal(t, tt.status, e.StatusCode)
			}
		})
	}
}

// LongestCall bounds a create whatever its context: every attempt the
// policy allows, each connecting and waiting twice the response timeout,
// and the backoff between them. It grows with each of them and covers
// the call timeout of a context without a deadline.
func TestLongestCall(t *testing.T) {
	t.Parallel()
	def := newTestClient(t, "https://bank.example", WithRetryPolicy(DefaultRetryPolicy()))
	assert.GreaterOrEqual(t, def.LongestCall(), DefaultCallTimeout)
	slow := newTestClient(t, "https://bank.example", WithRetryPolicy(DefaultRetryPolicy()), WithResponseTimeout(time.Minute))
	assert.Greater(t, slow.LongestCall(), def.LongestCall())
	more := DefaultRetryPolicy()
	more.MaxRetries *= 2
	retries := newTestClient(t, "https://bank.example", WithRetryPolicy(more))
	assert.Greater(t, retries.LongestCall(), def.LongestCall())
	none := newTestClient(t, "https://bank.example", WithRetryPolicy(RetryPolicy{}))
	assert.GreaterOrEqual(t, none.LongestCall(), 2*DefaultResponseTimeout, "two attempts (the skew retry), each waiting twice")
}

// TestCreateRefusalNotJSON: a create's 4xx whose whole body, not cut by
// the client, names tppMessages but is not JSON (the bank's document with
// other bytes after it, or one that stops short) proves no refusal: its
// outcome is unknown, and the clock-skew retry does not send it again.
// Only a body the client cut at maxErrorBody may name them unread
// (TestCutErrorBodyDigest). On the code before, any such body was the
// bank's refusal: a plain *Error, and with the bank's Date minutes off
// the payment was sent a second time.
func TestCreateRefusalNotJSON(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"trailing bytes":    `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}<html>`,
		"two documents":     `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}{"error":"gateway"}`,
		"stopping short":    `{"tppMessages":[{"category":"ERROR","code":"FORM`,
		"gzip, trailing":    "gzip:" + `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}x`,
		"gzip, short":       "gzip:" + `{"tppMessages":[{"cate`,
		"skew, trailing":    "skew:" + `{"tppMessages":[{"category":"ERROR","code":"TIMESTAMP_INVALID"}]}x`,
		"skew, short":       "skew:" + `{"tppMessages":[{"category":"ERROR","code":"TIMESTAMP_INV`,
		"skew, gzip, short": "skew:gzip:" + `{"tppMessages":[{"category":"ERROR","code":"TIMESTAMP_INV`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			skew, zip := false, false
			for _, p := range []struct {
				prefix string
				flag   *bool
			}{{"skew:", &skew}, {"gzip:", &zip}} {
				if rest, ok := strings.CutPrefix(body, p.prefix); ok {
					body, *p.flag = rest, true
				}
			}
			sent := []byte(body)
			if zip {
				sent = gzipped(t, sent)
			}
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "application/json")
				if zip {
					w.Header().Set("Content-Encoding", "gzip")
				}
				if skew {
					w.Header().Set("Date", time.Now().Add(5*time.Minute).UTC().Format(http.TimeFormat))
				}
				w.WriteHeader(http.StatusBadRequest)
				w.Write(sent)
			})
			c := newTestClient(t, b.URL)
			_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}, nil)
			assert.EqualValues(t, 1, b.count.Load(), "the payment was sent again")
			assert.ErrorIs(t, err, ErrOutcomeUnknown)
			var e *Error
			require.ErrorAs(t, err, &e, "the bank's answer stays readable")
			assert.Equal(t, http.StatusBadRequest, e.StatusCode)
		})
	}
}
