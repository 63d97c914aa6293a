package refresh_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
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
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// newSession is a valid session of a new PSU, with its SCA now.
func newSession(now time.Time) *sca.Session {
	return &sca.Session{PSUID: uuid.NewString(), TPPSessionID: uuid.NewString(), Context: client.Private, SCAAt: now}
}

// bankError writes a tppMessages answer.
func bankError(w http.ResponseWriter, status int, code string, links string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body := `{"tppMessages":[{"category":"ERROR","code":"` + code + `","text":"refused"}]`
	if code == "" {
		body = `{"tppMessages":[]`
	}
	if links != "" {
		body += `,"_links":` + links
	}
	fmt.Fprint(w, body+"}")
}

// spent is the number of calls counted in an account's budgets.
func spent(t *testing.T, svc *accounts.Service, id string, card bool) int {
	t.Helper()
	es := []budget.Endpoint{budget.Balances, budget.Transactions}
	if card {
		es = []budget.Endpoint{budget.CardBalances, budget.CardTransactions}
	}
	n := 0
	for _, e := range es {
		a, err := budget.Of(svc.Client()).Remaining(t.Context(), id, e)
		require.NoError(t, err)
		n += a.Limit - a.Remaining
	}
	return n
}

// No JSON form of a Job or a Result shows the account id, PSU-ID or
// TPP-Session-ID, whatever the outcome.
func TestJSONHidesIDs(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 1, 1, 2, time.Now().Add(-time.Hour)))
	r := b.refresher(t)
	jobs := jobsOf(t, b)
	forgetful := *jobs[0].Session() // remembers no account: the bank refuses the unknown one
	forgetful.AccountIDs, forgetful.CardAccountIDs = nil, nil
	jobs = append(jobs, newJob(t, &forgetful, "enc!!AAAAAAAAAAAAAAAAAAAAAAAAAAAA=", false))
	results := collect(t, r, jobs)

	// A bank whose error text names the account.
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		bankError(w, http.StatusNotFound, "RESOURCE_UNKNOWN", `{"self":{"href":"`+r.URL.Path+`"}}`)
		return true
	}}
	sr, err := refresh.New(stubService(t, bank))
	require.NoError(t, err)
	results = append(results, collect(t, sr, []refresh.Job{newJob(t, newSession(time.Now()), "acct-secret-1", false)})...)
	for _, res := range results {
		secrets := []string{res.Job.AccountID(), res.Job.Session().PSUID, res.Job.Session().TPPSessionID}
		for _, v := range []any{res, &res, res.Job, &res.Job, []refresh.Result{res}} {
			out, err := json.Marshal(v)
			require.NoError(t, err)
			for _, s := range secrets {
				assert.NotContains(t, string(out), s, "%v: %T", res, v)
			}
		}
		out, err := json.Marshal(res)
		require.NoError(t, err)
		assert.Contains(t, string(out), `"outcome":"`+res.Outcome.String()+`"`)
		if res.Outcome == refresh.Refused && res.Calls > 0 {
			assert.Contains(t, string(out), `"code":"RESOURCE_UNKNOWN"`)
		}
	}
}

