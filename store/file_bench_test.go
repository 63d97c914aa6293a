//go:build unix

package store

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tppkit/psd2/internal/testkit/cpuclock"
)

// benchMode is one way of writing a FileStore, compared in the same run.
type benchMode struct {
	name  string
	apply func(*FileStore)
}

// benchModes are the write paths BenchmarkFileStoreUpdate compares:
// per-file (each write creates a file, syncs it, renames it and syncs the
// directory: the path before shared syncs and file reuse, and the one
// outside Linux), shared-syncs (directory syncs shared by concurrent
// writers, see file_durable.go), shared-syncs+reuse (files reused as
// well, see file_spare.go) and in-place (the default on Linux: Update
// writes a value that fits into the other slot of its file, see
// file_inplace.go).
func benchModes() []benchMode {
	modes := []benchMode{
		{name: "per-file", apply: func(st *FileStore) { st.shareSyncs, st.reuse, st.inPlace = false, false, false }},
		{name: "shared-syncs", apply: func(st *FileStore) { st.shareSyncs, st.reuse, st.inPlace = true, false, false }},
		{name: "shared-syncs+reuse", apply: func(st *FileStore) { st.shareSyncs, st.reuse, st.inPlace = true, true, false }},
		{name: "in-place", apply: func(st *FileStore) { st.shareSyncs, st.reuse, st.inPlace = true, true, true }},
	}
	return modes
}

// processCPU returns the CPU time (user and system) the process used,
// zero where the clock is not read (cpuclock).
func processCPU() time.Duration {
	d, _ := cpuclock.Process()
	return d
}

// BenchmarkFileStoreUpdate runs Updates of distinct keys (a budget's:
// read a counter, write it back with a day's ttl) from 1, 2, 4 and 8
// goroutines, each over its own 32 keys, with every write path of
// benchModes in turn, round after round, so that the load of other
// processes falls on all of them alike. One op is one round: 200 Updates
// per goroutine in each mode. It reports, per mode, <mode>-updates/s and
// <mode>-cpu-us/update (the process's CPU time per Update, which the
// refresh benchmark, busy signing on every core, pays), and for each mode
// but per-file its throughput over per-file's, <mode>-speedup.
func BenchmarkFileStoreUpdate(b *testing.B) {
	const perRound = 200
	for _, g := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			modes := benchModes()
			stores := make([]*FileStore, len(modes))
			for i, m := range modes {
				stores[i] = newFileStore(b)
				m.apply(stores[i])
			}
			wall := make([]time.Duration, len(modes))
			cpu := make([]time.Duration, len(modes))
			b.ReportAllocs()
			for b.Loop() {
				for i, st := range stores {
					c0, t0 := processCPU(), time.Now()
					updateConcurrently(b, st, g, perRound)
					wall[i] += time.Since(t0)
					cpu[i] += processCPU() - c0
				}
			}
			ops := float64(b.N * g * perRound)
			for i, m := range modes {
				b.ReportMetric(ops/wall[i].Seconds(), m.name+"-updates/s")
				b.ReportMetric(float64(cpu[i].Microseconds())/ops, m.name+"-cpu-us/update")
				if i > 0 {
					b.ReportMetric(wall[0].Seconds()/wall[i].Seconds(), m.name+"-speedup")
				}
			}
		})
	}
}

// updateConcurrently runs n Updates in each of g goroutines, goroutine i
// counting in its own keys.
func updateConcurrently(b *testing.B, st *FileStore, g, n int) {
	var wg sync.WaitGroup
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range n {
				key := fmt.Sprintf("client/budget/acc-%d-%d/balances", i, j%32)
				err := st.Update(b.Context(), key, func(old []byte, found bool) ([]byte, time.Duration, error) {
					c := 0
					if found {
						c, _ = strconv.Atoi(string(old))
					}
					return []byte(strconv.Itoa(c + 1)), 24 * time.Hour, nil
				})
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkFileStoreNewKeys measures what a key's first write costs
// against its rewrites, as in a refresh's first round, where every
// budget key is new, and its later rounds: per op, 2 or 8 goroutines
// each write 100 new keys (a budget's value), then write each of them
// again. It reports the process's CPU time and the wall time per write
// of each kind (first-cpu-us, first-wall-us, again-cpu-us,
// again-wall-us), the directory syncs per first write (first-dirsyncs:
// writers waiting together share one, see file_durable.go) and the
// spares removed for want of room in the pool (discarded/op; see
// takeSpare). A first write fills a spare, syncs it,
// renames it and syncs the directory, on top of making the spare; a
// rewrite writes its file's other slot and syncs it (file_inplace.go).
//
// On ext4 without a journal, creating a file checks each inode of its
// group freed in the last minute or more, so the figures depend on what
// was removed near the test's directory just before: TMPDIR on a
// directory with chattr +T (its subdirectories spread over the disk)
// keeps one run's removals out of the next.
func BenchmarkFileStoreNewKeys(b *testing.B) {
	const perGoroutine = 100
	value := []byte(`{"B":[1770000000000000000],"T":[1770000000000000000]}`)
	for _, g := range []int{2, 8} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			st := newFileStore(b)
			var cpu, wall [2]time.Duration
			var dirSyncs int64 // in the first writes
			round := 0
			for b.Loop() {
				for pass := range 2 {
					c0, t0, s0 := processCPU(), time.Now(), st.dirSync.syncs.Load()
					var wg sync.WaitGroup
					for i := range g {
						wg.Go(func() {
							for j := range perGoroutine {
								key := fmt.Sprintf("budget/r%d/g%d/k%d", round, i, j)
								err := st.Update(b.Context(), key, func([]byte, bool) ([]byte, time.Duration, error) {
									return value, 24 * time.Hour, nil
								})
								if err != nil {
									b.Error(err)
									return
								}
							}
						})
					}
					wg.Wait()
					cpu[pass] += processCPU() - c0
					wall[pass] += time.Since(t0)
					if pass == 0 {
						dirSyncs += st.dirSync.syncs.Load() - s0
					}
				}
				round++
			}
			writes := float64(b.N * g * perGoroutine)
			for pass, name := range []string{"first", "again"} {
				b.ReportMetric(float64(cpu[pass].Microseconds())/writes, name+"-cpu-us")
				b.ReportMetric(float64(wall[pass].Microseconds())/writes, name+"-wall-us")
			}
			b.ReportMetric(float64(dirSyncs)/writes, "first-dirsyncs")
			b.ReportMetric(float64(st.spares.discarded.Load())/float64(b.N), "discarded/op")
		})
	}
}
