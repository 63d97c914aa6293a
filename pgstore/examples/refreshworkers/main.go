// Command refreshworkers refreshes a few thousand accounts on River, as a
// TPP with several replicas would: against the embedded emulator and a
// PostgreSQL database, it runs a scheduler (this process) and two worker
// processes (this program again, with -worker), each a
// riverrefresh.Engine. The scheduler enqueues the round (one job per
// account), the workers share it out through River, and this process
// shows a progress line (plain lines when stdout is not a terminal) and,
// at the end, a table of the outcomes each worker saw. River's web UI is
// served on a loopback port meanwhile (-ui; -linger keeps it up after the
// round).
//
// It reads the server from PSD2_TEST_POSTGRES (a pgx connection string),
// works in a schema of its own and drops it at the end:
//
//	PSD2_TEST_POSTGRES='host=/tmp/pg user=me dbname=postgres' go run ./examples/refreshworkers -accounts 2000
package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/signing"

	"riverqueue.com/riverui"
)

// uiAddr is where River's UI listens; linger is how long it stays up
// after the round.
var (
	uiAddr string
	linger time.Duration
)

// bankName names the example's bank in River.
const bankName = "examplebank"

// setup is what a worker process needs: the bank, the TPP's credentials
// and the database.
type setup struct {
	URL, Conn, Schema   string
	CA, CertPEM, KeyPEM []byte
}

func main() {
	accountsN := flag.Int("accounts", 2000, "accounts to seed and refresh")
	flag.StringVar(&uiAddr, "ui", "127.0.0.1:0", "loopback address of River's web UI (empty: none)")
	flag.DurationVar(&linger, "linger", 0, "time to keep the UI up after the round")
	worker := flag.String("worker", "", "run as a worker process with this setup file (used by the example itself)")
	name := flag.String("name", "", "the worker's name")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *worker != "" {
		err = work(ctx, *worker, *name, os.Stdout)
	} else {
		err = run(ctx, os.Stdout, os.Getenv("PSD2_TEST_POSTGRES"), *accountsN)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "refreshworkers:", err)
		os.Exit(1)
	}
}

