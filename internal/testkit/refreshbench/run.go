package refreshbench

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"fmt"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// warmAccounts are seeded besides the measured ones, to open the
// connections before the clock starts.
const warmAccounts = 16

// Run refreshes n accounts seeded on an emulator (two per PSU, 10
// transactions each) with the client's budget in st (nil: the client's
// default in-memory store) and workers workers (0: refresh's default,
// GOMAXPROCS), and reports the figures of the package doc's Metrics.
// The caller names the sub-benchmark and makes st; Run holds st only
// through the client, so that the store's heap counts as the SDK's in
// sdk-B/account unless the caller keeps st alive (a cleanup that closes
// it, for one).
func Run(b *testing.B, n int, st store.Store, workers int) {
	clock := testtpp.NewClock(time.Now())
	srv := emulator.NewServer(emulator.WithTPPKey(testtpp.Key(b)), emulator.WithClock(clock.Now), emulator.WithLimits(Limits))
	defer srv.Close()
	creds, err := srv.NewTPP("Refresh bench")
	if err != nil {
		b.Fatal(err)
	}
	seeded, err := srv.Control().Seed(b.Context(), creds.Certificate, Seed((n+warmAccounts)/2, 2, 0, 8, clock.Now().Add(-2*time.Hour)))
	if err != nil {
		b.Fatal(err)
	}

	opts := []client.Option{client.WithHTTPClient(srv.Client()), client.WithClock(clock.Now),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI))}
	if st != nil {
		opts = append(opts, client.WithStore(st))
	}
	c, err := client.New(srv.URL, creds, opts...)
	if err != nil {
		b.Fatal(err)
	}
	svc, err := accounts.New(c)
	if err != nil {
		b.Fatal(err)
	}
	ropts := []refresh.Option{}
	if workers > 0 {
		ropts = append(ropts, refresh.WithWorkers(workers))
	}
	r, err := refresh.New(svc, ropts...)
	if err != nil {
		b.Fatal(err)
	}
	var jobs []refresh.Job
	for _, cu := range seeded.Customers {
		s := Remembered(b, cu)
		jobs = append(jobs, AccountJobs(b, s)...)
	}
	seeded = emulator.SeedResult{}
	warm, jobs := jobs[len(jobs)-warmAccounts:], jobs[:n]
	if err := runAll(b, r, warm); err != nil {
		b.Fatal(err)
	}
	bc, err := newBare(b.Context(), srv.URL, srv.Client(), creds, clock.Now, warm[0], workers)
	if err != nil {
		b.Fatal(err)
	}
	// The first round of the day meets empty budgets. It runs over every
	// account in one Run, with the live heap read before, halfway (a GC,
	// not timed) and after.
	heap := newHeapSampler()
	runtime.GC()
	liveBefore := heapBytes()
	var liveMid uint64
	heap.start()
	floorFirst := bestFloor(testtpp.Key(b))
	start := time.Now()
	var paused time.Duration
	firstCalls, finished := 0, 0
	for got, err := range r.Run(b.Context(), slices.Values(jobs)) {
		if err != nil {
			b.Fatal(err)
		}
		if got.Outcome != refresh.Done {
			b.Fatalf("%v: %v", got, got.Err)
		}
		firstCalls += got.Calls
		if finished++; finished == n/2 {
			t := time.Now()
			runtime.GC()
			liveMid = heapBytes()
			paused += time.Since(t)
		}
	}
	firstElapsed := time.Since(start) - paused
	heap.stop()
	runtime.GC()
	liveAfter := heapBytes()

	// The later rounds, 6 hours apart, meet budgets that hold calls (what
	// a background job meets 3 times out of 4): the figures are theirs.
	// They run in chunks of chunkAccounts, each after a floor sample of
	// its own, so that a change of the machine's load (other processes)
	// moves the floor and the chunk together; the ratio is the median of
	// the chunks'.
	var elapsed, busy time.Duration
	calls := 0
	var ratios, floors, sigs, bareRatios, ofBare []float64
	b.ResetTimer()
	for i := range b.N {
		clock.Add(refresh.DefaultSpacing)
		for chunk := range slices.Chunk(jobs, chunkAccounts) {
			b.StopTimer()
			floor, _ := RSAFloor(testtpp.Key(b), 250*time.Millisecond)
			b.StartTimer()
			start, cpu0 := time.Now(), ProcessCPU()
			c := 0
			for got, err := range r.Run(b.Context(), slices.Values(chunk)) {
				if err != nil {
					b.Fatal(err)
				}
				if got.Outcome != refresh.Done {
					b.Fatalf("%v: %v", got, got.Err)
				}
				c += got.Calls
			}
			d := time.Since(start)
			busy += ProcessCPU() - cpu0
			elapsed, calls = elapsed+d, calls+c
			ratios = append(ratios, float64(c)/d.Seconds()/floor)
			floors = append(floors, floor)
			sigs = append(sigs, d.Seconds()/float64(len(chunk))*floor)
			if i > 0 {
				continue // the bank's 4 calls a day: the first round's, 2 of this one's, 1 more
			}
			// The same chunk without the SDK, against the same floor.
			b.StopTimer()
			start = time.Now()
			bareCalls, err := bc.run(b.Context(), chunk)
			if err != nil {
				b.Fatal(err)
			}
			bare := float64(bareCalls) / time.Since(start).Seconds() / floor
			bareRatios = append(bareRatios, bare)
			ofBare = append(ofBare, ratios[len(ratios)-1]/bare)
			b.StartTimer()
		}
	}
	b.StopTimer()

	// The SDK's live heap: with and without its objects, the sandbox's
	// state in both.
	runtime.GC()
	with := heapBytes()
	// Live until here, dead from here on (the server lives on).
	runtime.KeepAlive(jobs)
	runtime.KeepAlive(warm)
	runtime.KeepAlive(r)
	runtime.KeepAlive(svc)
	runtime.KeepAlive(c)
	runtime.GC()
	without := heapBytes()

	rate := float64(calls) / elapsed.Seconds()
	b.ReportMetric(rate, "calls/s")
	b.ReportMetric(median(floors), "floor-sig/s")
	b.ReportMetric(median(ratios), "ratio")
	b.ReportMetric(float64(firstCalls)/firstElapsed.Seconds()/floorFirst, "ratio-first-round")
	b.ReportMetric(median(bareRatios), "ratio-bare")
	b.ReportMetric(median(ofBare), "ratio-of-bare")
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N*n), "ns/account")
	b.ReportMetric(median(sigs), "sig/account")
	b.ReportMetric(busy.Seconds()/elapsed.Seconds()/float64(runtime.GOMAXPROCS(0)), "cpu-busy")
	b.ReportMetric(float64(busy.Microseconds())/float64(calls), "cpu-us/call")
	b.ReportMetric(float64(int64(with)-int64(without))/float64(n), "sdk-B/account")
	b.ReportMetric(float64(int64(liveMid)-int64(liveBefore))/float64(n/2), "mid-B/account")
	b.ReportMetric(float64(int64(liveAfter)-int64(liveBefore))/float64(n), "after-B/account")
	b.ReportMetric(float64(heap.peak.Load())/(1<<20), "peak-heap-MiB")
}

