package refresh_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sca"
	"github.com/tppkit/psd2/store"
)

// stubBank answers every balances and transactions call with fixed
// documents, or with answer when it is set; it counts the calls and the
// most in flight at once.
type stubBank struct {
	answer         func(w http.ResponseWriter, r *http.Request) bool // true: answered
	calls          atomic.Int64
	inFlight, most atomic.Int64
	delay          time.Duration
}

const (
	stubBalances     = `{"balances":[{"balanceAmount":{"amount":"100.00","currency":"NOK"},"balanceType":"closingBooked"}]}`
	stubTransactions = `{"transactions":{"booked":[{"transactionId":"t1","bookingDate":"%s","transactionAmount":{"amount":"-1.00","currency":"NOK"}}],"pending":[]}}`
)

func (s *stubBank) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.calls.Add(1)
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.most.Load()
		if n <= m || s.most.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(s.delay)
	if s.answer != nil && s.answer(w, r) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if strings.HasSuffix(r.URL.Path, "/balances") {
		fmt.Fprint(w, stubBalances)
		return
	}
	fmt.Fprintf(w, stubTransactions, time.Now().Format(time.DateOnly))
}

// stubService returns an accounts.Service on a stub bank.
func stubService(t testing.TB, s *stubBank, opts ...client.Option) *accounts.Service {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	opts = append([]client.Option{client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)),
		client.WithRetryPolicy(client.RetryPolicy{})}, opts...)
	c, err := client.New(ts.URL, testtpp.Credentials(t, "Stub TPP"), opts...)
	require.NoError(t, err)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	return svc
}

// stubJobs yields n jobs of distinct accounts (fresh sessions) and counts
// how many were taken.
func stubJobs(n int, taken *atomic.Int64) func(func(refresh.Job) bool) {
	return func(yield func(refresh.Job) bool) {
		for i := range n {
			s := &sca.Session{PSUID: uuid.NewString(), TPPSessionID: uuid.NewString(), Context: client.Private, SCAAt: time.Now()}
			taken.Add(1)
			j, err := refresh.NewJob(s, fmt.Sprintf("acct-%d", i), false)
			if err != nil {
				panic(err)
			}
			if !yield(j) {
				return
			}
		}
	}
}

func TestRunBoundsWorkersAndReportsProgress(t *testing.T) {
	t.Parallel()
	bank := &stubBank{delay: 2 * time.Millisecond}
	svc := stubService(t, bank)
	var last refresh.Progress
	var calls int
	r, err := refresh.New(svc, refresh.WithWorkers(3), refresh.WithProgress(func(p refresh.Progress) {
		calls++
		assert.LessOrEqual(t, p.InFlight, 3)
		assert.GreaterOrEqual(t, p.InFlight, 0)
		assert.LessOrEqual(t, p.Finished(), p.Started)
		assert.Equal(t, last.Finished()+1, p.Finished())
		last = p
	}))
	require.NoError(t, err)
	var taken atomic.Int64
	n := 0
	for res, err := range r.Run(t.Context(), stubJobs(40, &taken)) {
		require.NoError(t, err)
		require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
		require.Len(t, res.Booked, 1)
		n++
	}
	assert.Equal(t, 40, n)
	assert.Equal(t, 40, calls)
	assert.Equal(t, 40, last.Done)
	assert.Equal(t, 40, last.Count(refresh.Done))
	assert.Equal(t, 80, last.Calls)
	assert.Equal(t, 40, last.Started)
	assert.Zero(t, last.Waiting+last.Failed)
	assert.EqualValues(t, 80, bank.calls.Load())
	assert.LessOrEqual(t, bank.most.Load(), int64(3), "at most 3 calls at once")
	assert.Greater(t, bank.most.Load(), int64(1), "the workers run at once")
}

// sendCount is a RoundTripper that counts the requests the client sends,
// and those it sends once closed is set.
type sendCount struct {
	next       http.RoundTripper
	closed     atomic.Bool
	sent, late atomic.Int64
}

func (c *sendCount) RoundTrip(req *http.Request) (*http.Response, error) {
	c.sent.Add(1)
	if c.closed.Load() {
		c.late.Add(1)
	}
	return c.next.RoundTrip(req)
}

