package emulator

import (
	"log/slog"
	"net/http"
	"time"
)

// Timeouts bounds how long the server waits for a client, so that slow or
// idle connections (a "slowloris" client that never finishes its request
// headers, or a TLS handshake that never completes) are closed instead of
// piling up. Give them with [WithTimeouts]. A zero field takes its value
// from [DefaultTimeouts]; a negative one switches that timeout off.
type Timeouts struct {
	// ReadHeader bounds the TLS handshake and the reading of a request's
	// headers (http.Server.ReadHeaderTimeout).
	ReadHeader time.Duration
	// Read bounds the reading of a whole request, body included
	// (http.Server.ReadTimeout).
	Read time.Duration
	// Write bounds the time from the end of the request headers to the end
	// of the answer (http.Server.WriteTimeout). Injected latency longer
	// than this ([FaultHang] with a Delay) loses its answer.
	Write time.Duration
	// Idle bounds how long a keep-alive connection waits for its next
	// request (http.Server.IdleTimeout).
	Idle time.Duration
}

// DefaultTimeouts are the timeouts of a server started without
// [WithTimeouts]: generous enough for any client and for tests under the
// race detector, short enough that idle and slow connections go away.
var DefaultTimeouts = Timeouts{
	ReadHeader: 10 * time.Second,
	Read:       30 * time.Second,
	Write:      60 * time.Second,
	Idle:       120 * time.Second,
}

// maxHeaderBytes bounds the request headers the server reads (the largest
// legitimate ones, TPP-Signature-Certificate and Signature, are a few KiB).
const maxHeaderBytes = 64 << 10

// timeout resolves one field of Timeouts against its default.
func timeout(v, def time.Duration) time.Duration {
	switch {
	case v < 0:
		return 0 // off
	case v == 0:
		return def
	}
	return v
}

// configure applies the timeouts and the header limit to hs, and routes its
// error log (TLS handshake failures, timeouts) to the server's logger.
func (t Timeouts) configure(hs *http.Server, log *slog.Logger) {
	hs.ReadHeaderTimeout = timeout(t.ReadHeader, DefaultTimeouts.ReadHeader)
	hs.ReadTimeout = timeout(t.Read, DefaultTimeouts.Read)
	hs.WriteTimeout = timeout(t.Write, DefaultTimeouts.Write)
	hs.IdleTimeout = timeout(t.Idle, DefaultTimeouts.Idle)
	hs.MaxHeaderBytes = maxHeaderBytes
	hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
}

// Limits caps the state the emulator keeps, so that no client can make it
// grow without bound (the standalone command runs for days). Give them
// with [WithLimits]; a zero or negative field takes its value from
// [DefaultLimits]. The caps count what is held at the moment, the default
// customers and their data included; they apply to what arrives over HTTP
// (the mock-data operations, payments, baskets, SCA), not to the
// in-process methods ([Server.NewTPP], [Server.Trust], [Server.InjectFault]).
//
// A request that would go past a cap gets 507 Insufficient Storage with a
// tppMessage of code SYSTEM_ERROR whose path names the cap ("Limits.Payments")
// and whose text says what is full; nothing is stored. The client does not
// retry it. Customers and their data are freed by DELETE
// /v1/sandbox/customers/{id} and POST /v1/sandbox/initialize; payments and
// baskets are kept until the server stops.
type Limits struct {
	// Customers caps the sandbox customers.
	Customers int
	// Accounts caps accounts and card accounts together.
	Accounts int
	// Agreements caps the corporate agreements.
	Agreements int
	// Transactions caps the transactions of all accounts and card
	// accounts together (checked when mock transactions are added; the
	// batch books at most two per payment, so Payments bounds the rest).
	Transactions int
	// Payments caps the payments of every kind, finished ones included.
	Payments int
	// Baskets caps the signing baskets.
	Baskets int
	// Authorisations caps the SCA authorisations waiting for the PSU
	// (every 401 with a scaRedirect starts one). When it is reached,
	// authorisations older than [abandonedAuthorisation] are dropped
	// first.
	Authorisations int
	// Sessions caps the PSU sessions (one per TPP certificate and customer
	// that completed an SCA). Sessions of deleted customers are dropped.
	Sessions int
}

// DefaultLimits are the caps of a server started without [WithLimits]:
// far above what a test suite or a TPP's development use needs, low
// enough that a full server stays within a few hundred MB.
var DefaultLimits = Limits{
	Customers:      10_000,
	Accounts:       50_000,
	Agreements:     10_000,
	Transactions:   500_000,
	Payments:       100_000,
	Baskets:        10_000,
	Authorisations: 10_000,
	Sessions:       10_000,
}

// abandonedAuthorisation is the age after which an SCA authorisation the
// PSU never completed may be dropped to make room (the SCA validity).
const abandonedAuthorisation = scaValidity

