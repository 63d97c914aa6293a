package pgstore_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/store"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// BenchmarkRefresh refreshes 1,000, 10,000 and 30,000 seeded accounts
// with the budget in a Store (on a fresh migrated schema), with the
// default workers (GOMAXPROCS) on a pool of pgx's default size and with
// 8 workers on a pool of 8 connections: the background refresh of
// package refresh's BenchmarkRefresh, measured by the same harness
// (internal/testkit/refreshbench, whose doc explains the metrics), so that its
// figures compare with the in-memory and file stores'. It needs a server
// (PSD2_TEST_POSTGRES, as the tests). Run it with
//
//	go test -run '^$' -bench 'BenchmarkRefresh/accounts=10000/' -benchtime 1x -timeout 60m
func BenchmarkRefresh(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 30_000} {
		for _, w := range []int{0, 8} {
			name := fmt.Sprintf("accounts=%d/store=postgres", n)
			if w > 0 {
				name += fmt.Sprintf("/workers=%d", w)
			}
			b.Run(name, func(b *testing.B) {
				// A pool as large as the workers (pgx's default, at
				// least 4, for GOMAXPROCS workers), so that no worker
				// waits for a connection.
				refreshbench.Run(b, n, newStore(b, pgtest.Schema(b), int32(w)), w)
			})
		}
	}
}

// BenchmarkRefreshStores measures in one run the background refresh of
// 2,000 accounts per store with the budget in memory (the baseline), in
// a store.FileStore and in PostgreSQL, interleaved chunk by chunk
// (refreshbench.Compare): the ratios file/memory and postgres/memory, and
// the durable writes per account refresh of each store (1: the
// reservation of the account's calls and its claim for the round). Run it
// with
//
//	go test -run '^$' -bench RefreshStores -benchtime 2x -timeout 30m
func BenchmarkRefreshStores(b *testing.B) {
	fs, err := store.NewFileStore(filepath.Join(b.TempDir(), "store"))
	if err != nil {
		b.Fatal(err)
	}
	refreshbench.Compare(b, 2_000, []refreshbench.Store{{Name: "memory"}, {Name: "file", Store: fs},
		{Name: "postgres", Store: newStore(b, pgtest.Schema(b), 0)}})
}
