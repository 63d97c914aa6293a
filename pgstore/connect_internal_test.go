package pgstore

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A port that accepts connections and never answers (a wrong store, a
// half-dead proxy) does not hold Open for as long as the caller's
// context: each connection attempt waits at most connectTimeout (shorter
// here) unless the connection string sets connect_timeout. On the code
// before, pgx's default, no bound, held Open until the context ended.
func TestOpenSilentServerIsBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var conns []net.Conn // held open, never answered
		defer func() {
			for _, c := range conns {
				_ = c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	old := connectTimeout
	connectTimeout = 300 * time.Millisecond
	t.Cleanup(func() { connectTimeout = old })

	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err = Open(ctx, "host=127.0.0.1 port="+port+" user=psd2 dbname=nowhere sslmode=disable")
	require.Error(t, err)
	assert.Less(t, time.Since(start), 10*time.Second, "Open waited for the caller's context: %v", err)
	assert.NoError(t, ctx.Err(), "the caller's context had not ended")
	assert.False(t, strings.Contains(err.Error(), "password"), err.Error())
}
