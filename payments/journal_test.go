package payments_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tppkit/psd2/client"
	"github.com/tppkit/psd2/internal/testkit/testtpp"
	"github.com/tppkit/psd2/journal"
	"github.com/tppkit/psd2/payments"
	"github.com/tppkit/psd2/sandbox/emulator"
	"github.com/tppkit/psd2/store"
)

// journaled returns a Service on b's client that journals into j.
func journaled(t *testing.T, b *bank, j *journal.Journal) *payments.Service {
	t.Helper()
	svc, err := payments.New(b.c, payments.WithJournal(j))
	require.NoError(t, err)
	return svc
}

// resolve resolves e with the journal it was read from, through c.
func resolve(ctx context.Context, c *client.Client, e journal.Entry, opts ...client.RequestOption) (journal.Resolution, error) {
	return e.Journal().Resolve(ctx, c, e, opts...)
}

// initiationOf decodes the bank's answer to the resend of res, which
// created the payment.
func initiationOf(t *testing.T, res journal.Resolution) *payments.Initiation {
	t.Helper()
	require.Equal(t, journal.ResolvedCreated, res.Kind)
	var init payments.Initiation
	require.NoError(t, json.Unmarshal(res.Answer, &init))
	return &init
}

// later returns a Journal on st whose clock runs an hour ahead: a
// resolver that runs once the bank is done with the creates whose
// outcome is unknown (Resolve and InDoubt leave them alone until then).
func later(t *testing.T, b *bank, st store.Store) *journal.Journal {
	t.Helper()
	leasesRunOut(t, st)
	return mustJournal(t, st, journalClock(t, b, testtpp.NewClock(time.Now().Add(time.Hour))))
}

// leasesRunOut removes the journal's in-flight leases from st, as the
// store's own clock would once the hour a test's journal clock moves on
// had passed: a lease keeps an entry in flight on the store's clock,
// whatever a journal's clock says.
func leasesRunOut(t *testing.T, st store.Store) {
	t.Helper()
	const flight = "journal/flight/" // the journal's in-flight leases
	for key, err := range st.Keys(t.Context(), flight) {
		require.NoError(t, err)
		require.NoError(t, st.Delete(t.Context(), key))
	}
}

// agingJournal returns a Journal on st whose clock stands still until
// bankDone moves it on by an hour: past the time the bank may still work
// on a create whose outcome is unknown (Resolve and InDoubt leave such an
// entry alone until then).
func agingJournal(t *testing.T, b *bank, st store.Store) (j *journal.Journal, bankDone func()) {
	t.Helper()
	clock := testtpp.NewClock(time.Now())
	return mustJournal(t, st, journalClock(t, b, clock)), func() {
		clock.Add(time.Hour)
		leasesRunOut(t, st)
	}
}

// mustEntry reads the entry of requestID from j.
func mustEntry(t *testing.T, j *journal.Journal, requestID string) journal.Entry {
	t.Helper()
	e, err := j.Entry(t.Context(), requestID)
	require.NoError(t, err)
	return e
}

// mustJournal returns a new Journal on st.
func mustJournal(t testing.TB, st store.Store, opts ...journal.Option) *journal.Journal {
	t.Helper()
	j, err := journal.New(st, opts...)
	require.NoError(t, err)
	return j
}

// inDoubt collects j.InDoubt.
func inDoubt(t *testing.T, j *journal.Journal) []journal.Entry {
	t.Helper()
	var out []journal.Entry
	for e, err := range j.InDoubt(t.Context()) {
		require.NoError(t, err)
		out = append(out, e)
	}
	return out
}

