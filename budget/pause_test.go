package budget_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/budget"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/store"
)

// slowBank answers every call 429 RATE_LIMIT_EXCEEDED with a Retry-After
// of retryAfter seconds while it is above 0, and the balances document
// otherwise.
type slowBank struct {
	srv        *httptest.Server
	retryAfter atomic.Int64
	requests   atomic.Int64
}

func newSlowBank(t *testing.T, retryAfter int) *slowBank {
	t.Helper()
	b := &slowBank{}
	b.retryAfter.Store(int64(retryAfter))
	bal := testdata(t, "balances.json")
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if ra := b.retryAfter.Load(); ra > 0 {
			w.Header().Set("Retry-After", strconv.FormatInt(ra, 10))
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"RATE_LIMIT_EXCEEDED"}]}`))
			return
		}
		_, _ = w.Write(bal)
	}))
	t.Cleanup(b.srv.Close)
	return b
}

// client returns a client of the test TPP on the bank (one scope for
// every client of the test), on st, without retries.
func (b *slowBank) client(t *testing.T, st store.Store) *client.Client {
	t.Helper()
	c, err := client.New(b.srv.URL+"/api", testtpp.Credentials(t, "Budget pause TPP"), client.WithHTTPClient(b.srv.Client()),
		client.WithRetryPolicy(client.RetryPolicy{}), client.WithStore(st))
	require.NoError(t, err)
	return c
}

// The bank's 429 with Retry-After pauses the bank from the moment it
// arrives: the pause is a field of the client's budget, which every
// Service of the client sees at once, and which a client on the same
// store reads from it. A client of the same TPP and bank on another
// store does not see it: there is no pause of the process. (Before the
// budget had its own package, the pause was a package global keyed by
// the client's scope: the client on its own store saw it too.)
func TestPauseIsTheBudgetsAndTheStores(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := newSlowBank(t, 30)
	shared := store.NewMemoryStore()
	c := bank.client(t, shared)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	before := time.Now()
	_, err = svc.Balances(ctx, acc1, psuPresent()...)
	require.Error(t, err)

	until, paused, err := budget.Of(c).PausedUntil(ctx)
	require.NoError(t, err)
	require.True(t, paused, "the 429 paused the bank")
	assert.WithinRange(t, until, before.Add(30*time.Second), time.Now().Add(30*time.Second))

	// Another client of the TPP at the bank, on the same store: the pause
	// is read from the store, and held on its clock for the wait from
	// when it read it, at most (pauseEndSeen).
	sameStore := bank.client(t, shared)
	require.Equal(t, c.Scope(), sameStore.Scope())
	got, paused, err := budget.Of(sameStore).PausedUntil(ctx)
	late := time.Since(before) // the read is at most this long after the write
	require.NoError(t, err)
	assert.True(t, paused)
	assert.WithinRange(t, got, until, until.Add(late))

	// The same TPP and bank on a store of its own: no pause.
	own := bank.client(t, store.NewMemoryStore())
	require.Equal(t, c.Scope(), own.Scope())
	_, paused, err = budget.Of(own).PausedUntil(ctx)
	require.NoError(t, err)
	assert.False(t, paused, "no pause outside the store")
}

// A shorter pause does not shorten a longer one, in the budget or in the
// store; a pause that ended is still reported, as ended.
func TestPauseOnlyGrows(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := newSlowBank(t, 60)
	st := store.NewMemoryStore()
	c := bank.client(t, st)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	written := time.Now()
	_, err = svc.Balances(ctx, acc1, psuPresent()...)
	require.Error(t, err)
	long, paused, err := budget.Of(c).PausedUntil(ctx)
	require.NoError(t, err)
	require.True(t, paused)

	bank.retryAfter.Store(1)
	_, err = svc.Balances(ctx, acc1, psuPresent()...)
	require.Error(t, err)
	got, _, err := budget.Of(c).PausedUntil(ctx)
	require.NoError(t, err)
	assert.True(t, got.Equal(long), "the 1 s pause left the 60 s one")
	// In the store too: a client that reads it holds it on its own clock,
	// at most the 60 s from when it read it (pauseEndSeen).
	fresh, _, err := budget.Of(bank.client(t, st)).PausedUntil(ctx)
	late := time.Since(written) // the read is at most this long after the write
	require.NoError(t, err)
	assert.WithinRange(t, fresh, long, long.Add(late), "in the store too")

	// A pause of 1 s, on a budget of its own: once it has ended it is
	// reported with false.
	other := bank.client(t, store.NewMemoryStore())
	osvc, err := accounts.New(other)
	require.NoError(t, err)
	_, err = osvc.Balances(ctx, acc1, psuPresent()...)
	require.Error(t, err)
	end, paused, err := budget.Of(other).PausedUntil(ctx)
	require.NoError(t, err)
	require.True(t, paused)
	time.Sleep(time.Until(end) + 10*time.Millisecond)
	got, paused, err = budget.Of(other).PausedUntil(ctx)
	require.NoError(t, err)
	assert.False(t, paused)
	assert.True(t, got.Equal(end), "an ended pause is still reported")
}

// A 429 ACCESS_EXCEEDED with a Retry-After of a window or more is the
// account's budget, not a pause of the bank: no pause is recorded.
func TestAccessExceededIsNoPause(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "86400")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"tppMessages":[{"category":"ERROR","code":"ACCESS_EXCEEDED"}]}`))
	}))
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, testtpp.Credentials(t, "Budget pause TPP"), client.WithHTTPClient(srv.Client()),
		client.WithRetryPolicy(client.RetryPolicy{}))
	require.NoError(t, err)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	_, err = svc.Balances(ctx, acc1, psuAbsent()...)
	require.ErrorIs(t, err, client.ErrAccessExceeded)
	_, paused, err := budget.Of(c).PausedUntil(ctx)
	require.NoError(t, err)
	assert.False(t, paused)
	a, err := budget.Of(c).Remaining(ctx, acc1, budget.Balances)
	require.NoError(t, err)
	assert.Zero(t, a.Remaining, "the account's budget is spent instead")
}

