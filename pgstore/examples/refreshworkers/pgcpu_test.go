package main

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// readStat reads this process's own line of /proc: its parent, and CPU
// time that grows as it works.
func TestReadStat(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	st, err := readStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != os.Getppid() {
		t.Errorf("ppid %d, want %d", st.ppid, os.Getppid())
	}
	// Work until the ticks move, for at most 10 s of wall time: on a
	// loaded machine 100 ms of wall time may bring less than a tick of
	// CPU.
	var after procStat
	for spin := time.Now(); time.Since(spin) < 10*time.Second; {
		for busy := time.Now(); time.Since(busy) < 20*time.Millisecond; {
		}
		if after, err = readStat(os.Getpid()); err != nil {
			t.Fatal(err)
		}
		if after.utime+after.stime > st.utime+st.stime {
			break
		}
	}
	if after.utime+after.stime <= st.utime+st.stime {
		t.Errorf("CPU ticks %d then %d after 10 s of work", st.utime+st.stime, after.utime+after.stime)
	}
	if _, err := readStat(-1); err == nil {
		t.Error("readStat(-1): no error")
	}
}

// findServer finds the test server's postmaster when it runs on this
// machine (as in CI, where .ci/run starts it), and its CPU time grows
// with the queries it answers. A server elsewhere gives an error, never
// a figure.
func TestServerCPU(t *testing.T) {
	conn := pgtest.Conn(t)
	pool, err := pgxpool.New(t.Context(), conn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s := findServer(t.Context(), pool)
	before, err := s.cpu()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI runs the server on this machine, yet: %v", err)
		}
		t.Skipf("the server's CPU cannot be read here: %v", err)
	}
	if _, err := pool.Exec(t.Context(), "SELECT count(*) FROM generate_series(1, 3000000)"); err != nil {
		t.Fatal(err)
	}
	after, err := s.cpu()
	if err != nil {
		t.Fatal(err)
	}
	if after-before < clockTick {
		t.Errorf("the server's CPU grew by %v over a query of 3,000,000 rows", after-before)
	}
}