// The bank's 429 ACCESS_EXCEEDED with a Retry-After (an HTTP date)
// shorter than the budget's window is a rate limit
// (budget.Budget.RateLimit), the account's own when longer than a
// minute: the job ends Transient, and the account's endpoint is held in
// the budget until the Retry-After and the clock margin, when the job
// comes back (RetryAt), so that no other caller sends it before.
func TestBankRetryAfterDate(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		if calls.Add(1) > 1 {
			return false
		}
		w.Header().Set("Retry-After", time.Now().Add(10*time.Minute).UTC().Format(http.TimeFormat))
		bankError(w, http.StatusTooManyRequests, "ACCESS_EXCEEDED", "")
		return true
	}}
	svc := stubService(t, bank)
	r, err := refresh.New(svc, refresh.WithWorkers(1), refresh.WithSpacing(0))
	require.NoError(t, err)
	job := newJob(t, newSession(time.Now()), "acct-1", false)
	start := time.Now()
	res := collect(t, r, []refresh.Job{job})[0]
	assert.Equal(t, refresh.Transient, res.Outcome, "%v", res.Err)
	assert.ErrorIs(t, res.Err, client.ErrAccessExceeded)
	assert.Equal(t, 1, res.Calls)
	assert.WithinDuration(t, start.Add(10*time.Minute+budget.ClockMargin), res.RetryAt, 5*time.Second, "the bank's Retry-After and the margin")
	a, err := budget.Of(svc.Client()).Remaining(t.Context(), job.AccountID(), budget.Balances)
	require.NoError(t, err)
	assert.Zero(t, a.Remaining, "the account's endpoint is held until the bank's time")
	assert.WithinDuration(t, res.RetryAt, a.NextAt, time.Second, "and then counts only the call made")

	// A 429 without a code (read as ACCESS_EXCEEDED), with Retry-After
	// in seconds: the same; the account's budget allows its next call
	// when the result says.
	bare := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Retry-After", "600")
		bankError(w, http.StatusTooManyRequests, "", "")
		return true
	}}
	svc = stubService(t, bare)
	r, err = refresh.New(svc, refresh.WithWorkers(1))
	require.NoError(t, err)
	start = time.Now()
	res = collect(t, r, []refresh.Job{job})[0]
	assert.Equal(t, refresh.Transient, res.Outcome, "%v", res.Err)
	assert.WithinDuration(t, start.Add(10*time.Minute+budget.ClockMargin), res.RetryAt, 5*time.Second)
	a, err = budget.Of(svc.Client()).Remaining(t.Context(), job.AccountID(), budget.Balances)
	require.NoError(t, err)
	assert.Zero(t, a.Remaining, "the account's endpoint is held until the bank's time")
	assert.WithinDuration(t, res.RetryAt, a.NextAt, time.Second, "and then counts only the call made")
}

// A 429 with Retry-After as an HTTP date and no budget code pauses the
// workers until that time.
func TestRateLimitRetryAfterDate(t *testing.T) {
	t.Parallel()
	var once sync.Once
	bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
		answered := false
		once.Do(func() {
			w.Header().Set("Retry-After", time.Now().Add(2*time.Minute).UTC().Format(http.TimeFormat))
			bankError(w, http.StatusTooManyRequests, "SERVICE_BLOCKED", "")
			answered = true
		})
		return answered
	}}
	svc := stubService(t, bank)
	r, err := refresh.New(svc, refresh.WithWorkers(1), refresh.WithMaxWait(time.Second))
	require.NoError(t, err)
	start := time.Now()
	jobs := []refresh.Job{newJob(t, newSession(start), "acct-1", false), newJob(t, newSession(start), "acct-2", false)}
	got := collect(t, r, jobs)
	assert.Equal(t, refresh.Transient, got[0].Outcome)
	assert.WithinDuration(t, start.Add(2*time.Minute), got[0].RetryAt, 5*time.Second)
	assert.Equal(t, refresh.Transient, got[1].Outcome)
	assert.ErrorIs(t, got[1].Err, refresh.ErrPaused)
	assert.Zero(t, got[1].Calls)
	assert.EqualValues(t, 1, bank.calls.Load())
	// A rate limit does not spend the account's budget.
	a, err := budget.Of(svc.Client()).Remaining(t.Context(), "acct-1", budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 3, a.Remaining)
}

