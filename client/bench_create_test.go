package client

import (
	"bytes"
	"crypto"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tppkit/psd2/internal/testkit/cpuclock"
	"github.com/tppkit/psd2/signing"
)

// createBench is one way of running the create comparison: the key both
// sides sign with, and where the request goes.
type createBench struct {
	name string
	key  crypto.Signer
	// memory: both sides send through stubTransport, which answers in
	// memory; otherwise over loopback TCP to benchSrv.
	memory bool
}

// createBenches are BenchmarkCreateOverhead's variants:
//   - rsa/loopback: 2048-bit RSA over loopback TCP, the whole cost of a
//     create as a TPP pays it (issue 25 goal: a wall ratio of at most
//     1.03);
//   - stub/loopback: a key that signs instantly (fastKey), over loopback:
//     the same without the RSA operation, which both sides pay alike;
//   - stub/memory: fastKey and an in-memory transport (stubTransport),
//     so that only the client side's work is measured: the SDK's pipeline
//     against a bare client doing the same request by hand.
func createBenches() []createBench {
	return []createBench{
		{name: "rsa/loopback", key: benchKey},
		{name: "stub/loopback", key: fastKey{benchKey}},
		{name: "stub/memory", key: fastKey{benchKey}, memory: true},
	}
}

// sides returns one SDK payment create and one bare net/http create
// (baseline) of the variant, each sending the same request with its own
// client and transport.
func (cb createBench) sides(b *testing.B) (sdk, bare func() error) {
	base, opts := benchSrv.URL+"/api", []Option{testDefaults}
	bareHC := &http.Client{Transport: (&Client{}).transport()}
	if cb.memory {
		base = "https://psd2.bank.example/api"
		opts = append(opts, WithHTTPClient(&http.Client{Transport: stubTransport{}}))
		bareHC = &http.Client{Transport: stubTransport{}}
	}
	c, err := New(base, &signing.Credentials{Certificate: benchCreds.Certificate, Key: cb.key}, opts...)
	if err != nil {
		b.Fatal(err)
	}
	return sdkCreate(b, c), baseline(b, cb.key, bareHC, base)
}

// benchCreateOp is a payment create as payments.Create declares it to
// the client, with the headers it requires.
func benchCreateOp() Operation {
	return Operation{Name: "payments.Create", Method: http.MethodPost, Path: "/v1/payments/norwegian-domestic-credit-transfers",
		Body: benchBody(), ResultID: "paymentId", Require: []string{"PSU-ID", "PSU-IP-Address", "TPP-Session-ID", "PSU-Context"}}
}

// benchCreateOpts returns the options of a create: the PSU, present, and
// the TPP session (the headers benchPSU lists). A caller makes them per
// call (sca.Session.RequestOptions), so the benchmarks do too; the
// client's defaults (the redirect URI) are made once.
func benchCreateOpts() []RequestOption {
	return []RequestOption{WithPSU(PSU{ID: benchPSU[0][1], IPAddress: benchPSU[1][1]}),
		WithPSUContext(PSUContext(benchPSU[2][1])), WithTPPSessionID(benchPSU[3][1])}
}

// benchPSU are the PSU and session headers of a create, name and value.
var benchPSU = [...][2]string{{"PSU-ID", "3f1c6a52-8a0e-4d4b-9a57-2a1d2e0c7b11"}, {"PSU-IP-Address", "192.0.2.10"},
	{"PSU-Context", "PRIVATE"}, {"TPP-Session-ID", "session-1"}}

// sdkCreate returns one payment create through c.
func sdkCreate(b *testing.B, c *Client) func() error {
	op := benchCreateOp()
	ctx := b.Context()
	return func() error {
		var out benchAnswer
		_, err := c.Do(ctx, op, &out, benchCreateOpts()...)
		return err
	}
}

