package refresh_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/date"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

func TestNewRefusesInvalid(t *testing.T) {
	t.Parallel()
	r, err := refresh.New(nil)
	require.Error(t, err)
	assert.Nil(t, r)
	b := newBank(t, refreshbench.Seed(1, 1, 0, 0, time.Now()))
	for name, o := range map[string]refresh.Option{
		"workers 0":        refresh.WithWorkers(0),
		"workers too many": refresh.WithWorkers(5000),
		"negative spacing": refresh.WithSpacing(-time.Second),
		"negative wait":    refresh.WithMaxWait(-time.Second),
		"nil progress":     refresh.WithProgress(nil),
		"nil logger":       refresh.WithLogger(nil),
	} {
		bad, err := refresh.New(b.svc, o)
		require.Error(t, err, name)
		assert.Nil(t, bad, name)
	}
	// A nil Refresher yields an error once and refreshes nothing.
	var none *refresh.Refresher
	n := 0
	for res, err := range none.Run(t.Context(), slices.Values([]refresh.Job{{}})) {
		n++
		assert.Error(t, err)
		assert.Zero(t, res.Calls)
	}
	assert.Equal(t, 1, n)
	r, err = refresh.New(b.svc, nil, refresh.WithWorkers(3), refresh.WithSpacing(0))
	require.NoError(t, err)
	assert.NotNil(t, r)
}

// A first refresh reads balances, the booked transactions since the job's
// date and the pending ones; without a transaction sync, the next reads
// the booked transactions from 5 days before the last refresh on (what
// is new among them is the sync's to say: TestSync...).
func TestRunReadsTransactions(t *testing.T) {
	t.Parallel()
	// Seeded at noon UTC yesterday, when the UTC date is the bank's
	// (Oslo) date too, so that the days counted below are the bank's.
	at := time.Now().UTC().Truncate(24 * time.Hour).Add(-12 * time.Hour)
	b := newBank(t, refreshbench.Seed(2, 2, 1, 5, at))
	r := b.refresher(t)
	jobs := jobsOf(t, b)
	require.Len(t, jobs, 6)
	since := date.Of(at.AddDate(0, 0, -3))
	for i := range jobs {
		jobs[i].Since = since
	}
	first := collect(t, r, jobs)
	for _, res := range first {
		require.Equal(t, refresh.Done, res.Outcome, "%v: %v", res, res.Err)
		assert.NoError(t, res.Err)
		assert.NotEmpty(t, res.Balances)
		assert.Equal(t, 2, res.Calls)
		assert.Equal(t, refresh.Cursor{RefreshedAt: b.clock.Now()}, res.Cursor)
		if res.Job.Card() {
			assert.Len(t, res.CardBooked, 2)
			assert.Len(t, res.CardPending, 1)
			assert.Empty(t, res.Booked)
			continue
		}
		// Seeded on the 5 days before at; since 3 days before at: 3 of
		// them (the day 3 days back included).
		assert.Len(t, res.Booked, 3)
		assert.Len(t, res.Pending, 2)
		for _, tx := range res.Booked {
			assert.False(t, tx.BookingDate.Before(since))
			assert.NotEmpty(t, tx.TransactionID)
		}
	}

	// A new booked transaction on one account, today.
	target := slices.IndexFunc(first, func(r refresh.Result) bool { return !r.Job.Card() })
	sb, err := sandbox.New(b.client)
	require.NoError(t, err)
	require.NoError(t, sb.CreateTransactions(t.Context(), first[target].Job.AccountID(), []sandbox.Transaction{{
		BookingDate: b.clock.Now().Format(time.DateOnly), TransactionAmount: sandbox.Amount{Amount: "-12.34"},
		RemittanceInformationUnstructured: "Ny"}}))

	last := b.clock.Now()
	b.clock.Add(refresh.DefaultSpacing)
	next := make([]refresh.Job, len(first))
	for i, res := range first {
		next[i] = res.Job
		next[i].Since = date.Date{}
		next[i].Cursor = res.Cursor
	}
	lookback := date.Of(last.UTC().AddDate(0, 0, -5))
	for _, res := range collect(t, r, next) {
		require.Equal(t, refresh.Done, res.Outcome, "%v: %v", res, res.Err)
		assert.NotEmpty(t, res.Balances)
		if res.Job.Card() {
			continue
		}
		for _, tx := range res.Booked {
			assert.False(t, tx.BookingDate.Before(lookback), "read from 5 days before the last refresh")
		}
		var amounts []string
		for _, tx := range res.Booked {
			amounts = append(amounts, tx.TransactionAmount.Value.StringFixed(2))
		}
		if res.Job.AccountID() == first[target].Job.AccountID() {
			assert.Contains(t, amounts, "-12.34", "the new transaction")
			continue
		}
		assert.NotContains(t, amounts, "-12.34")
	}
}

