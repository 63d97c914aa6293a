package client

import (
	"bufio"
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

// rawBank answers every request it reads with the bytes answer, as they
// are, over HTTP/1.1, and counts the requests. Its connections are closed
// when the test ends.
func rawBank(t *testing.T, answer string) (url string, requests *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	requests = new(atomic.Int64)
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			go func() {
				br := bufio.NewReader(conn)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					requests.Add(1)
					if _, err := io.WriteString(conn, answer); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + l.Addr().String(), requests
}

// within runs call and fails the test when it has not returned after d.
func within(t *testing.T, d time.Duration, call func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		call()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("the call did not end within %v", d)
	}
}

// TestSwitchingProtocolsAnswer: a 101 Switching Protocols to a request
// that asked for no upgrade is an answer without content (RFC 9110
// section 15.2): a create so answered is outcome unknown with its status
// kept, sent once, and a GET a *Error 101, sent once; neither waits for a
// body. On the code before, net/http handed the connection over as the
// body, whose read no deadline ends (not the attempt's time limit, not
// the call's, not the caller's): the call hung until the bank closed the
// connection.
func TestSwitchingProtocolsAnswer(t *testing.T) {
	t.Parallel()
	url, requests := rawBank(t, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
	c := newTestClient(t, url, WithResponseTimeout(2*time.Second), WithCallTimeout(3*time.Second))
	var err error
	within(t, 10*time.Second, func() {
		_, err = c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}, nil)
	})
	var ue *OutcomeUnknownError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, http.StatusSwitchingProtocols, ue.StatusCode)
	assert.EqualValues(t, 1, requests.Load(), "POSTs the bank received")

	requests.Store(0)
	within(t, 10*time.Second, func() {
		_, err = c.Do(t.Context(), Operation{Method: "GET", Path: "/v1/accounts"}, nil)
	})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusSwitchingProtocols, e.StatusCode)
	assert.EqualValues(t, 1, requests.Load(), "GETs the bank received")
}

// stuckBody is a response body whose Read returns only once it is
// closed, as a body over a connection no context watches.
type stuckBody struct {
	once   sync.Once
	closed chan struct{}
}

func (b *stuckBody) Read([]byte) (int, error) {
	<-b.closed
	return 0, errors.New("read on a closed body")
}

func (b *stuckBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

type stuckTransport struct{ calls atomic.Int64 }

func (s *stuckTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s.calls.Add(1)
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
	}
	return &http.Response{StatusCode: http.StatusCreated, Header: http.Header{}, Body: &stuckBody{closed: make(chan struct{})}, Request: req}, nil
}

// TestBodyReadEndsWithAttempt: reading an answer's body ends with the
// attempt's time limit whatever the body, even one whose Read does not
// watch the request's context (a caller's transport, WithHTTPClient): a
// create ends outcome unknown with its 201 kept, sent once. On the code
// before, the read ended only when the body did: the call hung.
func TestBodyReadEndsWithAttempt(t *testing.T) {
	t.Parallel()
	tr := &stuckTransport{}
	c := newTestClient(t, "http://127.0.0.1:1", WithHTTPClient(&http.Client{Transport: tr}), WithResponseTimeout(time.Second), WithCallTimeout(2*time.Second))
	var err error
	within(t, 10*time.Second, func() {
		_, err = c.Do(t.Context(), Operation{Method: "POST", Path: "/v1/payments/x", Body: map[string]int{"n": 1}, ResultID: "paymentId"}, nil)
	})
	var ue *OutcomeUnknownError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, http.StatusCreated, ue.StatusCode)
	assert.EqualValues(t, 1, tr.calls.Load(), "POSTs sent")
}
