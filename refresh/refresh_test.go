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
	for res, err := range none.Run(t.Context(), slices.Values([]refresh.Job{{AccountID: "x"}})) {
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
// date and the pending ones; the next reads only what is new.
func TestRunReadsNewTransactionsOnce(t *testing.T) {
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
		assert.WithinDuration(t, b.clock.Now(), res.Cursor.RefreshedAt, 0)
		assert.False(t, res.Cursor.Date.IsZero())
		if res.Job.Card {
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
		var window []string // the ids of the cursor's window: lookback days up to its date
		for _, tx := range res.Booked {
			if !tx.BookingDate.Before(res.Cursor.From) {
				window = append(window, tx.TransactionID)
			}
		}
		assert.ElementsMatch(t, window, res.Cursor.Seen)
		// The window starts lookback days before its date, but not before
		// the read's first day (since): older entries were not read.
		wantFrom := res.Cursor.Date.Time(time.UTC).AddDate(0, 0, -5)
		if wantFrom.Before(since.Time(time.UTC)) {
			wantFrom = since.Time(time.UTC)
		}
		assert.Equal(t, wantFrom, res.Cursor.From.Time(time.UTC))
	}

	// A new booked transaction on one account, today.
	target := slices.IndexFunc(first, func(r refresh.Result) bool { return !r.Job.Card })
	sb, err := sandbox.New(b.client)
	require.NoError(t, err)
	require.NoError(t, sb.CreateTransactions(t.Context(), first[target].Job.AccountID, []sandbox.Transaction{{
		BookingDate: b.clock.Now().Format(time.DateOnly), TransactionAmount: sandbox.Amount{Amount: "-12.34"},
		RemittanceInformationUnstructured: "Ny"}}))

	b.clock.Add(refresh.DefaultSpacing)
	next := make([]refresh.Job, len(first))
	for i, res := range first {
		next[i] = res.Job
		next[i].Cursor = res.Cursor
	}
	for _, res := range collect(t, r, next) {
		require.Equal(t, refresh.Done, res.Outcome, "%v: %v", res, res.Err)
		if res.Job.AccountID == first[target].Job.AccountID {
			require.Len(t, res.Booked, 1, "only the new transaction")
			assert.Equal(t, "-12.34", res.Booked[0].TransactionAmount.Value.StringFixed(2))
			assert.Equal(t, date.Of(b.clock.Now().Add(-refresh.DefaultSpacing)), res.Cursor.Date)
			continue
		}
		assert.Empty(t, res.Booked, "nothing new")
		assert.Empty(t, res.CardBooked, "nothing new")
		assert.NotEmpty(t, res.Balances)
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
		a, err := budget.Of(b.svc.Client()).Remaining(t.Context(), jobs[0].AccountID, e)
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
	a, err := budget.Of(b.svc.Client()).Remaining(t.Context(), jobs[0].AccountID, budget.Balances)
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
	b.srv.RevokeConsent(b.seeded.Customers[0].Number)
	res := collect(t, r, jobs[:1])[0]
	assert.Equal(t, refresh.ReconnectNeeded, res.Outcome)
	assert.ErrorIs(t, res.Err, client.ErrConsentUnknown)

	// The second one's consent ended 90 days after the SCA: known
	// without a call.
	b.clock.Set(jobs[1].Session.ConsentExpiresAt())
	res = collect(t, r, jobs[1:])[0]
	assert.Equal(t, refresh.ReconnectNeeded, res.Outcome)
	assert.ErrorIs(t, res.Err, refresh.ErrConsentEnded)
	assert.Zero(t, res.Calls)

	// A session that cannot be sent.
	bad := *jobs[1].Session
	bad.PSUID = "not-a-uuid"
	res = collect(t, r, []refresh.Job{{Session: &bad, AccountID: jobs[1].AccountID}})[0]
	assert.Equal(t, refresh.ReconnectNeeded, res.Outcome)
	assert.ErrorIs(t, res.Err, sca.ErrInvalidSession)
}

func TestRunTransientAndRefused(t *testing.T) {
	t.Parallel()
	b := newBank(t, refreshbench.Seed(1, 2, 0, 1, time.Now().Add(-time.Hour)))
	r := b.refresher(t, refresh.WithWorkers(1))
	jobs := jobsOf(t, b)

	// 503 on every attempt (the client retried once).
	b.srv.InjectFault(emulator.Fault{Kind: emulator.FaultStatus, Status: 503, PathPrefix: "/v1/accounts/", Count: 2})
	res := collect(t, r, jobs[:1])[0]
	assert.Equal(t, refresh.Transient, res.Outcome)
	var ce *client.Error
	require.ErrorAs(t, res.Err, &ce)
	assert.Equal(t, 503, ce.StatusCode)
	assert.Equal(t, 1, res.Calls)
	assert.Equal(t, jobs[0].Cursor, res.Cursor)

	// An account the consent does not cover: refused before sending when
	// the session remembers its accounts, by the bank (404) otherwise.
	unknown := jobs[1]
	unknown.AccountID = "enc!!AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	res = collect(t, r, []refresh.Job{unknown})[0]
	assert.Equal(t, refresh.Refused, res.Outcome)
	assert.ErrorIs(t, res.Err, refresh.ErrInvalidJob)
	assert.Zero(t, res.Calls)
	forgetful := *unknown.Session
	forgetful.AccountIDs, forgetful.CardAccountIDs = nil, nil
	unknown.Session = &forgetful
	res = collect(t, r, []refresh.Job{unknown})[0]
	assert.Equal(t, refresh.Refused, res.Outcome)
	assert.ErrorIs(t, res.Err, client.ErrNotFound)
	assert.Equal(t, 1, res.Calls)

	// A card job for an account the session remembers as an account.
	card := jobs[1]
	card.Card = true
	res = collect(t, r, []refresh.Job{card})[0]
	assert.ErrorIs(t, res.Err, refresh.ErrInvalidJob)
	assert.Zero(t, res.Calls)

	// Invalid jobs.
	for _, j := range []refresh.Job{{AccountID: "x"}, {Session: jobs[1].Session}, {Session: jobs[1].Session, AccountID: "x", Want: 8}} {
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
		_, err := svc.Balances(t.Context(), jobs[0].AccountID, jobs[0].Session.RequestOptions(nil))
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