// Four refreshes a day are allowed; the fifth is refused before sending,
// with the time of the next allowed call.
func TestRunFifthRoundRefusedLocally(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 1, 0, 2, time.Now().Add(-time.Hour)))
	r := b.refresher(t)
	jobs := jobsOf(t, b)
	start := b.clock.Now()
	for round := range 4 {
		jobs[0].Force = round > 0 // within the spacing
		res := collect(t, r, jobs)
		require.Equal(t, refresh.Done, res[0].Outcome, "round %d: %v", round+1, res[0].Err)
		jobs[0].Cursor = res[0].Cursor
		b.clock.Add(time.Hour)
	}
	// Within the spacing: deferred without a call.
	jobs[0].Force = false
	res := collect(t, r, jobs)[0]
	assert.Equal(t, refresh.BudgetExhausted, res.Outcome)
	assert.True(t, res.Deferred)
	assert.ErrorIs(t, res.Err, refresh.ErrNotDue)
	assert.Zero(t, res.Calls)
	assert.WithinDuration(t, jobs[0].Cursor.RefreshedAt.Add(refresh.DefaultSpacing), res.RetryAt, 0)

	// Forced: the budget refuses it, before sending.
	jobs[0].Force = true
	res = collect(t, r, jobs)[0]
	assert.Equal(t, refresh.BudgetExhausted, res.Outcome)
	assert.False(t, res.Deferred)
	assert.Zero(t, res.Calls)
	assert.WithinDuration(t, start.Add(budget.DefaultWindow+budget.ClockMargin), res.RetryAt, 0, "when the first call stops counting")
	assert.ErrorIs(t, res.Err, budget.ErrExhausted)
	assert.Equal(t, jobs[0].Cursor, res.Cursor, "the cursor stays")
	for _, e := range []budget.Endpoint{budget.Balances, budget.Transactions} {
		a, err := budget.Of(b.svc.Client()).Remaining(t.Context(), jobs[0].AccountID(), e)
		require.NoError(t, err)
		assert.Zero(t, a.Remaining, e)
	}

	// At RetryAt the account is refreshed again.
	b.clock.Set(res.RetryAt)
	res = collect(t, r, jobs)[0]
	assert.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
}

// A job for balances and transactions does not spend the balances call
// when the transactions budget is spent.
func TestRunChecksBothBudgetsBeforeSpending(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 1, 0, 2, time.Now().Add(-time.Hour)))
	r := b.refresher(t, refresh.WithSpacing(0))
	jobs := jobsOf(t, b)
	jobs[0].Want = refresh.Transactions
	for range 4 {
		res := collect(t, r, jobs)[0]
		require.Equal(t, refresh.Done, res.Outcome, "%v", res.Err)
		assert.Empty(t, res.Balances)
		assert.Equal(t, 1, res.Calls)
	}
	jobs[0].Want = refresh.Both
	res := collect(t, r, jobs)[0]
	assert.Equal(t, refresh.BudgetExhausted, res.Outcome)
	assert.Zero(t, res.Calls)
	assert.Empty(t, res.Balances)
	a, err := budget.Of(b.svc.Client()).Remaining(t.Context(), jobs[0].AccountID(), budget.Balances)
	require.NoError(t, err)
	assert.Equal(t, 4, a.Remaining, "no balances call spent")

	jobs[0].Want = refresh.Balances
	res = collect(t, r, jobs)[0]
	assert.Equal(t, refresh.Done, res.Outcome)
	assert.NotEmpty(t, res.Balances)
}

func TestRunReconnectNeeded(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(2, 1, 0, 1, time.Now().Add(-time.Hour)))
	r := b.refresher(t)
	jobs := jobsOf(t, b)

	// The first PSU revoked the consent at the bank: 403 CONSENT_UNKNOWN.
	b.srv.Control().RevokeConsent(b.seeded.Customers[0].Number)
	res := collect(t, r, jobs[:1])[0]
	assert.Equal(t, refresh.ReconnectNeeded, res.Outcome)
	assert.ErrorIs(t, res.Err, client.ErrConsentUnknown)

	// The second one's consent ended 90 days after the SCA: known
	// without a call.
	b.clock.Set(jobs[1].Session().ConsentExpiresAt())
	res = collect(t, r, jobs[1:])[0]
	assert.Equal(t, refresh.ReconnectNeeded, res.Outcome)
	assert.ErrorIs(t, res.Err, refresh.ErrConsentEnded)
	assert.Zero(t, res.Calls)

	// A session that cannot be sent: refused when the job is made.
	bad := *jobs[1].Session()
	bad.PSUID = "not-a-uuid"
	_, err := refresh.NewJob(&bad, jobs[1].AccountID(), false)
	assert.ErrorIs(t, err, sca.ErrInvalidSession)
}

