package emulator_test

// Benchmarks of the emulator at scale: seeding, setup through the signed
// sandbox API, and a background refresh (balances and transactions
// without the PSU) against the RSA signing floor measured in the same run.
// They report figures and assert nothing about time. Run them with
//
//	go test ./sandbox/emulator -run '^$' -bench 'Seed|SetupSigned|Refresh' -benchtime 1x
//
// (-benchtime 10000x for Refresh: 10,000 refreshes, 20,000 calls).

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/signing"
)

// benchLimits hold 100,000 accounts and their customers, sessions and
// transactions (the defaults cap customers and sessions at 10,000).
var benchLimits = refreshbench.Limits

func newBenchServer(b *testing.B, clock *testtpp.Clock) *emulator.Server {
	return emulator.NewServer(emulator.WithTPPKey(testtpp.Key(b)), emulator.WithClock(clock.Now), emulator.WithLimits(benchLimits))
}

// benchSeed is accounts accounts with 10 transactions each (8 booked over
// the last month, 2 pending), two per private customer, each customer
// with a consent given at.
func benchSeed(accounts int, at time.Time) emulator.SeedData {
	amounts := []string{"-389.40", "-1249.00", "32500.00", "-8750.00", "-45.00", "-212.50", "-99.90", "-15.00"}
	txs := make([]emulator.SeedTransaction, 10)
	for i := range txs {
		txs[i] = emulator.SeedTransaction{BookingDate: at.AddDate(0, 0, -1-3*i), Amount: amounts[i%len(amounts)],
			CounterpartyName: "Eksempel Kraft AS", CounterpartyBBAN: "81127378348", Remittance: "Faktura " + strconv.Itoa(i), Code: "R_203"}
	}
	txs[8].Pending, txs[9].Pending = true, true
	consent := &emulator.SeedConsent{At: at}
	customers := make([]emulator.SeedCustomer, (accounts+1)/2)
	for i := range customers {
		accts := make([]emulator.SeedAccount, min(2, accounts-2*i))
		for j := range accts {
			accts[j] = emulator.SeedAccount{Name: "Brukskonto", Balance: "15234.75", Transactions: txs}
		}
		customers[i] = emulator.SeedCustomer{Name: "Kari Testperson", Accounts: accts, Consent: consent}
	}
	return emulator.SeedData{Customers: customers}
}

// BenchmarkSeed seeds 1,000, 10,000, 30,000 and 100,000 accounts with 10
// transactions each into a new server: ns/account should not grow with N,
// and s/seed at 100,000 is the time a 100,000-account run of
// pgstore/examples/refreshworkers spends seeding its emulator.
func BenchmarkSeed(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 30_000, 100_000} {
		b.Run("accounts="+strconv.Itoa(n), func(b *testing.B) {
			clock := testtpp.NewClock(time.Now())
			data := benchSeed(n, clock.Now())
			b.ReportAllocs()
			var took time.Duration
			for range b.N {
				b.StopTimer()
				s := newBenchServer(b, clock)
				creds, err := s.NewTPP("Seeder")
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				b.StartTimer()
				start := time.Now()
				res, err := s.Control().Seed(b.Context(), creds.Certificate, data)
				took += time.Since(start)
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Customers) != len(data.Customers) {
					b.Fatalf("seeded %d customers, want %d", len(res.Customers), len(data.Customers))
				}
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(took.Nanoseconds())/float64(b.N*n), "ns/account")
			b.ReportMetric(took.Seconds()/float64(b.N), "s/seed")
		})
	}
}

