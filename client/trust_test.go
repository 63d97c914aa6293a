package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/internal/testkit/faultnet"
	"golang.org/x/net/http2"
)

// createdHandler answers every POST 201 with a new paymentId and every GET
// 200, like a bank that processed the request.
func createdHandler() http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Date", time.Now().UTC().Format(http.TimeFormat))
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"paymentId":"p-%d","transactionStatus":"RCVD","scaStatus":"started"}`, n.Add(1))
			return
		}
		io.WriteString(w, `{"accounts":[]}`)
	})
}

var createOp = Operation{Name: "test.Create", Method: http.MethodPost, Path: "/v1/payments/norwegian-domestic-credit-transfers", Body: map[string]string{"creditorName": "A"}, ResultID: "paymentId"}

// startAuthOp has no body: HTTP/2 treats a nil body as rewindable, so the
// pipeline must give it one that is not.
var startAuthOp = Operation{Name: "test.StartAuthorisation", Method: http.MethodPost, Path: "/v1/payments/norwegian-domestic-credit-transfers/p-1/authorisations", ResultID: "scaStatus"}

// TestHTTP2NeverReplaysAPayment: Go's HTTP/2 transport resends a request
// by itself after RST_STREAM (REFUSED_STREAM, PROTOCOL_ERROR) or GOAWAY
// when it can rewind the body. Against a real HTTP/2 server that resets
// the stream after handling the create, the bank must see one POST and the
// caller must get ErrOutcomeUnknown.
func TestHTTP2NeverReplaysAPayment(t *testing.T) {
	t.Parallel()
	faults := map[string]faultnet.Fault{
		"RST_STREAM REFUSED_STREAM after handling": {Kind: faultnet.ResetAfter, Code: uint32(http2.ErrCodeRefusedStream)},
		"RST_STREAM PROTOCOL_ERROR after handling": {Kind: faultnet.ResetAfter, Code: uint32(http2.ErrCodeProtocol)},
		"GOAWAY last stream 0 after handling":      {Kind: faultnet.GoAwayAfter},
	}
	for name, ft := range faults {
		for _, op := range []Operation{createOp, startAuthOp} {
			t.Run(name+"/"+op.Name, func(t *testing.T) {
				t.Parallel()
				front, pool, err := faultnet.NewHTTP2(createdHandler(), func(_ *http.Request, n int) faultnet.Fault {
					if n == 1 {
						return ft
					}
					return faultnet.Fault{}
				})
				require.NoError(t, err)
				t.Cleanup(front.Close)
				c := newTestClient(t, front.URL, WithRootCAs(pool))
				_, err = c.Do(t.Context(), op, nil)
				require.ErrorIs(t, err, ErrOutcomeUnknown)
				assert.NotErrorIs(t, err, ErrNotSent)
				assert.Equal(t, 1, front.Seen(), "requests that reached the bank")
				assert.Equal(t, 1, front.Created())
				var ou *OutcomeUnknownError
				require.ErrorAs(t, err, &ou)
				assert.NotEmpty(t, ou.RequestID)

				// The transport is healthy afterwards, and over HTTP/2.
				_, err = c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil)
				require.NoError(t, err)
			})
		}
	}
}

// TestHTTP2RepeatableRetried: the same resets on a GET are retried, by the
// transport or the pipeline, and the call succeeds.
func TestHTTP2RepeatableRetried(t *testing.T) {
	t.Parallel()
	front, pool, err := faultnet.NewHTTP2(createdHandler(), func(_ *http.Request, n int) faultnet.Fault {
		if n == 1 {
			return faultnet.Fault{Kind: faultnet.ResetAfter, Code: uint32(http2.ErrCodeRefusedStream)}
		}
		return faultnet.Fault{}
	})
	require.NoError(t, err)
	t.Cleanup(front.Close)
	c := newTestClient(t, front.URL, WithRootCAs(pool))
	_, err = c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, front.Seen())
}

// TestNewRequestNeverRewindable pins the property the HTTP/2 test relies
// on, for every attempt: a request that is not repeatable has no GetBody
// and a body that is neither nil nor http.NoBody.
func TestNewRequestNeverRewindable(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "http://127.0.0.1:1")
	for _, op := range []Operation{createOp, startAuthOp} {
		p, err := c.prepare(&op, nil)
		require.NoError(t, err)
		for i := range 2 {
			req, err := c.newRequest(t.Context(), p, i == 0)
			require.NoError(t, err)
			assert.Nil(t, req.GetBody, op.Name)
			assert.NotNil(t, req.Body, op.Name)
			assert.NotEqual(t, http.NoBody, req.Body, op.Name)
			b, _ := io.ReadAll(req.Body)
			assert.Equal(t, string(p.body), string(b))
		}
	}
	get := Operation{Method: http.MethodGet, Path: "/v1/accounts"}
	p, err := c.prepare(&get, nil)
	require.NoError(t, err)
	req, err := c.newRequest(t.Context(), p, true)
	require.NoError(t, err)
	assert.Nil(t, req.Body)
}

// TestUnusableCreateAnswer: a 2xx answer to a create that does not say
// what was created is an unknown outcome carrying status and request id,
// never a success with an empty id, never a bare decoding error.
func TestUnusableCreateAnswer(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{
		"empty":          ``,
		"spaces":         "  \n",
		"null":           `null`,
		"empty object":   `{}`,
		"no paymentId":   `{"transactionStatus":"RCVD"}`,
		"empty id":       `{"paymentId":"","transactionStatus":"RCVD"}`,
		"id not string":  `{"paymentId":42}`,
		"truncated":      `{"paymentId":"p-1","transactionSt`,
		"not JSON":       `<html>OK</html>`,
		"array":          `[{"paymentId":"p-1"}]`,
		"does not match": `{"paymentId":"p-1","transactionStatus":{"x":1}}`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.WriteHeader(http.StatusCreated)
				io.WriteString(w, body)
			})
			c := newTestClient(t, b.URL)
			var out struct {
				PaymentID         string `json:"paymentId"`
				TransactionStatus string `json:"transactionStatus"`
			}
			_, err := c.Do(t.Context(), createOp, &out)
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			var ou *OutcomeUnknownError
			require.ErrorAs(t, err, &ou)
			assert.Equal(t, http.StatusCreated, ou.StatusCode)
			assert.Equal(t, b.requests()[0].Header.Get("X-Request-ID"), ou.RequestID)
			assert.EqualValues(t, 1, b.count.Load())
		})
	}
	// The same answers to a repeatable call are not an unknown outcome.
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { io.WriteString(w, `{"x":`) })
	c := newTestClient(t, b.URL)
	var out map[string]any
	_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, &out)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
}

