// Command storeratio measures what the budget's store costs the
// in-process refresher (package refresh) on one machine: the throughput
// of a refresh round with the client's budget in a store.FileStore over
// the same with a store.MemoryStore, both sides in one run, interleaved.
//
//	go run ./examples/internal/storeratio -accounts 5000 -runs 3
//
// The placement is a TPP's: the emulator (the bank) runs in a process of
// its own (this program again, with -emulator), and this process runs
// only the SDK: two clients, one per side, each a TPP of its own at the
// bank with its own seeded accounts, each with a refresh.Refresher of
// the default workers (-workers to set them). -inprocess runs the
// emulator in this process instead, as the refreshbench harness does;
// that placement is kept to show the difference (see README.md).
//
// One run makes both sides new stores (the file store in a new directory
// under -dir) and new clients, so that every budget key is new, then
// refreshes every account in -rounds rounds: the first (each Update of
// the budget writes a new key), then rounds one refresh.DefaultSpacing
// apart on the bank's and the clients' clock (each Update rewrites a
// key). A round runs the accounts in chunks of -chunk, the two sides in
// turn on the same chunk index, memory first on even chunks and file
// first on odd ones, so that a change of the machine's load falls on
// both alike. A side's rate is its accounts over the sum of its chunks'
// times; the ratio is file over memory. Between runs the clock moves on
// a day, so that the bank's budget of every account is whole again.
//
// It prints each run's rates and ratios with the load average
// (/proc/loadavg) before and after and what creating a file costs in the
// run's store directory (fscost.go), then the ratio of the first rounds
// and of the later rounds as the median and the range over the runs.
// -cpuprofile writes this process's CPU profile (the emulator's work is
// not in it unless -inprocess), its samples labelled by side and round:
//
//	go tool pprof -top -tagfocus side=file -tagignore 'round=first|warm' storeratio prof
//
// gives the file side's later rounds alone.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/cpuclock"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"
)

// options are the command line.
type options struct {
	Accounts, Runs, Rounds, Chunk, Workers, Warm int
	Dir, CPUProfile                              string
	InProcess                                    bool
}

// sideNames are the two sides, the baseline first.
var sideNames = [2]string{"memory", "file"}

// redirectURI is the TPP's redirect URI the clients declare (nothing
// listens there: no SCA happens in a refresh).
const redirectURI = "https://tpp.example/callback"

func main() {
	var o options
	emu := flag.Bool("emulator", false, "run as the emulator process (started by this program)")
	flag.IntVar(&o.Accounts, "accounts", 5000, "accounts refreshed per side and round")
	flag.IntVar(&o.Runs, "runs", 3, "runs, each with new stores")
	flag.IntVar(&o.Rounds, "rounds", 3, "rounds per run: the first and rounds-1 later ones (at most 4: the budget allows 4 calls a day)")
	flag.IntVar(&o.Chunk, "chunk", 500, "accounts per chunk; the sides take turns chunk by chunk")
	flag.IntVar(&o.Workers, "workers", 0, "refresher workers per side (0: the refresher's default, GOMAXPROCS)")
	flag.IntVar(&o.Warm, "warm", 100, "accounts per side refreshed before each run's rounds, apart (connections, spare files)")
	flag.StringVar(&o.Dir, "dir", "", "directory for the file stores (default: the system's temporary directory)")
	flag.StringVar(&o.CPUProfile, "cpuprofile", "", "write this process's CPU profile to this file")
	flag.BoolVar(&o.InProcess, "inprocess", false, "run the emulator in this process (the refreshbench placement)")
	flag.Parse()
	var err error
	if *emu {
		err = serveEmulator(os.Stdin, os.Stdout, o.Accounts+o.Warm)
	} else {
		err = run(context.Background(), os.Stdout, o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "storeratio:", err)
		os.Exit(1)
	}
}

// createProbe is how many files createCost creates, before a run's
// rounds and after them (few: they stay in the store's directory until
// the program ends).
const createProbe = 200

// setup is what the emulator process hands over: where the bank is, its
// CA, the clock's start and each side's TPP with its seeded customers.
type setup struct {
	URL   string
	CA    []byte
	Start time.Time
	Sides []sideSetup
}

// sideSetup is one side's TPP: its credentials as PEM and its customers.
type sideSetup struct {
	CertPEM, KeyPEM []byte
	Customers       []emulator.SeededCustomer
}

