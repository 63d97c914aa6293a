package emulator

import (
	"log/slog"
	"math"
	"net/http"
	"sync"
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
// customers and their data included. Customers, Accounts, Agreements and
// Transactions count each TPP's sandbox on its own (a TPP fills only its
// own); the others count the whole server. They apply to what arrives over HTTP
// (the mock-data operations, payments, baskets, SCA) and to
// [Controls.Seed], not to the other in-process methods ([Server.NewTPP],
// [Server.Trust], [Controls.InjectFault]).
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
	// AuthorisationsPerTPP, PaymentsPerTPP and BasketsPerTPP cap what
	// one TPP holds of Authorisations, Payments and Baskets, so that one
	// TPP cannot fill the server for the others (tppcaps.go). Past one,
	// that TPP gets the 507 (path "Limits.PaymentsPerTPP", ...).
	AuthorisationsPerTPP int
	PaymentsPerTPP       int
	BasketsPerTPP        int
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

	AuthorisationsPerTPP: 1_000,
	PaymentsPerTPP:       10_000,
	BasketsPerTPP:        1_000,
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

		AuthorisationsPerTPP: pick(l.AuthorisationsPerTPP, d.AuthorisationsPerTPP),
		PaymentsPerTPP:       pick(l.PaymentsPerTPP, d.PaymentsPerTPP),
		BasketsPerTPP:        pick(l.BasketsPerTPP, d.BasketsPerTPP),
	}
}

// controlValuesSlack is the room controlValues leaves beyond the seed's
// entries (roles, a few entries of a control other than seed).
const controlValuesSlack = 1024

// controlValues bounds the values in the arrays of one call of the
// control API, together (decodeControlArgs): what a seed could add under
// the caps of l (customers, accounts with as many agreement account
// indexes, agreements, transactions), plus controlValuesSlack. It is
// counted before the arguments are decoded, so that one request holds
// memory in proportion to the caps, not to a body of empty entries.
func (l Limits) controlValues() int {
	n := controlValuesSlack
	for _, v := range []int{l.Customers, l.Accounts, l.Accounts, l.Agreements, l.Transactions} {
		if v > math.MaxInt-n {
			return math.MaxInt
		}
		n += v
	}
	return n
}

// errLimit is the answer past a cap: 507 SYSTEM_ERROR naming the cap.
func errLimit(field string, limit int, what, free string) *apiError {
	return newError(http.StatusInsufficientStorage, "SYSTEM_ERROR",
		"The emulator is full: it holds its maximum of %d %s (emulator.Limits.%s). %s", limit, what, field, free).
		at("Limits." + field)
}