// BenchmarkCreateOverhead compares a payment create through the SDK with
// a bare net/http client sending the same signed request by hand
// (baseline: same body, headers, signature and answer decoding), in the
// same run, so that both sides see the same load of the shared machine.
// Each iteration is one pair: one SDK create and one bare create, in
// turn first and second (ns/op, B/op and allocs/op are per pair).
// Around each create the benchmark reads the wall clock and the process
// CPU clock (cpuclock.Process: every thread, so the garbage collection a
// create's allocations cause is counted too; in stub/memory nothing else
// runs, over loopback the test server's share is the same for both
// sides). It reports, per create:
//   - sdk-cpu-ns, bare-cpu-ns: mean CPU time of each side;
//   - extra-cpu-ns: their difference, the SDK's own cost;
//   - cpu-ratio: SDK CPU over bare CPU, summed over the run;
//   - cpu-ratio-median: the median of the pairs' CPU ratios, which a
//     garbage collection or a preemption hitting one create moves little;
//   - wall-ratio-median: the median of the pairs' wall-time ratios (the
//     mean of wall times swings with the machine's load; the median of
//     pairs does not);
//   - sdk-allocs, bare-allocs, alloc-ratio, sdk-B, bare-B: allocations
//     and bytes of each side alone, counted after the timed loop over
//     allocRuns creates (over loopback they include the test server's,
//     which are the same for both).
//
// Run it several times to see the spread:
//
//	go test ./client/ -run '^$' -bench CreateOverhead -count 5
func BenchmarkCreateOverhead(b *testing.B) {
	benchSetup(b)
	for _, cb := range createBenches() {
		b.Run(cb.name, func(b *testing.B) {
			sdk, bare := cb.sides(b)
			var st pairStats
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := st.pair(sdk, bare, i%2 == 1); err != nil {
					b.Fatal(err)
				}
			}
			st.report(b)
			reportAllocs(b, sdk, bare)
		})
	}
}

// pairStats gathers the per-create measures of BenchmarkCreateOverhead.
type pairStats struct {
	sdkWall, bareWall time.Duration
	sdkCPU, bareCPU   time.Duration
	noCPU             bool // cpuclock.Process is not available
	wallRatios        []float64
	cpuRatios         []float64
}

// pair runs one SDK create and one bare create, the bare one first when
// bareFirst, and records their wall and CPU times. The clocks are read
// once between the two creates, so each side pays for one reading.
func (st *pairStats) pair(sdk, bare func() error, bareFirst bool) error {
	first, second := sdk, bare
	if bareFirst {
		first, second = bare, sdk
	}
	c0, ok0 := cpuclock.Process()
	t0 := time.Now()
	if err := first(); err != nil {
		return err
	}
	c1, ok1 := cpuclock.Process()
	t1 := time.Now()
	if err := second(); err != nil {
		return err
	}
	c2, ok2 := cpuclock.Process()
	t2 := time.Now()
	wall := [2]time.Duration{t1.Sub(t0), t2.Sub(t1)}
	cpu := [2]time.Duration{c1 - c0, c2 - c1}
	if bareFirst {
		wall[0], wall[1] = wall[1], wall[0]
		cpu[0], cpu[1] = cpu[1], cpu[0]
	}
	st.sdkWall += wall[0]
	st.bareWall += wall[1]
	st.wallRatios = append(st.wallRatios, float64(wall[0])/float64(wall[1]))
	if !ok0 || !ok1 || !ok2 {
		st.noCPU = true
		return nil
	}
	st.sdkCPU += cpu[0]
	st.bareCPU += cpu[1]
	if cpu[1] > 0 {
		st.cpuRatios = append(st.cpuRatios, float64(cpu[0])/float64(cpu[1]))
	}
	return nil
}

