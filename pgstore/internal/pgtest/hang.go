package pgtest

import (
	"bytes"
	"context"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// Hang is a database that stops answering while it is on: the writes of
// the connections of a [HangingPool] wait until it is off, or until
// their deadline (pgx sets one when a context ends). The database sees
// nothing of them, so the client waits for its answer as long.
type Hang struct {
	mu      sync.Mutex
	on      bool
	release chan struct{} // closed when the hang ends
	at      []byte        // starts the hang at a write that holds it
}

// Start turns the hang on.
func (h *Hang) Start() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on {
		h.on, h.release = true, make(chan struct{})
	}
}

// Stop turns the hang off: the writes that waited go on.
func (h *Hang) Stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.on {
		h.on = false
		close(h.release)
	}
}

// StartAt turns the hang on at the first write that holds s (a
// statement's text): that write waits, as every one after it.
func (h *Hang) StartAt(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.at = []byte(s)
}

// state returns whether the hang is on, and the channel its end closes.
func (h *Hang) state() (bool, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.on, h.release
}

// writing starts the hang before a write of b when b holds StartAt's
// text.
func (h *Hang) writing(b []byte) {
	h.mu.Lock()
	trigger := len(h.at) > 0 && bytes.Contains(b, h.at)
	if trigger {
		h.at = nil
	}
	h.mu.Unlock()
	if trigger {
		h.Start()
	}
}

// hangingConn is a connection to the database whose writes wait while
// its Hang is on, until the hang ends or the write deadline passes.
type hangingConn struct {
	net.Conn
	h *Hang

	mu       sync.Mutex
	deadline time.Time
	changed  chan struct{} // closed when the write deadline changes
}

func (c *hangingConn) Write(b []byte) (int, error) {
	c.h.writing(b)
	for {
		on, release := c.h.state()
		if !on {
			return c.Conn.Write(b)
		}
		c.mu.Lock()
		dl, changed := c.deadline, c.changed
		c.mu.Unlock()
		wait := time.Hour // without a deadline: until the hang ends or one is set
		if !dl.IsZero() {
			if wait = time.Until(dl); wait <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
		}
		timeout := time.NewTimer(wait)
		select {
		case <-release:
		case <-changed:
		case <-timeout.C:
		}
		timeout.Stop()
	}
}

func (c *hangingConn) setWriteDeadline(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *hangingConn) SetDeadline(t time.Time) error {
	c.setWriteDeadline(t)
	return c.Conn.SetDeadline(t)
}

func (c *hangingConn) SetWriteDeadline(t time.Time) error {
	c.setWriteDeadline(t)
	return c.Conn.SetWriteDeadline(t)
}

// HangingPool is [Pool] whose connections (and those made from its
// config) hang while h is on. h stops at the end of the test, before the
// pool closes, so that no write waits on it for ever.
func HangingPool(tb testing.TB, h *Hang, maxConns int32) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(Conn(tb))
	require.NoError(tb, err)
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	var d net.Dialer
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &hangingConn{Conn: c, h: h, changed: make(chan struct{})}, nil
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	tb.Cleanup(h.Stop)
	return pool
}