// room returns the 507 when adding n to have would pass limit, else nil.
func room(have, n, limit int, field, what, free string) error {
	if n > limit-have { // not have+n: n may be near math.MaxInt (AddTwins' n)
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

// The caps of mock data count each TPP's sandbox on its own (views.go), so
// that no TPP fills another's.

// roomForCustomer checks the Customers cap in the sandbox st.
func (bk *bank) roomForCustomer(st *store) error {
	return room(st.customerCount(), 1, bk.limits.Customers, "Customers", "customers", freeMockData)
}

// roomForAccount checks the Accounts cap (accounts and card accounts).
func (bk *bank) roomForAccount(st *store) error {
	return room(len(st.accounts)+len(st.cards), 1, bk.limits.Accounts, "Accounts", "accounts and card accounts", freeMockData)
}

// roomForAgreement checks the Agreements cap.
func (bk *bank) roomForAgreement(st *store) error {
	return room(len(st.agreements), 1, bk.limits.Agreements, "Agreements", "agreements", freeMockData)
}

// roomForTransactions checks the Transactions cap before n more are added.
func (bk *bank) roomForTransactions(st *store, n int) error {
	return room(st.txCount, n, bk.limits.Transactions, "Transactions", "transactions", freeMockData)
}

// roomForPayment checks the Payments cap. Call it before startSCA, so a
// refused payment leaves no authorisation behind.
func (bk *bank) roomForPayment() error {
	return room(len(bk.pay.list), 1, bk.limits.Payments, "Payments", "payments", freeRestart)
}

// roomForBasket checks the Baskets cap. Call it before startSCA.
func (bk *bank) roomForBasket() error {
	return room(len(bk.baskets.byID), 1, bk.limits.Baskets, "Baskets", "signing baskets", freeRestart)
}

// roomForAuthorisation checks the Authorisations and Sessions caps before
// an SCA starts (a completed SCA may add a session). When authorisations
// are full, those older than abandonedAuthorisation are dropped first.
func (bk *bank) roomForAuthorisation(now time.Time) error {
	if len(bk.flows) >= bk.limits.Authorisations {
		for state, f := range bk.flows {
			if now.Sub(f.created) > abandonedAuthorisation {
				bk.dropFlowLocked(state)
			}
		}
	}
	if err := room(len(bk.flows), 1, bk.limits.Authorisations, "Authorisations", "SCA authorisations waiting for the PSU",
		"Complete or abandon them (they are dropped after an hour), or restart the emulator."); err != nil {
		return err
	}
	return room(len(bk.sessions), 1, bk.limits.Sessions, "Sessions", "PSU sessions", freeMockData)
}

// forgetRemovedLocked drops what the TPP owner keeps about customers,
// accounts and card accounts that its sandbox no longer holds after a
// reset: the PSU-IDs and sessions of their customers and the access
// budgets of their accounts. Without it they would pile up over
// initialisations. It walks all PSU state, as the reset walks all
// customers.
func (bk *bank) forgetRemovedLocked(owner string) {
	data := bk.storeOf(owner)
	for k, n := range bk.psus {
		if k.tpp == owner && data.byNumber[n] == nil {
			delete(bk.psus, k)
		}
	}
	for k, st := range bk.sessions {
		if k.tpp == owner && data.byNumber[st.customer] == nil {
			delete(bk.sessions, k)
		}
	}
	bk.budgets.retain(func(tpp, resource string) bool {
		return tpp != owner || data.accounts[resource] != nil || data.cards[resource] != nil
	})
}

// forgetCustomerLocked drops the PSU-ID and session of a customer the TPP
// owner deleted from its sandbox, and the TPP's access budgets of its
// accounts and card accounts, in time proportional to the customer's
// accounts: a PSU-ID is derived from the TPP and the customer number
// (psuID), so the keys are known without a search.
func (bk *bank) forgetCustomerLocked(owner string, cu *customer) {
	k := psuKey{owner, bk.psuID(owner, cu.number)}
	delete(bk.psus, k)
	delete(bk.sessions, k)
	for _, id := range cu.accounts {
		bk.budgets.forget(owner, id)
	}
	for _, id := range cu.cards {
		bk.budgets.forget(owner, id)
	}
}

// budgetShards is the number of independently locked parts of the access
// budget, a power of two.
const budgetShards = 64

// budgetSweep is how often (on the emulator clock) a shard of the access
// budget drops the windows whose calls have all left the 24 hours.
const budgetSweep = time.Hour

// budgetTable counts the balances and transactions calls made without the
// PSU present, per TPP, resource (account or card account) and operation:
// at most budgetCalls in a rolling budgetWindow (docs/interface.md
// section 8). It has its own locks, one per shard of resources, so that
// calls on different accounts neither wait for each other nor need s.mu
// for writing. A window whose calls have all expired is forgotten (at the
// latest budgetSweep after), and the windows of a deleted account go
// with it, so memory follows the accounts called in the last day, not the
// server's age. The zero value is ready.
type budgetTable struct {
	shards [budgetShards]budgetShard
	wait   *lockTimer // tests only: time spent acquiring shard locks
}

type budgetShard struct {
	mu      sync.Mutex
	windows map[string][]*budgetCount // by resource
	n       int                       // windows held
	swept   time.Time                 // clock time of the last sweep
	_       [64]byte                  // keeps shards' locks on separate cache lines
}

// budgetCount holds the times of the calls of one key in the last
// budgetWindow, oldest first.
type budgetCount struct {
	key   budgetKey
	calls [budgetCalls]time.Time
	n     int
}

// prune drops the calls that left the window at now.
func (w *budgetCount) prune(now time.Time) {
	kept := 0
	for _, t := range w.calls[:w.n] {
		if now.Sub(t) < budgetWindow {
			w.calls[kept] = t
			kept++
		}
	}
	clear(w.calls[kept:w.n])
	w.n = kept
}

// shard returns the shard of resource (FNV-1a of the id).
func (t *budgetTable) shard(resource string) *budgetShard {
	h := uint32(2166136261)
	for i := 0; i < len(resource); i++ {
		h ^= uint32(resource[i])
		h *= 16777619
	}
	return &t.shards[h&(budgetShards-1)]
}

// lock locks sh, timing the wait when a test asked for it.
func (t *budgetTable) lock(sh *budgetShard) {
	if lt := t.wait; lt != nil {
		start := time.Now()
		sh.mu.Lock()
		lt.add(time.Since(start))
		return
	}
	sh.mu.Lock()
}

// take counts one call of tpp on resource and op at now, and reports
// false (counting nothing) when the window already holds budgetCalls.
func (t *budgetTable) take(tpp, resource, op string, now time.Time) bool {
	sh := t.shard(resource)
	t.lock(sh)
	defer sh.mu.Unlock()
	sh.sweep(now)
	if sh.windows == nil {
		sh.windows = map[string][]*budgetCount{}
	}
	var w *budgetCount
	for _, x := range sh.windows[resource] {
		if x.key.tpp == tpp && x.key.op == op {
			w = x
			break
		}
	}
	if w == nil {
		w = &budgetCount{key: budgetKey{tpp, resource, op}}
		sh.windows[resource] = append(sh.windows[resource], w)
		sh.n++
	}
	w.prune(now)
	if w.n >= budgetCalls {
		return false
	}
	w.calls[w.n] = now
	w.n++
	return true
}

// sweep drops the shard's expired windows once per budgetSweep of clock
// time (or when the clock went back). Needs sh.mu.
func (sh *budgetShard) sweep(now time.Time) {
	if !sh.swept.IsZero() && now.Sub(sh.swept) < budgetSweep && !now.Before(sh.swept) {
		return
	}
	sh.swept = now
	for res, ws := range sh.windows {
		kept := ws[:0]
		for _, w := range ws {
			if w.prune(now); w.n > 0 {
				kept = append(kept, w)
			}
		}
		clear(ws[len(kept):])
		sh.n -= len(ws) - len(kept)
		if len(kept) == 0 {
			delete(sh.windows, res)
		} else {
			sh.windows[res] = kept
		}
	}
}

// forget drops the windows of tpp on a resource (an account it deleted).
func (t *budgetTable) forget(tpp, resource string) {
	t.retainIn(t.shard(resource), resource, func(k, _ string) bool { return k != tpp })
}

// retain keeps only the windows of the TPPs and resources keep accepts.
func (t *budgetTable) retain(keep func(tpp, resource string) bool) {
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		res := make([]string, 0, len(sh.windows))
		for r := range sh.windows {
			res = append(res, r)
		}
		sh.mu.Unlock()
		for _, r := range res {
			t.retainIn(sh, r, keep)
		}
	}
}

// retainIn keeps the windows of resource in sh that keep accepts.
func (t *budgetTable) retainIn(sh *budgetShard, resource string, keep func(tpp, resource string) bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	ws := sh.windows[resource]
	kept := ws[:0]
	for _, w := range ws {
		if keep(w.key.tpp, resource) {
			kept = append(kept, w)
		}
	}
	clear(ws[len(kept):])
	sh.n -= len(ws) - len(kept)
	if len(kept) == 0 {
		delete(sh.windows, resource)
	} else {
		sh.windows[resource] = kept
	}
}

// len returns the number of windows held (expired ones not yet swept
// included).
func (t *budgetTable) len() int {
	n := 0
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		n += sh.n
		sh.mu.Unlock()
	}
	return n
}
