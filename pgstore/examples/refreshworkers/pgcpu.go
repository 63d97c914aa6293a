package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// pgServer reads the CPU time a PostgreSQL server on this machine has
// spent, so that each phase of a run can say what it cost the database
// as well as its own processes: on 2 shared cores the database's work
// for River's fetches and completions is taken from the same cores the
// workers and the baseline run on.
//
// It finds the server's postmaster as the parent of a backend of the
// pool (pg_backend_pid) and sums, from /proc, the user and system time
// of the postmaster, of the children it has reaped (backends that
// ended, autovacuum's workers) and of every live child. A server on
// another machine, or one whose processes this user cannot read, gives
// no figure: err says why, and the run prints that the figure is
// missing rather than a zero. The baseline's phase also counts the
// server's work for the schema the baseline process makes, migrates and
// drops (about 0.02 ms per account over 2,000 accounts, the whole of a
// memory baseline's figure), which River's round, in a schema made
// before it, does not.
type pgServer struct {
	postmaster int
	err        error
}

// clockTick is the unit of /proc's CPU times (USER_HZ, 100 on every
// Linux architecture Go supports).
const clockTick = 10 * time.Millisecond

// findServer finds the postmaster of pool's server.
func findServer(ctx context.Context, pool *pgxpool.Pool) *pgServer {
	var backend int
	if err := pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return &pgServer{err: fmt.Errorf("reading the backend's pid: %w", err)}
	}
	st, err := readStat(backend)
	if err != nil {
		return &pgServer{err: fmt.Errorf("the server's backend %d is not a process of this machine that can be read (%w)", backend, err)}
	}
	if st.comm != "postgres" {
		return &pgServer{err: fmt.Errorf("process %d of this machine is %q, not the server's backend: the server runs elsewhere", backend, st.comm)}
	}
	return &pgServer{postmaster: st.ppid}
}

// cpu returns the server's CPU time so far.
func (s *pgServer) cpu() (time.Duration, error) {
	if s.err != nil {
		return 0, s.err
	}
	pm, err := readStat(s.postmaster)
	if err != nil {
		return 0, fmt.Errorf("reading the postmaster (%d): %w", s.postmaster, err)
	}
	ticks := pm.utime + pm.stime + pm.cutime + pm.cstime
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == s.postmaster {
			continue
		}
		st, err := readStat(pid)
		if err != nil || st.ppid != s.postmaster {
			continue // ended meanwhile (its time is in the postmaster's cutime), or not the server's
		}
		ticks += st.utime + st.stime
	}
	return time.Duration(ticks) * clockTick, nil
}

// procStat holds the fields of /proc/PID/stat that pgServer reads.
type procStat struct {
	comm                         string
	ppid                         int
	utime, stime, cutime, cstime int64
}

// readStat reads /proc/pid/stat (proc(5)): the command name in
// parentheses, then space-separated fields, ppid the 4th, utime,
// stime, cutime and cstime the 14th to 17th.
func readStat(pid int) (procStat, error) {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	open, end := bytes.IndexByte(raw, '('), bytes.LastIndexByte(raw, ')')
	if open < 0 || end < open {
		return procStat{}, errors.New("unexpected /proc stat format")
	}
	f := bytes.Fields(raw[end+1:]) // f[0] is the 3rd field (state)
	if len(f) < 15 {
		return procStat{}, errors.New("unexpected /proc stat format")
	}
	num := func(i int) int64 { // the field numbered i in proc(5)
		n, _ := strconv.ParseInt(string(f[i-3]), 10, 64)
		return n
	}
	return procStat{comm: string(raw[open+1 : end]), ppid: int(num(4)),
		utime: num(14), stime: num(15), cutime: num(16), cstime: num(17)}, nil
}
