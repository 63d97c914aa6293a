package pgstore_test

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/events"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// hang is a database that stops answering while on: the writes of its
// connections (hangingConn) wait until it is off, or their deadline.
type hang struct {
	mu      sync.Mutex
	on      bool
	release chan struct{} // closed when the hang ends
}

func (h *hang) start() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on {
		h.on, h.release = true, make(chan struct{})
	}
}

func (h *hang) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.on {
		h.on = false
		close(h.release)
	}
}

// state returns whether the hang is on, and the channel its end closes.
func (h *hang) state() (bool, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.on, h.release
}

// hangingConn is a connection to the database whose writes wait while
// its hang is on, until the hang ends or the write deadline passes (pgx
// sets one when a context ends): the database sees nothing, and the
// client waits for it.
type hangingConn struct {
	net.Conn
	h *hang

	mu       sync.Mutex
	deadline time.Time
	changed  chan struct{} // closed when the write deadline changes
}

func (c *hangingConn) Write(b []byte) (int, error) {
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

// hangingPool returns a pool on the test server whose connections hang
// while h is on; h ends at the end of the test, before the pool closes.
func hangingPool(t *testing.T, h *hang) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.Conn(t))
	require.NoError(t, err)
	cfg.MaxConns = 2
	var d net.Dialer
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &hangingConn{Conn: c, h: h, changed: make(chan struct{})}, nil
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	t.Cleanup(h.stop)
	return pool
}

// A consumer that stops (its context ends) while the database hangs is
// never held by the rollback that ends its batch: the rollback runs
// without the consumer's cancellation but within rollbackTimeout
// (shorter here), and the batch's events stay pending. On the code
// before, the rollback ran on context.WithoutCancel, without any
// deadline, and Consume waited on the hung database for ever.
func TestOutboxRollbackOnHungDatabaseIsBounded(t *testing.T) {
	t.Parallel()
	schema := pgtest.Schema(t)
	hung := &hang{}
	st, err := pgstore.New(hangingPool(t, hung), pgstore.WithSchema(schema))
	require.NoError(t, err)
	require.NoError(t, st.Migrate(t.Context()))
	t.Cleanup(st.Close)
	ob := st.Outbox()
	pgstore.SetRollbackWait(ob, 200*time.Millisecond)
	require.NoError(t, ob.Publish(t.Context(), outboxEvent(t, 1)))

	ctx, stop := context.WithCancel(context.Background()) // the consumer's: no deadline
	defer stop()
	handled := errors.New("the consumer is stopping")
	ended := make(chan error, 1)
	go func() {
		_, err := ob.Consume(ctx, 10, func(context.Context, pgx.Tx, events.Envelope) error {
			hung.start() // the database stops answering
			stop()
			return handled
		})
		ended <- err
	}()
	select {
	case err := <-ended:
		require.ErrorIs(t, err, handled)
	case <-time.After(time.Minute):
		t.Fatal("Consume waits on the hung database")
	}

	hung.stop()
	pending, _, err := ob.Pending(t.Context())
	require.NoError(t, err)
	assert.EqualValues(t, 1, pending, "nothing committed: the event is pending again")
	// Once the database has ended the batch's transaction (its connection
	// was closed), the next batch delivers the event.
	require.Eventually(t, func() bool {
		n, err := ob.Consume(t.Context(), 10, func(context.Context, pgx.Tx, events.Envelope) error { return nil })
		return err == nil && n == 1
	}, 10*time.Second, 20*time.Millisecond, "the next batch delivers the event")
}
