package riverrefresh_test

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/accounts"
	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/refreshbench"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/pgstore"
	"github.com/tppkit/psd2/pgstore/internal/pgtest"
	"github.com/tppkit/psd2/pgstore/riverrefresh"
	"github.com/tppkit/psd2/refresh"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/sca"
)

// outageSpan is the injected outage of TestOutageDuringRound.
const outageSpan = 5 * time.Second

// TestOutageDuringRound is issue 35's measurement: one River round of the
// accounts at two banks ("up" and "down", each its own emulator and queue
// in one engine), during which the down bank is out for 5 s (503 to every
// request, then connections refused), on the real clock. It asserts the
// correctness figures:
//
//   - no budget call reaches the down bank while its breaker is open: no
//     attempt starts while the breaker is open, in an operation that began
//     after it opened (the budget reserves a call only once the breaker
//     admitted it; an operation admitted before the breaker opened is in
//     flight, and counted apart);
//   - every account of either bank is refreshed within the round once the
//     down bank is back;
//
// and logs the rest: the up bank's throughput during the outage against
// the same span before it, the requests from the outage's start until the
// breaker opened, and the downtime record against the injected outage.
// It runs 200 accounts; RIVERREFRESH_OUTAGE_ACCOUNTS sets the number
// (half at each bank), for example
//
//	RIVERREFRESH_OUTAGE_ACCOUNTS=5000 go test -run OutageDuringRound -v -timeout 30m
func TestOutageDuringRound(t *testing.T) {
	n := 200
	if v, err := strconv.Atoi(os.Getenv("RIVERREFRESH_OUTAGE_ACCOUNTS")); err == nil && v >= 8 {
		n = v
	}
	for _, kind := range []emulator.OutageKind{emulator.OutageUnavailable, emulator.OutageRefused} {
		t.Run(kind.String(), func(t *testing.T) { outageRound(t, n, kind) })
	}
}

// outageBank is one bank of the measurement, with what it counts.
type outageBank struct {
	name string
	srv  *emulator.Server
	cl   *client.Client
	svc  *accounts.Service
	st   *pgstore.Store
	ids  []string
	// sent counts the requests that reached the bank's transport.
	sent atomic.Int64
	// open is set while the client's breaker is open or half-open (from
	// its opening to its closing); epoch counts its openings.
	open  atomic.Bool
	epoch atomic.Int64
	// whileOpen counts the attempts that started while the breaker was
	// open, in an operation that began after it opened; inFlight those of
	// an operation that began before, retries those of inFlight that
	// were not the operation's first attempt.
	whileOpen, inFlight, retries atomic.Int64
	// sentAtOpen is sent when the breaker first opened (-1: never).
	sentAtOpen atomic.Int64
	mu         sync.Mutex
	openedAt   time.Time
	closedAt   time.Time
}

func (b *outageBank) RoundTrip(req *http.Request) (*http.Response, error) {
	b.sent.Add(1)
	return b.srv.Client().Transport.RoundTrip(req)
}

// opKey keys an operation's view of the breaker in its context.
type opKey struct{}

// opView is the breaker as an operation saw it when it began.
type opView struct {
	open  bool
	epoch int64
}

func (b *outageBank) StartOperation(ctx context.Context, _ client.OperationStart) context.Context {
	return context.WithValue(ctx, opKey{}, opView{open: b.open.Load(), epoch: b.epoch.Load()})
}

func (b *outageBank) StartAttempt(ctx context.Context, a client.AttemptStart) context.Context {
	// BankHealth only reads a snapshot under the health view's lock,
	// which the client does not hold while it starts an attempt; OnChange
	// tells open and closed, not the half-open of a probe.
	if !b.open.Load() || b.cl.BankHealth().State != client.BreakerOpen {
		return ctx // closed, or the probe (half-open)
	}
	if v, _ := ctx.Value(opKey{}).(opView); v.open && v.epoch == b.epoch.Load() {
		b.whileOpen.Add(1)
	} else {
		b.inFlight.Add(1)
		if a.Attempt > 1 {
			b.retries.Add(1)
		}
	}
	return ctx
}

func (b *outageBank) ObserveAttempt(context.Context, client.AttemptEvent) {}
func (b *outageBank) EndOperation(context.Context, client.OperationEvent) {}

// changed follows the breaker's changes (client.Health.OnChange).
func (b *outageBank) changed(ch client.BreakerChange) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ch.To {
	case client.BreakerOpen:
		if b.openedAt.IsZero() {
			b.openedAt = time.Now()
			b.sentAtOpen.Store(b.sent.Load())
		}
		b.epoch.Add(1)
		b.open.Store(true)
	case client.BreakerClosed:
		b.closedAt = time.Now()
		b.open.Store(false)
	}
}