// report reports the run's figures with b.ReportMetric.
func (st *pairStats) report(b *testing.B) {
	n := float64(len(st.wallRatios))
	if n == 0 {
		return
	}
	b.ReportMetric(float64(st.sdkWall)/n, "sdk-ns/create")
	b.ReportMetric(float64(st.bareWall)/n, "bare-ns/create")
	b.ReportMetric(median(st.wallRatios), "wall-ratio-median")
	if st.noCPU || len(st.cpuRatios) == 0 {
		b.Log("no process CPU clock here: CPU not measured")
		return
	}
	b.ReportMetric(float64(st.sdkCPU)/n, "sdk-cpu-ns/create")
	b.ReportMetric(float64(st.bareCPU)/n, "bare-cpu-ns/create")
	b.ReportMetric(float64(st.sdkCPU-st.bareCPU)/n, "extra-cpu-ns/create")
	b.ReportMetric(float64(st.sdkCPU)/float64(st.bareCPU), "cpu-ratio")
	b.ReportMetric(median(st.cpuRatios), "cpu-ratio-median")
}

// median returns the median of v, sorting v.
func median(v []float64) float64 {
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// allocRuns is how many creates of each side reportAllocs counts.
const allocRuns = 200

// reportAllocs reports the allocations and bytes per create of each side
// alone, counted from runtime.MemStats over allocRuns creates after the
// timed loop.
func reportAllocs(b *testing.B, sdk, bare func() error) {
	sa, sb := perCreate(b, sdk)
	ba, bb := perCreate(b, bare)
	b.ReportMetric(sa, "sdk-allocs/create")
	b.ReportMetric(ba, "bare-allocs/create")
	b.ReportMetric(sa/ba, "alloc-ratio")
	b.ReportMetric(sb, "sdk-B/create")
	b.ReportMetric(bb, "bare-B/create")
}

// perCreate returns the allocations and bytes of one create, on average
// over allocRuns.
func perCreate(b *testing.B, create func() error) (allocs, bytes float64) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range allocRuns {
		if err := create(); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.Mallocs-m0.Mallocs) / allocRuns, float64(m1.TotalAlloc-m0.TotalAlloc) / allocRuns
}

