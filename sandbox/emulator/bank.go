package emulator

import (
	"sync"
	"time"
)

// The emulator is two things, kept apart:
//
//   - the HTTP surface, [Server]: the listener, TLS, the request checks of
//     every signed call (auth.go, call.go), the routes and their handlers
//     (accounts.go, payments.go, baskets.go, mockdata.go, mockagreements.go,
//     tpp.go), the SCA page (scapage.go), answers (respond.go, errors.go,
//     respsign.go) and the transport's faults (faults.go, outages.go).
//     A handler reads the request and writes the answer;
//   - the bank's model, bank: what the bank holds and decides, with no
//     request or answer in sight: the TPP register, each TPP's sandbox
//     (data.go, defaults.go, views.go), PSU sessions and SCA
//     authorisations (session.go, sca.go: finishSCA), payments, baskets
//     and the batch (batch.go), the caps (limits.go, tppcaps.go), what the
//     scenario controls set (scenario.go) and the bank's clock (clock.go).
//
// [Controls] act on the bank (and, for faults, on the surface) in process;
// the control API serves them over HTTP (controlapi.go).

// bank is the bank's model. mu guards every field but the clock and the
// access budget, which have their own locks.
type bank struct {
	clock             bankClock // the bank's time over the server's (clock.go)
	knownIssues       bool      // section 4.2 (NDCT unreadable before approval): on by default
	unfilteredPending bool      // the production platform's section 8 issue; WithKnownIssues(true)
	limits            Limits    // WithLimits, completed with DefaultLimits in newServer

	mu       sync.RWMutex // read lock: the read-only AIS calls (data.go, run)
	tpps     map[string]*tpp
	stores   map[string]*store // tppIdentity -> that TPP's sandbox (views.go)
	flows    map[string]*scaFlow
	sessions map[sessionKey]*psuState
	psus     map[psuKey]string // (TPP, PSU-ID) -> customer number
	budgets  budgetTable       // limits.go: its own sharded locks
	pay      paymentState
	baskets  basketState
	contacts contactState  // tpp.go: the TPPs' contact addresses
	usage    tppUsage      // tppcaps.go: what each TPP holds of the per-TPP caps
	scn      scenarioState // scenario.go: what the scenario controls set
	profile  Profile       // profile.go: how this bank differs

	data     dataSpec           // defaults.go: whose default data (set before the first call)
	reserved func() reservedIDs // mockdata.go: the default data's numbers and BBANs
}

// newBank returns an empty bank on the machine's clock.
func newBank() *bank {
	bk := &bank{
		clock:       bankClock{wire: time.Now},
		knownIssues: true,
		tpps:        map[string]*tpp{},
		flows:       map[string]*scaFlow{},
		sessions:    map[sessionKey]*psuState{},
		psus:        map[psuKey]string{},
		stores:      map[string]*store{},
	}
	bk.reserved = sync.OnceValue(func() reservedIDs { return bk.data.reservedIDs() })
	return bk
}

// now is the bank's time: the server's clock as the clock controls moved
// it (clock.go).
func (bk *bank) now() time.Time { return bk.clock.now() }
