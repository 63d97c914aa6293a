package riverrefresh_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
	"github.com/tppkit/psd2/store"

	"github.com/tppkit/psd2/pgstore/internal/pgtest"
)

// envCrashChild names the file of a crashChild's configuration: set, the
// test binary runs TestCrashChild as a worker replica until killed.
const envCrashChild = "RIVERREFRESH_CRASH_CHILD"

// crashChild is what the worker process needs: the bank, the TPP's
// credentials, the database and where to note each account it refreshed.
type crashChild struct {
	URL, Conn, Schema, DoneFile string
	CA, CertPEM, KeyPEM         []byte
}

// replica makes a crash test replica's engine on its own pool. Like a
// TPP, it keeps each account's cursor in the shared store (Handle) and
// gives it to the account's next job (Prepare); onDone is told of each
// account refreshed.
func replica(t *testing.T, c crashChild, creds *signing.Credentials, onDone func(accountID string)) (*riverrefresh.Engine, *accounts.Service) {
	t.Helper()
	pool := newPool(t)
	st := newStore(t, pool, c.Schema)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(c.CA))
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	cl, err := client.New(c.URL, creds, client.WithHTTPClient(hc), client.WithStore(st),
		client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)))
	require.NoError(t, err)
	svc, err := accounts.New(cl)
	require.NoError(t, err)
	cursorKey := func(j *refresh.Job) string { return "test/cursor/" + budget.Key(j.AccountID(), j.Card()) }
	cfg := riverrefresh.Config{Work: true, RescueAfter: 3 * time.Second, JobTimeout: 2 * time.Second,
		Pool: pool, Schema: c.Schema,
		Banks: map[string]riverrefresh.Bank{"testbank": {Service: svc, Sessions: st, Workers: 3}},
		Prepare: func(ctx context.Context, _ string, j *refresh.Job) error {
			raw, err := st.Get(ctx, cursorKey(j))
			if errors.Is(err, store.ErrNotStored) {
				return nil
			}
			if err != nil {
				return err
			}
			return json.Unmarshal(raw, &j.Cursor)
		},
		Handle: func(ctx context.Context, _ string, res refresh.Result) {
			if res.Outcome != refresh.Done {
				return
			}
			raw, err := json.Marshal(res.Cursor)
			if err == nil {
				err = st.Put(ctx, cursorKey(&res.Job), raw, 0)
			}
			if err != nil {
				t.Error(err)
			}
			onDone(res.Job.AccountID())
		}}
	e, err := riverrefresh.New(cfg)
	require.NoError(t, err)
	return e, svc
}

// TestCrashChild is the worker replica of TestCrashSIGKILL; it does
// nothing in a normal run.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(envCrashChild)
	if path == "" {
		// TestMain leaves it out of a normal run: here, it was asked for
		// by name.
		if os.Getenv("CI") == "true" {
			t.Fatal("TestCrashChild runs only as the worker process of TestCrashSIGKILL")
		}
		t.Skip("the worker process of TestCrashSIGKILL")
	}
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var c crashChild
	require.NoError(t, json.Unmarshal(raw, &c))
	creds, err := signing.LoadPEM(c.CertPEM, c.KeyPEM)
	require.NoError(t, err)
	f, err := os.OpenFile(c.DoneFile, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	var mu sync.Mutex
	e, _ := replica(t, c, creds, func(id string) {
		mu.Lock()
		_, _ = f.WriteString("x " + id + "\n")
		mu.Unlock()
	})
	require.NoError(t, e.Start(context.Background()))
	select {} // until killed
}

