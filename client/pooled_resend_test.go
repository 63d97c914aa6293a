package client

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A caller's transport that resends a failed payment POST under the
// request's own context, with an idle connection in its pool: the SDK
// cancels the resend when it asks for a connection (attemptState.getConn),
// but net/http's getConn then chooses at random between the idle
// connection and the cancelled context, and its write loop writes what
// it is handed without looking at the context; only closing the
// connection stops it, and a connection's Close may take a while (a TLS
// one sends its close_notify first), time enough for the write. The
// resend must never leave. Before the fix about half of the runs wrote
// the payment twice (all 12 missing it: 2^-12).
func TestPaymentNotResentOnPooledConnection(t *testing.T) {
	t.Parallel()
	for range 12 {
		var arrived sync.WaitGroup
		arrived.Add(2)
		b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if r.Method == http.MethodGet {
				// Two GETs held until both came: two connections, both
				// left idle in the pool.
				arrived.Done()
				arrived.Wait()
				io.WriteString(w, `{}`)
				return
			}
			hangUp(w)
		})
		var posts atomic.Int64 // POSTs written to a connection
		tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &slowCloseConn{Conn: conn, posts: &posts, wrote: make(chan struct{})}, nil
		}}
		t.Cleanup(tr.CloseIdleConnections)
		c := newTestClient(t, b.URL, WithHTTPClient(&http.Client{Transport: resender{tr}}))
		var warm sync.WaitGroup
		for range 2 {
			warm.Go(func() {
				_, err := c.Do(context.Background(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil)
				assert.NoError(t, err)
			})
		}
		warm.Wait()

		_, err := c.Do(t.Context(), createOp, nil)
		require.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.NotErrorIs(t, err, ErrNotSent)
		require.EqualValues(t, 1, posts.Load(), "the payment left twice")
	}
}

// slowCloseConn is a connection whose Close takes a while: it lets a
// write that begins within 100 ms go out first (as a TLS connection
// sending its close_notify would), and refuses writes once closed. It
// counts the POSTs written.
type slowCloseConn struct {
	net.Conn
	posts    *atomic.Int64
	mu       sync.Mutex
	closed   bool
	wrote    chan struct{} // closed by the first write after a Close began
	closing  atomic.Bool
	signaled bool
}

func (c *slowCloseConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	if bytes.HasPrefix(p, []byte("POST ")) {
		c.posts.Add(1)
	}
	n, err := c.Conn.Write(p)
	if c.closing.Load() && !c.signaled {
		c.signaled = true
		close(c.wrote)
	}
	return n, err
}

func (c *slowCloseConn) Close() error {
	if !c.closing.Swap(true) {
		select {
		case <-c.wrote:
		case <-time.After(100 * time.Millisecond):
		}
	}
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return c.Conn.Close()
}

// resender resends a request whose answer failed, under the request's
// own context (resendingTransport, for requests with or without a body).
type resender struct{ next http.RoundTripper }

func (t resender) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
	}
	for range 3 {
		c := r.Clone(r.Context())
		if r.Body != nil {
			c.Body = io.NopCloser(bytes.NewReader(body))
		}
		resp, err := t.next.RoundTrip(c)
		if err == nil {
			return resp, nil
		}
		if r.Context().Err() != nil {
			return nil, err
		}
	}
	return nil, errors.New("gave up")
}

// net/http replays on its own a request whose reused connection died
// before any answer when the request is replayable: a GET, or any method
// with an Idempotency-Key or X-Idempotency-Key header, provided its body
// can be rewound (Request.isReplayable). A payment POST's body never
// can (newRequest: no GetBody), so even with such a header, on a pooled
// connection the bank hangs up on, it is sent once.
func TestPaymentWithIdempotencyKeyNotReplayedByNetHTTP(t *testing.T) {
	t.Parallel()
	b := newBank(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Method == http.MethodGet {
			io.WriteString(w, `{}`)
			return
		}
		hangUp(w)
	})
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := newTestClient(t, b.URL, WithHTTPClient(&http.Client{Transport: tr}))
	_, err := c.Do(t.Context(), Operation{Method: http.MethodGet, Path: "/v1/x"}, nil) // a connection left idle
	require.NoError(t, err)
	_, err = c.Do(t.Context(), createOp, nil, WithHeader("Idempotency-Key", "k1"), WithHeader("X-Idempotency-Key", "k1"))
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.EqualValues(t, 2, b.count.Load(), "one GET, one POST")
}
