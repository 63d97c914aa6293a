package pgstore_test

import (
	"fmt"
	"testing"

	"github.com/tppkit/psd2/internal/refreshbench"
)

// BenchmarkRefresh refreshes 1,000, 10,000 and 30,000 seeded accounts
// with the budget in a Store (on a fresh migrated schema), with the
// default workers (GOMAXPROCS) on a pool of pgx's default size and with
// 8 workers on a pool of 8 connections: the background refresh of
// package refresh's BenchmarkRefresh, measured by the same harness
// (internal/refreshbench, whose doc explains the metrics), so that its
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
				refreshbench.Run(b, n, newStore(b, testSchema(b), int32(w)), w)
			})
		}
	}
}
