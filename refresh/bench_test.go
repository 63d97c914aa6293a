package refresh_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/store"
)

// BenchmarkRefresh refreshes 1,000, 10,000 and 30,000 seeded accounts
// (two per PSU, 10 transactions each) with the budget in memory and in a
// store.FileStore, with the default workers (GOMAXPROCS) and, for the
// file store, with 3, 4 and 8 (a worker waiting for a sync leaves its
// core to another), against the RSA signing floor measured in the same
// run. It reports figures and asserts nothing about time; package
// internal/testkit/refreshbench runs it and explains its metrics (the pgstore
// module measures PostgreSQL the same way). Run it with
//
//	go test ./refresh -run '^$' -bench Refresh -benchtime 1x -timeout 60m
func BenchmarkRefresh(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 30_000} {
		for _, kind := range []string{"memory", "file"} {
			workers := []int{0}
			if kind == "file" {
				workers = append(workers, 3, 4, 8)
			}
			for _, w := range workers {
				name := fmt.Sprintf("accounts=%d/store=%s", n, kind)
				if w > 0 {
					name += fmt.Sprintf("/workers=%d", w)
				}
				b.Run(name, func(b *testing.B) {
					var st store.Store // nil: the client's in-memory store
					if kind == "file" {
						fs, err := store.NewFileStore(filepath.Join(b.TempDir(), "store"))
						if err != nil {
							b.Fatal(err)
						}
						st = fs
					}
					refreshbench.Run(b, n, st, w)
				})
			}
		}
	}
}
