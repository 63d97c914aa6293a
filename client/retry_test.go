package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/signing"
)

// steppingClock advances one second on every reading, so that every
// attempt gets a different Date.
func steppingClock() func() time.Time {
	var n atomic.Int64
	start := time.Now()
	return func() time.Time { return start.Add(time.Duration(n.Add(1)) * time.Second) }
}

// checkAttempts asserts that every attempt verified, carried the same
// X-Request-ID and body, and had a Date of its own.
func checkAttempts(t *testing.T, reqs []recorded) {
	t.Helper()
	dates := map[string]bool{}
	for i, r := range reqs {
		require.NoError(t, r.VerifyErr, "attempt %d", i+1)
		assert.Equal(t, reqs[0].Header.Get("X-Request-ID"), r.Header.Get("X-Request-ID"))
		assert.Equal(t, reqs[0].Body, r.Body)
		assert.Empty(t, r.Header.Get("Idempotency-Key"))
		dates[r.Header.Get("Date")] = true
	}
	assert.Len(t, dates, len(reqs), "every attempt has a fresh Date")
}

func TestRepeatableRetried(t *testing.T) {
	t.Parallel()
	fail := func(status int, header ...string) func(w http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.WriteHeader(status)
			io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"SYSTEM_ERROR"}]}`)
		}
	}
	tests := []struct {
		name   string
		method string
		repeat bool
		fail   func(w http.ResponseWriter)
	}{
		{"GET 503", http.MethodGet, false, fail(503)},
		{"GET 502", http.MethodGet, false, fail(502)},
		{"GET 504", http.MethodGet, false, fail(504)},
		{"GET 429 Retry-After seconds", http.MethodGet, false, fail(429, "Retry-After", "0")},
		{"GET 429 ACCESS_EXCEEDED Retry-After", http.MethodGet, false, func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(429)
			io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`)
		}},
		{"GET 503 Retry-After date", http.MethodGet, false, fail(503, "Retry-After", time.Now().UTC().Add(-time.Minute).Format(http.TimeFormat))},
		{"GET dropped connection", http.MethodGet, false, hangUp},
		{"DELETE 503", http.MethodDelete, false, fail(503)},
		{"repeatable POST 503", http.MethodPost, true, fail(503)},
		{"repeatable POST dropped connection", http.MethodPost, true, hangUp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				// No Date: the client's stepping clock is not corrected.
				w.Header()["Date"] = nil
				if n < 3 {
					tt.fail(w)
					return
				}
				io.WriteString(w, `{"status":"ACTC"}`)
			})
			c := newTestClient(t, b.URL+"/api", WithClock(steppingClock()))
			var out struct{ Status string }
			op := Operation{Name: "test", Method: tt.method, Path: "/v1/x", Repeatable: tt.repeat}
			if tt.method == http.MethodPost {
				op.Body = map[string]string{"a": "b"}
			}
			resp, err := c.Do(t.Context(), op, &out)
			require.NoError(t, err)
			assert.Equal(t, "ACTC", out.Status)
			assert.Equal(t, 200, resp.StatusCode)
			assert.EqualValues(t, 3, b.count.Load())
			reqs := b.requests()
			checkAttempts(t, reqs)
			assert.Equal(t, resp.RequestID, reqs[0].Header.Get("X-Request-ID"))
		})
	}
}

func TestRetriesExhausted(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(503) })
	c := newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 503, e.StatusCode)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	assert.EqualValues(t, fastRetry.MaxRetries+1, b.count.Load())
}

// BeforeRetry runs before each retry of an attempt that reached the bank,
// with the resolved call, and its error ends the call with that attempt's
// answer; a retry of an attempt that never left does not run it.
func TestBeforeRetryGatesRetries(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(503) })
	c := newTestClient(t, b.URL)
	var gates atomic.Int64
	op := Operation{Method: "GET", Path: "/v1/accounts/x/balances", BeforeRetry: func(ctx context.Context, call *Call) error {
		assert.Equal(t, b.URL+"/v1/accounts/x/balances", call.URL)
		assert.NotEmpty(t, call.Header.Get("X-Request-ID"))
		for _, k := range attemptHeaders {
			assert.Empty(t, call.Header.Values(k), "the call's headers, not an attempt's: %s", k)
		}
		if gates.Add(1) == 2 {
			return errors.New("no more calls")
		}
		return nil
	}}
	_, err := c.Do(t.Context(), op, nil)
	var e *Error
	require.ErrorAs(t, err, &e, "the call ends with the last answer, not the gate's error")
	assert.Equal(t, 503, e.StatusCode)
	assert.EqualValues(t, 2, gates.Load())
	assert.EqualValues(t, 2, b.count.Load(), "the first attempt and the one retry the gate allowed")

	// Attempts that never left: retried without asking.
	gates.Store(0)
	dead := newTestClient(t, "http://"+closedAddr(t))
	_, err = dead.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts/x/balances",
		BeforeRetry: func(context.Context, *Call) error { gates.Add(1); return nil }}, nil)
	require.ErrorIs(t, err, ErrNotSent)
	assert.Zero(t, gates.Load())
}

