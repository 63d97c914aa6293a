package emulatorcmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
)

// ErrStopped matches a failure after which a server of the emulator no
// longer serves (its listener failed): the emulator is of no use until
// it is started again.
var ErrStopped = errors.New("a server of the emulator stopped")

// failures collects the errors of the servers after Start: a listener
// that failed, a banks.json not rewritten after a control. Whoever runs
// the emulator reads them (Running.Failures) so that none passes
// unseen, and the command never ends as if all went well after one.
type failures struct {
	ch      chan error
	mu      sync.Mutex
	stopped error // the first ErrStopped reported
}

func newFailures() *failures { return &failures{ch: make(chan error, 64)} }

func (f *failures) firstStop() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stopped
}

// report queues err without ever blocking a server: with 64 failures
// unread already, whoever runs the emulator is not reading them, and
// one more adds nothing.
func (f *failures) report(err error) {
	if f == nil || err == nil {
		return
	}
	if errors.Is(err, ErrStopped) {
		f.mu.Lock()
		if f.stopped == nil {
			f.stopped = err
		}
		f.mu.Unlock()
	}
	select {
	case f.ch <- err:
	default:
	}
}

// watchedListener is a server's listener whose failure is reported: an
// Accept error that is neither temporary (http.Server retries those) nor
// the listener's closing ends the server's Serve, which nobody else sees.
type watchedListener struct {
	net.Listener
	what string
	f    *failures
}

func (l watchedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		var ne net.Error
		//lint:ignore SA1019 http.Server.Serve retries the errors Temporary reports, and returns on the others
		if !errors.As(err, &ne) || !ne.Temporary() {
			l.f.report(fmt.Errorf("%w: %s on %s: %w", ErrStopped, l.what, l.Listener.Addr(), err))
		}
	}
	return c, err
}

// Wait serves until ctx ends (an interrupt), handing report each
// failure of a server (Failures) as it comes. A failure after which a
// server no longer serves (ErrStopped) ends it at once with that error;
// after any other it ends, when ctx does, with an error that counts
// them: never nil, as if all went well.
func (r *Running) Wait(ctx context.Context, report func(error)) error {
	return wait(ctx, r.fails.ch, report)
}

func wait(ctx context.Context, failures <-chan error, report func(error)) error {
	n := 0
	for {
		select {
		case <-ctx.Done():
			if n > 0 {
				return fmt.Errorf("the emulator failed %d time(s) while it served (above)", n)
			}
			return nil
		case err := <-failures:
			n++
			if errors.Is(err, ErrStopped) {
				return fmt.Errorf("the emulator stopped serving: %w", err)
			}
			report(err)
		}
	}
}