// Breaking out of the loop stops taking jobs and returns once the workers
// are gone. The requests are counted as the client sends them: a request
// sent before Run returned may reach the bank later on a busy machine.
func TestRunBreakStops(t *testing.T) {
	t.Parallel()
	bank := &stubBank{delay: time.Millisecond}
	sends := &sendCount{next: http.DefaultTransport}
	r, err := refresh.New(stubService(t, bank, client.WithHTTPClient(&http.Client{Transport: sends})), refresh.WithWorkers(2))
	require.NoError(t, err)
	var taken atomic.Int64
	for res, err := range r.Run(t.Context(), stubJobs(1000, &taken)) {
		require.NoError(t, err)
		require.Equal(t, refresh.Done, res.Outcome)
		break
	}
	sends.closed.Store(true)
	assert.LessOrEqual(t, taken.Load(), int64(5), "jobs are taken as workers become free")
	assert.LessOrEqual(t, sends.sent.Load(), 2*taken.Load())
	// A worker left running would send within this time; the wait can
	// only miss such a worker on a busy machine, never fail a good Run.
	time.Sleep(50 * time.Millisecond)
	assert.Zero(t, sends.late.Load(), "no call started after Run returned")
}

// A cancelled context ends the run with its error, after the results of
// the jobs in flight.
func TestRunContextCancelled(t *testing.T) {
	t.Parallel()
	bank := &stubBank{delay: 5 * time.Millisecond}
	r, err := refresh.New(stubService(t, bank), refresh.WithWorkers(2))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var taken atomic.Int64
	var results int
	var runErr error
	for res, err := range r.Run(ctx, stubJobs(1000, &taken)) {
		if err != nil {
			runErr = err
			continue
		}
		results++
		if results == 3 {
			cancel()
		}
		assert.Contains(t, []refresh.Outcome{refresh.Done, refresh.Transient}, res.Outcome)
	}
	assert.ErrorIs(t, runErr, context.Canceled)
	assert.Less(t, results, 10)

	for _, err := range r.Run(t.Context(), nil) {
		assert.Error(t, err)
	}
}

// A 429 with Retry-After that is not the budget pauses every worker; a
// pause longer than the maximum wait ends the jobs that meet it at once.
func TestRunRateLimitPauses(t *testing.T) {
	t.Parallel()
	var once sync.Once
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		answered := false
		once.Do(func() {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"tppMessages":[{"category":"ERROR","code":"RATE_LIMIT_EXCEEDED","text":"Slow down"}]}`)
			answered = true
		})
		return answered
	}}
	svc := stubService(t, bank)
	r, err := refresh.New(svc, refresh.WithWorkers(1), refresh.WithMaxWait(time.Second))
	require.NoError(t, err)
	var taken atomic.Int64
	var got []refresh.Result
	start := time.Now()
	for res, err := range r.Run(t.Context(), stubJobs(3, &taken)) {
		require.NoError(t, err)
		got = append(got, res)
	}
	require.Len(t, got, 3)
	assert.Equal(t, refresh.Transient, got[0].Outcome)
	assert.Equal(t, 1, got[0].Calls)
	assert.WithinDuration(t, start.Add(120*time.Second), got[0].RetryAt, 5*time.Second)
	for _, res := range got[1:] {
		assert.Equal(t, refresh.Transient, res.Outcome)
		assert.Zero(t, res.Calls, "not sent during the pause")
		assert.ErrorIs(t, res.Err, refresh.ErrPaused)
		assert.WithinDuration(t, got[0].RetryAt, res.RetryAt, 5*time.Second)
	}
	assert.EqualValues(t, 1, bank.calls.Load())
	// A rate limit is not the account's budget: one call counted, not
	// all four.
	a, err := budget.Of(svc.Client()).Remaining(t.Context(), got[0].Job.AccountID(), budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 3, a.Remaining)
}

// Neither the log nor the printed forms of jobs and results show an
// account id, PSU-ID or session id.
func TestRunLogsNoIDs(t *testing.T) {
	t.Parallel()
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		if strings.Contains(r.URL.Path, "acct-1/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"tppMessages":[{"category":"ERROR","code":"RESOURCE_UNKNOWN","text":"account %s unknown"}]}`, r.URL.Path)
			return true
		}
		return false
	}}
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r, err := refresh.New(stubService(t, bank), refresh.WithLogger(log))
	require.NoError(t, err)
	var taken atomic.Int64
	var printed strings.Builder
	var secrets []string
	for res, err := range r.Run(t.Context(), stubJobs(3, &taken)) {
		require.NoError(t, err)
		secrets = append(secrets, res.Job.AccountID(), res.Job.Session().PSUID, res.Job.Session().TPPSessionID)
		fmt.Fprintf(&printed, "%v %+v %#v %s %v %+v %#v\n", res, res, res, res, res.Job, res.Job, res.Job)
		log.Info("result", "result", res, "job", res.Job)
		if res.Job.AccountID() == "acct-1" {
			assert.Equal(t, refresh.Refused, res.Outcome)
		}
	}
	out := buf.String() + printed.String()
	assert.Contains(t, out, "account refreshed")
	assert.Contains(t, out, "refresh run ended")
	assert.Contains(t, out, "RESOURCE_UNKNOWN")
	for _, s := range secrets {
		assert.NotContains(t, out, s)
	}
}

