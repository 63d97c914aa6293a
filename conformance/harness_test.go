package conformance

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

// redirectURI is the TPP-Redirect-URI of the flows. Nothing listens there:
// emulator.Controls.Authorize returns the callback URL instead.
const redirectURI = "https://tpp.example/callback"

// psuIP is a documentation address (RFC 5737) standing for the PSU's own.
const psuIP = "192.0.2.10"

// env is one flow's bank and TPP: an emulator, the TPP's client sending
// through a recorder, and the ledger the findings are settled in.
type env struct {
	t     *testing.T
	s     *emulator.Server
	c     *client.Client
	rec   *recorder
	led   *ledger
	clk   *testtpp.Clock // the clock of the emulator and the client
	creds *signing.Credentials
	sid   string // TPP-Session-ID
}

// newEnv starts an emulator with opts and a TPP client recording its
// traffic.
func newEnv(t *testing.T, led *ledger, opts ...emulator.Option) *env {
	t.Helper()
	clk := testtpp.NewClock(time.Now())
	s := testtpp.Server(t, append([]emulator.Option{emulator.WithClock(clk.Now)}, opts...)...)
	creds, err := s.NewTPP("Conformance TPP")
	require.NoError(t, err)
	u, err := url.Parse(s.URL)
	require.NoError(t, err)
	rec := &recorder{base: s.Client().Transport, prefix: strings.TrimSuffix(u.Path, "/")}
	e := &env{t: t, s: s, rec: rec, led: led, clk: clk, creds: creds, sid: uuid.NewString()}
	e.c = e.client()
	return e
}

// client returns a new client of the TPP, sending through the recorder.
// Each client keeps its own state (the count of calls without the PSU).
func (e *env) client() *client.Client {
	e.t.Helper()
	c, err := client.New(e.s.URL, e.creds, client.WithHTTPClient(&http.Client{Transport: e.rec}), client.WithClock(e.clk.Now))
	require.NoError(e.t, err)
	return c
}

// present returns the options of a call with the PSU present: session,
// redirect URI and PSU-IP-Address, and PSU-ID when psuID is not empty.
func (e *env) present(psuID string) client.RequestOption {
	return client.Combine(client.WithTPPSessionID(e.sid), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: psuID, IPAddress: psuIP}))
}

// absent returns the options of a call without the PSU (no
// PSU-IP-Address, docs/interface.md section 5.14).
func (e *env) absent(psuID string) client.RequestOption {
	return client.Combine(client.WithTPPSessionID(e.sid), client.WithRedirectURI(redirectURI),
		client.WithPSU(client.PSU{ID: psuID}))
}

// authorize has customer complete the SCA behind link and returns the
// PSU-ID of the callback.
func (e *env) authorize(link, customer string) string {
	e.t.Helper()
	require.NotEmpty(e.t, link, "no scaRedirect")
	cb, err := e.s.Control().Authorize(e.t.Context(), link, customer)
	require.NoError(e.t, err)
	psuID := cb.Query().Get("psu-id")
	require.NotEmpty(e.t, psuID)
	return psuID
}

// verify validates every exchange recorded since the last verify, each in
// its own subtest named after its operation, and settles the findings in
// the ledger.
func (e *env) verify() {
	e.t.Helper()
	spec, err := loadSpec()
	require.NoError(e.t, err)
	for i, x := range e.rec.take() {
		op, err := spec.resolve(x.method, x.path)
		require.NoError(e.t, err)
		e.t.Run(fmt.Sprintf("%02d %s %d", i, op.name, x.status), func(t *testing.T) {
			findings, err := spec.check(t.Context(), x)
			require.NoError(t, err)
			e.led.checkPlatform(t, x)
			e.led.settle(t, findings)
		})
	}
}

// ledger records which deviations and known defects excused a finding, so
// that an entry no call needs any more fails the run (the tables cannot
// rot).
type ledger struct {
	deviations, defects []entry // the tables: deviations and knownDefects

	mu      sync.Mutex
	devUsed map[string]bool // deviation key (index and operation) -> used
	defUsed map[string]bool
	flows   int // flows that reached their end
	// described counts the exchanges (or answer documents) checked
	// against docs/openapi.json, by operationId of that document.
	described map[string]int
	// shown lists, by index of deviations, the recorded answer documents
	// of testdata/platform whose findings the deviation excused.
	shown map[int][]string
}