// withDefaults returns l with every unset field taken from DefaultLimits.
func (l Limits) withDefaults() Limits {
	pick := func(v, def int) int {
		if v <= 0 {
			return def
		}
		return v
	}
	d := DefaultLimits
	return Limits{
		Customers:      pick(l.Customers, d.Customers),
		Accounts:       pick(l.Accounts, d.Accounts),
		Agreements:     pick(l.Agreements, d.Agreements),
		Transactions:   pick(l.Transactions, d.Transactions),
		Payments:       pick(l.Payments, d.Payments),
		Baskets:        pick(l.Baskets, d.Baskets),
		Authorisations: pick(l.Authorisations, d.Authorisations),
		Sessions:       pick(l.Sessions, d.Sessions),
	}
}

// errLimit is the answer past a cap: 507 SYSTEM_ERROR naming the cap.
func errLimit(field string, limit int, what, free string) *apiError {
	return newError(http.StatusInsufficientStorage, "SYSTEM_ERROR",
		"The emulator is full: it holds its maximum of %d %s (emulator.Limits.%s). %s", limit, what, field, free).
		at("Limits." + field)
}

// room returns the 507 when adding n to have would pass limit, else nil.
func room(have, n, limit int, field, what, free string) error {
	if have+n > limit {
		return errLimit(field, limit, what, free)
	}
	return nil
}

const (
	freeMockData = "Delete customers or reset the sandbox (POST /v1/sandbox/initialize)."
	freeRestart  = "Restart the emulator or raise the limit."
)

// The checks below need s.mu held. Each is called before anything is
// stored, so a refused request leaves no trace.

// roomForCustomer checks the Customers cap.
func (s *Server) roomForCustomer() error {
	return room(len(s.data.customers), 1, s.limits.Customers, "Customers", "customers", freeMockData)
}

// roomForAccount checks the Accounts cap (accounts and card accounts).
func (s *Server) roomForAccount() error {
	return room(len(s.data.accounts)+len(s.data.cards), 1, s.limits.Accounts, "Accounts", "accounts and card accounts", freeMockData)
}

// roomForAgreement checks the Agreements cap.
func (s *Server) roomForAgreement() error {
	return room(len(s.data.agreements), 1, s.limits.Agreements, "Agreements", "agreements", freeMockData)
}

// roomForTransactions checks the Transactions cap before n more are added.
func (s *Server) roomForTransactions(n int) error {
	have := 0
	for _, a := range s.data.accounts {
		have += len(a.transactions)
	}
	for _, k := range s.data.cards {
		have += len(k.transactions)
	}
	return room(have, n, s.limits.Transactions, "Transactions", "transactions", freeMockData)
}

// roomForPayment checks the Payments cap. Call it before startSCA, so a
// refused payment leaves no authorisation behind.
func (s *Server) roomForPayment() error {
	return room(len(s.pay.list), 1, s.limits.Payments, "Payments", "payments", freeRestart)
}

// roomForBasket checks the Baskets cap. Call it before startSCA.
func (s *Server) roomForBasket() error {
	return room(len(s.baskets.byID), 1, s.limits.Baskets, "Baskets", "signing baskets", freeRestart)
}

// roomForAuthorisation checks the Authorisations and Sessions caps before
// an SCA starts (a completed SCA may add a session). When authorisations
// are full, those older than abandonedAuthorisation are dropped first.
func (s *Server) roomForAuthorisation(now time.Time) error {
	if len(s.flows) >= s.limits.Authorisations {
		for state, f := range s.flows {
			if now.Sub(f.created) > abandonedAuthorisation {
				delete(s.flows, state)
			}
		}
	}
	if err := room(len(s.flows), 1, s.limits.Authorisations, "Authorisations", "SCA authorisations waiting for the PSU",
		"Complete or abandon them (they are dropped after an hour), or restart the emulator."); err != nil {
		return err
	}
	return room(len(s.sessions), 1, s.limits.Sessions, "Sessions", "PSU sessions", freeMockData)
}

// forgetRemovedLocked drops what refers to customers, accounts and card
// accounts that no longer exist (after a delete or a reset): the PSU-IDs
// and sessions of their customers and the access budgets of their
// accounts. Without it they would pile up over create/delete cycles.
func (s *Server) forgetRemovedLocked() {
	live := make(map[string]bool, len(s.data.customers))
	for _, cu := range s.data.customers {
		live[cu.number] = true
	}
	for k, n := range s.psus {
		if !live[n] {
			delete(s.psus, k)
		}
	}
	for k, st := range s.sessions {
		if !live[st.customer] {
			delete(s.sessions, k)
		}
	}
	for k := range s.budgets {
		if s.data.accounts[k.resource] == nil && s.data.cards[k.resource] == nil {
			delete(s.budgets, k)
		}
	}
}
