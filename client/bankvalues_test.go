package client

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/signing"
)

// TestClockSkewNotRetriedOnBare400ToPOST: a bare 400 (no
// tppMessages: a gateway's, which Client.exchange itself treats as
// "outcome unknown" for a POST) dated minutes off the client's clock
// proves nothing was done, so the clock-skew retry must not send the
// payment POST again. On the code before, it did, and the call then ended
// in an OutcomeUnknownError whose text said "not sent again".
func TestClockSkewNotRetriedOnBare400ToPOST(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		// A gateway behind which the bank may already have acted; its
		// clock is 5 minutes ahead.
		w.Header().Set("Date", time.Now().Add(5*time.Minute).UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `<html>Bad Request</html>`)
	})
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}))
	_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/norwegian-domestic-credit-transfers",
		Body: map[string]int{"n": 1}, ResultID: "paymentId"}, nil)
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	t.Logf("err: %v", err)
	assert.EqualValues(t, 1, b.count.Load(), "a POST whose outcome is unknown was sent again")
}

// TestAccessExceededWithUnreadableRetryAfterNotRetried: a 429 ACCESS_EXCEEDED
// whose Retry-After cannot be read is the same as one without (retryAfter
// says so): the spent daily budget is not retried. On the code before,
// quotaExhausted took any non-empty header as "present" and the call was
// retried MaxRetries times.
func TestAccessExceededWithUnreadableRetryAfterNotRetried(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"soon", "-1", "1.5"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Retry-After", v)
				w.WriteHeader(429)
				io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`)
			})
			c := newTestClient(t, b.URL)
			_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts/x/transactions"}, nil)
			require.ErrorIs(t, err, ErrAccessExceeded)
			assert.EqualValues(t, 1, b.count.Load(), "ACCESS_EXCEEDED without a readable Retry-After retried")
		})
	}
}

// TestAnswerSignatureHeaderListBounded: the bank's Signature header (at most
// 16 KiB) may list the same header name thousands of times, and each
// entry copies that header's whole value into the signing string, before
// the RSA check. A list naming a header twice, or more than 32 names, is
// refused. On the code before, a 32 KiB header listed 4,000 times cost
// 625 MiB (with net/http's 10 MiB header limit, gigabytes) for an answer
// whose headers are under 50 KiB.
func TestAnswerSignatureHeaderListBounded(t *testing.T) {
	now := time.Now()
	bankCert := newCert(t, 2, now.Add(-time.Hour), now.Add(time.Hour))
	big := strings.Repeat("a", 32<<10)
	list := strings.TrimSpace(strings.Repeat("x ", 4000))
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("X", big)
		w.Header().Set("Signature", `keyId="`+signing.KeyID(bankCert)+`",algorithm="rsa-sha256",headers="`+list+`",signature="AAAA"`)
		w.WriteHeader(http.StatusNoContent)
	})
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}), WithBankCertificates(bankCert))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, ErrResponseSignature)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d MiB for one answer with %d KiB of headers", alloc>>20, (len(big)+len(list))>>10)
	assert.Less(t, alloc, uint64(16<<20), "verifying one answer's signature allocated far more than the answer")
}

// TestErrorLineBounded: Error.Error gives one short line whatever the
// bank's code and path. On the code before, it wrote them whole: a 400
// whose code is 60 KB with line breaks gave an error string of 60 KB over
// several lines (a forged log line in any plain-text log that prints err).
func TestErrorLineBounded(t *testing.T) {
	t.Parallel()
	code := strings.Repeat("C", 30<<10) + "\ntime=2026-01-01 level=INFO msg=\"payment settled\""
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":`+strconv.Quote(code)+`,"path":`+strconv.Quote(strings.Repeat("p", 30<<10)+"\r\n")+`}]}`)
	})
	c := newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	require.Error(t, err)
	s := err.Error()
	assert.NotContains(t, s, "\n", "error text spans lines")
	assert.Less(t, len(s), 1024, "error text of %d bytes", len(s))
}

// TestErrorLineShowsNoRawCode: SafeCode's own doc says a bank's code
// field "can carry any text, a person's name or national identity number
// included", and refresh, riverrefresh and the observer only ever show
// SafeCode(code); so does *Error, in Error(), %v, %#v and its JSON (on
// the code before, all four showed the raw code).
func TestErrorLineShowsNoRawCode(t *testing.T) {
	t.Parallel()
	const nin = "01017012345" // a national identity number in the code field
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"`+nin+`"}]}`)
	})
	c := newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	require.Error(t, err)
	j, _ := json.Marshal(err)
	for form, s := range map[string]string{"Error()": err.Error(), "%v": fmt.Sprintf("%v", err), "%#v": fmt.Sprintf("%#v", err), "json": string(j)} {
		assert.NotContains(t, s, nin, form)
	}
}