// Every answer meaning the consent is gone or needs SCA is
// ReconnectNeeded, whether the bank sends it as 401 or 403; other
// refusals are Refused. Nothing more is sent for the job.
func TestConsentAnswers(t *testing.T) {
	t.Parallel()
	const sca = `{"scaRedirect":{"href":"https://bank.example/tap/x"}}`
	tests := []struct {
		status int
		code   string
		links  string
		want   refresh.Outcome
	}{
		{401, "CONSENT_EXPIRED", sca, refresh.ReconnectNeeded},
		{401, "CONSENT_EXPIRED", "", refresh.ReconnectNeeded},
		{403, "CONSENT_EXPIRED", "", refresh.ReconnectNeeded},
		{401, "CONSENT_INVALID", "", refresh.ReconnectNeeded},
		{401, "CONSENT_INVALID", sca, refresh.ReconnectNeeded},
		{403, "CONSENT_INVALID", "", refresh.ReconnectNeeded},
		{403, "CONSENT_UNKNOWN", "", refresh.ReconnectNeeded},
		{401, "CONSENT_UNKNOWN", "", refresh.ReconnectNeeded},
		{401, "SCA_EXPIRED", sca, refresh.ReconnectNeeded},
		{401, "PSU_CREDENTIALS_INVALID", "", refresh.ReconnectNeeded},
		{401, "", sca, refresh.ReconnectNeeded},
		{403, "FORBIDDEN", sca, refresh.ReconnectNeeded},
		{403, "FORBIDDEN", "", refresh.Refused},
		{404, "RESOURCE_UNKNOWN", "", refresh.Refused},
		{400, "FORMAT_ERROR", "", refresh.Refused},
		{401, "CERTIFICATE_INVALID", "", refresh.Refused},
		{500, "SYSTEM_ERROR", "", refresh.Transient},
	}
	for _, tt := range tests {
		bank := &stubBank{answer: func(w http.ResponseWriter, r *http.Request) bool {
			bankError(w, tt.status, tt.code, tt.links)
			return true
		}}
		r, err := refresh.New(stubService(t, bank), refresh.WithWorkers(1))
		require.NoError(t, err)
		res := collect(t, r, []refresh.Job{newJob(t, newSession(time.Now()), "acct-1", false)})[0]
		name := fmt.Sprintf("%d %s %s", tt.status, tt.code, tt.links)
		assert.Equal(t, tt.want, res.Outcome, name)
		assert.Equal(t, 1, res.Calls, name)
		assert.EqualValues(t, 1, bank.calls.Load(), name+": nothing more sent")
		assert.True(t, res.RetryAt.IsZero(), name)
	}
}

// pagedBank serves an account's transactions as a chain of pages (the
// production known issue: every page repeats the whole pending list).
type pagedBank struct {
	mu    sync.Mutex
	pages [][]string // booked entries (date/id) of each page
	next  func(page int) string
	calls map[string]int // per path
	// lastFrom is the dateFrom of the last first page asked for.
	lastFrom string
}

