package emulator

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// FaultKind selects what an injected [Fault] does.
type FaultKind int

// Fault kinds.
const (
	// FaultStatus answers Fault.Status (503 when zero) with a tppMessages
	// body (SYSTEM_ERROR) without processing the request.
	FaultStatus FaultKind = iota + 1
	// FaultRateLimit answers 429 ACCESS_EXCEEDED with a Retry-After header
	// of Fault.RetryAfter in whole seconds (at least 1), without processing
	// the request.
	FaultRateLimit
	// FaultHang holds the request until the client gives up (its context
	// ends or it closes the connection) or, when Fault.Delay is set, for
	// Delay; after Delay the request is processed normally (latency).
	FaultHang
	// FaultDropAfterBody reads the request, processes it normally (so a
	// payment IS created), then closes the connection without answering:
	// the client cannot know the outcome.
	FaultDropAfterBody
	// FaultDropBeforeProcessing reads the request body and closes the
	// connection without processing it: nothing is created.
	FaultDropBeforeProcessing
	// FaultCorruptSignature processes the request normally and signs the
	// answer (docs/interface.md section 5.7), then alters one character of the
	// signature, so that a verifying client must reject the answer. It
	// needs [WithResponseSigning]; without it the answer is sent as it is.
	FaultCorruptSignature
	// FaultCorruptDigest processes the request normally, signs the answer,
	// then alters one byte of the body, so that the body no longer matches
	// the signed Digest. It needs [WithResponseSigning]; without it the
	// answer is sent as it is.
	FaultCorruptDigest

	lastFault = FaultCorruptDigest
)

// Fault makes the next Count requests matching Method and PathPrefix fail
// in the way Kind says. See [Controls.InjectFault].
type Fault struct {
	// Kind is what happens to a matching request.
	Kind FaultKind
	// Method matches the request method; "" matches any.
	Method string
	// PathPrefix matches the start of the request path after /api, such
	// as "/v1/payments/" ("" matches any path). A leading "/api" is
	// ignored.
	PathPrefix string
	// Count is the number of requests to fail; 0 means 1.
	Count int
	// Status is the HTTP status of FaultStatus, an error status from 400
	// to 599 (default 503; one out of that range answers 503 too, and
	// the control API refuses it).
	Status int
	// RetryAfter is the Retry-After of FaultRateLimit (default 1 s).
	RetryAfter time.Duration
	// Delay bounds a FaultHang (0: until the client gives up).
	Delay time.Duration
}

// minFaultStatus and maxFaultStatus bound the status of a FaultStatus: a
// fault fails the request, so its status is an error's.
const (
	minFaultStatus = 400
	maxFaultStatus = 599
)

// maxFaults bounds the faults the control API keeps armed at once: every
// request of the bank looks at each of them.
const maxFaults = 1024

// faultsArmed returns the number of faults armed.
func (s *Server) faultsArmed() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.faults.armed)
}

// faultState is the faults' part of the Server state (guarded by s.mu).
type faultState struct {
	armed []*Fault // remaining counts, in injection order
}

// InjectFault arms f for the next f.Count requests matching its Method and
// PathPrefix. Faults apply in the order they were injected, one per
// request; faulted requests skip the request checks (they never reach the
// bank's application). A fault with an unknown Kind is ignored.
func (c *Controls) InjectFault(f Fault) {
	s := c.s
	if f.Kind < FaultStatus || f.Kind > lastFault {
		return
	}
	if f.Count <= 0 {
		f.Count = 1
	}
	f.PathPrefix = faultPrefix(f.PathPrefix)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.armed = append(s.faults.armed, &f)
}

// faultPrefix is p as matched against the path after /api: a leading
// "/api/" (or "/api" alone) is dropped.
func faultPrefix(p string) string {
	if p == apiPrefix || strings.HasPrefix(p, apiPrefix+"/") {
		return strings.TrimPrefix(p, apiPrefix)
	}
	return p
}

// takeFault returns the fault to apply to r, if any, and consumes it.
func (s *Server) takeFault(r *http.Request) *Fault {
	s.mu.RLock()
	none := len(s.faults.armed) == 0
	s.mu.RUnlock()
	if none {
		return nil // no write lock on every request
	}
	path := apiPath(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults.armed {
		if f.Method != "" && !strings.EqualFold(f.Method, r.Method) {
			continue
		}
		if !strings.HasPrefix(path, f.PathPrefix) {
			continue
		}
		out := *f
		f.Count--
		if f.Count <= 0 {
			s.faults.armed = append(s.faults.armed[:i:i], s.faults.armed[i+1:]...)
		}
		return &out
	}
	return nil
}

// serveFault answers r according to f; next serves the request normally.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, f *Fault, next http.Handler) {
	switch f.Kind {
	case FaultStatus:
		drain(r)
		s.setCommonHeaders(w, r)
		status := f.Status
		if status < minFaultStatus || status > maxFaultStatus {
			status = http.StatusServiceUnavailable
		}
		writeError(w, newError(status, "SYSTEM_ERROR", "Injected fault: the service is unavailable."))
	case FaultRateLimit:
		drain(r)
		s.setCommonHeaders(w, r)
		secs := int(math.Ceil(f.RetryAfter.Seconds()))
		if secs < 1 {
			secs = 1
		}
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeError(w, newError(http.StatusTooManyRequests, "ACCESS_EXCEEDED", "Too many requests; retry after %d seconds.", secs))
	case FaultHang:
		// Read the body first (keeping it for a delayed processing): only
		// then does the server notice a client that goes away.
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
		r.Body = io.NopCloser(bytes.NewReader(body))
		var timeout <-chan time.Time
		if f.Delay > 0 {
			t := time.NewTimer(f.Delay)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-r.Context().Done():
			// A hung bank never answers: the request's end (the client
			// gone, or the server closing) writes nothing, where a
			// handler that returned would make net/http send a 200
			// without a body, which a client still waiting reads.
			drop(w)
			return
		case <-timeout:
			next.ServeHTTP(w, r)
		}
	case FaultDropAfterBody:
		next.ServeHTTP(discardWriter{h: http.Header{}}, r)
		drop(w)
	case FaultDropBeforeProcessing:
		drain(r)
		drop(w)
	case FaultCorruptSignature, FaultCorruptDigest:
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), corruptKey{}, f.Kind)))
	default:
		next.ServeHTTP(w, r)
	}
}

// corruptKey carries a FaultCorruptSignature or FaultCorruptDigest from the
// fault hook to the answer signer.
type corruptKey struct{}

// corruption returns the corrupting fault armed for r, or 0.
func corruption(r *http.Request) FaultKind {
	k, _ := r.Context().Value(corruptKey{}).(FaultKind)
	return k
}

// drain reads the request body (bounded), as a server does before it
// answers.
func drain(r *http.Request) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxBody))
}

// drop closes the client connection without an answer. Where the
// connection cannot be taken over (HTTP/2 in a user's own server), the
// handler aborts, which resets the stream.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// discardWriter swallows the answer of a request whose connection is
// dropped afterwards.
type discardWriter struct{ h http.Header }

func (d discardWriter) Header() http.Header         { return d.h }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}