// headerRecorder answers 503 to every request, keeping each attempt's
// header map and the Signature it carried when it was sent.
type headerRecorder struct {
	mu   sync.Mutex
	maps []http.Header
	sigs []string
}

func (h *headerRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.mu.Lock()
	h.maps = append(h.maps, r.Header)
	h.sigs = append(h.sigs, r.Header.Get("Signature"))
	h.mu.Unlock()
	return &http.Response{StatusCode: 503, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
}

// Each attempt is signed in headers of its own: the first in the call's
// headers, a retry in a copy, so signing a retry never changes the
// headers of an attempt the transport may still be reading.
func TestRetrySignsOwnHeaders(t *testing.T) {
	t.Parallel()
	rec := &headerRecorder{}
	var tick atomic.Int64
	// Ten seconds later at each reading, from now: testCreds' certificate
	// is valid from a day before the real clock's now to a year after.
	start := time.Now()
	clock := func() time.Time { return start.Add(time.Duration(tick.Add(1)) * 10 * time.Second) }
	c := newTestClient(t, "https://psd2.bank.example/api", WithClock(clock), WithHTTPClient(&http.Client{Transport: rec}))
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts/x/balances"}, nil)
	require.Error(t, err)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.maps, fastRetry.MaxRetries+1)
	for i, h := range rec.maps {
		assert.Equal(t, rec.sigs[i], h.Get("Signature"), "attempt %d's headers were changed after it was sent", i+1)
		if i > 0 {
			assert.NotEqual(t, rec.sigs[i-1], rec.sigs[i], "each attempt has its own Date and signature")
		}
	}
}

func TestRetryAfterBeyondCapNotRetried(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(429)
		io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`)
	})
	c := newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts/x/balances"}, nil)
	require.ErrorIs(t, err, ErrAccessExceeded)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "3600", e.Header.Get("Retry-After"))
	assert.EqualValues(t, 1, b.count.Load())
}

func TestAccessExceededNotRetried(t *testing.T) {
	t.Parallel()
	// A 429 ACCESS_EXCEEDED without Retry-After is the daily without-PSU
	// budget (docs/interface.md section 8): retrying cannot help and could spend more of
	// it. The body reaches the caller intact after the client peeked at it.
	// (With Retry-After it is retried: TestRepeatableRetried.)
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(429)
		io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED","text":"4 calls in 24 hours"}]}`)
	})
	c := newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts/x/transactions"}, nil)
	require.ErrorIs(t, err, ErrAccessExceeded)
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Len(t, e.Messages, 1)
	assert.Equal(t, "4 calls in 24 hours", e.Messages[0].Text)
	assert.EqualValues(t, 1, b.count.Load())
}

// heldDeadline is a context whose deadline passes once the bank holds
// the request (pass), not after a fixed time: on a busy machine a fixed
// one may pass before the request has reached the bank.
type heldDeadline struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newHeldDeadline(parent context.Context) *heldDeadline {
	return &heldDeadline{Context: parent, done: make(chan struct{})}
}

func (c *heldDeadline) pass()                 { c.once.Do(func() { close(c.done) }) }
func (c *heldDeadline) Done() <-chan struct{} { return c.done }

func (c *heldDeadline) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func TestNonRepeatablePOSTNeverSentTwice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		handle   func(w http.ResponseWriter, r *http.Request)
		deadline bool // the caller's deadline passes while the bank holds the request
		status   int
	}{
		{"503", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, false, 503},
		{"502", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(502) }, false, 502},
		{"500", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }, false, 500},
		{"dropped after body read", func(w http.ResponseWriter, r *http.Request) { hangUp(w) }, false, 0},
		{"timeout", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			held := newHeldDeadline(t.Context())
			b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if tt.deadline {
					held.pass()
				}
				tt.handle(w, r)
			})
			c := newTestClient(t, b.URL)
			var ctx context.Context = t.Context()
			if tt.deadline {
				ctx = held
			}
			const id = "9b2d2c6e-37d2-4f57-9b7e-3f2b1d0c5a11"
			_, err := c.Do(ctx, Operation{Name: "payments.Create", Method: "POST", Path: "/v1/payments/norwegian-domestic-credit-transfers", Body: map[string]string{"k": "v"}}, nil, WithRequestID(id))
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			var ou *OutcomeUnknownError
			require.ErrorAs(t, err, &ou)
			assert.Equal(t, OutcomeUnknownError{Operation: "payments.Create", RequestID: id, StatusCode: tt.status, Err: ou.Err}, *ou)
			reqs := b.requests()
			require.Len(t, reqs, 1, "the request reached the bank once, never twice")
			require.NoError(t, reqs[0].VerifyErr)
			if tt.deadline {
				assert.ErrorIs(t, err, context.DeadlineExceeded)
			}
		})
	}
}