// TestNotSent: a refused connection and a failed TLS handshake never
// reached the bank: ErrNotSent, never ErrOutcomeUnknown, and a POST is
// retried within the policy.
func TestNotSent(t *testing.T) {
	t.Parallel()
	refused, err := faultnet.Refused()
	require.NoError(t, err)
	tlsURL, tlsSeen, closeTLS := faultnet.UntrustedTLS()
	t.Cleanup(closeTLS)
	for name, base := range map[string]string{"refused": "http://" + refused, "tls": tlsURL} {
		for _, op := range []Operation{createOp, startAuthOp, {Method: http.MethodGet, Path: "/v1/accounts"}} {
			t.Run(name+"/"+op.Method+op.Path, func(t *testing.T) {
				t.Parallel()
				var logs logBuffer
				c := newTestClient(t, base, WithLogger(debugLogger(&logs)), WithRetryPolicy(RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
				_, err := c.Do(t.Context(), op, nil)
				require.ErrorIs(t, err, ErrNotSent)
				assert.NotErrorIs(t, err, ErrOutcomeUnknown)
				var ns *NotSentError
				require.ErrorAs(t, err, &ns)
				assert.NotEmpty(t, ns.RequestID)
				assert.Equal(t, 3, logs.count(`"msg":"psd2 request"`), "first attempt and two retries")
			})
		}
	}
	assert.Equal(t, 0, tlsSeen())
}

// TestCanceledBeforeSendingIsNotSent: a call whose context is already done
// sends nothing.
func TestCanceledBeforeSendingIsNotSent(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {})
	c := newTestClient(t, b.URL)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := c.Do(ctx, createOp, nil)
	require.ErrorIs(t, err, ErrNotSent)
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualValues(t, 0, b.count.Load())
}

// TestTruncatedGETRetried: a body cut off mid-read is read inside the
// retry loop, so a repeatable call is retried like any transport failure;
// the same cut on a create is an unknown outcome, not a retry.
func TestTruncatedGETRetried(t *testing.T) {
	t.Parallel()
	truncating := func(w http.ResponseWriter, n int, body string) {
		if n == 1 {
			conn, buf, err := http.NewResponseController(w).Hijack()
			if err != nil {
				panic(err)
			}
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:len(body)/2])
			buf.Flush()
			conn.Close()
			return
		}
		io.WriteString(w, body)
	}
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		truncating(w, n, `{"accounts":[{"resourceId":"a-1"}]}`)
	})
	c := newTestClient(t, b.URL)
	var out struct {
		Accounts []struct {
			ResourceID string `json:"resourceId"`
		} `json:"accounts"`
	}
	_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, &out)
	require.NoError(t, err)
	require.Len(t, out.Accounts, 1)
	assert.EqualValues(t, 2, b.count.Load())

	p := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		truncating(w, n, `{"paymentId":"p-1","transactionStatus":"RCVD"}`)
	})
	c = newTestClient(t, p.URL)
	_, err = c.Do(t.Context(), createOp, nil)
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	var ou *OutcomeUnknownError
	require.ErrorAs(t, err, &ou)
	assert.Equal(t, http.StatusOK, ou.StatusCode)
	assert.EqualValues(t, 1, p.count.Load())
}