func TestJournalRecordsCreates(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBank(t)
	j := mustJournal(t, store.NewMemoryStore())
	svc := journaled(t, b, j)

	p := ndct(kariBruk, "321.00")
	id := uuid.NewString()
	init, err := svc.CreateNorwegianDomestic(ctx, p, b.pisp(client.WithRequestID(id))...)
	require.NoError(t, err)

	e, err := j.Entry(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, id, e.RequestID)
	assert.Equal(t, "payments.CreateNorwegianDomestic", e.Operation)
	assert.Equal(t, "paymentId", e.Create.ResultID)
	assert.True(t, e.Create.NotFoundUntilApproved, "an NDCT")
	assert.Equal(t, b.s.URL+"/v1/payments/norwegian-domestic-credit-transfers", e.URL)
	want, err := json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(e.Body), "the exact body")
	assert.Equal(t, b.psu.TPPSessionID, e.SessionKey)
	assert.False(t, e.AllowLogicalDuplicate)
	assert.Equal(t, journal.OutcomeCreated, e.Outcome)
	assert.Equal(t, init.PaymentID, e.ID)
	assert.Equal(t, http.StatusCreated, e.StatusCode)
	assert.WithinDuration(t, time.Now(), e.Created, time.Minute)
	assert.False(t, e.InDoubt())

	// Neither String nor JSON shows the body, the session or the PSU.
	js, err := json.Marshal(e)
	require.NoError(t, err)
	for _, secret := range []string{kariBruk, external, b.psu.TPPSessionID, b.psu.PSUID, psuIP} {
		assert.NotContains(t, e.String(), secret)
		assert.NotContains(t, string(js), secret)
	}

	// The same content again: the bank refuses a logical duplicate.
	dupID := uuid.NewString()
	_, err = svc.CreateNorwegianDomestic(ctx, p, b.pisp(client.WithRequestID(dupID))...)
	require.Error(t, err)
	e, err = j.Entry(ctx, dupID)
	require.NoError(t, err)
	assert.Equal(t, journal.OutcomeRefused, e.Outcome)
	assert.Equal(t, http.StatusBadRequest, e.StatusCode)
	assert.Equal(t, []string{client.CodePaymentFailed}, e.Codes)

	// With AllowLogicalDuplicate it is created, and the entry says so.
	allowID := uuid.NewString()
	_, err = svc.CreateNorwegianDomestic(ctx, p, b.pisp(client.WithRequestID(allowID), payments.AllowLogicalDuplicate())...)
	require.NoError(t, err)
	e, err = j.Entry(ctx, allowID)
	require.NoError(t, err)
	assert.True(t, e.AllowLogicalDuplicate)
	assert.Equal(t, journal.OutcomeCreated, e.Outcome)

	// A request id already journaled is refused before sending.
	_, err = svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "1.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrNotSent)
	require.ErrorIs(t, err, journal.ErrJournal)
	assert.Len(t, b.paymentsHeld(), 2)

	assert.Empty(t, inDoubt(t, j), "nothing is in doubt")
	n := 0
	for _, err := range j.Entries(ctx) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 3, n)
}

// failingStore refuses updates once armed or, dead, loses every write
// once armed: the process died, so nothing it would write reaches the
// store.
type failingStore struct {
	store.Store
	failAfter atomic.Int32 // writes allowed; negative: all
	dead      atomic.Bool  // count every write, and lose the refused ones
}

var errStoreDown = errors.New("store down")

func (s *failingStore) Update(ctx context.Context, key string, fn func([]byte, bool) ([]byte, time.Duration, error)) error {
	if s.failAfter.Add(-1) < 0 {
		if s.dead.Load() {
			return nil
		}
		return errStoreDown
	}
	return s.Store.Update(ctx, key, fn)
}

func (s *failingStore) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if s.dead.Load() && s.failAfter.Add(-1) < 0 {
		return nil
	}
	return s.Store.Put(ctx, key, v, ttl)
}

func (s *failingStore) Delete(ctx context.Context, key string) error {
	if s.dead.Load() && s.failAfter.Add(-1) < 0 {
		return nil
	}
	return s.Store.Delete(ctx, key)
}

// diedAfterSending makes st lose every write after a create's intent,
// in-flight lease and open marker, as when the process dies once its
// create left.
func diedAfterSending(st *failingStore) {
	st.dead.Store(true)
	st.failAfter.Store(3)
}

// pastInFlight moves clock past the in-flight time of e.
func pastInFlight(t *testing.T, clock *testtpp.Clock, st store.Store, e journal.Entry) {
	t.Helper()
	end := e.Created.Add(journal.DefaultInFlight)
	if e.Until.After(end) {
		end = e.Until
	}
	clock.Add(end.Sub(clock.Now()) + time.Second)
	// The entry's in-flight lease runs out on the store's clock, which
	// the test's memory store does not take from clock: end it as the
	// store would.
	require.NoError(t, st.Delete(t.Context(), "journal/flight/"+e.RequestID))
}

// Nothing leaves without a journal entry: a store that fails stops the
// create before it is sent.
func TestJournalStoreErrorStopsTheCreate(t *testing.T) {
	t.Parallel()
	b := newBank(t)
	st := &failingStore{Store: store.NewMemoryStore()}
	svc := journaled(t, b, mustJournal(t, st))
	_, err := svc.CreateNorwegianDomestic(t.Context(), ndct(kariBruk, "10.00"), b.pisp()...)
	require.ErrorIs(t, err, client.ErrNotSent)
	require.ErrorIs(t, err, errStoreDown)
	assert.Empty(t, b.paymentsHeld(), "nothing was sent")
}