// BenchmarkCreateStubSigner measures one payment create through the whole
// pipeline (options, URL, JSON body, ids, Digest, signature, send, answer
// checks, decoding) with a signer that signs instantly, alone: the figure
// to profile (-cpuprofile, -memprofile) the SDK's own work. memory sends
// through stubTransport, loopback to the bench server (net/http on both
// sides counts too). Issue 25 goal: at most 267 allocations per create.
func BenchmarkCreateStubSigner(b *testing.B) {
	benchSetup(b)
	for _, cb := range createBenches()[1:] {
		b.Run(strings.TrimPrefix(cb.name, "stub/"), func(b *testing.B) {
			sdk, _ := cb.sides(b)
			b.ReportAllocs()
			for b.Loop() {
				if err := sdk(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// recordTransport keeps the last request it was given, its body read,
// and answers as stubTransport does.
type recordTransport struct {
	mu   sync.Mutex
	req  *http.Request
	body []byte
}

func (t *recordTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.req, t.body = r, body
	t.mu.Unlock()
	return stubTransport{}.RoundTrip(r)
}

// TestBaselineIsSameRequest checks that BenchmarkCreateOverhead compares
// like with like: the bare baseline sends the SDK's method, URL, body,
// header names, header values (but for the per-request ones) and signed
// header list, and both signatures verify.
func TestBaselineIsSameRequest(t *testing.T) {
	benchSetup(t)
	var sdkT, bareT recordTransport
	c, err := New("https://psd2.bank.example/api", benchCreds, testDefaults, WithHTTPClient(&http.Client{Transport: &sdkT}))
	require.NoError(t, err)
	var out benchAnswer
	_, err = c.Do(t.Context(), benchCreateOp(), &out, benchCreateOpts()...)
	require.NoError(t, err)
	bare := baseline(t, benchKey, &http.Client{Transport: &bareT}, "https://psd2.bank.example/api")
	require.NoError(t, bare())

	s, r := sdkT.req, bareT.req
	require.NotNil(t, s)
	require.NotNil(t, r)
	assert.Equal(t, s.Method, r.Method)
	assert.Equal(t, s.URL.String(), r.URL.String())
	assert.Equal(t, sdkT.body, bareT.body)
	assert.Equal(t, slices.Sorted(maps.Keys(s.Header)), slices.Sorted(maps.Keys(r.Header)))
	perRequest := map[string]bool{"Date": true, "X-Request-Id": true, "Signature": true}
	for k := range s.Header {
		if !perRequest[k] {
			assert.Equal(t, s.Header.Values(k), r.Header.Values(k), k)
		}
	}
	signedList := func(h http.Header) string {
		v := h.Get("Signature")
		i := strings.Index(v, `headers="`)
		if i < 0 {
			return ""
		}
		v = v[i+len(`headers="`):]
		return v[:strings.IndexByte(v, '"')]
	}
	assert.NotEmpty(t, signedList(s.Header))
	assert.Equal(t, signedList(s.Header), signedList(r.Header))
	for _, req := range []*http.Request{s, r} {
		assert.NoError(t, signing.Verify(req, benchCreds.Certificate.PublicKey))
	}
	assert.True(t, bytes.HasPrefix(sdkT.body, []byte("{")))
}

// createAllocBudget is the most allocations a payment create through the
// whole pipeline may make in memory (stub key, stubTransport), the
// caller's per-call options and the transport's answer included: 85 when
// it was set, against 78 for the bare request and issue 25's ceiling of
// 267. A change that needs more should say why.
const createAllocBudget = 95

// TestCreateAllocationBudget holds a create to createAllocBudget.
func TestCreateAllocationBudget(t *testing.T) {
	if measuredApart(t) {
		return
	}
	benchSetup(t)
	c, err := New("https://psd2.bank.example/api", &signing.Credentials{Certificate: benchCreds.Certificate, Key: fastKey{benchKey}},
		testDefaults, WithHTTPClient(&http.Client{Transport: stubTransport{}}))
	require.NoError(t, err)
	op := benchCreateOp()
	var failed error
	// The least of 5 measurements, with no collection during them: a
	// collection empties every sync.Pool, the race detector drops pooled
	// items at random, and AllocsPerRun counts what any goroutine of the
	// process allocates meanwhile; each adds to a measurement now and then.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	allocs := math.Inf(1)
	for range 5 {
		allocs = min(allocs, testing.AllocsPerRun(100, func() {
			var out benchAnswer
			if _, err := c.Do(t.Context(), op, &out, benchCreateOpts()...); err != nil {
				failed = err
			}
		}))
	}
	require.NoError(t, failed)
	t.Logf("%.0f allocations per create", allocs)
	assert.LessOrEqual(t, allocs, float64(createAllocBudget))
}

// apartEnv marks the process measuredApart starts.
const apartEnv = "PSD2_CLIENT_TEST_APART"

// measuredApart runs the calling test again in a process of its own,
// alone (the test binary, -test.run naming it), and reports true in the
// process that started it, once the run there passed: the caller then
// returns. In that process of its own it reports false, and the caller
// measures. testing.AllocsPerRun counts what every goroutine of the
// process allocates: goroutines that the package's earlier tests leave
// behind (a server's, a breaker's timer) allocate at their own pace,
// under the race detector hundreds of times in one create's time, and
// one side of a comparison took them now and then (a budget of 1 met a
// least difference of 2, and of -115, in a whole run of the package).
func measuredApart(t *testing.T) bool {
	t.Helper()
	if os.Getenv(apartEnv) != "" {
		return false
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), apartEnv+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("in a process of its own:\n%s", out)
	require.NoError(t, err, "the test in a process of its own failed")
	require.Contains(t, string(out), "--- PASS: "+t.Name(), "the test did not run in its process")
	return true
}
