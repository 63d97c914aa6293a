package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/signing"
)

// obsRecorder is an Observer that keeps every event.
type obsRecorder struct {
	mu       sync.Mutex
	starts   []OperationStart
	attempts []AttemptEvent
	ends     []OperationEvent
}

type recKey struct{}

func (r *obsRecorder) StartOperation(ctx context.Context, op OperationStart) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts = append(r.starts, op)
	return context.WithValue(ctx, recKey{}, len(r.starts))
}

func (r *obsRecorder) ObserveAttempt(ctx context.Context, a AttemptEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Value(recKey{}) != len(r.starts) {
		panic("attempt without its operation's context")
	}
	r.attempts = append(r.attempts, a)
}

func (r *obsRecorder) EndOperation(ctx context.Context, e OperationEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Value(recKey{}) != len(r.starts) {
		panic("end without its operation's context")
	}
	r.ends = append(r.ends, e)
}

func TestObserverRetriedGET(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"SYSTEM_ERROR","text":"Kari Nordmann"}]}`)
			return
		}
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	rec := &obsRecorder{}
	c := newTestClient(t, srv.URL, WithObserver(rec))
	_, err := c.Do(context.Background(), Operation{Name: "accounts.Get", Method: "GET", Path: "/v1/accounts/12345678903"}, nil)
	require.NoError(t, err)

	require.Len(t, rec.attempts, 2)
	a1, a2 := rec.attempts[0], rec.attempts[1]
	assert.Equal(t, 1, a1.Attempt)
	assert.Equal(t, 503, a1.StatusCode)
	assert.Equal(t, []string{"SYSTEM_ERROR"}, a1.Codes)
	assert.Equal(t, OutcomeFailed, a1.Outcome)
	assert.True(t, a1.Retry)
	assert.True(t, a1.Sent)
	assert.Equal(t, 2, a2.Attempt)
	assert.Equal(t, 200, a2.StatusCode)
	assert.Equal(t, OutcomeOK, a2.Outcome)
	assert.False(t, a2.Retry)

	require.Len(t, rec.ends, 1)
	e := rec.ends[0]
	assert.Equal(t, "accounts.Get", e.Operation)
	assert.Equal(t, "/v1/accounts/{id}", e.Route)
	assert.NotContains(t, e.Route, "12345678903")
	assert.Equal(t, strings.TrimPrefix(srv.URL, "http://"), e.Bank)
	assert.Equal(t, 2, e.Attempts)
	assert.Equal(t, 200, e.StatusCode)
	assert.Equal(t, OutcomeOK, e.Outcome)
	assert.True(t, e.Sent)
	assert.Zero(t, e.BudgetCalls)
}

func TestObserverPaymentOneAttempt(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	rec := &obsRecorder{}
	c := newTestClient(t, srv.URL, WithObserver(rec))
	_, err := c.Do(context.Background(), Operation{Name: "payments.Create", Method: "POST",
		Path: "/v1/payments/norwegian-domestic-credit-transfers", Body: map[string]string{"a": "b"}, ResultID: "paymentId"}, nil)
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.EqualValues(t, 1, n.Load())
	require.Len(t, rec.attempts, 1)
	assert.Equal(t, OutcomeFailed, rec.attempts[0].Outcome) // a 502 answer, classed alone
	require.Len(t, rec.ends, 1)
	assert.Equal(t, OutcomeUnknown, rec.ends[0].Outcome)
	assert.Equal(t, 502, rec.ends[0].StatusCode)
	assert.Equal(t, 1, rec.ends[0].Attempts)
}

func TestObserverOutcomes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/v1/limited":
			w.WriteHeader(429)
			io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`)
		case "/v1/sca":
			w.WriteHeader(401)
			io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"SCA_EXPIRED"}],"_links":{"scaRedirect":{"href":"https://bank.example/sca"}}}`)
		case "/v1/refused":
			w.WriteHeader(400)
			io.WriteString(w, `{"tppMessages":[{"category":"ERROR","code":"Kari Nordmann 01019912345"}]}`)
		default:
			w.WriteHeader(201)
			io.WriteString(w, `{"paymentId":"p1"}`)
		}
	}))
	defer srv.Close()
	rec := &obsRecorder{}
	c := newTestClient(t, srv.URL, WithObserver(rec))
	ctx := context.Background()
	for _, path := range []string{"/v1/limited", "/v1/sca", "/v1/refused"} {
		_, err := c.Do(ctx, Operation{Method: "GET", Path: path}, nil)
		require.Error(t, err)
	}
	_, err := c.Do(ctx, Operation{Method: "POST", Path: "/v1/created", Body: map[string]int{}, ResultID: "paymentId"}, nil)
	require.NoError(t, err)
	budget := func(ctx context.Context, _ *Call) (func(Result), error) {
		return nil, fmt.Errorf("spent: %w", ErrAccessExceeded)
	}
	_, err = c.Do(ctx, Operation{Method: "GET", Path: "/v1/budget", Hook: budget}, nil)
	require.ErrorIs(t, err, ErrNotSent)
	counted := func(ctx context.Context, _ *Call) (func(Result), error) {
		NoteBudgetLeft(ctx, 3)
		return nil, nil
	}
	_, err = c.Do(ctx, Operation{Method: "GET", Path: "/v1/counted", Hook: counted}, nil)
	require.NoError(t, err)
	_, err = c.Do(ctx, Operation{Method: "GET", Path: "/v1/x", Validate: func(*Call) error { return errors.New("bad") }}, nil)
	require.ErrorIs(t, err, ErrNotSent)

	require.Len(t, rec.ends, 7)
	want := []Outcome{OutcomeRateLimited, OutcomeSCARequired, OutcomeRefused, OutcomeCreated, OutcomeBudgetRefused, OutcomeOK, OutcomeNotSent}
	for i, w := range want {
		assert.Equal(t, w, rec.ends[i].Outcome, "operation %d (%s)", i, rec.ends[i].Route)
	}
	assert.Equal(t, []string{"ACCESS_EXCEEDED"}, rec.ends[0].Codes)
	assert.Equal(t, []string{"SCA_EXPIRED"}, rec.ends[1].Codes)
	assert.Equal(t, []string{"OTHER"}, rec.ends[2].Codes, "a code outside the list never reaches an event")
	assert.Equal(t, OutcomeRateLimited, rec.attempts[0].Outcome)
	assert.Equal(t, OutcomeSCARequired, rec.attempts[1].Outcome)
	assert.Equal(t, OutcomeCreated, rec.attempts[3].Outcome)
	assert.Zero(t, rec.ends[4].BudgetCalls)
	assert.Equal(t, 0, rec.ends[4].Attempts)
	assert.False(t, rec.ends[4].Sent)
	assert.Equal(t, 1, rec.ends[5].BudgetCalls)
	assert.Equal(t, 3, rec.ends[5].BudgetLeft)
	assert.Equal(t, 0, rec.ends[6].Attempts)
}

func TestObserverAttemptNotSent(t *testing.T) {
	rec := &obsRecorder{}
	// Nothing listens there: every attempt fails to connect.
	c := newTestClient(t, "http://127.0.0.1:1", WithObserver(rec), WithRetryPolicy(RetryPolicy{MaxRetries: 1}))
	_, err := c.Do(context.Background(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{}}, nil)
	require.ErrorIs(t, err, ErrNotSent)
	require.Len(t, rec.attempts, 2, "an attempt that never left is retried, whatever the method")
	for _, a := range rec.attempts {
		assert.False(t, a.Sent)
		assert.Equal(t, OutcomeNotSent, a.Outcome)
		assert.Equal(t, "transport", a.ErrorType)
	}
	assert.Equal(t, OutcomeNotSent, rec.ends[0].Outcome)
}

func TestWithObserverNil(t *testing.T) {
	_, err := New("https://bank.example", testCreds(t, 0), WithObserver(nil))
	require.Error(t, err)
}

func TestOutcomeString(t *testing.T) {
	assert.Equal(t, "rate_limited", OutcomeRateLimited.String())
	assert.Equal(t, "failed", OutcomeFailed.String())
	assert.Equal(t, "invalid", Outcome(0).String())
	assert.Equal(t, "invalid", Outcome(200).String())
}

// nopObserver does nothing: its cost is the seam's own.
type nopObserver struct{}

func (nopObserver) StartOperation(ctx context.Context, _ OperationStart) context.Context { return ctx }
func (nopObserver) ObserveAttempt(context.Context, AttemptEvent)                         {}
func (nopObserver) EndOperation(context.Context, OperationEvent)                         {}

// BenchmarkObserverSeam measures a signed GET without an observer and
// with one that does nothing, interleaved call by call in one run (the
// machine's noise falls on both alike): nop/none is the seam's cost.
func BenchmarkObserverSeam(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	none, nop := newTestClient(b, srv.URL), newTestClient(b, srv.URL, WithObserver(nopObserver{}))
	var dNone, dNop time.Duration
	op := Operation{Name: "x", Method: "GET", Path: "/v1/accounts/1"}
	for i := 0; b.Loop(); i++ {
		c, d := none, &dNone
		if i%2 == 1 {
			c, d = nop, &dNop
		}
		t0 := time.Now()
		if _, err := c.Do(context.Background(), op, nil); err != nil {
			b.Fatal(err)
		}
		*d += time.Since(t0)
	}
	if dNone > 0 {
		b.ReportMetric(float64(dNop)/float64(dNone), "nop/none")
	}
}

// startRecorder is an obsRecorder that is also told when each attempt
// starts (an AttemptStarter), and keeps the events in their order.
type startRecorder struct {
	obsRecorder
	starts []AttemptStart
	order  []string
}

type attemptKey struct{}

func (r *startRecorder) StartAttempt(ctx context.Context, a AttemptStart) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Value(recKey{}) != len(r.obsRecorder.starts) {
		panic("attempt started without its operation's context")
	}
	r.starts = append(r.starts, a)
	r.order = append(r.order, fmt.Sprintf("start %d", a.Attempt))
	return context.WithValue(ctx, attemptKey{}, a.Attempt)
}

func (r *startRecorder) ObserveAttempt(ctx context.Context, a AttemptEvent) {
	r.obsRecorder.ObserveAttempt(ctx, a)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.order = append(r.order, fmt.Sprintf("end %d (ctx of %v)", a.Attempt, ctx.Value(attemptKey{})))
}

// TestObserverStartAttempt: an AttemptStarter is told when each attempt
// starts, before its request is built, and its context is the one the
// request is sent with and ObserveAttempt gets; the attempt's end is
// when its answer was read, before the client decided on a retry.
func TestObserverStartAttempt(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	var sentWith []any // the attempt's key in each request's context
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sentWith = append(sentWith, r.Context().Value(attemptKey{}))
		return http.DefaultTransport.RoundTrip(r)
	})}
	rec := &startRecorder{}
	c := newTestClient(t, srv.URL, WithObserver(rec), WithHTTPClient(hc))
	var decided []time.Time // when BeforeRetry ran, after the attempt
	op := Operation{Name: "accounts.Get", Method: "GET", Path: "/v1/accounts/12345678903",
		BeforeRetry: func(context.Context, *Call) error {
			decided = append(decided, time.Now())
			return nil
		}}
	_, err := c.Do(context.Background(), op, nil)
	require.NoError(t, err)

	assert.Equal(t, []string{"start 1", "end 1 (ctx of 1)", "start 2", "end 2 (ctx of 2)"}, rec.order)
	assert.Equal(t, []any{1, 2}, sentWith, "each request is sent with its attempt's context")
	require.Len(t, rec.starts, 2)
	require.Len(t, rec.attempts, 2)
	require.Len(t, decided, 1)
	for i, s := range rec.starts {
		a := rec.attempts[i]
		assert.Equal(t, i+1, s.Attempt)
		assert.Equal(t, "accounts.Get", s.Operation)
		assert.Equal(t, "/v1/accounts/{id}", s.Route)
		assert.False(t, a.Start.Before(s.Start), "attempt %d was handed to the transport after it began", s.Attempt)
	}
	end1 := rec.attempts[0].Start.Add(rec.attempts[0].Duration)
	assert.True(t, end1.Before(decided[0]), "the first attempt ended before the retry was decided")
	assert.True(t, rec.starts[1].Start.After(decided[0]), "the second attempt began after it")
}

// TestObserverStartAttemptNotHanded: an attempt that fails before its
// request reaches the transport (here: no credentials to sign with) starts and ends
// once, from its beginning.
func TestObserverStartAttemptNotHanded(t *testing.T) {
	rec := &startRecorder{}
	creds := testCreds(t, 0)
	// The source fails only when asked to sign an attempt's request.
	broken := func(ctx context.Context) (*signing.Credentials, error) {
		if ctx.Value(attemptKey{}) != nil {
			return nil, errors.New("vault down")
		}
		return creds, nil
	}
	c, err := New("https://bank.example", nil, WithObserver(rec), WithCredentialsSource(broken),
		WithDefaults(WithRedirectURI(testRedirectURI)), WithRetryPolicy(RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	require.NoError(t, err)
	_, err = c.Do(context.Background(), Operation{Method: "GET", Path: "/v1/x"}, nil)
	require.ErrorIs(t, err, ErrNotSent, "%v", err)
	require.NotEmpty(t, rec.starts, "%v", err)
	require.Len(t, rec.attempts, len(rec.starts))
	for i, s := range rec.starts {
		a := rec.attempts[i]
		assert.Equal(t, s.Start, a.Start, "an attempt never handed over starts when it began")
		assert.False(t, a.Sent)
		assert.Equal(t, "local", a.ErrorType)
	}
}

// TestObserverBankLabel: the events name the bank by the name WithBank
// gave it (the directory's id), else by the base URL's host.
func TestObserverBankLabel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	for _, c := range []struct {
		opts []Option
		want string
	}{
		{[]Option{WithBank("sr-bank")}, "sr-bank"},
		{nil, strings.TrimPrefix(srv.URL, "http://")},
	} {
		rec := &startRecorder{}
		cl := newTestClient(t, srv.URL, append(c.opts, WithObserver(rec))...)
		_, err := cl.Do(context.Background(), Operation{Method: "GET", Path: "/v1/x"}, nil)
		require.NoError(t, err)
		require.Len(t, rec.ends, 1)
		assert.Equal(t, c.want, rec.obsRecorder.starts[0].Bank)
		assert.Equal(t, c.want, rec.starts[0].Bank)
		assert.Equal(t, c.want, rec.attempts[0].Bank)
		assert.Equal(t, c.want, rec.ends[0].Bank)
	}
}

// nilContextObserver returns no context: a broken observer.
type nilContextObserver struct{ nopObserver }

func (nilContextObserver) StartOperation(context.Context, OperationStart) context.Context { return nil }
func (nilContextObserver) StartAttempt(context.Context, AttemptStart) context.Context     { return nil }

// TestObserverNilContext: an observer that returns a nil context does
// not make the client panic; the call goes on with its own.
func TestObserverNilContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, WithObserver(nilContextObserver{}))
	_, err := c.Do(context.Background(), Operation{Method: "GET", Path: "/v1/x"}, nil)
	require.NoError(t, err)
}

// TestSafeCode: SafeCode keeps exactly the interface's codes (Codes) and
// turns everything else a bank could send into "OTHER".
func TestSafeCode(t *testing.T) {
	t.Parallel()
	for _, c := range Codes {
		assert.Equal(t, c, SafeCode(c))
	}
	// Every code of the interface's error list is one of them (on the
	// code before, seven were reported as "OTHER").
	for _, c := range []string{"SYSTEM_ERROR", "BAD_REQUEST", "FORBIDDEN", "NOT_FOUND", "CONFLICT", "HTTP_HEADER_REQUIRED",
		"QUERY_PARAMETER_REQUIRED", "SCA_NOT_FOUND", "SCA_EXPIRED", "SCA_INVALID", "FORMAT_ERROR", "RESOURCE_UNKNOWN",
		"PSU_CREDENTIALS_INVALID", "CONSENT_UNKNOWN", "CONSENT_INVALID", "CONSENT_EXPIRED", "ACCESS_EXCEEDED",
		"PRODUCT_UNKNOWN", "PRODUCT_INVALID", "KID_MISSING", "KID_INVALID", "PAYMENT_FAILED", "EXECUTION_DATE_INVALID",
		"REFERENCE_MIX_INVALID"} {
		assert.Equal(t, c, SafeCode(c))
	}
	for _, c := range []string{"01017012345", "consent_unknown", "CONSENT_UNKNOWN ", "Ola Nordmann", "OTHER", strings.Repeat("A", 1<<16)} {
		assert.Equal(t, "OTHER", SafeCode(c), "%.40q", c)
	}
	assert.Empty(t, SafeCode(""))
}

// nopStarter is a nopObserver that is also an AttemptStarter.
type nopStarter struct{ nopObserver }

func (nopStarter) StartAttempt(ctx context.Context, _ AttemptStart) context.Context { return ctx }

// observerAllocBudget is the most allocations the client may make for an
// observer per call of one attempt, beyond those of the same call without
// one: the operation's state, which is also its context. Its events are
// passed by value; the route template of a route seen before is the one
// made then.
const observerAllocBudget = 1

// TestObserverAllocationBudget holds the client's own work for an
// observer (one that does nothing) to observerAllocBudget allocations
// per payment create (stub key, stubTransport).
func TestObserverAllocationBudget(t *testing.T) {
	if measuredApart(t) {
		return
	}
	benchSetup(t)
	creds := &signing.Credentials{Certificate: benchCreds.Certificate, Key: fastKey{benchKey}}
	create := func(opts ...Option) func() {
		c, err := New("https://psd2.bank.example/api", creds,
			append([]Option{testDefaults, WithHTTPClient(&http.Client{Transport: stubTransport{}})}, opts...)...)
		require.NoError(t, err)
		op := benchCreateOp()
		return func() {
			var out benchAnswer
			if _, err := c.Do(t.Context(), op, &out, benchCreateOpts()...); err != nil {
				t.Error(err)
			}
		}
	}
	none, observed := create(), create(WithObserver(nopStarter{}))
	// Pairs of measurements, the least difference: under the race
	// detector sync.Pool drops items at random, and AllocsPerRun counts
	// what every goroutine of the process allocates meanwhile (a
	// goroutine an earlier test left), each of which adds to one side
	// now and then. A collection empties every sync.Pool: none runs
	// during the measurements.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	least := math.Inf(1)
	var a, b float64
	for range 7 {
		a, b = testing.AllocsPerRun(200, none), testing.AllocsPerRun(200, observed)
		least = min(least, b-a)
	}
	t.Logf("%.1f allocations per create, %.1f with an observer (last pair); least difference %.1f", a, b, least)
	assert.LessOrEqual(t, least, float64(observerAllocBudget))
}

func TestSafeErrorType(t *testing.T) {
	for _, typ := range ErrorTypes {
		assert.Equal(t, typ, SafeErrorType(typ))
	}
	assert.Equal(t, "", SafeErrorType(""))
	assert.Equal(t, "_OTHER", SafeErrorType("dial tcp 203.0.113.7:443: refused"))
	assert.Equal(t, "_OTHER", SafeErrorType("Timeout"), "the set is matched exactly")
}
