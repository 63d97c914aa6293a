package emulator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/sandbox/emulator/internal/rules"
)

// createReq is a signed SEPA payment creation request.
func (c *tppClient) createReq() *http.Request {
	c.t.Helper()
	return c.build(http.MethodPost, "/v1/payments/"+rules.ProductSEPA, validSEPA().Bytes(), c.payHeaders()...)
}

func TestFaultStatus(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Fault status TPP")
	s.Control().InjectFault(Fault{Kind: FaultStatus, Method: http.MethodPost, PathPrefix: "/v1/payments/", Count: 2, Status: 502})
	s.Control().InjectFault(Fault{Kind: FaultStatus, Method: http.MethodPost, PathPrefix: "/v1/payments/"}) // 503, once
	for _, want := range []int{502, 502, 503} {
		req := c.createReq()
		r := c.send(req)
		code, _ := r.problem(t)
		assert.Equal(t, []any{want, "SYSTEM_ERROR", req.Header.Get("X-Request-ID")},
			[]any{r.status, code, r.header.Get("X-Request-ID")})
	}
	assert.Empty(t, s.Control().Payments(), "faulted requests are not processed")
	req := c.createReq()
	r := c.send(req)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	ps := s.Control().Payments()
	require.Len(t, ps, 1)
	assert.Equal(t, req.Header.Get("X-Request-ID"), ps[0].RequestID)
}

func TestFaultRateLimit(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Fault 429 TPP")
	s.Control().InjectFault(Fault{Kind: FaultRateLimit, PathPrefix: "/api/v1/payments", RetryAfter: 2500 * time.Millisecond})
	s.Control().InjectFault(Fault{Kind: FaultRateLimit, PathPrefix: "/v1/payments"})
	for _, want := range []string{"3", "1"} {
		r := c.send(c.createReq())
		code, _ := r.problem(t)
		assert.Equal(t, []any{429, "ACCESS_EXCEEDED", want}, []any{r.status, code, r.header.Get("Retry-After")})
	}
	assert.Empty(t, s.Control().Payments())
	assert.Equal(t, http.StatusCreated, c.send(c.createReq()).status)
}

func TestFaultHang(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Fault hang TPP")

	// Until the client gives up: nothing is processed.
	s.Control().InjectFault(Fault{Kind: FaultHang, Method: http.MethodPost})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := c.hc.Do(c.createReq().WithContext(ctx))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Empty(t, s.Control().Payments())
	// On a loaded machine the client may give up before its request
	// reached the server; the fault is then still armed and would hold
	// the next request without end.
	s.mu.Lock()
	s.faults.armed = nil
	s.mu.Unlock()

	// With a Delay: latency, then normal processing.
	s.Control().InjectFault(Fault{Kind: FaultHang, Method: http.MethodPost, Delay: 5 * time.Millisecond})
	assert.Equal(t, http.StatusCreated, c.send(c.createReq()).status)
	assert.Len(t, s.Control().Payments(), 1)
}

func TestFaultHangReleasedByClose(t *testing.T) {
	t.Parallel()
	key, err := testKey()
	require.NoError(t, err)
	s := NewServer(WithTPPKey(key))
	c := newTPPClient(t, s, "Fault close TPP")
	s.Control().InjectFault(Fault{Kind: FaultHang})
	done := make(chan error, 1)
	go func() {
		resp, err := c.hc.Do(c.build(http.MethodGet, "/v1/accounts", nil))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.faults.armed) == 0
	}, time.Minute, time.Millisecond, "a bound on a hang")
	s.Close()
	assert.Error(t, <-done)
}

