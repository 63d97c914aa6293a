package emulator

import "time"

// RunBatch runs the sandbox's simulated payment batch process once (stub;
// the payments helper replaces this file).
func (s *Server) RunBatch() {}

// runScheduledBatchLocked runs the batch when one of its daily slots has
// passed on the clock. Called with s.mu held before every signed request.
func (s *Server) runScheduledBatchLocked(now time.Time) {}
