package main

import (
	"context"
	"math"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// TestMain runs the test binary as a worker process when the example
// starts one (it runs os.Args[0] -worker file -name n) ...
func TestMain(m *testing.M) {
	if len(os.Args) == 5 && os.Args[1] == "-worker" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		if err := work(ctx, os.Args[2], os.Args[4]); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	// ... and as a worker of -floor (os.Args[0] -floor-worker file -name n).
	if len(os.Args) == 5 && os.Args[1] == "-floor-worker" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		if err := floorWork(ctx, os.Args[2], os.Args[4]); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	// ... and as the baseline's process (os.Args[0] -baseline-process file).
	if len(os.Args) == 3 && os.Args[1] == "-baseline-process" {
		if err := baselineProcess(context.Background(), os.Stdout, os.Args[2]); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	// ... and as the bank's process (os.Args[0] -emulator-process N).
	if len(os.Args) == 3 && os.Args[1] == "-emulator-process" {
		n, err := strconv.Atoi(os.Args[2])
		if err == nil {
			err = bankProcess(context.Background(), os.Stdin, os.Stdout, n)
		}
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The example refreshes every seeded account once, shared out between
// its two workers.
func TestRun(t *testing.T) {
	conn := pgtest.Conn(t)
	var out strings.Builder
	if err := run(t.Context(), &out, conn, options{Accounts: 60}); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	for _, line := range []string{"60 accounts of 30 PSUs", "done 60/60", "round done", "worker-1   worker-2",
		"accounts 60: refreshed once 60, lost 0, refreshed twice 0; calls over the budget (the bank's 429 ACCESS_EXCEEDED) 0",
		"enqueue: the scheduler's job enqueued 60 jobs in "} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
	for _, re := range []string{`seeding the emulator took \S+ \(\d+\.\d µs per account\); storing the sessions \S+`,
		`time per account: \d+\.\d{3} ms over the jobs' span \(\S+\), \d+\.\d{3} ms from the engines' start \(\S+\)`,
		`CPU per account over the round \(user and system\): worker processes \d+\.\d{3} ms, this process \(the scheduler\) \d+\.\d{3} ms, the bank's process \d+\.\d{3} ms`,
		// The bank runs in a process of its own, and its counting front
		// saw every account's balances answered once, no call refused.
		`the bank \(the emulator behind a counting front\) in a process of its own \(pid \d+\)`,
		`the bank over the River round: \d+ requests \(the emulator's time \d+\.\d{3} ms each\); balances answered for 60 accounts once, 0 more than once; 429 \(over the budget\) 0; its CPU \d+\.\d\d ms per account`,
		// The per-job breakdown: every job of the round timed, each row
		// measured on River's side.
		`per job, ms: median / p90 +River \(60\)\n`,
		`\n  job \(Work; cursor read to write\) +\d+\.\d\d / +\d+\.\d\d\n`,
		`\n  at the bank \(to the answer's headers\) +\d+\.\d\d / +\d+\.\d\d\n`,
		`\n  in the store \(store.Store calls\) +\d+\.\d\d / +\d+\.\d\d\n`,
		`\n  other \(job - bank - store\) +\d+\.\d\d / +\d+\.\d\d\n`,
		`\n  fetch wait \(slot free to next job\) +\d+\.\d\d / +\d+\.\d\d\n`,
		`\n  completion \(River's batched UPDATE\) +\d+\.\d\d / +\d+\.\d\d\n`} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output lacks %s:\n%s", re, out.String())
		}
	}
	// River's OpenTelemetry middleware traced the scheduler's inserts and
	// every job the workers ran: at least one span per account.
	sp := regexp.MustCompile(`otelriver\): scheduler (\d+) river.insert_many spans; river.work spans: worker-1 (\d+), worker-2 (\d+)`).
		FindStringSubmatch(out.String())
	if sp == nil {
		t.Fatalf("no span line:\n%s", out.String())
	}
	inserts, _ := strconv.Atoi(sp[1])
	w1, _ := strconv.Atoi(sp[2])
	w2, _ := strconv.Atoi(sp[3])
	if inserts < 1 || w1+w2 < 60 {
		t.Errorf("spans: %d inserts, %d + %d jobs; want an insert and at least 60 jobs:\n%s", inserts, w1, w2, out.String())
	}
	// At half the round the scheduler printed one collection of River's
	// queue gauges: the bank's jobs by state, and its queue not paused.
	q := regexp.MustCompile(`at (\d+)/60 done, River's queues as OpenTelemetry collects them \(psd2.refresh.queue.jobs, psd2.refresh.queue.paused\): ` +
		`examplebank: available (\d+) running (\d+) scheduled \d+ retryable \d+ discarded 0 cancelled 0 paused 0\n`).FindStringSubmatch(out.String())
	if q == nil {
		t.Fatalf("no queue gauge line:\n%s", out.String())
	}
	// Read after half was done: what is left to do is at most the other half.
	done, _ := strconv.Atoi(q[1])
	avail, _ := strconv.Atoi(q[2])
	running, _ := strconv.Atoi(q[3])
	if done < 30 || avail+running > 60-30 {
		t.Errorf("queue gauge at %d done: available %d, running %d; want at most 30 together:\n%s", done, avail, running, out.String())
	}
	// The workers' tables add up to every account done once.
	m := regexp.MustCompile(`(?m)^done +(\d+) +(\d+)$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no done row:\n%s", out.String())
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	if a+b != 60 {
		t.Errorf("done %d + %d, want 60:\n%s", a, b, out.String())
	}
}

// -baseline and -kill: the in-process refresher before and after the
// River round, worker-1 killed with SIGKILL halfway; worker-2 finishes
// its jobs after River's rescue, and still every account is refreshed
// exactly once with no call over the budget.
func TestRunBaselineKill(t *testing.T) {
	conn := pgtest.Conn(t)
	var out strings.Builder
	if err := run(t.Context(), &out, conn, options{Accounts: 200, Workers: 2, Baseline: true, Kill: true, Rescue: 2 * time.Second}); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	t.Log(out.String())
	for _, re := range []string{
		`baseline before: .* in a process of its own, .* 200 of 200 accounts done, .* calls over the budget 0`,
		`baseline after: .* 200 of 200 accounts done, .* calls over the budget 0`,
		`SIGKILL worker-1 at \d+/200 done`,
		`accounts 200: refreshed once 200, lost 0, refreshed twice 0; calls over the budget \(the bank's 429 ACCESS_EXCEEDED\) 0`,
		`after SIGKILL: of the \d+ jobs running then, \d+ rescued by River .* later; all finished .* later \(0 not completed\)`,
		`throughput River / in-process memory \(mean of before and after\): \d+\.\d\d`,
		`CPU per account \(user and system, the processes' own\): River's workers \d+\.\d\d ms, in-process baseline \d+\.\d\d ms`,
		// The server's CPU, or why it could not be read: never a silent
		// zero.
		`PostgreSQL's CPU per account: (River \d+\.\d\d ms, baseline \d+\.\d\d ms \(mean of before and after\); all of the run's processes: River \d+\.\d\d ms, baseline \d+\.\d\d ms \(ratio \d+\.\d\d\)|not measured \(.+\))\n`,
		// What the bank saw of each baseline: every account's balances
		// once, no call refused.
		`the bank over the baseline before: \d+ requests .*; balances answered for 200 accounts once, 0 more than once; 429 \(over the budget\) 0`,
		`the bank over the baseline after: \d+ requests .*; balances answered for 200 accounts once, 0 more than once; 429 \(over the budget\) 0`,
		// The killed worker's jobs are not in the breakdown; the baseline's
		// are, the two runs' 400, with no job time on the memory store's
		// Run but the bank's and the store's per account.
		`not in the per-job breakdown: the jobs of \[worker-1\]`,
		`per job, ms: median / p90 +River \(\d+\) +baseline memory \(400\)\n`,
		`\n  job \(Work; cursor read to write\) +\d+\.\d\d / +\d+\.\d\d +-\n`,
		`\n  at the bank \(to the answer's headers\) +\d+\.\d\d / +\d+\.\d\d +\d+\.\d\d / +\d+\.\d\d\n`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output lacks %s:\n%s", re, out.String())
		}
	}
}

// -procs 4: four worker processes share the round out, and still every
// account is refreshed exactly once with no call over the budget.
func TestRunFourProcs(t *testing.T) {
	conn := pgtest.Conn(t)
	var out strings.Builder
	if err := run(t.Context(), &out, conn, options{Accounts: 80, Workers: 2, Procs: 4, NoOtel: true}); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	for _, line := range []string{"80 accounts of 40 PSUs in schema", "scheduler, 4 workers of 2 jobs at once",
		"worker-1   worker-2   worker-3   worker-4",
		"accounts 80: refreshed once 80, lost 0, refreshed twice 0; calls over the budget (the bank's 429 ACCESS_EXCEEDED) 0"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
	// The four workers' tables add up to every account done once.
	m := regexp.MustCompile(`(?m)^done +(\d+) +(\d+) +(\d+) +(\d+)$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no done row of four workers:\n%s", out.String())
	}
	sum := 0
	for _, v := range m[1:] {
		n, _ := strconv.Atoi(v)
		sum += n
	}
	if sum != 80 {
		t.Errorf("done %v, sum %d, want 80:\n%s", m[1:], sum, out.String())
	}
	var bad strings.Builder
	if err := run(t.Context(), &bad, conn, options{Accounts: 2, Procs: maxProcs + 1}); err == nil {
		t.Errorf("-procs %d: no error", maxProcs+1)
	}
}

// The progress's looks, each a scan of River's table, come less often in
// a larger round: their cost per account stays flat (a look a second
// over 100,000 accounts would cost 10 times as much per account as over
// 10,000).
func TestLookEveryGrowsWithTheRound(t *testing.T) {
	for _, c := range []struct {
		total int
		often bool
		want  time.Duration
	}{
		{60, false, time.Second}, {1_000, false, time.Second}, {10_000, false, time.Second},
		{30_000, false, 3 * time.Second}, {100_000, false, 10 * time.Second},
		{1_000, true, 200 * time.Millisecond}, {100_000, true, 2 * time.Second},
	} {
		if got := lookEvery(c.total, c.often); got != c.want {
			t.Errorf("lookEvery(%d, %v) = %v, want %v", c.total, c.often, got, c.want)
		}
	}
	// At a steady rate (100 accounts/s), the rows the looks scan per
	// account (looks x total / total: the looks) stay flat from 10,000
	// accounts up.
	looks := func(total int) time.Duration {
		return time.Duration(total) * 10 * time.Millisecond / lookEvery(total, false)
	}
	if a, b := looks(10_000), looks(100_000); b > a {
		t.Errorf("rows scanned per account: %d at 10,000 accounts, %d at 100,000", a, b)
	}
}

// -runs 2 runs the whole measurement twice, the baseline on pgstore, and
// prints each figure's median and range over the two: the rates, the
// ratio and the per-job breakdown of both sides.
func TestRunTwice(t *testing.T) {
	conn := pgtest.Conn(t)
	var out strings.Builder
	if err := run(t.Context(), &out, conn, options{Accounts: 20, Workers: 2, Procs: 1, Baseline: true, BaseStore: basePgstore,
		NoOtel: true, Runs: 2}); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	for _, re := range []string{`== run 1 of 2\n`, `== run 2 of 2\n`, `over 2 runs: median \(least-greatest\)\n`,
		`\n  River: accounts/s over the jobs' span +\d+(\.\d+)? \(\d+(\.\d+)?-\d+(\.\d+)?\) accounts/s\n`,
		`\n  ratio River / baseline pgstore \(jobs' span\) +\d+\.\d\d \(\d+\.\d\d-\d+\.\d\d\)\n`,
		`\n  per job, River: fetch wait, median +\d+(\.\d+)? \(\d+(\.\d+)?-\d+(\.\d+)?\) ms\n`,
		`\n  per job, baseline pgstore: store, p90 +\d+(\.\d+)? \(\d+(\.\d+)?-\d+(\.\d+)?\) ms\n`,
		// The pgstore baseline's jobs are timed whole, one per account
		// and run (before and after).
		`per job, ms: median / p90 +River \(20\) +baseline pgstore \(40\)\n  job \(Work; cursor read to write\) +\d+\.\d\d / +\d+\.\d\d +\d+\.\d\d / +\d+\.\d\d\n`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output lacks %s:\n%s", re, out.String())
		}
	}
	if n := strings.Count(out.String(), "accounts 20: refreshed once 20, lost 0, refreshed twice 0"); n != 2 {
		t.Errorf("%d rounds checked, want 2:\n%s", n, out.String())
	}
}

// The command line: -runs and the baseline's flags parse into the
// options, -runs defaults to 1, and a count out of range is refused
// before anything starts.
func TestRunsFlag(t *testing.T) {
	c, err := parseArgs([]string{"-runs", "3", "-baseline", "-baseline-store", "pgstore", "-ui", "", "-no-otel"})
	if err != nil {
		t.Fatal(err)
	}
	if c.o.Runs != 3 || !c.o.Baseline || c.o.BaseStore != basePgstore || c.ui != "" || !c.o.NoOtel {
		t.Errorf("parsed %+v, ui %q", c.o, c.ui)
	}
	if c, err := parseArgs(nil); err != nil || c.o.Runs != 1 || c.o.BaseStore != baseMemory || c.ui != "127.0.0.1:0" {
		t.Errorf("defaults: %+v, ui %q, %v", c.o, c.ui, err)
	}
	if _, err := parseArgs([]string{"-runs", "three"}); err == nil {
		t.Error("-runs three: no error")
	}
	for _, n := range []int{-1, maxRuns + 1} {
		var out strings.Builder
		err := run(t.Context(), &out, "host=/nonexistent", options{Accounts: 2, Runs: n})
		if err == nil || !strings.Contains(err.Error(), "-runs") {
			t.Errorf("-runs %d: %v", n, err)
		}
	}
}

// Each figure's median and range over the runs, in the order the figures
// first came; a figure some run lacks says so.
func TestSpreads(t *testing.T) {
	runs := []figures{
		{{"rate", "accounts/s", 300}, {"ratio", "", 0.5}},
		{{"rate", "accounts/s", 100}, {"ratio", "", 0.7}, {"late", "ms", 2}},
		{{"rate", "accounts/s", 200}, {"ratio", "", 0.6}},
	}
	got := spreads(runs)
	want := []spread{{"rate", "accounts/s", 200, 100, 300, 3}, {"ratio", "", 0.6, 0.5, 0.7, 3}, {"late", "ms", 2, 2, 2, 1}}
	if len(got) != len(want) {
		t.Fatalf("spreads = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("spread %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// An even count: the mean of the two middle values.
	if s := spreads(runs[:2])[0]; s.median != 200 {
		t.Errorf("median of 300 and 100 = %v", s.median)
	}
	var out strings.Builder
	printSpreads(&out, runs)
	for _, line := range []string{"over 3 runs: median (least-greatest)\n", "rate", "200 (100-300) accounts/s\n",
		"0.60 (0.50-0.70)\n", "2.00 (2.00-2.00) ms [1 of 3 runs]\n"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
}

// -floor: after the round, as many jobs that do nothing on the same
// worker processes (each with GOMAXPROCS 1 here), every one completed,
// with River's cost per job and, against the baseline, the ceiling of
// River's ratio.
func TestRunFloor(t *testing.T) {
	conn := pgtest.Conn(t)
	var out strings.Builder
	err := run(t.Context(), &out, conn, options{Accounts: 60, Workers: 2, Baseline: true, BaseStore: basePgstore, Floor: true,
		WorkerGOMAXPROCS: 1})
	if err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	for _, re := range []string{
		`accounts 60: refreshed once 60, lost 0, refreshed twice 0`,
		`River alone \(-floor: 60 jobs that do nothing, the same worker processes, jobs at once and fetch settings\): inserted in \S+, \d+ jobs/s over the jobs' span \(\S+\), all done \S+ after the workers' start\n`,
		`River alone, CPU per job: worker processes \d+\.\d{3} ms, this process \(the insert\) \d+\.\d{3} ms(, PostgreSQL \d+\.\d{3} ms; every process \d+\.\d{3} ms|; PostgreSQL's not measured \(.+\))\n`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output lacks %s:\n%s", re, out.String())
		}
	}
	// With the server's CPU read (PostgreSQL on this machine), the
	// ceiling: the baseline's CPU per account over the sum of it and
	// River's alone, below 1.
	if !strings.Contains(out.String(), "PostgreSQL's not measured") {
		m := regexp.MustCompile(`ceiling of River / baseline pgstore on busy cores: (\d+\.\d\d) ms / \((\d+\.\d\d) \+ (\d+\.\d\d) ms\) = (\d\.\d\d)`).
			FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("no ceiling line:\n%s", out.String())
		}
		b, _ := strconv.ParseFloat(m[1], 64)
		f, _ := strconv.ParseFloat(m[3], 64)
		c, _ := strconv.ParseFloat(m[4], 64)
		if f <= 0 || c <= 0 || c >= 1 || math.Abs(c-b/(b+f)) > 0.011 {
			t.Errorf("ceiling %v from %v and %v:\n%s", c, b, f, out.String())
		}
	}
}
