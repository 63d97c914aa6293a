package emulator

import "time"

// LockWaits is the lock contention [Server.TimeLockWaits] measured: the
// server's lock (read and write) and the access budget's shard locks.
type LockWaits struct {
	// Acquisitions counts the locks taken.
	Acquisitions int64
	// Total is the time spent waiting for them; Max the longest wait.
	Total, Max time.Duration
}

// TimeLockWaits makes s time every acquisition of its lock and of the
// access budget's locks, for benchmarks of the package (tests only).
// Call it before the server serves requests; the function it returns
// reads the totals since the last read and starts new ones.
func (s *Server) TimeLockWaits() func() LockWaits {
	lt := &lockTimer{}
	s.lk.wait, s.budgets.wait = lt, lt
	return func() LockWaits {
		return LockWaits{Acquisitions: lt.n.Swap(0), Total: time.Duration(lt.total.Swap(0)), Max: time.Duration(lt.max.Swap(0))}
	}
}

// HeldRequests is the number of requests an OutageHang holds now (tests
// only).
func (s *Server) HeldRequests() int { return int(s.out.held.Load()) }