// A bank's code field can hold any text, a national identity number
// included: the log and the JSON of a Result give the interface's codes
// only, anything else as "OTHER" (client.SafeCode), for a refusal (400)
// and a transient failure (503) alike. Before, both wrote the bank's code
// verbatim.
func TestRunLogsOnlyTheInterfacesCodes(t *testing.T) {
	t.Parallel()
	const nationalID = "01017012345"
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		status := 0
		switch {
		case strings.Contains(r.URL.Path, "acct-0/"):
			status = http.StatusBadRequest
		case strings.Contains(r.URL.Path, "acct-1/"):
			status = http.StatusServiceUnavailable
		default:
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, `{"tppMessages":[{"category":"ERROR","code":"`+nationalID+`","text":"Ola Nordmann"}]}`)
		return true
	}}
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r, err := refresh.New(stubService(t, bank), refresh.WithLogger(log))
	require.NoError(t, err)
	var taken atomic.Int64
	var marshalled strings.Builder
	outcomes := map[string]refresh.Outcome{}
	for res, err := range r.Run(t.Context(), stubJobs(3, &taken)) {
		require.NoError(t, err)
		outcomes[res.Job.AccountID()] = res.Outcome
		raw, err := json.Marshal(res)
		require.NoError(t, err)
		marshalled.Write(raw)
	}
	require.Equal(t, map[string]refresh.Outcome{"acct-0": refresh.Refused, "acct-1": refresh.Transient, "acct-2": refresh.Done}, outcomes)
	assert.NotContains(t, buf.String(), nationalID)
	assert.NotContains(t, marshalled.String(), nationalID)
	assert.Equal(t, 2, strings.Count(buf.String(), `"code":"OTHER"`), "the log names the two failures' codes OTHER:\n%s", buf.String())
	assert.Equal(t, 2, strings.Count(marshalled.String(), `"code":"OTHER"`), "the JSON names the two failures' codes OTHER:\n%s", marshalled.String())
}

// The jobs sequence is read between the loop's bodies, on the loop's
// goroutine: what the body writes, the sequence may read without a lock
// (go test -race checks it).
func TestRunReadsJobsBetweenBodies(t *testing.T) {
	t.Parallel()
	r, err := refresh.New(stubService(t, &stubBank{}), refresh.WithWorkers(4))
	require.NoError(t, err)
	seen := map[string]int{} // written by the body, read by the sequence
	var taken atomic.Int64
	base := stubJobs(50, &taken)
	jobs := func(yield func(refresh.Job) bool) {
		for j := range base {
			j.Force = seen[j.AccountID()] > 0
			if !yield(j) {
				return
			}
		}
	}
	for res, err := range r.Run(t.Context(), jobs) {
		require.NoError(t, err)
		seen[res.Job.AccountID()]++
	}
	assert.Len(t, seen, 50)

	// A sequence that panics does not leave workers behind.
	assert.Panics(t, func() {
		for range r.Run(t.Context(), func(func(refresh.Job) bool) { panic("jobs") }) {
		}
	})
}

// hangingStore is a database that stopped answering: every call waits
// for its context's end.
type hangingStore struct{ store.Store }

func (hangingStore) Get(ctx context.Context, _ string) ([]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hangingStore) Update(ctx context.Context, _ string, _ func([]byte, bool) ([]byte, time.Duration, error)) error {
	<-ctx.Done()
	return ctx.Err()
}

// A store that hangs holds no worker of Run for ever: each job ends
// Transient at its job timeout and the run ends. On the code before, a
// job's reservation waited on the store for as long as the run's
// context, which had no end.
func TestRunJobTimeoutBoundsAHungStore(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(2, 1, 0, 1, time.Now().Add(-time.Hour)), client.WithStore(hangingStore{store.NewMemoryStore()}))
	r := b.refresher(t, refresh.WithJobTimeout(200*time.Millisecond), refresh.WithWorkers(2))
	jobs := jobsOf(t, b)
	ended := make(chan []refresh.Result, 1)
	go func() {
		var out []refresh.Result
		for res, err := range r.Run(context.Background(), slices.Values(jobs)) {
			if err == nil {
				out = append(out, res)
			}
		}
		ended <- out
	}()
	select {
	case out := <-ended:
		require.Len(t, out, len(jobs))
		for _, res := range out {
			assert.Equal(t, refresh.Transient, res.Outcome, "%v", res.Err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the run waits on the hung store")
	}
}