// clock is the bank's and the clients' clock: it stands still and moves
// when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// startBank starts an emulator on clk with a TPP and accounts accounts
// (two per customer) for each side.
func startBank(ctx context.Context, clk *clock, accounts int) (*emulator.Server, *setup, error) {
	srv := emulator.NewServer(emulator.WithClock(clk.Now), emulator.WithLimits(refreshbench.Limits))
	su := &setup{URL: srv.URL, Start: clk.Now()}
	for _, name := range sideNames {
		creds, err := srv.NewTPP("Store ratio " + name)
		if err != nil {
			srv.Close()
			return nil, nil, err
		}
		seeded, err := srv.Control().Seed(ctx, creds.Certificate, refreshbench.Seed((accounts+1)/2, 2, 0, 8, clk.Now().Add(-2*time.Hour)))
		if err != nil {
			srv.Close()
			return nil, nil, err
		}
		cert, key, err := credsPEM(creds)
		if err != nil {
			srv.Close()
			return nil, nil, err
		}
		su.CA = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Chain[len(creds.Chain)-1].Raw})
		su.Sides = append(su.Sides, sideSetup{CertPEM: cert, KeyPEM: key, Customers: seeded.Customers})
	}
	return srv, su, nil
}

// serveEmulator is the emulator process: it writes the setup as one JSON
// line, then moves its clock by the nanoseconds of each "advance N" line
// it reads, answering "ok", until its input ends.
func serveEmulator(in io.Reader, out io.Writer, accounts int) error {
	clk := &clock{now: time.Now().Truncate(time.Second)}
	srv, su, err := startBank(context.Background(), clk, accounts)
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := json.NewEncoder(out).Encode(su); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		ns, ok := strings.CutPrefix(sc.Text(), "advance ")
		d, err := strconv.ParseInt(ns, 10, 64)
		if !ok || err != nil {
			return fmt.Errorf("emulator: unknown command %q", sc.Text())
		}
		clk.Add(time.Duration(d))
		if _, err := fmt.Fprintln(out, "ok"); err != nil {
			return err
		}
	}
	return sc.Err()
}

// bank is the bank as the measuring process sees it.
type bank struct {
	su      *setup
	advance func(time.Duration) error
	close   func()
}

// childBank starts the emulator process.
func childBank(ctx context.Context, o options) (*bank, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "-emulator", "-accounts", strconv.Itoa(o.Accounts), "-warm", strconv.Itoa(o.Warm))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(stdout, 1<<20)
	line, err := r.ReadBytes('\n')
	var su setup
	if err == nil {
		err = json.Unmarshal(line, &su)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("emulator process: %w", err)
	}
	advance := func(d time.Duration) error {
		if _, err := fmt.Fprintf(stdin, "advance %d\n", d); err != nil {
			return err
		}
		ok, err := r.ReadString('\n')
		if err == nil && ok != "ok\n" {
			err = fmt.Errorf("emulator process answered %q", ok)
		}
		return err
	}
	return &bank{su: &su, advance: advance, close: func() { _ = stdin.Close(); _ = cmd.Wait() }}, nil
}

// inProcessBank starts the emulator in this process.
func inProcessBank(ctx context.Context, o options) (*bank, error) {
	clk := &clock{now: time.Now().Truncate(time.Second)}
	srv, su, err := startBank(ctx, clk, o.Accounts+o.Warm)
	if err != nil {
		return nil, err
	}
	return &bank{su: su, advance: func(d time.Duration) error { clk.Add(d); return nil }, close: srv.Close}, nil
}

// side is one store kind's TPP.
type side struct {
	name  string
	creds *signing.Credentials
	jobs  []refresh.Job // measured
	warm  []refresh.Job
	r     *refresh.Refresher
	st    *timed
	dur   time.Duration // this round's time
	cpu   time.Duration // this process's CPU time in this round's chunks
}

// timed is a store that adds up the time its callers spend in Update,
// the refresher's one store call per account (the budget's reservation).
type timed struct {
	store.Store
	ns atomic.Int64
}

// Update times the store's Update.
func (t *timed) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	t0 := time.Now()
	err := t.Store.Update(ctx, key, fn)
	t.ns.Add(int64(time.Since(t0)))
	return err
}