// TestSilentBankTimesOut: a bank that accepts the connection and says
// nothing ends a call with context.Background() within the response
// timeout: a POST after one attempt with an unknown outcome, a GET after
// retries that share the call timeout. Nothing here depends on how fast
// the machine is: the attempts are counted by an Observer, not fitted
// into a window; the call timeout is either far beyond what the attempts
// take (a bound on a hang) or far below it. The POST is given a second,
// not 200 ms: its attempt must have left, whatever the load, for its
// outcome to be unknown rather than not sent.
func TestSilentBankTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	silent := func(responseTimeout time.Duration, maxRetries int, callTimeout time.Duration) (*Client, *obsRecorder) {
		rec := &obsRecorder{}
		return newTestClient(t, b.URL, WithObserver(rec), WithResponseTimeout(responseTimeout), WithCallTimeout(callTimeout),
			WithRetryPolicy(RetryPolicy{MaxRetries: maxRetries, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond})), rec
	}
	// timedOut checks every attempt timed out and was followed by
	// another, but the last; that one was not, unless the call timeout
	// may have ended the wait before it (cut).
	timedOut := func(t *testing.T, rec *obsRecorder, cut bool) {
		t.Helper()
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for i, a := range rec.attempts {
			assert.Equal(t, "timeout", a.ErrorType, "attempt %d", i+1)
			if last := i == len(rec.attempts)-1; !last || !cut {
				assert.Equal(t, !last, a.Retry, "attempt %d", i+1)
			}
		}
	}

	// The POST: one attempt that left, ended by the response timeout (the
	// call timeout, a minute, only bounds a hang). On a starved machine
	// an attempt may time out before a byte of it left; the policy then
	// sends it again, and only the attempt that left counts.
	c, rec := silent(time.Second, 3, time.Minute)
	_, err := c.Do(context.Background(), createOp, nil)
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	var te *timeoutError
	require.ErrorAs(t, err, &te, "the response timeout ended it")
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
	timedOut(t, rec, false)
	rec.mu.Lock()
	for i, a := range rec.attempts {
		assert.Equal(t, i == len(rec.attempts)-1, a.Sent, "attempt %d: only the last one left", i+1)
	}
	rec.mu.Unlock()
	assert.LessOrEqual(t, b.count.Load(), int64(1), "never sent twice")

	// A GET: each attempt ended by the response timeout and retried, as
	// long as the policy allows.
	c, rec = silent(200*time.Millisecond, 3, time.Minute)
	_, err = c.Do(context.Background(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	require.ErrorAs(t, err, &te, "the response timeout ended the last attempt")
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
	assert.Len(t, rec.attempts, 4, "the first attempt and 3 retries")
	timedOut(t, rec, false)

	// A GET whose retries would outlast the call timeout: the call
	// timeout ends the call, retries and all. The 101 attempts the
	// policy allows would take at least 101 response timeouts (over 20
	// s), twenty times the call timeout.
	c, rec = silent(200*time.Millisecond, 100, time.Second)
	_, err = c.Do(context.Background(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
	rec.mu.Lock()
	n := len(rec.attempts)
	rec.mu.Unlock()
	assert.Less(t, n, 101, "the call timeout, not the retry policy, ended the call")
	timedOut(t, rec, true)
}

// TestStalledBodyTimesOut: a bank that sends the answer's headers and
// then stalls in the body ends the call within the response timeout of
// the body phase, with a timeout that says so; a POST's outcome is then
// unknown. The call timeout, a minute, only bounds a hang. The response
// timeout starts at a second and doubles, up to 16 s, while the headers
// did not come back within it (a starved machine): the case is the body
// phase's.
func TestStalledBodyTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		io.WriteString(w, `{"paymentId":`)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	var err error
	for d := time.Second; d <= 16*time.Second; d *= 2 {
		c := newTestClient(t, b.URL, WithResponseTimeout(d), WithCallTimeout(time.Minute))
		_, err = c.Do(context.Background(), createOp, nil)
		if !strings.Contains(fmt.Sprint(err), "no response headers") {
			break
		}
		t.Logf("no headers within %v: trying again with twice the response timeout", d)
	}
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
	assert.Contains(t, err.Error(), "response body")
	var ou *OutcomeUnknownError
	require.ErrorAs(t, err, &ou)
	seen := 0 // a request of an earlier try may arrive late: count this call's
	for _, r := range b.requests() {
		if r.Header.Get("X-Request-ID") == ou.RequestID {
			seen++
		}
	}
	assert.Equal(t, 1, seen)
}

// TestGETRetriedWithinCallerDeadline: with a caller deadline shorter than
// the response timeout, one hung attempt does not take it all: it is cut
// at half of the time left and the call is answered by a retry. The
// deadline of 5 s and the response timeout of an hour leave the first
// attempt 2.5 s, and the retries the other 2.5 s for an answer the bank
// gives at once: a slow machine only costs a retry more, which is why the
// attempts after the first are not counted exactly.
func TestGETRetriedWithinCallerDeadline(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			<-r.Context().Done()
			return
		}
		io.WriteString(w, `{}`)
	})
	rec := &obsRecorder{}
	c := newTestClient(t, b.URL, WithObserver(rec), WithResponseTimeout(time.Hour),
		WithRetryPolicy(RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := c.Do(ctx, Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil)
	require.NoError(t, err, "answered before the caller's deadline")
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.GreaterOrEqual(t, len(rec.attempts), 2)
	first := rec.attempts[0]
	assert.Equal(t, "timeout", first.ErrorType, "the client cut the hung attempt")
	assert.True(t, first.Retry)
	assert.Equal(t, http.StatusOK, rec.attempts[len(rec.attempts)-1].StatusCode)
}

// TestDefaultTimeouts: a client without options has the documented
// bounds, and invalid ones are refused.
func TestDefaultTimeouts(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "http://127.0.0.1:1")
	assert.Equal(t, DefaultResponseTimeout, c.cfg.responseTimeout)
	assert.Equal(t, DefaultCallTimeout, c.cfg.callTimeout)
	_, err := New("http://127.0.0.1:1", testCreds(t, 0), WithResponseTimeout(0))
	require.Error(t, err)
	_, err = New("http://127.0.0.1:1", testCreds(t, 0), WithCallTimeout(-time.Second))
	require.Error(t, err)
}

