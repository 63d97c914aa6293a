package emulatorcmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingListener answers Accept with err.
type failingListener struct {
	net.Listener
	err error
}

func (l failingListener) Accept() (net.Conn, error) { return nil, l.err }

// temporary is a net.Error http.Server retries.
type temporary struct{}

func (temporary) Error() string   { return "accept: too many open files" }
func (temporary) Timeout() bool   { return false }
func (temporary) Temporary() bool { return true }

// A listener whose Accept fails for good is reported as a server that
// stopped (http.Server.Serve returns on it, and nobody else sees it); its
// closing and a temporary error (which Serve retries) are not.
func TestWatchedListenerReportsAFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	for _, tc := range []struct {
		err    error
		failed bool
	}{
		{errors.New("accept: the socket is gone"), true},
		{net.ErrClosed, false},
		{temporary{}, false},
	} {
		f := newFailures()
		w := watchedListener{Listener: failingListener{Listener: l, err: tc.err}, what: "the banks' listener", f: f}
		_, _ = w.Accept()
		select {
		case got := <-f.ch:
			assert.True(t, tc.failed, "reported: %v", got)
			assert.ErrorIs(t, got, ErrStopped)
			assert.ErrorIs(t, got, tc.err)
		default:
			assert.False(t, tc.failed, "not reported: %v", tc.err)
		}
	}
}

// Wait ends at once, with the error, when a server stopped; after
// another failure (said through report) it ends at the interrupt with an
// error, never nil; without any, nil.
func TestWaitNeverEndsCleanAfterAFailure(t *testing.T) {
	ch := make(chan error, 2)
	ch <- ErrStopped
	err := wait(context.Background(), ch, func(error) { t.Error("a stop is not merely reported") })
	require.ErrorIs(t, err, ErrStopped)

	ch <- errors.New("banks.json could not be rewritten")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var reported []error
	err = wait(ctx, ch, func(err error) { reported = append(reported, err) })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "failed 1 time(s)")
	assert.Len(t, reported, 1)

	ctx, cancel2 := context.WithCancel(context.Background())
	cancel2()
	assert.NoError(t, wait(ctx, ch, func(error) {}))
}

// Stopped is the first failure after which a server no longer serves,
// which a command checks before it says it is ready; another failure
// (a banks.json not rewritten) is none.
func TestRunningStopped(t *testing.T) {
	r := &Running{fails: newFailures()}
	assert.NoError(t, r.Stopped())
	r.fails.report(errors.New("banks.json could not be rewritten"))
	assert.NoError(t, r.Stopped())
	first := fmt.Errorf("%w: bank alpha's listener (alpha.localhost): accept: gone", ErrStopped)
	r.fails.report(first)
	r.fails.report(fmt.Errorf("%w: the banks' listener: gone", ErrStopped))
	assert.Equal(t, first, r.Stopped())
}