// BenchmarkSetupSigned creates 1,000 and 10,000 accounts through the
// signed sandbox API (package sandbox, 2 workers): a customer per two
// accounts, each account with 10 mock transactions. ns/account at 10,000
// over ns/account at 1,000 is the growth with N; cpu-ns/account is the
// process's CPU time (client and emulator), steadier on a busy machine.
func BenchmarkSetupSigned(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run("accounts="+strconv.Itoa(n), func(b *testing.B) {
			var took, cpu time.Duration
			for range b.N {
				b.StopTimer()
				clock := testtpp.NewClock(time.Now())
				s := newBenchServer(b, clock)
				creds, err := s.NewTPP("Setup")
				if err != nil {
					b.Fatal(err)
				}
				c, err := client.New(s.URL, creds, client.WithHTTPClient(s.Client()), client.WithClock(clock.Now))
				if err != nil {
					b.Fatal(err)
				}
				svc, err := sandbox.New(c)
				if err != nil {
					b.Fatal(err)
				}
				txs := make([]sandbox.Transaction, 10)
				for i := range txs {
					txs[i] = sandbox.Transaction{BookingDate: clock.Now().AddDate(0, 0, -1-3*i).Format(time.DateOnly),
						TransactionAmount: sandbox.Amount{Amount: "-45.00"}, RemittanceInformationUnstructured: "Faktura"}
				}
				b.StartTimer()
				start, cpuStart := time.Now(), refreshbench.ProcessCPU()
				err = parallel(2, (n+1)/2, func(ctx context.Context, i int) error {
					number := fmt.Sprintf("2%010d", i)
					if _, err := svc.CreateCustomer(ctx, &sandbox.NewCustomer{CustomerNumber: number,
						CustomerType: client.Private, CustomerName: "Kari Testperson"}); err != nil {
						return err
					}
					for range min(2, n-2*i) {
						a, err := svc.CreateAccount(ctx, &sandbox.NewAccount{CustomerNumber: number, Currency: "NOK", Balance: "15234.75"})
						if err != nil {
							return err
						}
						if err := svc.CreateTransactions(ctx, a.ResourceID, txs); err != nil {
							return err
						}
					}
					return nil
				})
				took, cpu = took+time.Since(start), cpu+refreshbench.ProcessCPU()-cpuStart
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(took.Nanoseconds())/float64(b.N*n), "ns/account")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/account")
		})
	}
}

// parallel runs f for 0..n-1 on workers goroutines and returns the first
// error.
func parallel(workers, n int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var next atomic.Int64
	errs := make(chan error, workers)
	for range workers {
		go func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					errs <- nil
					return
				}
				if err := f(ctx, i); err != nil {
					cancel()
					errs <- err
					return
				}
			}
		}()
	}
	var first error
	for range workers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// mutexWait reads the process's total time blocked on sync.Mutex and