// chunkAccounts is the size of the chunks of a measured round.
const chunkAccounts = 500

// median returns the median of v (0 for none).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Sorted(slices.Values(v))
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// runAll refreshes jobs once and fails on any outcome but Done.
func runAll(b *testing.B, r *refresh.Refresher, jobs []refresh.Job) error {
	for got, err := range r.Run(b.Context(), slices.Values(jobs)) {
		if err != nil {
			return err
		}
		if got.Outcome != refresh.Done {
			return fmt.Errorf("%v: %w", got, got.Err)
		}
	}
	return nil
}

// bestFloor is the best of 5 samples of rsaFloor of 0.4 s each: the
// floor of an idle machine, as near as a shared one gives it.
func bestFloor(key *rsa.PrivateKey) float64 {
	best := 0.0
	for range 5 {
		perSec, _ := RSAFloor(key, 400*time.Millisecond)
		best = max(best, perSec)
	}
	return best
}

// RSAFloor is the signatures per second of bare rsa.SignPKCS1v15 with key
// on 2 goroutines during d, the most requests per second a TPP signing
// every request can send on 2 cores, and the process's CPU time per
// signature meanwhile (0 where ProcessCPU is not read).
func RSAFloor(key *rsa.PrivateKey, d time.Duration) (perSec float64, cpuPerSig time.Duration) {
	digest := sha256.Sum256([]byte("floor"))
	var n atomic.Int64
	var wg sync.WaitGroup
	start, cpuStart := time.Now(), ProcessCPU()
	deadline := start.Add(d)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if _, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, digest[:]); err != nil {
					panic(err)
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / time.Since(start).Seconds(), (ProcessCPU() - cpuStart) / time.Duration(max(n.Load(), 1))
}

// heapBytes is the heap's live and not yet swept object bytes.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heapSampler records the peak heap every 5 ms while started.
type heapSampler struct {
	peak atomic.Uint64
	quit chan struct{}
	done chan struct{}
}

func newHeapSampler() *heapSampler { return &heapSampler{} }

func (h *heapSampler) start() {
	h.quit, h.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(h.done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if v := heapBytes(); v > h.peak.Load() {
				h.peak.Store(v)
			}
			select {
			case <-t.C:
			case <-h.quit:
				return
			}
		}
	}()
}

func (h *heapSampler) stop() {
	close(h.quit)
	<-h.done
}