func TestRunTransientAndRefused(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 2, 0, 1, time.Now().Add(-time.Hour)))
	r := b.refresher(t, refresh.WithWorkers(1))
	jobs := jobsOf(t, b)

	// A 503: the client does not retry a counted call (the refresher's
	// next pass does), so the blip costs one call.
	b.srv.Control().InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Status: 503, PathPrefix: "/v1/accounts/", Count: 1})
	res := collect(t, r, jobs[:1])[0]
	assert.Equal(t, refresh.Transient, res.Outcome)
	var ce *client.Error
	require.ErrorAs(t, res.Err, &ce)
	assert.Equal(t, 503, ce.StatusCode)
	assert.Equal(t, 1, res.Calls)
	assert.Equal(t, jobs[0].Cursor, res.Cursor)

	// An account the consent does not cover: refused when the job is
	// made when the session remembers its accounts, by the bank (404)
	// otherwise.
	const other = "enc!!AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	_, err := refresh.NewJob(jobs[1].Session(), other, false)
	assert.ErrorIs(t, err, refresh.ErrInvalidJob)
	forgetful := *jobs[1].Session()
	forgetful.AccountIDs, forgetful.CardAccountIDs = nil, nil
	res = collect(t, r, []refresh.Job{newJob(t, &forgetful, other, false)})[0]
	assert.Equal(t, refresh.Refused, res.Outcome)
	assert.ErrorIs(t, res.Err, client.ErrNotFound)
	assert.Equal(t, 1, res.Calls)

	// A card job for an account the session remembers as an account, and
	// a job without an account.
	_, err = refresh.NewJob(jobs[1].Session(), jobs[1].AccountID(), true)
	assert.ErrorIs(t, err, refresh.ErrInvalidJob)
	_, err = refresh.NewJob(jobs[1].Session(), "", false)
	assert.ErrorIs(t, err, refresh.ErrInvalidJob)

	// Jobs not made with NewJob, or with an unknown Want: refused at once.
	for _, j := range []refresh.Job{{}, {Want: refresh.Balances}, jobWith(jobs[1], func(j *refresh.Job) { j.Want = 8 })} {
		res = collect(t, r, []refresh.Job{j})[0]
		assert.Equal(t, refresh.Refused, res.Outcome)
		assert.ErrorIs(t, res.Err, refresh.ErrInvalidJob)
		assert.Zero(t, res.Calls)
	}
}

// The bank's own 429 ACCESS_EXCEEDED (calls the SDK did not count) ends
// the account's job BudgetExhausted, and the next job is refused locally.
func TestRunBankAccessExceeded(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 1, 0, 1, time.Now().Add(-time.Hour)))
	r := b.refresher(t, refresh.WithSpacing(0))
	jobs := jobsOf(t, b)
	// Another TPP instance, on another store, spent the budget.
	other, err := client.New(b.srv.URL, b.creds, client.WithHTTPClient(b.srv.Client()), client.WithClock(b.clock.Now),
		client.WithDefaults(client.WithRedirectURI("https://tpp.example/cb")))
	require.NoError(t, err)
	svc, err := accounts.New(other)
	require.NoError(t, err)
	for range 4 {
		_, err := svc.Balances(t.Context(), jobs[0].AccountID(), jobs[0].Session().RequestOptions(nil))
		require.NoError(t, err)
	}
	res := collect(t, r, jobs)[0]
	assert.Equal(t, refresh.BudgetExhausted, res.Outcome)
	assert.Equal(t, 1, res.Calls)
	assert.True(t, errors.Is(res.Err, client.ErrAccessExceeded))
	assert.WithinDuration(t, b.clock.Now().Add(budget.DefaultWindow+budget.ClockMargin), res.RetryAt, 0)

	res = collect(t, r, jobs)[0]
	assert.Equal(t, refresh.BudgetExhausted, res.Outcome)
	assert.Zero(t, res.Calls, "refused before sending")
}