func TestNonRepeatablePOST4xxIsError(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 429} {
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.WriteHeader(status)
			io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR"}]}`)
		})
		c := newTestClient(t, b.URL)
		_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: []int{1}}, nil)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, status, e.StatusCode)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown)
		assert.EqualValues(t, 1, b.count.Load())
	}
}

// closedAddr returns a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func TestPOSTRetriedWhenDialFails(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	dead := closedAddr(t)
	var dials atomic.Int64
	// The first two dials go to a closed port, later ones to the bank.
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) <= 2 {
			addr = dead
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	c := newTestClient(t, b.URL, WithHTTPClient(&http.Client{Transport: tr}), WithClock(steppingClock()))
	_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}}, nil)
	require.NoError(t, err)
	assert.EqualValues(t, 3, dials.Load())
	assert.EqualValues(t, 1, b.count.Load())
	checkAttempts(t, b.requests())
}

func TestPOSTToClosedPort(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "http://"+closedAddr(t))
	_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}}, nil)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a request that never left has a known outcome")
	var op *net.OpError
	require.ErrorAs(t, err, &op)
	assert.Equal(t, "dial", op.Op)
}

func TestCancelStopsWaiting(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(503) })
	var logs logBuffer
	c := newTestClient(t, b.URL, WithLogger(debugLogger(&logs)), WithCallTimeout(0), WithRetryPolicy(RetryPolicy{MaxRetries: 5, MinBackoff: time.Hour, MaxBackoff: time.Hour, MaxRetryAfter: time.Hour}))
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Do(ctx, Operation{Method: "GET", Path: "/v1/accounts"}, nil)
		errc <- err
	}()
	// The retry is logged just before the client starts waiting.
	require.Eventually(t, func() bool { return logs.count(`"retry":true`) == 1 }, time.Minute, time.Millisecond, "a bound on a hang")
	cancel()
	err := <-errc
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualValues(t, 1, b.count.Load())
}

func TestDeadlineShorterThanBackoffNotRetried(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(503) })
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{MaxRetries: 5, MinBackoff: time.Hour, MaxBackoff: time.Hour, MaxRetryAfter: time.Hour}))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := c.Do(ctx, Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 503, e.StatusCode)
	assert.EqualValues(t, 1, b.count.Load())
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	server := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{server.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second, true},
		{server.Add(-10 * time.Second).Format(http.TimeFormat), 0, true},
		{"99999999999", 24 * time.Hour, true},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.value != "" {
			h.Set("Retry-After", tt.value)
		}
		d, ok := retryAfter(h, server, time.Now())
		assert.Equal(t, tt.want, d, tt.value)
		assert.Equal(t, tt.ok, ok, tt.value)
	}
}

func TestBackoffBounds(t *testing.T) {
	t.Parallel()
	p := RetryPolicy{MaxRetries: 10, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	for n := range 40 {
		d := p.backoff(n)
		ceil := min(p.MinBackoff<<min(n, 20), p.MaxBackoff)
		assert.True(t, d >= ceil/2 && d <= ceil, "retry %d: %v not in [%v, %v]", n, d, ceil/2, ceil)
	}
}

// skewedBank runs ahead of the client by ahead and refuses a Date more
// than 60 s off its own clock with 400, as the bank does (docs/interface.md section 5.3).
func skewedBank(t *testing.T, ahead time.Duration) *bank {
	return newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		now := time.Now().Add(ahead)
		w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
		d, err := http.ParseTime(r.Header.Get("Date"))
		if err != nil || d.Sub(now) > maxClockSkew || now.Sub(d) > maxClockSkew {
			w.WriteHeader(400)
			io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"Date","text":"The Date header is more than 60 seconds off the server time."}]}`)
			return
		}
		io.WriteString(w, `{"paymentId":"p1"}`)
	})
}

func TestClockSkewLearned(t *testing.T) {
	t.Parallel()
	b := skewedBank(t, 5*time.Minute)
	c := newTestClient(t, b.URL, WithRetryPolicy(RetryPolicy{}))
	// The first POST is refused for its Date and sent once more with the
	// learned clock: 400 means the bank processed nothing.
	_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}}, nil)
	require.NoError(t, err)
	assert.EqualValues(t, 2, b.count.Load())
	// Later calls are right the first time.
	for _, m := range []string{"GET", "POST"} {
		_, err = c.Do(t.Context(), Operation{Method: m, Path: "/v1/accounts", Body: map[string]int{"n": 1}}, nil)
		require.NoError(t, err)
	}
	assert.EqualValues(t, 4, b.count.Load())
	reqs := b.requests()
	for _, r := range reqs {
		require.NoError(t, r.VerifyErr)
	}
	assert.Equal(t, reqs[0].Header.Get("X-Request-ID"), reqs[1].Header.Get("X-Request-ID"))
	off := time.Duration(c.offset.Load())
	assert.InDelta(t, float64(5*time.Minute), float64(off), float64(5*time.Second))
}

func TestClockSkewRetriedOnce(t *testing.T) {
	t.Parallel()
	// A bank whose Date is always 5 minutes off the Date it accepts never
	// lets the client catch up: one skew retry, no loop.
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Date", time.Now().Add(5*time.Minute).UTC().Format(http.TimeFormat))
		w.WriteHeader(400)
		io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"FORMAT_ERROR","path":"Date"}]}`)
	})
	c := newTestClient(t, b.URL)
	_, err := c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: 1}, nil)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 400, e.StatusCode)
	assert.EqualValues(t, 2, b.count.Load())
}