// When the outcome cannot be recorded (the process dies after sending),
// the entry stays without an outcome: InDoubt yields it once the
// in-flight time has passed, and Resolve reads what the bank has.
func TestJournalEntryWithoutOutcome(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBank(t)
	clock := testtpp.NewClock(time.Now())
	st := &failingStore{Store: store.NewMemoryStore()}
	diedAfterSending(st)
	j := mustJournal(t, st, journal.WithClient(testtpp.NewClient(t, b.s, "Journal clock", client.WithClock(clock.Now))))
	svc := journaled(t, b, j)
	id := uuid.NewString()
	_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "42.00"), b.pisp(client.WithRequestID(id))...)
	require.NoError(t, err, "the payment was created; only its outcome is not journaled")
	st.dead.Store(false)
	st.failAfter.Store(1 << 30)

	e, err := j.Entry(ctx, id)
	require.NoError(t, err)
	assert.Empty(t, e.Outcome)
	assert.True(t, e.InDoubt())
	assert.Empty(t, inDoubt(t, j), "younger than the in-flight time: maybe still on its way")
	clock.Add(journal.DefaultInFlight + time.Second)
	assert.Empty(t, inDoubt(t, j), "the create may run longer than the in-flight time")
	pastInFlight(t, clock, st, e)
	doubt := inDoubt(t, j)
	require.Len(t, doubt, 1)

	res, err := resolve(ctx, b.c, doubt[0], b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedDuplicate, res.Kind, "the first payment exists")
	assert.Len(t, b.paymentsHeld(), 1, "never a second payment")
	assert.Empty(t, inDoubt(t, j))
}

