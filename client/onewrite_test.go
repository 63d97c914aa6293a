package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingConn counts the writes of a connection and keeps the first
// bytes of each.
type countingConn struct {
	net.Conn
	mu     *sync.Mutex
	writes *[]string
}

func (c countingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	*c.writes = append(*c.writes, string(p))
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// A payment POST with a small body leaves in one socket write (headers
// and body together), while its body stays one the transport cannot
// rewind (no GetBody): as cheap on the wire as a bare request, and never
// replayed below the pipeline.
func TestCreateOneSocketWrite(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(201)
		w.Write([]byte(`{"paymentId":"p1"}`))
	})
	var mu sync.Mutex
	var writes []string
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{Conn: conn, mu: &mu, writes: &writes}, nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	c := newTestClient(t, b.URL, WithHTTPClient(&http.Client{Transport: tr}))
	op := Operation{Method: http.MethodPost, Path: "/v1/payments/x", Body: map[string]string{"creditorName": "Kari Nordmann"}, ResultID: "paymentId"}

	p, err := c.prepare(&op, nil)
	require.NoError(t, err)
	req, err := c.newRequest(t.Context(), p, true)
	require.NoError(t, err)
	assert.Nil(t, req.GetBody, "a payment's body cannot be rewound")
	assert.NotNil(t, req.Body)
	assert.NotEqual(t, http.NoBody, req.Body)

	_, err = c.Do(t.Context(), op, nil)
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, writes, 1, "headers and body in one write")
	assert.True(t, strings.HasPrefix(writes[0], "POST "))
	assert.True(t, strings.HasSuffix(writes[0], `{"creditorName":"Kari Nordmann"}`))
}

// failingConn lets its first write through and fails every later one:
// a connection lost after the first bytes of a request left.
type failingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c failingConn) Write(p []byte) (int, error) {
	if c.n.Add(1) > 1 {
		return 0, errors.New("connection lost")
	}
	return c.Conn.Write(p)
}

// A request whose headers are longer than net/http's write buffer leaves
// in pieces as they are written; a payment POST whose connection fails
// after the first piece, before net/http reports the headers written,
// may have reached the bank: its outcome is unknown, never "not sent",
// whichever of exchange.run's trace hooks says so (over HTTP/1.1 the
// failed write's WroteRequest; the first header field, which the attempt
// then unhooks, is the one HTTP/2 gives before its HEADERS frame).
func TestLongHeaderLostMidWrite(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(201) })
	var writes atomic.Int64
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return failingConn{Conn: conn, n: &writes}, nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	c := newTestClient(t, b.URL, WithHTTPClient(&http.Client{Transport: tr}))
	long := strings.Repeat("x", 3000) // three of them: the buffer (4 KiB) is flushed twice within the headers
	_, err := c.Do(t.Context(), createOp, nil,
		WithHeader("X-Long-1", long), WithHeader("X-Long-2", long), WithHeader("X-Long-3", long))
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.NotErrorIs(t, err, ErrNotSent)
	assert.EqualValues(t, 2, writes.Load(), "one piece left, the second write failed, nothing was sent again")
}