func run(ctx context.Context, out io.Writer, o options) (err error) {
	if o.Accounts < 1 || o.Runs < 1 || o.Rounds < 1 || o.Rounds > 4 || o.Chunk < 1 || o.Warm < 0 || o.Workers < 0 {
		return errors.New("-accounts, -runs, -chunk above 0, -rounds 1 to 4, -warm and -workers at least 0")
	}
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := childBank
	placement := "the emulator in a process of its own"
	if o.InProcess {
		start, placement = inProcessBank, "the emulator in this process"
	}
	b, err := start(ctx, o)
	if err != nil {
		return err
	}
	defer b.close()
	clk := &clock{now: b.su.Start}
	advance := func(d time.Duration) error {
		clk.Add(d)
		return b.advance(d)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(b.su.CA)
	// One transport per side, as the emulator's own client makes it.
	transport := func() *http.Client {
		return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
			ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 64}}
	}
	var sides [2]*side
	for i, ss := range b.su.Sides {
		creds, err := signing.LoadPEM(ss.CertPEM, ss.KeyPEM)
		if err != nil {
			return err
		}
		jobs, err := jobsOf(ss.Customers)
		if err != nil {
			return err
		}
		if len(jobs) < o.Accounts+o.Warm {
			return fmt.Errorf("%d accounts seeded, %d needed", len(jobs), o.Accounts+o.Warm)
		}
		sides[i] = &side{name: sideNames[i], creds: creds, jobs: jobs[:o.Accounts], warm: jobs[o.Accounts : o.Accounts+o.Warm]}
	}
	workers := "the default workers"
	if o.Workers > 0 {
		workers = fmt.Sprintf("%d workers", o.Workers)
	}
	fmt.Fprintf(out, "%d accounts per side, %d runs of %d rounds, chunks of %d, %s, %s\n",
		o.Accounts, o.Runs, o.Rounds, o.Chunk, workers, placement)
	ratios := make([][]float64, o.Rounds) // by round, over the runs
	for run := range o.Runs {
		if run > 0 {
			if err := advance(25 * time.Hour); err != nil {
				return err
			}
		}
		var probe [4]time.Duration // CPU and wall per file created, before and after the rounds
		dir, err := os.MkdirTemp(o.Dir, "storeratio-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		for _, s := range sides {
			var st store.Store = store.NewMemoryStore()
			if s.name == "file" {
				if err := os.Mkdir(dir+"/store", 0o700); err != nil {
					return err
				}
				if probe[0], probe[1], err = createCost(dir+"/store", "before", createProbe); err != nil {
					return fmt.Errorf("measuring a file's creation: %w", err)
				}
				if st, err = store.NewFileStore(dir + "/store"); err != nil {
					return err
				}
			}
			s.st = &timed{Store: st}
			c, err := client.New(b.su.URL, s.creds, client.WithStore(s.st), client.WithClock(clk.Now), client.WithHTTPClient(transport()),
				client.WithDefaults(client.WithRedirectURI(redirectURI)))
			if err != nil {
				return err
			}
			svc, err := accounts.New(c)
			if err != nil {
				return err
			}
			var opts []refresh.Option
			if o.Workers > 0 {
				opts = append(opts, refresh.WithWorkers(o.Workers))
			}
			if s.r, err = refresh.New(svc, opts...); err != nil {
				return err
			}
			if err := labelled(ctx, s.name, -1, func(ctx context.Context) error { return refreshAll(ctx, s.r, s.warm) }); err != nil {
				return fmt.Errorf("%s warm-up: %w", s.name, err)
			}
		}
		load0 := loadAvg()
		var line strings.Builder
		for round := range o.Rounds {
			if round > 0 {
				if err := advance(refresh.DefaultSpacing); err != nil {
					return err
				}
			}
			for _, s := range sides {
				s.dur, s.cpu = 0, 0
				s.st.ns.Store(0)
			}
			for k, chunk := 0, 0; k < o.Accounts; k, chunk = k+o.Chunk, chunk+1 {
				order := []*side{sides[0], sides[1]}
				if chunk%2 == 1 {
					slices.Reverse(order)
				}
				for _, s := range order {
					c0, _ := cpuclock.Process()
					t0 := time.Now()
					if err := labelled(ctx, s.name, round, func(ctx context.Context) error { return refreshAll(ctx, s.r, s.jobs[k:min(k+o.Chunk, o.Accounts)]) }); err != nil {
						return fmt.Errorf("%s round %d: %w", s.name, round+1, err)
					}
					s.dur += time.Since(t0)
					c1, _ := cpuclock.Process()
					s.cpu += c1 - c0
				}
			}
			mem, file := rate(o.Accounts, sides[0].dur), rate(o.Accounts, sides[1].dur)
			ratios[round] = append(ratios[round], file/mem)
			perAccount := func(s *side) float64 { return float64(s.dur.Microseconds()) / 1000 / float64(o.Accounts) }
			cpu := func(s *side) float64 { return float64(s.cpu.Microseconds()) / 1000 / float64(o.Accounts) }
			inStore := func(s *side) float64 { return float64(s.st.ns.Load()) / 1e6 / float64(o.Accounts) }
			fmt.Fprintf(&line, "  round %d%s: memory %.0f accounts/s, file %.0f accounts/s, file/memory %.3f; "+
				"per account %.2f ms and %.2f ms, CPU %.2f ms and %.2f ms, in the store's Update %.2f ms and %.2f ms (summed over the workers)\n",
				round+1, firstOrLater(round), mem, file, file/mem, perAccount(sides[0]), perAccount(sides[1]), cpu(sides[0]), cpu(sides[1]), inStore(sides[0]), inStore(sides[1]))
		}
		if probe[2], probe[3], err = createCost(dir+"/store", "after", createProbe); err != nil {
			return fmt.Errorf("measuring a file's creation: %w", err)
		}
		fmt.Fprintf(out, "run %d (load %s, after %s):\n%s", run+1, load0, loadAvg(), line.String())
		fmt.Fprintf(out, "  creating a file in the run's store directory: %.0f µs of this process's CPU (%.0f µs wall) before the rounds, %.0f µs (%.0f µs) after, over %d files each\n",
			us(probe[0]), us(probe[1]), us(probe[2]), us(probe[3]), createProbe)
	}
	var later []float64
	for _, r := range ratios[1:] {
		later = append(later, r...)
	}
	fmt.Fprintf(out, "file/memory, first round: %s over %d runs\n", spread(ratios[0]), o.Runs)
	if len(later) > 0 {
		fmt.Fprintf(out, "file/memory, later rounds: %s over %d rounds of %d runs\n", spread(later), len(later), o.Runs)
	}
	return nil
}