func TestResolve(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fault   *emulator.Fault
		allow   bool
		want    journal.ResolutionKind
		held    int
		inDoubt bool // after Resolve
	}{
		{name: "answer lost, payment created", fault: &emulator.Fault{Kind: emulator.FaultDropAfterBody},
			want: journal.ResolvedDuplicate, held: 1},
		{name: "dropped before processing", fault: &emulator.Fault{Kind: emulator.FaultDropBeforeProcessing},
			want: journal.ResolvedCreated, held: 1},
		{name: "503, not processed", fault: &emulator.Fault{Kind: emulator.FaultStatus, Status: http.StatusServiceUnavailable},
			want: journal.ResolvedCreated, held: 1},
		{name: "known id", want: journal.ResolvedStatus, held: 1},
		{name: "allowLogicalDuplicate, answer lost", fault: &emulator.Fault{Kind: emulator.FaultDropAfterBody}, allow: true,
			want: journal.NeedsPerson, held: 1, inDoubt: true},
		{name: "allowLogicalDuplicate, not processed", fault: &emulator.Fault{Kind: emulator.FaultDropBeforeProcessing}, allow: true,
			want: journal.NeedsPerson, held: 0, inDoubt: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			b := newBank(t)
			j, bankDone := agingJournal(t, b, store.NewMemoryStore())
			svc := journaled(t, b, j)
			if tc.fault != nil {
				f := *tc.fault
				f.Method, f.PathPrefix = http.MethodPost, "/v1/payments/"
				b.s.Control().InjectFault(f)
			}
			opts := b.pisp()
			if tc.allow {
				opts = append(opts, payments.AllowLogicalDuplicate())
			}
			id := uuid.NewString()
			init, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "250.00"), append(opts, client.WithRequestID(id))...)
			if tc.fault != nil && !tc.allow { // (allowLogicalDuplicate: NeedsPerson at once, nothing sent)
				require.Len(t, inDoubt(t, j), 1, "in doubt at once")
				_, err := resolve(ctx, b.c, mustEntry(t, j, id), b.pisp()...)
				require.ErrorIs(t, err, journal.ErrInFlight, "the bank may still be working on it")
			}
			bankDone()
			e, jerr := j.Entry(ctx, id)
			require.NoError(t, jerr)
			if tc.fault != nil {
				require.ErrorIs(t, err, client.ErrOutcomeUnknown)
				assert.Equal(t, journal.OutcomeUnknown, e.Outcome)
				doubt := inDoubt(t, j)
				require.Len(t, doubt, 1)
				assert.Equal(t, id, doubt[0].RequestID)
			} else {
				require.NoError(t, err)
				assert.Empty(t, inDoubt(t, j))
			}

			res, err := resolve(ctx, b.c, e, b.pisp()...)
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Kind, res.Reason)
			held := b.paymentsHeld()
			require.Len(t, held, tc.held, "exactly one payment, never two")
			switch tc.want {
			case journal.ResolvedCreated:
				assert.Equal(t, held[0].ID, res.ID)
				assert.Equal(t, res.ResendRequestID, held[0].RequestID)
				assert.NotEmpty(t, initiationOf(t, res).SCARedirect(), "the PSU approves the payment created now")
				resend, err := j.Entry(ctx, res.ResendRequestID)
				require.NoError(t, err)
				assert.Equal(t, id, resend.Resolves, "the resend is journaled too")
				assert.Equal(t, journal.OutcomeCreated, resend.Outcome)
				assert.Equal(t, e.Body, resend.Body, "the same body")
				assert.False(t, resend.AllowLogicalDuplicate)
			case journal.ResolvedDuplicate:
				assert.Empty(t, res.ID)
				assert.Equal(t, id, held[0].RequestID, "the first payment is the one")
				resend, err := j.Entry(ctx, res.ResendRequestID)
				require.NoError(t, err)
				assert.Equal(t, journal.OutcomeRefused, resend.Outcome)
			case journal.ResolvedStatus:
				assert.Equal(t, init.PaymentID, res.ID)
				assert.Empty(t, res.Status, "an NDCT is unreadable before SCA")
				b.authorize(t, init.SCARedirect())
				res, err = resolve(ctx, b.c, e, b.pisp()...)
				require.NoError(t, err)
				assert.Equal(t, string(payments.StatusACTC), res.Status)
			case journal.NeedsPerson:
				assert.Empty(t, res.ResendRequestID, "nothing was sent")
				assert.Contains(t, res.Reason, "allowLogicalDuplicate")
			}

			e, err = j.Entry(ctx, id)
			require.NoError(t, err)
			require.NotNil(t, e.Resolution)
			assert.Equal(t, tc.want, e.Resolution.Kind)
			assert.Equal(t, tc.inDoubt, e.InDoubt())
			assert.Len(t, inDoubt(t, j), map[bool]int{true: 1}[tc.inDoubt])

			// Resolving again sends no second create.
			again, err := resolve(ctx, b.c, e, b.pisp()...)
			require.NoError(t, err)
			assert.Len(t, b.paymentsHeld(), tc.held)
			if tc.want == journal.ResolvedCreated {
				assert.Equal(t, journal.ResolvedStatus, again.Kind, "the id is known now")
			}
		})
	}
}

func TestResolveRefuses(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBank(t)
	j, bankDone := agingJournal(t, b, store.NewMemoryStore())
	svc := journaled(t, b, j)
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	id := uuid.NewString()
	_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "77.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	bankDone()
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)

	// An option that would allow a logical duplicate stops the resend.
	_, err = resolve(ctx, b.c, e, append(b.pisp(), payments.AllowLogicalDuplicate())...)
	require.ErrorIs(t, err, client.ErrNotSent)
	assert.Empty(t, b.paymentsHeld())

	// A client of another bank must not resend it.
	other := newBank(t)
	_, err = resolve(ctx, other.c, e, other.pisp()...)
	require.ErrorIs(t, err, journal.ErrNotResolvable)
	assert.Empty(t, other.paymentsHeld())

	// An entry not read from a journal.
	_, err = resolve(ctx, b.c, journal.Entry{RequestID: id})
	require.ErrorIs(t, err, journal.ErrNotResolvable)

	assert.Len(t, inDoubt(t, j), 1, "still in doubt")
	res, err := resolve(ctx, b.c, e, b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedCreated, res.Kind)
	assert.Len(t, b.paymentsHeld(), 1)
}