// A worker replica killed with SIGKILL halfway through a round loses
// nothing: River rescues its jobs, the other replica finishes them, no
// account is refreshed twice, and the budget still counts the calls the
// dead replica made.
func TestCrashSIGKILL(t *testing.T) {
	w := newWorld(t, 30)
	// A slow bank: every call takes 150 ms, so jobs are in flight when
	// the replica dies.
	w.srv.Control().InjectFault(emulator.Fault{Kind: emulator.FaultHang, Delay: 150 * time.Millisecond, Count: 100_000})
	dir := t.TempDir()
	done := filepath.Join(dir, "done")
	require.NoError(t, os.WriteFile(done, nil, 0o600))
	creds := w.creds
	key, err := x509.MarshalPKCS8PrivateKey(creds.Key)
	require.NoError(t, err)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Certificate.Raw})
	for _, c := range creds.Chain {
		certPEM = append(certPEM, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	c := crashChild{URL: w.srv.URL, Conn: pgtest.Conn(t), Schema: w.schema, DoneFile: done,
		CA:      pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: creds.Chain[len(creds.Chain)-1].Raw}),
		CertPEM: certPEM, KeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key})}
	raw, err := json.Marshal(c)
	require.NoError(t, err)
	cfgFile := filepath.Join(dir, "child.json")
	require.NoError(t, os.WriteFile(cfgFile, raw, 0o600))

	var mu sync.Mutex
	mine := map[string]int{}
	survivor, svc := replica(t, c, creds, func(id string) {
		mu.Lock()
		mine[id]++
		mu.Unlock()
	})
	ctx := t.Context()
	require.NoError(t, survivor.Migrate(ctx))
	n, err := survivor.Enqueue(ctx, "testbank")
	require.NoError(t, err)
	require.Equal(t, len(w.ids), n)

	child := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	child.Env = append(os.Environ(), envCrashChild+"="+cfgFile)
	require.NoError(t, child.Start())
	t.Cleanup(func() { _ = child.Process.Kill(); _, _ = child.Process.Wait() })
	// The child works alone until it has done a third of the round.
	require.Eventually(t, func() bool { return countLines(t, done) >= len(w.ids)/3 }, 120*time.Second, 20*time.Millisecond)
	// SIGKILL halfway through its jobs: those it was running are what
	// River must rescue.
	var running []int64
	rows, err := survivor.Pool().Query(ctx, "SELECT id FROM "+w.schema+".river_job WHERE kind = 'psd2_refresh' AND state = 'running'")
	require.NoError(t, err)
	for rows.Next() {
		var id int64
		require.NoError(t, rows.Scan(&id))
		running = append(running, id)
	}
	rows.Close()
	require.NoError(t, child.Process.Signal(syscall.SIGKILL))
	killed := time.Now()
	_, _ = child.Process.Wait()
	// The survivor starts after the kill: every job finishes there.
	start(t, survivor)
	var rescued time.Duration
	require.Eventually(t, func() bool {
		var left int
		err := survivor.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job WHERE id = ANY($1) AND state <> 'completed'",
			running).Scan(&left)
		rescued = time.Since(killed)
		return err == nil && left == 0
	}, 120*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		var left int
		err := survivor.Pool().QueryRow(ctx, "SELECT count(*) FROM "+w.schema+".river_job WHERE kind = 'psd2_refresh' AND state <> 'completed'").Scan(&left)
		return err == nil && left == 0
	}, 120*time.Second, 50*time.Millisecond)
	finished := time.Since(killed)

	// Refreshes per account: the child's (read from its file) and the
	// survivor's.
	theirs := readLines(t, done)
	mu.Lock()
	defer mu.Unlock()
	lost, twice := 0, 0
	for _, id := range w.ids {
		switch mine[id] + theirs[id] {
		case 0:
			lost++
		case 1:
		default:
			twice++
		}
	}
	t.Logf("SIGKILL with %d jobs running: accounts %d, lost %d, refreshed twice %d, done by the dead replica %d, by the survivor %d; "+
		"its running jobs finished elsewhere %v after the kill (RescueAfter 3 s), the whole round %v after",
		len(running), len(w.ids), lost, twice, len(theirs), len(mine), rescued.Round(100*time.Millisecond), finished.Round(100*time.Millisecond))
	assert.NotEmpty(t, running, "killed mid-job")
	assert.Zero(t, lost)
	assert.Zero(t, twice)
	// The budget holds every call, the dead replica's included: none over.
	for _, id := range w.ids {
		for _, e := range []budget.Endpoint{budget.Balances, budget.Transactions} {
			a, err := budget.Of(svc.Client()).Remaining(ctx, id, e)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, a.Remaining, 0)
		}
	}
}

// readLines reads the child's "session account" lines into counts per
// account.
func readLines(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var sess, id string
		if _, err := fmtSscan(sc.Text(), &sess, &id); err == nil {
			out[id]++
		}
	}
	return out
}

func countLines(t *testing.T, path string) int {
	n := 0
	for _, v := range readLines(t, path) {
		n += v
	}
	return n
}

// fmtSscan splits a "session account" line.
func fmtSscan(line string, sess, id *string) (int, error) {
	return fmt.Sscan(line, sess, id)
}