func TestRetryForClockSkew(t *testing.T) {
	t.Parallel()
	now := time.Now()
	assert.True(t, retryForClockSkew(400, now, now.Add(61*time.Second)))
	assert.True(t, retryForClockSkew(400, now, now.Add(-5*time.Minute)))
	assert.False(t, retryForClockSkew(400, now, now.Add(59*time.Second)))
	assert.False(t, retryForClockSkew(401, now, now.Add(5*time.Minute)))
	assert.False(t, retryForClockSkew(400, now, time.Time{}))
}

func TestExpiredCertificateRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	now := time.Now()
	tests := []struct {
		name       string
		from, till time.Time
		want       error
	}{
		{"expired", now.Add(-48 * time.Hour), now.Add(-time.Hour), signing.ErrCertExpired},
		{"not yet valid", now.Add(time.Hour), now.Add(48 * time.Hour), signing.ErrCertNotYetValid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBank(t, nil)
			creds := &signing.Credentials{Certificate: newCert(t, 1, tt.from, tt.till), Key: testKey(1)}
			// Made while the certificate is valid, used when it is not.
			var clock atomic.Int64
			clock.Store(tt.from.Add(time.Minute).UnixNano())
			c, err := New(b.URL, creds, testDefaults, WithClock(func() time.Time { return time.Unix(0, clock.Load()) }))
			require.NoError(t, err)
			clock.Store(now.UnixNano())
			_, err = c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: 1}, nil)
			require.ErrorIs(t, err, tt.want)
			assert.NotErrorIs(t, err, ErrOutcomeUnknown)
			assert.EqualValues(t, 0, b.count.Load())
		})
	}
}

func TestExpiryWarnedOnce(t *testing.T) {
	t.Parallel()
	now := time.Now()
	b := newBank(t, nil)
	var logs logBuffer
	creds := &signing.Credentials{Certificate: newCert(t, 1, now.Add(-time.Hour), now.Add(10*24*time.Hour)), Key: testKey(1)}
	c, err := New(b.URL, creds, WithLogger(debugLogger(&logs)), testDefaults)
	require.NoError(t, err)
	for range 3 {
		_, err = c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, 1, logs.count("certificate expires soon"))

	// Outside the window: no warning.
	var quiet logBuffer
	c, err = New(b.URL, creds, WithLogger(debugLogger(&quiet)), WithExpiryWarning(24*time.Hour), testDefaults)
	require.NoError(t, err)
	_, err = c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	require.NoError(t, err)
	assert.Equal(t, 0, quiet.count("expires soon"))
	assert.Equal(t, 1, quiet.count(`"msg":"psd2 request"`))
}

func TestRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	other := newBank(t, nil)
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
	})
	for _, c := range []*Client{
		newTestClient(t, b.URL),
		newTestClient(t, b.URL, WithHTTPClient(&http.Client{})),
	} {
		_, err := c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil, WithPSU(PSU{ID: "5b8e8a0e-4a4f-4a8e-9c39-6a4b5f6a7b8c"}))
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, http.StatusFound, e.StatusCode)
	}
	assert.EqualValues(t, 0, other.count.Load())
}

func TestForeignHostRefused(t *testing.T) {
	t.Parallel()
	b := newBank(t, nil)
	other := newBank(t, nil)
	c := newTestClient(t, b.URL+"/api")
	for _, href := range []string{other.URL + "/api/v1/accounts", "//evil.example/v1/accounts", "https://" + strings.TrimPrefix(b.URL, "http://") + "/v1/x"} {
		_, err := c.Do(t.Context(), Operation{Method: "GET", Path: href}, nil)
		require.ErrorIs(t, err, ErrForeignHost, href)
	}
	assert.EqualValues(t, 0, other.count.Load())
	assert.EqualValues(t, 0, b.count.Load())
}
