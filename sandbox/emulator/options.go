package emulator

import (
	"crypto"
	"crypto/x509"
	"log/slog"
	"net"
	"time"
)

// An Option configures a [Server] in [NewServer].
type Option func(*Server)

// WithClock makes the server read the time from now instead of time.Now:
// the Date window, SCA and consent validity, the 24-hour access budget, the
// 90-day history limit and the batch schedule all follow it. Tests use it to
// move time forward without sleeping. A nil now is ignored. The clock
// controls ([Controls.Advance] and others) move the bank's time from there
// on, but not the Date window (see [Controls.SetTime]).
func WithClock(now func() time.Time) Option {
	return func(s *Server) {
		if now != nil {
			s.clock.wire, s.clock.custom = now, true
		}
	}
}

// WithTrustedCertificates registers TPP signing certificates as trusted
// (registered with the bank). A request signed with a certificate that is
// neither registered here, with [Server.Trust], nor issued by [Server.NewTPP]
// gets 401 CERTIFICATE_INVALID. Nil certificates are ignored.
func WithTrustedCertificates(certs ...*x509.Certificate) Option {
	return func(s *Server) {
		for _, c := range certs {
			if c != nil {
				s.trustLocked(c, c.Subject.CommonName)
			}
		}
	}
}

// WithKnownIssues makes the emulator behave as the production platform
// (on) or free of known issues (off). The known issues are those of
// docs/interface.md: the details and status of a domestic credit transfer
// cannot be read before it has been approved (404, section 4.2); pending
// transactions ignore dateFrom, dateTo and limit with bookingStatus both
// or pending (section 8).
//
// Without this option the emulator behaves as the bank's sandbox: the
// section 4.2 issue is reproduced, the section 8 issue is not, since the
// interface says the sandbox and card accounts are unaffected by it
// (pending transactions are filtered and paged like booked ones).
func WithKnownIssues(on bool) Option {
	return func(s *Server) { s.knownIssues, s.unfilteredPending = on, on }
}

// WithLogger makes the server log one line per request (method, path,
// status; never headers or bodies) to l. By default nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) {
		if l != nil {
			s.log = l
		}
	}
}

// WithTPPKey makes [Server.NewTPP] certify key instead of generating a new
// RSA 2048 key for the server. Generating RSA keys is slow, above all under
// the race detector, so a test suite that starts many servers can generate
// one key and share it. The key must be an RSA key; other keys are ignored.
func WithTPPKey(key crypto.Signer) Option {
	return func(s *Server) {
		if isRSA(key) {
			s.tppKey = key
		}
	}
}

// WithListener makes [NewServer] serve on l instead of a new listener on a
// random loopback port; the standalone command uses it for a fixed
// address. The server closes l on [Server.Close].
func WithListener(l net.Listener) Option {
	return func(s *Server) {
		if l != nil {
			s.listener = l
		}
	}
}

// WithStopReport makes the server call report when it stops serving
// other than by [Server.Close] or [MultiBank.Close]: its listener failed
// (an error of Accept that net/http does not retry) or was closed by
// someone else, after which the server no longer accepts a connection
// and its port refuses them. host is the bank's host name (a bank of
// [NewMultiBank]; "" for [NewServer]) and err the listener's error.
// It is called at most once per listener, from the server's goroutine.
// With NewMultiBank it watches each bank's own listener; the shared one
// (given by [WithListener]) is the caller's to watch. A program that
// serves the emulator (psd2 emulator -banks) uses it so that a bank that
// stopped is not silently gone while the others go on.
func WithStopReport(report func(host string, err error)) Option {
	return func(s *Server) { s.onStop = report }
}

// WithTimeouts sets how long the server waits for slow and idle clients
// (see [Timeouts]; zero fields keep [DefaultTimeouts]). The standalone
// command exposes them as flags.
func WithTimeouts(t Timeouts) Option {
	return func(s *Server) { s.timeouts = t }
}

// WithLimits caps the state the server keeps (see [Limits]; zero fields
// keep [DefaultLimits]). Past a cap a request gets 507 Insufficient Storage
// with code SYSTEM_ERROR instead of growing the server.
func WithLimits(l Limits) Option {
	return func(s *Server) { s.limits = l }
}