// checkPlatform validates an exchange against the platform's own
// description, docs/openapi.json: there the deviations are part of the
// interface, so any finding fails t.
func (l *ledger) checkPlatform(t *testing.T, x exchange) {
	t.Helper()
	spec, err := loadPlatformSpec()
	require.NoError(t, err)
	op, err := spec.resolve(x.method, x.path)
	require.NoError(t, err, "docs/openapi.json has no operation for %s %s", x.method, x.path)
	findings, err := spec.check(t.Context(), x)
	require.NoError(t, err)
	l.countDescribed(op.name)
	for _, f := range findings {
		if slices.ContainsFunc(refusedOnPurpose, func(r refusal) bool { return r.op == f.op && r.loc == f.loc && r.status == x.status }) {
			continue
		}
		t.Errorf("not as docs/openapi.json describes: %s", f)
	}
}

// refusal is a request the flows send outside docs/openapi.json on
// purpose, to see the bank refuse it with status.
type refusal struct {
	op, loc string
	status  int
}

// refusedOnPurpose are those requests: a payment product the platform
// does not offer (Berlin Group's instant-sepa-credit-transfers), which
// the description's payment-product enum leaves out and the bank answers
// with 404 PRODUCT_UNKNOWN.
var refusedOnPurpose = []refusal{{"initiatePayment", "request path payment-product", 404}}

// recorded notes the deviations the findings of the recorded answer
// document file show.
func (l *ledger) recorded(file string, findings []finding) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown == nil {
		l.shown = map[int][]string{}
	}
	for _, f := range findings {
		if i, ok := matchEntry(l.deviations, f); ok && !slices.Contains(l.shown[i], file) {
			l.shown[i] = append(l.shown[i], file)
		}
	}
}

// countDescribed counts one check against docs/openapi.json.
func (l *ledger) countDescribed(op string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.described == nil {
		l.described = map[string]int{}
	}
	l.described[op]++
}

// newLedger returns a ledger of the tables deviations and knownDefects.
func newLedger() *ledger { return newLedgerOf(deviations, knownDefects) }

func newLedgerOf(devs, defects []entry) *ledger {
	return &ledger{deviations: devs, defects: defects, devUsed: map[string]bool{}, defUsed: map[string]bool{}}
}

// settle excuses each finding by a deviation, or by a known defect (the
// subtest then skips, naming the defect), and fails the test on the rest.
func (l *ledger) settle(t *testing.T, findings []finding) {
	t.Helper()
	unexcused, defects := l.sort(findings)
	for _, f := range unexcused {
		t.Errorf("not Berlin Group 1.3.9 and not a listed deviation: %s", f)
	}
	if len(defects) == 0 {
		return
	}
	if t.Failed() {
		t.Logf("also known defects (knownDefects): %s", strings.Join(defects, "; "))
		return
	}
	t.Skipf("known defect (knownDefects): %s", strings.Join(defects, "; "))
}

// sort records the entries that excuse findings and returns the findings
// no entry excuses and the known defects met, described.
func (l *ledger) sort(findings []finding) (unexcused []finding, defects []string) {
	for _, f := range findings {
		if i, ok := matchEntry(l.deviations, f); ok {
			l.use(l.devUsed, i, f.op)
			continue
		}
		if i, ok := matchEntry(l.defects, f); ok {
			l.use(l.defUsed, i, f.op)
			defects = append(defects, fmt.Sprintf("%s [%s: %s]", f, l.defects[i].Section, l.defects[i].Why))
			continue
		}
		unexcused = append(unexcused, f)
	}
	return unexcused, defects
}

func (l *ledger) use(m map[string]bool, i int, op string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m[fmt.Sprint(i, " ", op)] = true
}

func (l *ledger) used(m map[string]bool, i int, op string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return m[fmt.Sprint(i, " ", op)]
}

// unused lists the entries of table, with the operation, that excused
// nothing in m (devUsed or defUsed), numbered from 1 (deviation N is
// docs/interface.md item 11.N).
func (l *ledger) unused(table []entry, m map[string]bool) []string {
	var out []string
	for i, e := range table {
		for _, op := range e.Where {
			if !l.used(m, i, op) {
				out = append(out, fmt.Sprintf("%d (%s at %s)", i+1, e.What, op))
			}
		}
	}
	return out
}

// done counts a flow (or the platform documents) that ran to its end
// without failing.
func (l *ledger) done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flows++
}

// completed returns the number of flows counted by done.
func (l *ledger) completed() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flows
}