// run is the scheduler's process: it starts the emulator, seeds it,
// stores the sessions, starts two workers and shows their progress.
func run(ctx context.Context, out io.Writer, conn string, n int) error {
	if conn == "" {
		return errors.New("PSD2_TEST_POSTGRES is unset: the example needs a PostgreSQL server")
	}
	srv := emulator.NewServer(emulator.WithLimits(refreshbench.Limits))
	defer srv.Close()
	creds, err := srv.NewTPP("Refresh workers example")
	if err != nil {
		return err
	}
	seeded, err := srv.Seed(ctx, creds.Certificate, refreshbench.Seed((n+1)/2, 2, 0, 8, time.Now().Add(-2*time.Hour)))
	if err != nil {
		return err
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	schema := "refreshworkers_" + hex.EncodeToString(b[:])
	if err := exec1(ctx, conn, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return err
	}
	defer func() {
		_ = exec1(context.Background(), conn, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	}()

	su := setup{URL: srv.URL, Conn: conn, Schema: schema,
		CA: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Chain[len(creds.Chain)-1].Raw})}
	if su.CertPEM, su.KeyPEM, err = credsPEM(creds); err != nil {
		return err
	}
	e, pool, st, err := engine(ctx, su, riverrefresh.Config{Schedule: true,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer pool.Close()
	total := 0
	for i, cu := range seeded.Customers {
		s := refreshbench.SessionOf(cu)
		var ids []string
		for _, a := range cu.Accounts {
			ids = append(ids, a.ID)
		}
		if s, err = s.WithAccounts(ids, nil); err != nil {
			return err
		}
		if err := sca.SaveSession(ctx, st, "user-"+strconv.Itoa(i), s); err != nil {
			return err
		}
		total += len(ids)
	}
	if err := e.Migrate(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d accounts of %d PSUs in schema %s; scheduler, 2 workers\n", total, len(seeded.Customers), schema)

	dir, err := os.MkdirTemp("", "refreshworkers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	raw, err := json.Marshal(su)
	if err != nil {
		return err
	}
	file := filepath.Join(dir, "setup.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		return err
	}
	tables := make([]map[string]int, 2)
	var wg sync.WaitGroup
	var procs []*exec.Cmd
	for i := range 2 {
		cmd := exec.CommandContext(ctx, os.Args[0], "-worker", file, "-name", "worker-"+strconv.Itoa(i+1))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return err
		}
		procs = append(procs, cmd)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = json.NewDecoder(stdout).Decode(&tables[i]) // the worker's table, at its end
			_ = cmd.Wait()
		}()
	}
	// The scheduler enqueues the round when it starts (River's leader).
	if err := e.Start(ctx); err != nil {
		return err
	}
	defer e.Stop(context.Background())
	if uiAddr != "" {
		stopUI, err := serveUI(ctx, out, e, uiAddr)
		if err != nil {
			return err
		}
		defer stopUI()
	}
	start := time.Now()
	if err := progress(ctx, out, pool, schema, total, start); err != nil {
		return err
	}
	for _, p := range procs {
		_ = p.Process.Signal(os.Interrupt)
	}
	wg.Wait()
	fmt.Fprintf(out, "round done in %v\n", time.Since(start).Round(100*time.Millisecond))
	printTable(out, tables)
	if linger > 0 && uiAddr != "" {
		fmt.Fprintf(out, "River's UI stays up for %v\n", linger)
		select {
		case <-ctx.Done():
		case <-time.After(linger):
		}
	}
	return nil
}

// serveUI serves River's web UI on a loopback address: every queue and
// every waiting, snoozed, retried, cancelled and discarded job.
func serveUI(ctx context.Context, out io.Writer, e *riverrefresh.Engine, addr string) (func(), error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("-ui %s: only a loopback address (the UI has no login)", addr)
	}
	h, err := riverui.NewHandler(&riverui.HandlerOpts{Endpoints: riverui.NewEndpoints(e.Client(), nil),
		Logger: slog.New(slog.DiscardHandler), Prefix: "/riverui"})
	if err != nil {
		return nil, err
	}
	if err := h.Start(ctx); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Fprintf(out, "River's UI: http://%s/riverui/\n", ln.Addr())
	return func() { _ = srv.Close() }, nil
}

// progress shows the round's progress until every job is finalized.
func progress(ctx context.Context, out io.Writer, pool *pgxpool.Pool, schema string, total int, start time.Time) error {
	fi, _ := os.Stdout.Stat()
	tty := out == io.Writer(os.Stdout) && fi != nil && fi.Mode()&os.ModeCharDevice != 0
	every := time.Second
	if tty {
		every = 200 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		counts := map[string]int{}
		rows, err := pool.Query(ctx, "SELECT state, count(*) FROM "+pgx.Identifier{schema}.Sanitize()+
			".river_job WHERE kind = 'psd2_refresh' GROUP BY state")
		if err != nil {
			return err
		}
		for rows.Next() {
			var s string
			var n int
			if err := rows.Scan(&s, &n); err != nil {
				return err
			}
			counts[s] = n
		}
		rows.Close()
		final := counts["completed"] + counts["cancelled"] + counts["discarded"]
		line := fmt.Sprintf("%5.1fs  done %d/%d  running %d  waiting %d  snoozed/retrying %d  cancelled %d  discarded %d",
			time.Since(start).Seconds(), counts["completed"], total, counts["running"], counts["available"],
			counts["scheduled"]+counts["retryable"], counts["cancelled"], counts["discarded"])
		if tty {
			fmt.Fprint(out, "\r"+line)
		} else {
			fmt.Fprintln(out, line)
		}
		if final == total && total > 0 {
			if tty {
				fmt.Fprintln(out)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// printTable prints the outcome classes per worker.
func printTable(out io.Writer, tables []map[string]int) {
	seen := map[string]bool{}
	for _, t := range tables {
		for k := range t {
			seen[k] = true
		}
	}
	var keys []string
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(out, "%-18s %10s %10s\n", "outcome", "worker-1", "worker-2")
	for _, k := range keys {
		fmt.Fprintf(out, "%-18s %10d %10d\n", k, tables[0][k], tables[1][k])
	}
}

// work is a worker process: an engine working the bank's jobs until
// interrupted, then its table of outcomes as JSON on out.
func work(ctx context.Context, file, name string, out io.Writer) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var su setup
	if err := json.Unmarshal(raw, &su); err != nil {
		return err
	}
	var mu sync.Mutex
	table := map[string]int{}
	e, pool, _, err := engine(ctx, su, riverrefresh.Config{Work: true,
		Handle: func(_ context.Context, _ string, res refresh.Result) {
			mu.Lock()
			table[strings.ReplaceAll(res.Outcome.String(), " ", "-")]++
			mu.Unlock()
		}})
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := e.Start(context.Background()); err != nil {
		return err
	}
	<-ctx.Done()
	stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = e.Stop(stop)
	mu.Lock()
	defer mu.Unlock()
	_ = name
	return json.NewEncoder(out).Encode(table)
}

// engine makes a replica's engine, on a pool and store of its own.
func engine(ctx context.Context, su setup, cfg riverrefresh.Config) (*riverrefresh.Engine, *pgxpool.Pool, *pgstore.Store, error) {
	pcfg, err := pgxpool.ParseConfig(su.Conn)
	if err != nil {
		return nil, nil, nil, err
	}
	pcfg.ConnConfig.RuntimeParams["search_path"] = su.Schema
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := pgstore.New(pool, pgstore.WithSchema(su.Schema))
	if err == nil {
		err = st.Migrate(ctx)
	}
	var creds *signing.Credentials
	if err == nil {
		creds, err = signing.LoadPEM(su.CertPEM, su.KeyPEM)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(su.CA)
	var svc *accounts.Service
	if err == nil {
		var c *client.Client
		c, err = client.New(su.URL, creds, client.WithStore(st),
			client.WithHTTPClient(&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}),
			client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
		if err == nil {
			svc, err = accounts.New(c)
		}
	}
	if err != nil {
		pool.Close()
		return nil, nil, nil, err
	}
	cfg.Pool, cfg.Schema = pool, su.Schema
	cfg.Banks = map[string]riverrefresh.Bank{bankName: {Service: svc, Sessions: st, Workers: 4}}
	e, err := riverrefresh.New(cfg)
	if err != nil {
		pool.Close()
		return nil, nil, nil, err
	}
	return e, pool, st, nil
}

// credsPEM encodes credentials as PEM for a worker process.
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

// exec1 runs one statement on a connection of its own.
func exec1(ctx context.Context, conn, sql string) error {
	c, err := pgx.Connect(ctx, conn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, sql)
	return err
}