func TestFaultDropAfterBody(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Fault drop TPP")
	s.Control().InjectFault(Fault{Kind: FaultDropAfterBody, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	req := c.createReq()
	resp, err := c.hc.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "the connection is dropped without an answer")
	ps := s.Control().Payments()
	require.Len(t, ps, 1, "the payment was created")
	assert.Equal(t, []string{req.Header.Get("X-Request-ID"), "RCVD"}, []string{ps[0].RequestID, ps[0].Status})

	// A retry of the same content is refused as a logical duplicate.
	r := c.send(c.createReq())
	code, _ := r.problem(t)
	assert.Equal(t, []any{400, "PAYMENT_FAILED"}, []any{r.status, code})
	assert.Len(t, s.Control().Payments(), 1)
}

func TestFaultDropBeforeProcessing(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Fault drop early TPP")
	s.Control().InjectFault(Fault{Kind: FaultDropBeforeProcessing, Method: http.MethodPost, Count: 2})
	for range 2 {
		resp, err := c.hc.Do(c.createReq())
		if err == nil {
			resp.Body.Close()
		}
		require.Error(t, err)
	}
	assert.Empty(t, s.Control().Payments(), "nothing was processed")
	assert.Equal(t, http.StatusCreated, c.send(c.createReq()).status)
}

func TestFaultMatching(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Fault matching TPP")
	s.Control().InjectFault(Fault{Kind: FaultStatus, Method: http.MethodGet, PathPrefix: "/v1/accounts"})
	s.Control().InjectFault(Fault{Kind: FaultKind(99)}) // ignored
	s.Control().InjectFault(Fault{Kind: 0})             // ignored

	assert.Equal(t, http.StatusCreated, c.send(c.createReq()).status, "POST does not match")
	assert.Equal(t, http.StatusServiceUnavailable, c.get("/v1/accounts").status)
	assert.NotEqual(t, http.StatusServiceUnavailable, c.get("/v1/accounts").status, "consumed")

	s.Control().InjectFault(Fault{Kind: FaultStatus, Status: 500, Count: 1}) // any method and path
	assert.Equal(t, http.StatusInternalServerError, c.get("/v1/agreements").status)
	s.mu.Lock()
	armed := len(s.faults.armed)
	s.mu.Unlock()
	assert.Zero(t, armed)
}

func TestPaymentsSnapshotIsACopy(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTPPClient(t, s, "Snapshot TPP")
	got := c.createPayment("/v1/payments/"+rules.ProductSEPA, validSEPA().Bytes())
	ps := s.Control().Payments()
	require.Len(t, ps, 1)
	ps[0].Status = "ACSC"
	*ps[0].Fee = ps[0].Amount
	again := s.Control().Payments()
	assert.Equal(t, "RCVD", again[0].Status)
	assert.Equal(t, "2.00 EUR", again[0].Fee.String())
	assert.Equal(t, got.PaymentID, again[0].ID)
}

func BenchmarkFaultStatus(b *testing.B) {
	s := startServer(b)
	hc := s.Client()
	b.ReportAllocs()
	for b.Loop() {
		s.Control().InjectFault(Fault{Kind: FaultStatus})
		resp, err := hc.Get(s.URL + "/v1/accounts")
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// An injected fault makes the next matching request fail, here an
// unsigned GET through the server's own client.
func ExampleControls_InjectFault() {
	s := NewServer()
	defer s.Close()
	s.Control().InjectFault(Fault{Kind: FaultRateLimit, Method: http.MethodGet, PathPrefix: "/v1/accounts", RetryAfter: 2 * time.Second})

	resp, err := s.Client().Get(s.URL + "/v1/accounts")
	if err != nil {
		fmt.Println(errors.Unwrap(err))
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Retry-After"), len(s.Control().Payments()))
	// Output: 429 2 0
}

// TestFaultHangWritesNothingAtItsEnd: when the request a hung bank holds
// ends (its context done: the client gone, the server closing), the bank
// writes nothing and aborts the answer. A handler that returned would
// have net/http send a 200 without a body, which a client still waiting
// for the answer read as the bank's.
func TestFaultHangWritesNothingAtItsEnd(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "/v1/payments/"+rules.ProductSEPA, http.NoBody)
	require.NoError(t, err)
	w := &discardRecorder{h: http.Header{}}
	next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("a hung request was served") })
	assert.PanicsWithValue(t, http.ErrAbortHandler, func() {
		s.serveFault(w, r, &Fault{Kind: FaultHang}, next)
	})
	assert.Zero(t, w.status, "no status written")
}

// discardRecorder records the status written, and cannot be hijacked.
type discardRecorder struct {
	h      http.Header
	status int
}

func (d *discardRecorder) Header() http.Header { return d.h }
func (d *discardRecorder) Write(b []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	return len(b), nil
}
func (d *discardRecorder) WriteHeader(code int) {
	if d.status == 0 {
		d.status = code
	}
}