func outageRound(t *testing.T, n int, kind emulator.OutageKind) {
	ctx := t.Context()
	seedAt := time.Now().Add(-2 * time.Hour)
	newBank := func(name string, count int) *outageBank {
		b := &outageBank{name: name}
		b.sentAtOpen.Store(-1)
		b.srv = emulator.NewServer(emulator.WithTPPKey(testtpp.Key(t)), emulator.WithLimits(refreshbench.Limits))
		t.Cleanup(b.srv.Close)
		creds, err := b.srv.NewTPP("Outage TPP")
		require.NoError(t, err)
		// 2 accounts a customer; an odd half gets one more customer.
		seeded, err := b.srv.Control().Seed(ctx, creds.Certificate, refreshbench.Seed((count+1)/2, 2, 0, 2, seedAt))
		require.NoError(t, err)
		b.st = newStore(t, newPool(t), pgtest.CreateSchema(t))
		for i, cu := range seeded.Customers {
			s := refreshbench.Remembered(t, cu)
			require.NoError(t, sca.SaveSession(ctx, b.st, "user-"+strconv.Itoa(i), s))
			b.ids = append(b.ids, s.AccountIDs...)
		}
		b.cl, err = client.New(b.srv.URL, creds, client.WithHTTPClient(&http.Client{Transport: b}),
			client.WithDefaults(client.WithRedirectURI(testtpp.RedirectURI)), client.WithStore(b.st),
			client.WithObserver(b))
		require.NoError(t, err)
		b.cl.Health().OnChange(b.changed)
		b.svc, err = accounts.New(b.cl)
		require.NoError(t, err)
		return b
	}
	up, down := newBank("up", n/2), newBank("down", n-n/2)
	banks := []*outageBank{up, down}

	// done[bank][account] is the time of the account's refresh.
	var mu sync.Mutex
	done := map[string]map[string]time.Time{up.name: {}, down.name: {}}
	twice := 0
	handle := func(_ context.Context, bank string, res refresh.Result) {
		if res.Outcome != refresh.Done {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, ok := done[bank][res.Job.AccountID()]; ok {
			twice++
		}
		done[bank][res.Job.AccountID()] = time.Now()
	}
	counts := func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		return len(done[up.name]), len(done[down.name])
	}
	pool := newPool(t)
	schema := pgtest.CreateSchema(t)
	paused := map[string]*atomic.Int64{up.name: new(atomic.Int64), down.name: new(atomic.Int64)}
	event := func(ev riverrefresh.Event) {
		if ev.Kind == "paused" && paused[ev.Bank] != nil {
			paused[ev.Bank].Add(1)
		}
	}
	cfg := riverrefresh.Config{Pool: pool, Schema: schema, Work: true, Handle: handle, Event: event,
		Banks: map[string]riverrefresh.Bank{}}
	for _, b := range banks {
		cfg.Banks[b.name] = riverrefresh.Bank{Service: b.svc, Sessions: b.st, Workers: 4}
	}
	e, err := riverrefresh.New(cfg)
	require.NoError(t, err)
	require.NoError(t, e.Migrate(ctx))
	for _, b := range banks {
		_, err := e.Enqueue(ctx, b.name)
		require.NoError(t, err)
	}
	began := time.Now()
	start(t, e)

	// The outage starts once a fifth of the down bank's accounts are
	// refreshed.
	require.Eventually(t, func() bool { _, d := counts(); return d >= len(down.ids)/5 }, 5*time.Minute, time.Millisecond)
	sentAtStart := down.sent.Load()
	outageStart := time.Now()
	down.srv.Control().Outage(kind, outageSpan)
	upAtStart, _ := counts()
	outageEnd := outageStart.Add(outageSpan)

	require.Eventually(t, func() bool {
		u, d := counts()
		return u == len(up.ids) && d == len(down.ids)
	}, 10*time.Minute, 10*time.Millisecond, "every account of both banks refreshed within the round")
	finished := time.Now()
	state, _, _, err := down.cl.StoredBreaker(ctx)
	require.NoError(t, err)

	// (a) and (b): the figures this test asserts.
	assert.Zero(t, down.whileOpen.Load(), "budget calls sent to the down bank while its breaker was open")
	mu.Lock()
	for _, b := range banks {
		for _, id := range b.ids {
			assert.Contains(t, done[b.name], id, "an account of %s not refreshed in the round", b.name)
		}
	}
	assert.Zero(t, twice, "accounts refreshed twice")
	// The up bank's throughput: during the outage, against the same span
	// just before it (within the round, or from the round's start).
	before, during := 0, 0
	from := outageStart.Add(-outageSpan)
	if from.Before(began) {
		from = began
	}
	for _, at := range done[up.name] {
		switch {
		case !at.Before(from) && at.Before(outageStart):
			before++
		case !at.Before(outageStart) && at.Before(outageEnd):
			during++
		}
	}
	upLast := time.Time{}
	for _, at := range done[up.name] {
		if at.After(upLast) {
			upLast = at
		}
	}
	outside := len(done[up.name]) - during
	mu.Unlock()
	require.NotEqual(t, int64(-1), down.sentAtOpen.Load(), "the breaker opened")
	assert.Equal(t, client.BreakerClosed, state, "the breaker closed once the bank was back")

	rate := func(k int, from, to time.Time) float64 {
		if d := to.Sub(from).Seconds(); d > 0 {
			return float64(k) / d
		}
		return 0
	}
	t.Logf("%d accounts (%d at up, %d at down), outage %s of %v; round %.1fs; the up bank had %d done when it started and finished %.1fs after",
		n, len(up.ids), len(down.ids), kind, outageSpan, finished.Sub(began).Seconds(), upAtStart, upLast.Sub(outageStart).Seconds())
	t.Logf("(a) budget calls at the down bank while its breaker was open: %d (attempts started while it was open in operations admitted before: %d, %d of them retries)",
		down.whileOpen.Load(), down.inFlight.Load(), down.retries.Load())
	t.Logf("(b) accounts not refreshed in the round: 0 (asserted); refreshed twice: %d", twice)
	duringEnd := outageEnd // the up bank may have finished before the outage ended
	if upLast.Before(duringEnd) {
		duringEnd = upLast
	}
	if duringEnd.Before(outageStart) {
		duringEnd = outageStart
	}
	t.Logf("(c) up bank: %.0f accounts/s during the outage (%d in %.1fs) vs %.0f accounts/s in the %.1fs before it (%d)",
		rate(during, outageStart, duringEnd), during, duringEnd.Sub(outageStart).Seconds(),
		rate(before, from, outageStart), outageStart.Sub(from).Seconds(), before)
	if outsideSpan := upLast.Sub(began) - duringEnd.Sub(outageStart); outsideSpan > 0 {
		t.Logf("(c) up bank outside the outage: %.0f accounts/s (%d in %.1fs, from the round's start to its last refresh)",
			float64(outside)/outsideSpan.Seconds(), outside, outsideSpan.Seconds())
	}
	t.Logf("queue pauses: %d of the down bank's queue, %d of the up bank's", paused[down.name].Load(), paused[up.name].Load())
	down.mu.Lock()
	openedAt, closedAt := down.openedAt, down.closedAt
	down.mu.Unlock()
	t.Logf("(d) requests at the down bank from the outage's start until the breaker opened: %d (opened %.2fs after the start)",
		down.sentAtOpen.Load()-sentAtStart, openedAt.Sub(outageStart).Seconds())
	downs, err := down.cl.Downtimes(ctx, began, time.Now())
	require.NoError(t, err)
	for _, d := range downs {
		t.Logf("(e) downtime recorded %s..%s: start %+.2fs, end %+.2fs against the injected %s (breaker closed %+.2fs); %d failures recorded",
			d.Start.Format("15:04:05.000"), d.End.Format("15:04:05.000"), d.Start.Sub(outageStart).Seconds(),
			d.End.Sub(outageEnd).Seconds(), outageSpan, closedAt.Sub(outageEnd).Seconds(), d.Failures)
	}
	rep := client.Report(down.cl.Bank(), downs, began, time.Now(), time.Now())
	t.Logf("(e) report: %d unavailability, %v unavailable, longest %v", rep.Count, rep.Unavailable.Round(time.Millisecond),
		rep.Longest.Round(time.Millisecond))
	t.Logf("down bank health: %s", healthLine(down.cl.BankHealth()))
}

// healthLine is the counts of a bank's health view.
func healthLine(h client.BankHealth) string {
	return "requests " + strconv.Itoa(h.Requests) + ", answered " + strconv.Itoa(h.Answered) + ", 5xx " +
		strconv.Itoa(h.Status5xx) + ", timeouts " + strconv.Itoa(h.Timeouts) + ", state " + h.State.String()
}