// A store that cannot be read makes PausedUntil say so, with the pause
// the budget knows.
func TestPausedUntilStoreError(t *testing.T) {
	t.Parallel()
	bank := newSlowBank(t, 30)
	c := bank.client(t, &brokenStore{Store: store.NewMemoryStore(), err: errors.New("store down")})
	_, _, err := budget.Of(c).PausedUntil(context.Background())
	require.Error(t, err)
}

// A reservation, and each call made with it, waits for the end of the
// bank's pause up to its MaxWait; a longer pause refuses them with a
// *PausedError before anything is written or sent.
func TestReservationWaitsOutThePause(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := newSlowBank(t, 1)
	st := &writeCounter{Store: store.NewMemoryStore()}
	c := bank.client(t, st)
	svc, err := accounts.New(c)
	require.NoError(t, err)
	b := budget.Of(c)
	_, err = svc.Balances(ctx, acc1, psuPresent()...) // the bank's 429: a pause of 1 s
	require.Error(t, err)
	until, paused, err := b.PausedUntil(ctx)
	require.NoError(t, err)
	require.True(t, paused)
	bank.retryAfter.Store(0)
	sent := bank.requests.Load()

	writes := st.writes.Load()
	_, err = b.Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1})
	var pe *budget.PausedError
	require.ErrorAs(t, err, &pe)
	require.ErrorIs(t, err, budget.ErrPaused)
	assert.True(t, pe.Until.Equal(until))
	assert.Equal(t, writes, st.writes.Load(), "refused without a write")

	_, err = b.Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1, MaxWait: time.Minute})
	require.NoError(t, err)
	assert.False(t, time.Now().Before(until), "Reserve waited for the end of the pause")
	assert.Equal(t, writes+1, st.writes.Load())
	assert.Equal(t, sent, bank.requests.Load())

	// A pause that starts after a reservation that may not wait holds
	// its calls: they are refused, not sent.
	rsv, err := b.Reserve(ctx, budget.ReserveRequest{AccountID: acc1, Balances: 1})
	require.NoError(t, err)
	bank.retryAfter.Store(30)
	_, err = svc.Balances(ctx, acc2, psuPresent()...)
	require.Error(t, err)
	bank.retryAfter.Store(0)
	sent = bank.requests.Load()
	_, err = svc.Balances(ctx, acc1, psuAbsent(rsv.Option())...)
	require.ErrorIs(t, err, budget.ErrPaused)
	require.ErrorIs(t, err, client.ErrNotSent)
	assert.Equal(t, sent, bank.requests.Load(), "nothing sent during the pause")
	bl, _ := rsv.Left()
	assert.Equal(t, 1, bl, "the reserved call was not used")
}

// A pause in the store ending further ahead than any bank can ask
// (client.RetryAfterCap, and an hour for the writer's clock) was written
// by no replica with a sane clock, or is garbled: it is no pause. Before,
// it was taken as one, kept in every replica's budget even after the
// store dropped it, and carried forward by each later pause: the bank's
// calls and a job engine's queue stopped until then (years).
func TestPauseFarAheadIsNoPause(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := newSlowBank(t, 30)
	st := store.NewMemoryStore()
	c := bank.client(t, st)
	far := time.Now().Add(10 * 365 * 24 * time.Hour).UnixNano()
	require.NoError(t, st.Put(ctx, "budget/pause/"+c.Scope(), []byte(strconv.FormatInt(far, 10)), time.Hour))
	until, paused, err := budget.Of(c).PausedUntil(ctx)
	require.NoError(t, err)
	assert.False(t, paused, "paused until %v", until)

	// A bank's own pause is recorded as asked, not carried to the far end.
	svc, err := accounts.New(c)
	require.NoError(t, err)
	before := time.Now()
	_, err = svc.Balances(ctx, acc1, psuPresent()...)
	require.Error(t, err)
	until, paused, err = budget.Of(bank.client(t, st)).PausedUntil(ctx)
	require.NoError(t, err)
	assert.True(t, paused)
	assert.WithinRange(t, until, before.Add(30*time.Second), time.Now().Add(30*time.Second))
}

// A stored pause that is no time at all (a newer version's form, a
// garbled value) is no pause, as one far ahead is, but PausedUntil says
// it could not read it: a tool that reports the pause (psd2 budget)
// must not read it as none.
func TestPauseUnreadableIsAnError(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	bank := newSlowBank(t, 30)
	st := store.NewMemoryStore()
	c := bank.client(t, st)
	require.NoError(t, st.Put(ctx, "budget/pause/"+c.Scope(), []byte(`{"v":2,"until":"2030-01-01T00:00:00Z"}`), time.Hour))
	_, paused, err := budget.Of(c).PausedUntil(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unreadable")
	assert.False(t, paused, "no pause is made of it")

	// A bank's own pause replaces it, and reads again.
	svc, err := accounts.New(c)
	require.NoError(t, err)
	_, err = svc.Balances(ctx, acc1, psuPresent()...)
	require.Error(t, err)
	_, paused, err = budget.Of(bank.client(t, st)).PausedUntil(ctx)
	require.NoError(t, err)
	assert.True(t, paused)
}
