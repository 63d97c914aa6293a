package emulator

import (
	"net/http"
	"time"
)

// FaultKind selects what an injected [Fault] does.
type FaultKind int

// Fault kinds (stub; the faults helper replaces this file).
const (
	FaultStatus FaultKind = iota + 1
	FaultRateLimit
	FaultHang
	FaultDropAfterBody
	FaultDropBeforeProcessing
)

// Fault makes the next Count requests matching Method and PathPrefix fail.
type Fault struct {
	Kind       FaultKind
	Method     string
	PathPrefix string
	Count      int
	Status     int
	RetryAfter time.Duration
	Delay      time.Duration
}

// faultState is the faults' part of the Server state (guarded by s.mu).
type faultState struct{}

// InjectFault arms f for the next f.Count matching requests.
func (s *Server) InjectFault(f Fault) {}

// takeFault returns the fault to apply to r, if any, and consumes it.
func (s *Server) takeFault(r *http.Request) *Fault { return nil }

// serveFault answers r according to f; next serves the request normally.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, f *Fault, next http.Handler) {
	next.ServeHTTP(w, r)
}