// TestAnswerSizeLimits: a 2xx body past the limits is refused without
// decoding; an error body is cut, not read in full.
func TestAnswerSizeLimits(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat(" ", maxBody) + "{}"
	spam := "[" + strings.Repeat("{},", maxJSONValues) + "{}]"
	members := `{"a":0` + strings.Repeat(`,"a":0`, maxJSONMembers) + "}"
	elements := `{"a":[0` + strings.Repeat(`,0`, maxJSONMembers) + "]}"
	for name, body := range map[string]string{"bytes": huge, "values": spam, "members": members, "elements": elements} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { io.WriteString(w, body) })
			c := newTestClient(t, b.URL)
			var out []map[string]any
			_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, &out)
			require.ErrorIs(t, err, ErrAnswerTooLarge)
			assert.Nil(t, out)
			assert.EqualValues(t, 1, b.count.Load(), "not retried: the same answer would come again")
			_, err = c.Do(t.Context(), createOp, nil)
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			require.ErrorIs(t, err, ErrAnswerTooLarge)
		})
	}
	var served atomic.Int64
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(http.StatusBadRequest)
		chunk := []byte(strings.Repeat("x", 256<<10))
		for range 256 { // 64 MiB
			if _, err := w.Write(chunk); err != nil {
				return
			}
			served.Add(int64(len(chunk)))
		}
	})
	c := newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusBadRequest, e.StatusCode)
	assert.Less(t, served.Load(), int64(64<<20), "the client stopped reading")
}

func TestCountJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body            string
		values, members int
	}{
		{`"{[{[,,"`, 0, 0},
		{`{"a":[{}],"b":"\"{,"}`, 3, 4},
		{`{"a":0,"b":1,"c":2}`, 1, 3},
		{`[1,2,3,[4,5]]`, 2, 6},
	} {
		v, m := countJSON([]byte(tc.body), 100, 100)
		assert.Equal(t, tc.values, v, tc.body)
		assert.Equal(t, tc.members, m, tc.body)
	}
	v, _ := countJSON([]byte(`[[[[`), 2, 100)
	assert.Equal(t, 2, v, "stops at the values' limit")
	_, m := countJSON([]byte(strings.Repeat(",", 10)), 100, 5)
	assert.Equal(t, 5, m, "stops at the members' limit")
}

// TestClockPoisoning: one answer with a wrong Date (a gateway page dated
// years ahead, or minutes off) does not move the learned offset, and the
// client keeps working; two agreeing answers do move it.
func TestClockPoisoning(t *testing.T) {
	t.Parallel()
	var poison atomic.Value
	poison.Store(time.Duration(0))
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		now := time.Now()
		if d := poison.Swap(time.Duration(0)).(time.Duration); d != 0 {
			now = now.Add(d)
		}
		w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
		if sent, err := http.ParseTime(r.Header.Get("Date")); err != nil || abs(time.Until(sent)) > maxClockSkew {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	// The breaker off: every answer here is a 503 (it would open).
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}), WithBreaker(BreakerPolicy{Off: true}))
	get := Operation{Method: http.MethodGet, Path: "/v1/accounts"}
	for _, d := range []time.Duration{3 * 365 * 24 * time.Hour, -10 * time.Minute, 5 * time.Minute} {
		poison.Store(d)
		_, err := c.Do(t.Context(), get, nil)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, http.StatusServiceUnavailable, e.StatusCode)
		assert.Less(t, abs(time.Duration(c.offset.Load())), 2*time.Second, "one answer moved the clock by %v", d)
		// The next call is sent and accepted as before.
		_, err = c.Do(t.Context(), get, nil)
		require.ErrorAs(t, err, &e)
		assert.Equal(t, http.StatusServiceUnavailable, e.StatusCode, "after a Date off by %v", d)
	}
}

// TestClientFiveMinutesOff: a client whose own clock is 5 minutes off lands
// inside the bank's 60 s window on its second try, and from then on on the
// first.
func TestClientFiveMinutesOff(t *testing.T) {
	t.Parallel()
	for _, off := range []time.Duration{5 * time.Minute, -5 * time.Minute} {
		b := skewedBank(t, 0)
		c := newTestClient(t, b.URL, WithClock(func() time.Time { return time.Now().Add(off) }))
		_, err := c.Do(t.Context(), createOp, nil)
		require.NoError(t, err)
		assert.EqualValues(t, 2, b.count.Load())
		for range 3 {
			_, err = c.Do(t.Context(), createOp, nil)
			require.NoError(t, err)
		}
		assert.EqualValues(t, 5, b.count.Load())
	}
}

// TestCertificateValidityUsesLocalClock: a learned offset never makes a
// valid certificate look expired, nor an expired one valid.
func TestCertificateValidityUsesLocalClock(t *testing.T) {
	t.Parallel()
	now := time.Now()
	creds := testCreds(t, 1)
	creds.Certificate = newCert(t, 1, now.Add(-time.Hour), now.Add(2*time.Minute))
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		io.WriteString(w, `{}`)
	})
	c, err := New(b.URL, creds, testDefaults)
	require.NoError(t, err)
	c.offset.Store(int64(10 * time.Minute)) // the bank runs 10 minutes ahead
	_, err = c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/accounts"}, nil)
	require.NoError(t, err)
	assert.False(t, errors.Is(err, ErrNotSent))
}