func firstOrLater(round int) string {
	if round == 0 {
		return " (first, new budget keys)"
	}
	return ""
}

// us is d in microseconds.
func us(d time.Duration) float64 { return float64(d) / 1e3 }

func rate(n int, d time.Duration) float64 { return float64(n) / d.Seconds() }

// spread is "median M (min–max)".
func spread(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("median %.3f (%.3f–%.3f)", m, s[0], s[len(s)-1])
}

// loadAvg is the machine's load average over 1, 5 and 15 minutes, or "?"
// where /proc/loadavg is not read.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if err != nil || len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// refreshAll refreshes jobs and fails on any outcome but Done.
func refreshAll(ctx context.Context, r *refresh.Refresher, jobs []refresh.Job) error {
	for got, err := range r.Run(ctx, slices.Values(jobs)) {
		if err != nil {
			return err
		}
		if got.Outcome != refresh.Done {
			return fmt.Errorf("%v: %w", got, got.Err)
		}
	}
	return nil
}

// jobsOf are the account jobs of the seeded customers, as
// refresh.JobsFrom makes them from their sessions.
func jobsOf(customers []emulator.SeededCustomer) ([]refresh.Job, error) {
	sessions := func(yield func(*sca.Session, error) bool) {
		for _, cu := range customers {
			var ids []string
			for _, a := range cu.Accounts {
				ids = append(ids, a.ID)
			}
			if !yield(refreshbench.SessionOf(cu).WithAccounts(ids, nil)) {
				return
			}
		}
	}
	var jobs []refresh.Job
	var failed error
	for j := range refresh.JobsFrom(sessions, func(j *refresh.Job) bool { return !j.Card() }, func(err error) { failed = err }) {
		jobs = append(jobs, j)
	}
	return jobs, failed
}

// credsPEM encodes credentials as PEM for the measuring process.
func credsPEM(c *signing.Credentials) (cert, key []byte, err error) {
	der, err := x509.MarshalPKCS8PrivateKey(c.Key)
	if err != nil {
		return nil, nil, err
	}
	cert = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate.Raw})
	for _, ch := range c.Chain {
		cert = append(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ch.Raw})...)
	}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// labelled runs fn with the profiler labels side=name and round=first,
// later or warm (round 0, above 0, below 0), so that a CPU profile
// (-cpuprofile) tells them apart (pprof -tagfocus side=file,round=later).
func labelled(ctx context.Context, name string, round int, fn func(context.Context) error) (err error) {
	r := "later"
	switch {
	case round < 0:
		r = "warm"
	case round == 0:
		r = "first"
	}
	pprof.Do(ctx, pprof.Labels("side", name, "round", r), func(ctx context.Context) { err = fn(ctx) })
	return err
}