// Two replicas resolve the same entry at once: one claims it and sends
// the create again, the other finds the claim and sends nothing
// (journal.ErrClaimed) or, once the first is done, reads the status of
// the payment it created; the journal keeps the resolution that knows
// the id.
func TestResolveConcurrently(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBank(t)
	st := store.NewMemoryStore()
	j := mustJournal(t, st)
	svc := journaled(t, b, j)
	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropBeforeProcessing, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	id := uuid.NewString()
	_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "88.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)

	replicas := []*journal.Journal{later(t, b, st), later(t, b, st)}
	type result struct {
		res journal.Resolution
		err error
	}
	results := make(chan result, len(replicas))
	for _, r := range replicas {
		go func() {
			e, err := r.Entry(ctx, id)
			assert.NoError(t, err)
			res, err := r.Resolve(ctx, b.c, e, b.pisp()...)
			results <- result{res, err}
		}()
	}
	kinds := map[journal.ResolutionKind]int{}
	for range replicas {
		r := <-results
		if r.err != nil {
			require.ErrorIs(t, r.err, journal.ErrClaimed)
			kinds["claimed"]++
			continue
		}
		kinds[r.res.Kind]++
	}
	held := b.paymentsHeld()
	require.Len(t, held, 1, "one payment, whoever resolved")
	assert.Equal(t, 1, kinds[journal.ResolvedCreated], "%v", kinds)
	e, err := j.Entry(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, held[0].ID, e.ID, "the journal keeps the id")
	assert.False(t, strings.Contains(e.String(), kariBruk))
}

// keysUnder lists the store's keys with prefix.
func keysUnder(t *testing.T, st store.Store, prefix string) []string {
	t.Helper()
	var out []string
	for k, err := range st.Keys(t.Context(), prefix) {
		require.NoError(t, err)
		out = append(out, k)
	}
	return out
}

// InDoubt reads only open entries: each create leaves a marker in the
// store until its entry is settled (an outcome that is not unknown, or a
// resolution), so months of settled payments cost InDoubt nothing. A
// marker without its entry is never removed of the journal's own (its
// payment may exist): journal.Lost yields it once it is older than the
// in-flight time, and a person's settlement removes it.
func TestJournalOpenMarkers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	b := newBank(t)
	st := store.NewMemoryStore()
	clock := testtpp.NewClock(time.Now())
	j := mustJournal(t, st, journal.WithClient(testtpp.NewClient(t, b.s, "Journal clock", client.WithClock(clock.Now))))
	svc := journaled(t, b, j)
	const open = "journal/open/"

	for _, amount := range []string{"1.00", "2.00", "3.00"} {
		_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, amount), b.pisp()...)
		require.NoError(t, err)
	}
	assert.Empty(t, keysUnder(t, st, open), "settled creates leave no marker")
	assert.Len(t, keysUnder(t, st, "journal/entry/"), 3)

	b.s.Control().InjectFault(emulator.Fault{Kind: emulator.FaultDropAfterBody, Method: http.MethodPost, PathPrefix: "/v1/payments/"})
	id := uuid.NewString()
	_, err := svc.CreateNorwegianDomestic(ctx, ndct(kariBruk, "4.00"), b.pisp(client.WithRequestID(id))...)
	require.ErrorIs(t, err, client.ErrOutcomeUnknown)
	assert.Equal(t, []string{open + id}, keysUnder(t, st, open))
	clock.Add(time.Hour) // the bank is done with it
	leasesRunOut(t, st)

	// A marker left by a process that died before writing its intent.
	orphan := open + "orphan-request"
	require.NoError(t, st.Put(ctx, orphan, []byte(clock.Now().Format(time.RFC3339Nano)), 0))
	doubt := inDoubt(t, j)
	require.Len(t, doubt, 1)
	assert.Contains(t, keysUnder(t, st, open), orphan, "young: its intent may still come")
	clock.Add(journal.DefaultInFlight)
	require.Len(t, inDoubt(t, j), 1, "nothing to resolve for it")
	assert.Contains(t, keysUnder(t, st, open), orphan, "old and without its entry: kept, its payment may exist (journal.Lost)")
	var lost []journal.Lost
	for l, err := range j.Lost(ctx) {
		require.NoError(t, err)
		lost = append(lost, l)
	}
	require.Len(t, lost, 1)
	assert.Equal(t, "orphan-request", lost[0].RequestID)
	_, err = j.SettleByPerson(ctx, "orphan-request", "ops-anna", "no such payment at the bank")
	require.NoError(t, err)
	assert.NotContains(t, keysUnder(t, st, open), orphan, "settled by a person: removed")

	res, err := resolve(ctx, b.c, doubt[0], b.pisp()...)
	require.NoError(t, err)
	assert.Equal(t, journal.ResolvedDuplicate, res.Kind)
	assert.Empty(t, keysUnder(t, st, open), "resolved: the marker is gone")
	assert.Len(t, b.paymentsHeld(), 4)
}