func (p *pagedBank) answer(w http.ResponseWriter, r *http.Request) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[r.URL.Path]++
	if !strings.HasSuffix(r.URL.Path, "/transactions") {
		return false
	}
	if f := r.URL.Query().Get("dateFrom"); f != "" {
		p.lastFrom = f
	}
	page := 0
	fmt.Sscan(r.URL.Query().Get("page"), &page)
	var booked []string
	for _, e := range p.pages[page] {
		d, id, _ := strings.Cut(e, "/")
		booked = append(booked, fmt.Sprintf(`{"transactionId":%q,"bookingDate":%q,"transactionAmount":{"amount":"-1.00","currency":"NOK"}}`, id, d))
	}
	links := ""
	if page+1 < len(p.pages) {
		links = fmt.Sprintf(`,"_links":{"next":{"href":%q}}`, p.next(page+1))
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"transactions":{"booked":[%s],"pending":[{"bookingDate":"2025-06-30","transactionAmount":{"amount":"-5.00","currency":"NOK"}}]%s}}`,
		strings.Join(booked, ","), links)
	return true
}

// A chain of pages is read to its end through the accounts iterator,
// each page one call of the budget; the pending list repeated on every
// page is reported once. The next refresh reports what it read (what is
// new is the sync's to say), from a few days before the last refresh.
func TestPageChain(t *testing.T) {
	t.Parallel()
	pb := &pagedBank{calls: map[string]int{}, pages: [][]string{
		{"2025-06-28/a", "2025-06-29/b"}, {"2025-06-29/c"}, {"2025-06-27/d"}}}
	pb.next = func(n int) string { return fmt.Sprintf("/v1/accounts/acct-1/transactions?page=%d", n) }
	svc := stubService(t, &stubBank{answer: pb.answer})
	r, err := refresh.New(svc, refresh.WithSpacing(0))
	require.NoError(t, err)
	job := newJob(t, newSession(time.Now()), "acct-1", false)
	res := collect(t, r, []refresh.Job{job})[0]
	require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
	assert.Equal(t, 4, res.Calls, "balances and 3 pages")
	ids := func(txs []accounts.Transaction) []string {
		var out []string
		for _, tx := range txs {
			out = append(out, tx.TransactionID)
		}
		slices.Sort(out)
		return out
	}
	assert.Equal(t, []string{"a", "b", "c", "d"}, ids(res.Booked))
	assert.Len(t, res.Pending, 1, "the repeated pending list once")
	assert.False(t, res.Cursor.RefreshedAt.IsZero())
	a, err := budget.Of(svc.Client()).Remaining(t.Context(), job.AccountID(), budget.Transactions)
	require.NoError(t, err)
	assert.Equal(t, 1, a.Remaining, "every page counts")

	// New entries; the old ones again.
	pb.mu.Lock()
	pb.pages = [][]string{{"2025-06-29/b", "2025-06-29/c", "2025-06-29/e"}, {"2025-06-30/f", "2025-06-28/a"}}
	pb.mu.Unlock()
	require.NoError(t, budget.Of(svc.Client()).Reset(t.Context(), job.AccountID(), budget.Transactions))
	job.Cursor = res.Cursor
	job.Want = refresh.Transactions
	res = collect(t, r, []refresh.Job{job})[0]
	require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
	assert.Equal(t, 2, res.Calls)
	assert.Empty(t, res.Balances)
	assert.Equal(t, []string{"a", "b", "c", "e", "f"}, ids(res.Booked), "every entry read")
	assert.Len(t, res.Pending, 1, "pending reported every time")
	pb.mu.Lock()
	assert.Equal(t, date.Of(job.Cursor.RefreshedAt.UTC().AddDate(0, 0, -5)).String(), pb.lastFrom,
		"read from 5 days before the last refresh")
	pb.mu.Unlock()

	// More pages than the budget: the refresh stops before the call the
	// budget does not allow, and the cursor stays.
	pb.mu.Lock()
	pb.pages = [][]string{{"2025-07-01/g"}, {"2025-07-01/h"}, {"2025-07-01/i"}, {"2025-07-01/j"}, {"2025-07-01/k"}}
	clear(pb.calls)
	pb.mu.Unlock()
	require.NoError(t, budget.Of(svc.Client()).Reset(t.Context(), job.AccountID(), budget.Transactions))
	before := res.Cursor
	job.Cursor = before
	res = collect(t, r, []refresh.Job{job})[0]
	assert.Equal(t, refresh.BudgetExhausted, res.Outcome)
	assert.Equal(t, 4, res.Calls)
	assert.Equal(t, before, res.Cursor)
	assert.False(t, res.RetryAt.IsZero())
	pb.mu.Lock()
	assert.Equal(t, 4, pb.calls["/v1/accounts/acct-1/transactions"])
	pb.mu.Unlock()
}

// A next link that names another account is not followed: it would
// spend that account's budget and mix its transactions into this one's.
func TestNextLinkOtherAccount(t *testing.T) {
	t.Parallel()
	pb := &pagedBank{calls: map[string]int{}, pages: [][]string{{"2025-06-28/a"}, {"2025-06-29/x"}}}
	pb.next = func(n int) string { return fmt.Sprintf("/v1/accounts/acct-2/transactions?page=%d", n) }
	svc := stubService(t, &stubBank{answer: pb.answer})
	r, err := refresh.New(svc)
	require.NoError(t, err)
	res := collect(t, r, []refresh.Job{jobWith(newJob(t, newSession(time.Now()), "acct-1", false), func(j *refresh.Job) { j.Want = refresh.Transactions })})[0]
	assert.Equal(t, refresh.Refused, res.Outcome, "%v", res.Err)
	assert.ErrorIs(t, res.Err, accounts.ErrUnexpectedLink)
	assert.Equal(t, 1, res.Calls)
	pb.mu.Lock()
	assert.Zero(t, pb.calls["/v1/accounts/acct-2/transactions"])
	pb.mu.Unlock()
	a, err := budget.Of(svc.Client()).Remaining(t.Context(), "acct-2", budget.Transactions)
	require.NoError(t, err)
	assert.Equal(t, 4, a.Remaining, "the other account's budget is untouched")
}

// A job for balances and transactions whose both budgets are spent comes
// back when both allow a call again, not when the first does.
func TestBothBudgetsRetryAt(t *testing.T) {
	t.Parallel()
	clock := testtpp.NewClock(time.Now())
	svc := stubService(t, &stubBank{}, client.WithClock(clock.Now))
	r, err := refresh.New(svc, refresh.WithSpacing(0))
	require.NoError(t, err)
	job := jobWith(newJob(t, newSession(clock.Now()), "acct-1", false), func(j *refresh.Job) { j.Want = refresh.Transactions })
	t0 := clock.Now()
	for range 4 {
		require.Equal(t, refresh.Done, collect(t, r, []refresh.Job{job})[0].Outcome)
	}
	clock.Add(time.Hour)
	job.Want = refresh.Balances
	for range 4 {
		require.Equal(t, refresh.Done, collect(t, r, []refresh.Job{job})[0].Outcome)
	}
	job.Want = refresh.Both
	res := collect(t, r, []refresh.Job{job})[0]
	require.Equal(t, refresh.BudgetExhausted, res.Outcome)
	assert.Zero(t, res.Calls)
	assert.WithinDuration(t, t0.Add(time.Hour+budget.DefaultWindow+budget.ClockMargin), res.RetryAt, 0, "when both allow a call")

	clock.Set(res.RetryAt)
	res = collect(t, r, []refresh.Job{job})[0]
	assert.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
}

// A card account job reads the card endpoints and counts in the card
// account's budgets only.
func TestCardJobBudgets(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 1, 1, 2, time.Now().Add(-time.Hour)))
	r := b.refresher(t)
	var card refresh.Job
	for _, j := range jobsOf(t, b) {
		if j.Card() {
			card = j
		}
	}
	require.True(t, card.Card())
	card.Want = refresh.Balances
	res := collect(t, r, []refresh.Job{card})[0]
	require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
	assert.NotEmpty(t, res.Balances)
	assert.Empty(t, res.CardBooked)
	assert.Equal(t, 1, spent(t, b.svc, card.AccountID(), true))
	assert.Zero(t, spent(t, b.svc, card.AccountID(), false))
}

// After a cancelled run, every account's budget holds exactly the calls
// its result reports: the calls that were not sent were given back.
func TestCancelGivesBackUnsentCalls(t *testing.T) {
	t.Parallel()
	bank := &stubBank{delay: 3 * time.Millisecond}
	svc := stubService(t, bank)
	r, err := refresh.New(svc, refresh.WithWorkers(4))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var taken atomic.Int64
	var results []refresh.Result
	var runErr error
	for res, err := range r.Run(ctx, stubJobs(200, &taken)) {
		if err != nil {
			runErr = err
			continue
		}
		results = append(results, res)
		if len(results) == 6 {
			cancel()
		}
	}
	require.ErrorIs(t, runErr, context.Canceled)
	total := 0
	for _, res := range results {
		assert.Equal(t, res.Calls, spent(t, svc, res.Job.AccountID(), false), "%v: %v", res, res.Err)
		total += res.Calls
	}
	assert.GreaterOrEqual(t, bank.calls.Load(), int64(total)-int64(len(results)))
}

// An empty sequence ends at once without a result or an error; the
// progress counts of a mixed run add up to its jobs.
func TestEmptyAndProgressCounts(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(2, 2, 0, 1, time.Now().Add(-time.Hour)))
	var last refresh.Progress
	r := b.refresher(t, refresh.WithWorkers(2), refresh.WithProgress(func(p refresh.Progress) { last = p }))
	for res, err := range r.Run(t.Context(), func(func(refresh.Job) bool) {}) {
		t.Fatalf("result from no job: %v %v", res, err)
	}
	assert.Zero(t, last.Started)

	// A context already ended: its error, once, and no call.
	jobs := jobsOf(t, b)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var errs int
	for res, err := range r.Run(ctx, slices.Values(jobs)) {
		require.ErrorIs(t, err, context.Canceled, "no result: %v", res)
		errs++
	}
	assert.Equal(t, 1, errs)
	assert.Zero(t, spent(t, b.svc, jobs[0].AccountID(), false))

	require.Len(t, jobs, 4)
	jobs[1].Cursor.RefreshedAt = b.clock.Now() // deferred
	jobs[2].Want = 9                           // invalid
	ended := *jobs[3].Session()
	ended.ConsentUntil = b.clock.Now().Add(-time.Minute)
	jobs[3] = newJob(t, &ended, jobs[3].AccountID(), false) // consent ended
	res := collect(t, r, jobs)
	byID := map[string]refresh.Result{}
	for _, x := range res {
		byID[x.Job.AccountID()+x.Job.Want.String()] = x
	}
	assert.Equal(t, 4, last.Started)
	assert.Equal(t, 4, last.Finished())
	assert.Equal(t, 1, last.Done)
	assert.Equal(t, 1, last.Waiting)
	assert.Equal(t, 2, last.Failed)
	assert.Equal(t, 1, last.Count(refresh.ReconnectNeeded))
	assert.Equal(t, 1, last.Count(refresh.Refused))
	assert.Equal(t, 2, last.Calls)
	assert.Zero(t, last.InFlight)
}

// The emulator's 429 ACCESS_EXCEEDED with Retry-After (a rate limit
// longer than the client waits) ends only that account's job, as
// transient, until the time the bank gave and the clock margin (the
// account's endpoint is spent in the budget until then); the account is
// refreshed again from then on.
func TestEmulatorRetryAfter(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 2, 0, 1, time.Now().Add(-time.Hour)))
	r := b.refresher(t, refresh.WithWorkers(1))
	jobs := jobsOf(t, b)
	b.srv.Control().InjectFault(emulator.Fault{Kind: emulator.FaultRateLimit, RetryAfter: 90 * time.Second,
		PathPrefix: "/v1/accounts/" + jobs[0].AccountID() + "/balances"})
	got := collect(t, r, jobs)
	require.Equal(t, jobs[0].AccountID(), got[0].Job.AccountID())
	assert.Equal(t, refresh.Transient, got[0].Outcome, "%v", got[0].Err)
	assert.Equal(t, 1, got[0].Calls)
	assert.WithinDuration(t, b.clock.Now().Add(90*time.Second+budget.ClockMargin), got[0].RetryAt, time.Second)
	assert.Equal(t, refresh.Done, got[1].Outcome, "another account goes on: %v", got[1].Err)

	b.clock.Set(got[0].RetryAt)
	res := collect(t, r, jobs[:1])[0]
	assert.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
}
