package client

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// TestAnswerDateReading holds the one reading of the bank's Date header
// (answerDate): one readable line, or several that all say the same
// instant, is the bank's time; lines that disagree, or one that cannot
// be read beside others, or a value past its bound, is no Date at all.
func TestAnswerDateReading(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	fix := at.Format(http.TimeFormat)
	later := at.Add(10 * time.Minute).Format(http.TimeFormat)
	tests := []struct {
		name  string
		lines []string
		ok    bool
	}{
		{"none", nil, false},
		{"one", []string{fix}, true},
		{"the same twice", []string{fix, fix}, true},
		{"the same instant in an obsolete form", []string{fix, "Friday, 04-Dec-26 12:00:00 GMT"}, true},
		{"two instants", []string{fix, later}, false},
		{"two instants, the other order", []string{later, fix}, false},
		{"an unreadable line beside", []string{fix, "soon"}, false},
		{"an empty line beside", []string{"", fix}, false},
		{"unreadable", []string{"yesterday"}, false},
		{"another zone", []string{"Friday, 04-Dec-26 13:00:00 CET"}, false},
		{"over long", []string{fix + strings.Repeat(" ", 100)}, false},
	}
	for _, tt := range tests {
		got, ok := answerDate(http.Header{"Date": tt.lines})
		assert.Equal(t, tt.ok, ok, tt.name)
		if tt.ok {
			assert.True(t, got.Equal(at), "%s: %v", tt.name, got)
		} else {
			assert.True(t, got.IsZero(), "%s: %v", tt.name, got)
		}
	}
}

// TestDateOverSeveralLines: an answer carrying Date on several field
// lines that disagree (a gateway adding its own to the bank's) has no
// readable Date for any reader of it. On the code before, each read the
// first line alone:
//   - a create's 400 refusal whose first Date line was minutes ahead was
//     taken as a clock-skew refusal and the payment POST sent again;
//   - two such 2xx answers taught the client a clock ten minutes off;
//   - Meta.Date was the first line, and Error.RetryAfter measured an
//     HTTP-date Retry-After against it;
//   - under VerifyRequired a signed answer whose first Date line was
//     fresh passed the freshness check though another line was stale.
func TestDateOverSeveralLines(t *testing.T) {
	t.Parallel()
	const ahead = 10 * time.Minute
	twoDates := func(h http.Header) {
		now := time.Now()
		h["Date"] = []string{now.Add(ahead).UTC().Format(http.TimeFormat), now.UTC().Format(http.TimeFormat)}
	}

	t.Run("no skew retry of a create", func(t *testing.T) {
		t.Parallel()
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
			twoDates(w.Header())
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"Date"}]}`)
		})
		c := newTestClient(t, b.URL)
		_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}, nil)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, http.StatusBadRequest, e.StatusCode)
		assert.EqualValues(t, 1, b.count.Load(), "POSTs the bank received")
		assert.Zero(t, c.offset.Load())
	})

	t.Run("no clock learned", func(t *testing.T) {
		t.Parallel()
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
			twoDates(w.Header())
			io.WriteString(w, `{}`)
		})
		c := newTestClient(t, b.URL)
		var m Meta
		for range 3 {
			_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil, SaveMeta(&m))
			require.NoError(t, err)
		}
		assert.Zero(t, c.offset.Load(), "offset learned from Date lines that disagree")
		assert.True(t, m.Date.IsZero(), "Meta.Date %v", m.Date)
	})

	t.Run("Retry-After against now", func(t *testing.T) {
		t.Parallel()
		now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
		h := http.Header{
			"Date":        {now.Add(-time.Hour).Format(http.TimeFormat), now.Format(http.TimeFormat)},
			"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)},
		}
		d, ok := (&Error{Header: h}).RetryAfter(now)
		assert.True(t, ok)
		assert.Equal(t, 30*time.Second, d, "measured against a Date line, not now")
	})

	t.Run("signed Date lines not fresh", func(t *testing.T) {
		t.Parallel()
		nowT := time.Now()
		bankCert := newCert(t, 2, nowT.Add(-time.Hour), nowT.Add(time.Hour))
		body := []byte(`{"transactionStatus":"ACTC"}`)
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
			h := w.Header()
			now := time.Now()
			h["Date"] = []string{now.UTC().Format(http.TimeFormat), now.Add(-time.Hour).UTC().Format(http.TimeFormat)}
			h.Set("Content-Type", "application/json")
			h.Set("Digest", signing.Digest(body))
			h.Set("X-Request-ID", r.Header.Get("X-Request-ID"))
			signAs(t, h, 2, bankCert, "date", "digest", "x-request-id")
			w.Write(body)
		})
		c := newTestClient(t, b.URL, WithBankCertificates(bankCert), WithResponseVerification(VerifyRequired))
		_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/payments/x/y/status"}, nil)
		require.ErrorIs(t, err, ErrResponseSignature)
		require.ErrorIs(t, err, errStaleDate)
	})
}
