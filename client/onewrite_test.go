package client

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
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