// sync.RWMutex (and runtime-internal locks).
func mutexWait() time.Duration {
	s := []metrics.Sample{{Name: "/sync/mutex/wait/total:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return time.Duration(s[0].Value.Float64() * float64(time.Second))
}

// refreshJob is one seeded account and its session.
type refreshJob struct{ account, psuID, sessionID string }

// refresher calls balances and transactions without the PSU, as a TPP's
// background refresh does, with plain net/http and the signing package
// (the SDK's own cost is not the emulator's).
type refresher struct {
	base, cert string
	signer     *signing.Signer
	hc         *http.Client
	now        func() time.Time
}

func (r *refresher) get(ctx context.Context, path string, j refreshJob, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.base+path, nil)
	if err != nil {
		return err
	}
	h := req.Header
	h.Set("X-Request-ID", uuid.NewString())
	h.Set("Date", r.now().UTC().Format(http.TimeFormat))
	h.Set("TPP-Signature-Certificate", r.cert)
	h.Set("TPP-Redirect-URI", "https://tpp.example/cb")
	h.Set("TPP-Session-ID", j.sessionID)
	h.Set("PSU-ID", j.psuID)
	if err := r.signer.Sign(req); err != nil {
		return err
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %d %s", path, resp.StatusCode, body)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// refresh reads one account's balances and first transactions page.
func (r *refresher) refresh(ctx context.Context, j refreshJob) error {
	var bal struct {
		Balances []struct {
			BalanceAmount struct{ Amount, Currency string } `json:"balanceAmount"`
			BalanceType   string                            `json:"balanceType"`
		} `json:"balances"`
	}
	if err := r.get(ctx, "/v1/accounts/"+j.account+"/balances", j, &bal); err != nil {
		return err
	}
	var txs struct {
		Transactions struct {
			Booked, Pending []struct {
				TransactionID     string                            `json:"transactionId"`
				BookingDate       string                            `json:"bookingDate"`
				TransactionAmount struct{ Amount, Currency string } `json:"transactionAmount"`
				CreditorName      string                            `json:"creditorName"`
				Remittance        string                            `json:"remittanceInformationUnstructured"`
			}
		} `json:"transactions"`
	}
	if err := r.get(ctx, "/v1/accounts/"+j.account+"/transactions?bookingStatus=both", j, &txs); err != nil {
		return err
	}
	if len(bal.Balances) != 2 || len(txs.Transactions.Booked) != 8 || len(txs.Transactions.Pending) != 2 {
		return fmt.Errorf("unexpected answers: %d balances, %d booked, %d pending", len(bal.Balances),
			len(txs.Transactions.Booked), len(txs.Transactions.Pending))
	}
	return nil
}

// BenchmarkRefresh refreshes seeded accounts (balances and one
// transactions page each, without the PSU) at 10,000 and 30,000 accounts
// with 2 and 4 workers. One op is one account refresh (2 calls); accounts
// are taken in a random order, each at most once per round, and the
// clock moves 6 hours between rounds so the 4-a-day budget holds. It
// reports:
//   - calls/s, the RSA floor of the same run (floor-sig/s, the mean of 2
//     seconds before and 2 seconds after) and their ratio;
//   - cpu-ns/call, the process's CPU time per call, and cpu-ratio, the CPU
//     time of a bare signature over it: the ratio the refresh reaches
//     when the cores are its own, steadier than the wall-time ratio on a
//     busy machine;
//   - the lock wait per call: lock-ns/call from the emulator's own locks
//     (timed, timing included) and lock-max-ns the longest wait;
//     mutex-ns/call from runtime/metrics (every mutex of the process, the
//     HTTP client's and the runtime's included).
func BenchmarkRefresh(b *testing.B) {
	for _, n := range []int{10_000, 30_000} {
		for _, workers := range []int{2, 4} {
			b.Run(fmt.Sprintf("accounts=%d/workers=%d", n, workers), func(b *testing.B) {
				benchRefresh(b, n, workers)
			})
		}
	}
}

func benchRefresh(b *testing.B, n, workers int) {
	clock := testtpp.NewClock(time.Now())
	s := newBenchServer(b, clock)
	defer s.Close()
	waits := s.TimeLockWaits()
	creds, err := s.NewTPP("Refresher")
	if err != nil {
		b.Fatal(err)
	}
	res, err := s.Control().Seed(b.Context(), creds.Certificate, benchSeed(n, clock.Now().Add(-2*time.Hour)))
	if err != nil {
		b.Fatal(err)
	}
	jobs := make([]refreshJob, 0, n)
	for _, cu := range res.Customers {
		for _, a := range cu.Accounts {
			jobs = append(jobs, refreshJob{a.ID, cu.Session.PSUID, cu.Session.TPPSessionID})
		}
	}
	rand.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	signer, err := signing.NewSigner(creds.Key, signing.KeyID(creds.Certificate))
	if err != nil {
		b.Fatal(err)
	}
	r := &refresher{base: s.URL, cert: base64.StdEncoding.EncodeToString(creds.Certificate.Raw),
		signer: signer, hc: s.Client(), now: clock.Now}
	// Warm up the connections (and start the batch schedule).
	if err := parallel(workers, workers, func(ctx context.Context, i int) error { return r.refresh(ctx, jobs[len(jobs)-1-i]) }); err != nil {
		b.Fatal(err)
	}
	key := creds.Key.(*rsa.PrivateKey)
	floorBefore, sigCPUBefore := refreshbench.RSAFloor(key, 2*time.Second)
	runtime.GC()

	waits() // from here on
	mutexBefore := mutexWait()
	b.ResetTimer()
	start, cpuStart := time.Now(), refreshbench.ProcessCPU()
	for done := 0; done < b.N; {
		m := min(len(jobs)-workers, b.N-done) // the warm-up's accounts are left out
		if err := parallel(workers, m, func(ctx context.Context, i int) error { return r.refresh(ctx, jobs[i]) }); err != nil {
			b.Fatal(err)
		}
		done += m
		clock.Add(6 * time.Hour)
	}
	elapsed, cpu := time.Since(start), refreshbench.ProcessCPU()-cpuStart
	b.StopTimer()
	lw, mutexAfter := waits(), mutexWait()
	// The floor brackets the run: the machine's load may change during it.
	floorAfter, sigCPUAfter := refreshbench.RSAFloor(key, 2*time.Second)
	floor, sigCPU := (floorBefore+floorAfter)/2, (sigCPUBefore+sigCPUAfter)/2

	calls := float64(2 * b.N)
	rate := calls / elapsed.Seconds()
	b.ReportMetric(rate, "calls/s")
	b.ReportMetric(floor, "floor-sig/s")
	b.ReportMetric(rate/floor, "ratio")
	b.ReportMetric(float64(cpu.Nanoseconds())/calls, "cpu-ns/call")
	b.ReportMetric(float64(sigCPU.Nanoseconds())/(float64(cpu.Nanoseconds())/calls), "cpu-ratio")
	b.ReportMetric(float64(lw.Total.Nanoseconds())/calls, "lock-ns/call")
	b.ReportMetric(float64(lw.Max.Nanoseconds()), "lock-max-ns")
	b.ReportMetric(float64((mutexAfter-mutexBefore).Nanoseconds())/calls, "mutex-ns/call")
}
